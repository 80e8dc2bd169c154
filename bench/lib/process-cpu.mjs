// Per-process CPU time and scheduling counters, read from /proc so each measured process
// (service, gateway, upstream) is charged separately for the same load.
import { readFileSync } from 'node:fs';

/** USER_HZ: the unit of utime and stime in /proc/<pid>/stat. */
const TICKS_PER_SECOND = 100;

/** The fields of /proc/<pid>/stat after the command name (field 3 onwards, so utime is [11]). */
function statFields(pid) {
  return readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
}

/** CPU time (ms, user + system) a process used so far, from /proc (Linux); null elsewhere. */
export function cpuMs(pid) {
  try {
    const fields = statFields(pid);
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / TICKS_PER_SECOND;
  } catch {
    return null;
  }
}

/**
 * What a process has used so far besides CPU time, from /proc (Linux); null elsewhere: user
 * and system CPU (ms, all threads), minor page faults, and its main thread's voluntary
 * context switches (it waited) and involuntary ones (it was preempted). Divided by requests,
 * these tell a process that spends more because it does more from one that is interrupted
 * more.
 */
export function processCounters(pid) {
  try {
    const fields = statFields(pid);
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const line = (name) => Number(new RegExp(`^${name}:\\s+(\\d+)`, 'm').exec(status)?.[1] ?? NaN);
    return {
      userMs: (Number(fields[11]) * 1000) / TICKS_PER_SECOND,
      sysMs: (Number(fields[12]) * 1000) / TICKS_PER_SECOND,
      minorFaults: Number(fields[7]),
      voluntarySwitches: line('voluntary_ctxt_switches'),
      involuntarySwitches: line('nonvoluntary_ctxt_switches'),
    };
  } catch {
    return null;
  }
}
