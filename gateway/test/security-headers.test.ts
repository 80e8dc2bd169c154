// Every answer of the origin carries the API security headers: proxied, the gateway's own,
// and its JSON errors; a service's own value of one of them is kept.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  request,
  startGateway,
  startStubs,
  urlsOf,
  type RunningGateway,
  type Stub,
} from './helpers.js';
import type { UpstreamName } from '../src/config.js';

let stubs: Record<UpstreamName, Stub>;
let gw: RunningGateway;

beforeAll(async () => {
  stubs = await startStubs();
  gw = await startGateway(urlsOf(stubs));
});
afterAll(async () => {
  await gw.close();
  await Promise.all(Object.values(stubs).map((s) => s.close()));
});

const EXPECTED = {
  'content-security-policy': "default-src 'none';frame-ancestors 'none'",
  'x-content-type-options': 'nosniff',
  'x-frame-options': 'DENY',
  'referrer-policy': 'no-referrer',
  'strict-transport-security': 'max-age=31536000; includeSubDomains',
  'cross-origin-resource-policy': 'same-origin',
};

describe('security headers', () => {
  it.each([
    ['a proxied answer', '/api/v1/apps'],
    ['the gateway’s own answer', '/healthz'],
    ['a discovery document', '/llms.txt'],
    ['the gateway’s 404', '/nowhere'],
  ])('%s carries them', async (_what, path) => {
    const res = await request(gw.url + path);
    expect(res.status).toBeLessThan(500);
    for (const [name, value] of Object.entries(EXPECTED)) {
      expect([name, res.headers[name]]).toEqual([name, value]);
    }
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('on the gateway’s own JSON errors for an unreachable service', async () => {
    const down = await startGateway({ ...urlsOf(stubs), 'app-store': 'http://127.0.0.1:1' });
    try {
      const res = await request(`${down.url}/api/v1/apps`);
      expect(res.status).toBe(502);
      expect(res.headers['content-security-policy']).toBe(EXPECTED['content-security-policy']);
      expect(res.headers['x-content-type-options']).toBe('nosniff');
    } finally {
      await down.close();
    }
  });

  it('keeps a service’s own value of one of them, and repeated upstream headers', async () => {
    const res = await request(`${gw.url}/api/v1/own-csp`);
    expect(res.status).toBe(201);
    expect(res.headers['content-security-policy']).toBe("img-src 'self'");
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    const cookies = await request(`${gw.url}/api/v1/cookies`);
    expect(cookies.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/; HttpOnly']);
    expect(cookies.headers['x-frame-options']).toBe('DENY');
  });
});
