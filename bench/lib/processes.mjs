// Starting the processes a benchmark measures: a free loopback port to give a child, and
// waiting until the child answers 200 on a URL (failing fast if it exits first).
import http from 'node:http';

export const HOST = '127.0.0.1';

export const sleep = (ms) => new Promise((r) => setTimeout(r, ms));

/** A TCP port free on HOST right now (the OS picks it; the child binds it next). */
export function freePort() {
  return new Promise((resolve, reject) => {
    const s = http.createServer();
    s.listen(0, HOST, () => {
      const { port } = s.address();
      s.close(() => resolve(port));
    });
    s.on('error', reject);
  });
}

/** Polls `url` every 100 ms until it answers 200; throws if `child` exits or after `attempts`. */
export async function waitFor(url, child, what, { attempts = 150 } = {}) {
  for (let i = 0; i < attempts; i++) {
    if (child.exitCode !== null) throw new Error(`${what} exited with ${child.exitCode}`);
    const ok = await new Promise((resolve) => {
      http
        .get(url, (res) => {
          res.resume();
          resolve(res.statusCode === 200);
        })
        .on('error', () => resolve(false));
    });
    if (ok) return;
    await sleep(100);
  }
  throw new Error(`${what} did not come up at ${url}`);
}
