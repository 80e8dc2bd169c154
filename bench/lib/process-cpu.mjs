// Per-process CPU time, read from /proc so each measured process (service, gateway,
// upstream) is charged separately for the same load.
import { readFileSync } from 'node:fs';

/** CPU time (ms, user + system) a process used so far, from /proc (Linux); null elsewhere. */
export function cpuMs(pid) {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ');
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime; USER_HZ = 100
  } catch {
    return null;
  }
}
