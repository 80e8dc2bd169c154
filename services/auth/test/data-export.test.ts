// GET /api/auth/export on the real auth app, PostgreSQL and Redis, where the other services
// cannot give their part: nothing listening, a peer that never answers, a peer answering
// an error or a shape the part's schema refuses. Each is 503 with Retry-After, never a
// partial export, and gives its rate-limit point back. 401 without a session or for a user
// who no longer exists. (The whole export, 200 and 429, runs against the real services in
// tests/test/data-export.test.ts.)
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import net from 'node:net';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { signSessionToken } from '@svc/service-kit';
import { INTERNAL_TOKEN_HEADER } from '@svc/types';
import { startHarness, type Harness } from './harness.js';

const servers: Array<{ close(): unknown }> = [];
afterAll(() => servers.forEach((s) => s.close()));

async function listen<S extends net.Server>(server: S): Promise<string> {
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  servers.push({ close: () => (server.close(), (server as unknown as http.Server).closeAllConnections?.()) });
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

/** A peer that takes the connection and never answers. */
const silentPeer = () => {
  const sockets: net.Socket[] = [];
  const server = net.createServer((s) => sockets.push(s));
  servers.push({ close: () => sockets.forEach((s) => s.destroy()) });
  return listen(server);
};
/** A plain HTTP peer answering one fixed status and body, recording the token it was sent. */
const fixedPeer = (status: number, body: string, tokens: unknown[] = []) =>
  listen(
    http.createServer((req, res) => {
      tokens.push(req.headers[INTERNAL_TOKEN_HEADER]);
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    }),
  );

const exportAs = (h: Harness, cookie?: string) => {
  const r = request(h.app).get('/api/auth/export');
  return cookie ? r.set('Cookie', cookie) : r;
};

describe('GET /api/auth/export without its parts', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(() => h.close());

  it('answers 401 without a session, and for a session whose user is gone', async () => {
    const none = await exportAs(h);
    expect([none.status, none.body]).toEqual([401, { error: 'Authentication required' }]);
    const { token } = signSessionToken({ id: 'gone-user', email: 'gone@example.com', username: 'gone' }, h.keys.privateKey);
    expect((await exportAs(h, `sn_token=${token}`)).status).toBe(401);
  });

  it('answers 503 with Retry-After when no service listens, and never counts the try', async () => {
    const { cookie } = await h.login('outage@example.com');
    // Twice the hourly limit: every try is refunded, so none is a 429.
    for (let i = 0; i < 6; i++) {
      const res = await exportAs(h, cookie);
      expect([res.status, res.body, res.headers['retry-after']]).toEqual([
        503,
        { error: 'Service temporarily unavailable' },
        '30',
      ]);
      expect(res.headers['content-disposition']).toBeUndefined();
    }
  });
});

describe.each([
  ['never answers', () => silentPeer(), false],
  ['answers 500', (tokens: unknown[]) => fixedPeer(500, '{"error":"Internal server error"}', tokens), true],
  ['answers 403 (another token)', (tokens: unknown[]) => fixedPeer(403, '{"error":"Forbidden"}', tokens), true],
  [
    'answers a shape its schema refuses',
    (tokens: unknown[]) => fixedPeer(200, '{"data":{},"moderation":{"by_you":[],"about_you":[]}}', tokens),
    true,
  ],
  ['answers something that is not JSON', (tokens: unknown[]) => fixedPeer(200, '<html>', tokens), true],
])('a peer that %s', (_name, start, answers) => {
  let h: Harness;
  const tokens: unknown[] = [];
  beforeAll(async () => {
    const broken = await start(tokens);
    h = await startHarness({
      userDataUrls: { 'app-store': broken, sites: broken, chat: broken },
      exportTimeoutMs: 300,
    });
  });
  afterAll(() => h.close());

  it('fails the whole export with 503, within the timeout', async () => {
    const { cookie } = await h.login('someone@example.com');
    const started = Date.now();
    const res = await exportAs(h, cookie);
    expect([res.status, res.body]).toEqual([503, { error: 'Service temporarily unavailable' }]);
    expect(Date.now() - started).toBeLessThan(2_000);
    // The internal calls carry the shared token, one call per service.
    if (answers) expect(tokens).toEqual(Array(3).fill('auth-test-internal-token'));
  });
});
