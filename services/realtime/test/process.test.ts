// The real entry point: starts, serves its health endpoints, refuses WebSocket upgrades
// (they come with issue #5) with a JSON 404, stops cleanly on SIGTERM.
import http from 'node:http';
import { fileURLToPath } from 'node:url';
import { afterAll, describe, expect, it } from '@jest/globals';
import { TEST_REDIS_URL } from '@svc/service-kit/testing';
import { spawnService, waitForOk, type ServiceProcess } from '@svc/service-kit/testing';

const SERVICE_ROOT = fileURLToPath(new URL('..', import.meta.url));

let proc: ServiceProcess | undefined;

afterAll(() => {
  if (proc && proc.child.exitCode === null) proc.child.kill('SIGKILL');
});

function upgradeStatus(port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      port,
      host: '127.0.0.1',
      path: '/api/ws',
      headers: {
        Connection: 'Upgrade',
        Upgrade: 'websocket',
        'Sec-WebSocket-Version': '13',
        'Sec-WebSocket-Key': 'dGhlIHNhbXBsZSBub25jZQ==',
      },
    });
    req.on('response', (res) => {
      res.resume();
      resolve(res.statusCode ?? 0);
    });
    req.on('upgrade', (_res, socket) => {
      socket.destroy();
      reject(new Error('upgrade accepted'));
    });
    req.on('error', reject);
    req.end();
  });
}

describe('realtime process', () => {
  it('serves /healthz and /readyz, answers upgrades 404, then exits 0 within 10 s of SIGTERM', async () => {
    proc = await spawnService({
      cwd: SERVICE_ROOT,
      source: true,
      entry: 'src/main.ts',
      env: { REDIS_URL: TEST_REDIS_URL },
    });
    await waitForOk(proc, '/healthz');
    await waitForOk(proc, '/readyz', 10_000);
    expect(await upgradeStatus(proc.port)).toBe(404);

    expect(await proc.stop(10_000)).toBe(0);
  }, 90_000);
});
