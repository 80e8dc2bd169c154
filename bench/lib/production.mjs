// The settings a process refuses to start without when NODE_ENV=production
// (docs/configuration.md, "Production requirements"; docs/decisions/013-operations-port.md), for the
// benchmarks that run the built processes as production does. Call it once per run: every
// process of the run gets the same secrets, as in a deployment. A process ignores the
// settings it does not read.
import { randomBytes } from 'node:crypto';

const secret = () => randomBytes(24).toString('hex');

/**
 * `publicBaseUrl`: the bench gateway's own origin (PUBLIC_BASE_URL of gateway, sites and web,
 * API_BASE_URL of web). `resendBaseUrl`: a loopback fake of Resend (the kit's
 * startFakeResend) for auth, so a login code is never mailed anywhere else.
 */
export function productionSettings({ publicBaseUrl, resendBaseUrl } = {}) {
  return {
    IP_HASH_SECRET: secret(),
    INTERNAL_TOKEN: secret(),
    ...(publicBaseUrl && { PUBLIC_BASE_URL: publicBaseUrl, API_BASE_URL: publicBaseUrl }),
    ...(resendBaseUrl && { RESEND_API_KEY: `re_bench_${secret()}`, RESEND_BASE_URL: resendBaseUrl }),
  };
}
