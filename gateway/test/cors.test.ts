// CORS for frontends on other origins (CORS_ORIGINS): the parser, the policy, and what a
// running gateway answers on /api, its own errors, pages and preflights.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { HTTP_METHODS } from '@svc/types';
import { loadConfig, type UpstreamName } from '../src/config.js';
import {
  CORS_ALLOW_HEADERS,
  CORS_ALLOW_METHODS,
  CORS_EXPOSE_HEADERS,
  createCors,
  isApiPath,
  isPreflight,
  parseCorsOrigins,
} from '../src/edge/cors.js';
import { closedPortUrl, request, startGateway, startStubs, urlsOf, type RunningGateway, type Stub } from './helpers.js';

const FRONTEND = 'https://app.partner.example';
const OTHER = 'https://evil.example';

describe('parseCorsOrigins', () => {
  it.each([
    [undefined, []],
    ['', []],
    [' , ', []],
    ['https://app.partner.example', ['https://app.partner.example']],
    ['https://a.example, http://localhost:5173', ['https://a.example', 'http://localhost:5173']],
    // The browsers' serialization: lower-case host, default port dropped; duplicates once.
    ['https://A.Example:443,https://a.example', ['https://a.example']],
    ['http://[::1]:3000', ['http://[::1]:3000']],
  ])('%p → %p', (raw, expected) => {
    expect(parseCorsOrigins(raw)).toEqual(expected);
  });

  it.each([
    'a.example',
    '*',
    'null',
    'https://a.example/',
    'https://a.example/app',
    'https://a.example?x=1',
    'https://a.example#x',
    'https://user:pw@a.example',
    'ftp://a.example',
    'https://',
    'https://a.example, /relative',
  ])('rejects %p', (raw) => {
    expect(() => parseCorsOrigins(raw)).toThrow(/is not an origin/);
  });

  it('is read and validated by loadConfig (off by default)', () => {
    expect(loadConfig({}).corsOrigins).toEqual([]);
    expect(loadConfig({ CORS_ORIGINS: `${FRONTEND}, http://localhost:5173` }).corsOrigins).toEqual([
      FRONTEND,
      'http://localhost:5173',
    ]);
    expect(() => loadConfig({ CORS_ORIGINS: 'https://a.example/path' })).toThrow(
      /Invalid gateway configuration: CORS_ORIGINS: invalid CORS_ORIGINS/,
    );
  });
});

describe('the policy', () => {
  it('is off without origins', () => {
    expect(createCors([])).toBeUndefined();
  });

  it('allows a listed origin exactly, with credentials; others get Vary only', () => {
    const cors = createCors([FRONTEND])!;
    expect(cors.answerHeaders(FRONTEND)).toEqual([
      'access-control-allow-origin',
      FRONTEND,
      'access-control-allow-credentials',
      'true',
      'access-control-expose-headers',
      CORS_EXPOSE_HEADERS,
      'vary',
      'Origin',
    ]);
    for (const origin of [OTHER, undefined, 'null', `${FRONTEND}/`, FRONTEND.toUpperCase(), [FRONTEND, FRONTEND]]) {
      expect(cors.answerHeaders(origin)).toEqual(['vary', 'Origin']);
      expect(cors.preflightHeaders(origin)).toBeUndefined();
    }
    expect(cors.preflightHeaders(FRONTEND)).toEqual(
      expect.arrayContaining(['access-control-allow-methods', CORS_ALLOW_METHODS, 'access-control-max-age', '600']),
    );
  });

  it('allows every method of the API catalogue, and the headers its clients send', () => {
    const allowed = CORS_ALLOW_METHODS.split(', ');
    for (const method of HTTP_METHODS) expect(allowed).toContain(method);
    expect(CORS_ALLOW_HEADERS.split(', ')).toEqual(['Content-Type', 'Authorization', 'Idempotency-Key', 'X-Request-Id']);
    expect(CORS_EXPOSE_HEADERS).toMatch(/X-Request-Id.*RateLimit-Limit.*RateLimit-Remaining.*RateLimit-Reset.*Retry-After/);
  });

  it('applies to /api and /api/* only', () => {
    for (const p of ['/api', '/api/', '/api/v1/apps', '/api/ws']) expect([p, isApiPath(p)]).toEqual([p, true]);
    for (const p of ['/', '/apix', '/apps', '/openapi.json', '/API/v1', '/site/api']) {
      expect([p, isApiPath(p)]).toEqual([p, false]);
    }
  });

  it('knows a preflight: OPTIONS with Origin and Access-Control-Request-Method', () => {
    expect(isPreflight('OPTIONS', { origin: FRONTEND, 'access-control-request-method': 'POST' })).toBe(true);
    expect(isPreflight('OPTIONS', { origin: FRONTEND })).toBe(false);
    expect(isPreflight('OPTIONS', { 'access-control-request-method': 'POST' })).toBe(false);
    expect(isPreflight('POST', { origin: FRONTEND, 'access-control-request-method': 'POST' })).toBe(false);
  });
});

describe('through a running gateway', () => {
  let stubs: Record<UpstreamName, Stub>;
  let gw: RunningGateway;
  let off: RunningGateway;

  beforeAll(async () => {
    stubs = await startStubs();
    gw = await startGateway(urlsOf(stubs), { corsOrigins: [FRONTEND, 'http://localhost:5173'] });
    off = await startGateway(urlsOf(stubs));
  });

  afterAll(async () => {
    await gw.close();
    await off.close();
    await Promise.all(Object.values(stubs).map((s) => s.close()));
  });

  const preflight = (base: string, path: string, origin: string) =>
    request(base + path, {
      method: 'OPTIONS',
      headers: {
        origin,
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'content-type, idempotency-key',
      },
    });

  it('a listed origin reads a proxied API answer, with credentials and the exposed headers', async () => {
    const res = await request(`${gw.url}/api/v1/apps`, { headers: { origin: FRONTEND, cookie: 'sn_token=x' } });
    expect(res.status).toBe(201);
    expect(res.headers['access-control-allow-origin']).toBe(FRONTEND);
    expect(res.headers['access-control-allow-credentials']).toBe('true');
    expect(res.headers['access-control-expose-headers']).toBe(CORS_EXPOSE_HEADERS);
    expect(res.headers.vary).toBe('Origin');
    // The request itself reaches the service untouched (Origin and cookies included).
    expect(res.json().headers).toMatchObject({ origin: FRONTEND, cookie: 'sn_token=x' });
    // The API's security headers stay.
    expect(res.headers['content-security-policy']).toBe("default-src 'none';frame-ancestors 'none'");
  });

  it('the gateway’s values replace a service’s own CORS headers; Vary is added to', async () => {
    const res = await request(`${gw.url}/api/v1/own-cors`, { headers: { origin: 'http://localhost:5173' } });
    expect(res.headers['access-control-allow-origin']).toBe('http://localhost:5173');
    const vary = res.rawHeaders.filter((_h, i) => i % 2 === 1 && res.rawHeaders[i - 1]!.toLowerCase() === 'vary');
    expect(vary).toEqual(['Accept-Encoding', 'Origin']);
  });

  it('an unlisted origin (or none) gets no CORS header, only Vary: Origin', async () => {
    for (const headers of [{ origin: OTHER }, {}, { origin: 'null' }] as Array<Record<string, string>>) {
      const res = await request(`${gw.url}/api/v1/apps`, { headers });
      expect(res.status).toBe(201);
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
      expect(res.headers.vary).toBe('Origin');
    }
  });

  it('the gateway’s own API answers carry them too: 404, 426, 502', async () => {
    for (const path of ['/api/unknown', '/api/ws']) {
      const res = await request(gw.url + path, { headers: { origin: FRONTEND } });
      expect([path, res.status < 500, res.headers['access-control-allow-origin'], res.headers.vary]).toEqual([
        path,
        true,
        FRONTEND,
        'Origin',
      ]);
    }
    const down = await startGateway(
      { ...urlsOf(stubs), 'app-store': await closedPortUrl() },
      { corsOrigins: [FRONTEND] },
    );
    try {
      const res = await request(`${down.url}/api/v1/apps`, { headers: { origin: FRONTEND } });
      expect(res.status).toBe(502);
      expect(res.headers['access-control-allow-origin']).toBe(FRONTEND);
      expect(res.headers['access-control-expose-headers']).toBe(CORS_EXPOSE_HEADERS);
    } finally {
      await down.close();
    }
  });

  it('a body too large is refused with the CORS headers (the script can read the 413)', async () => {
    const res = await request(`${gw.url}/api/v1/apps`, {
      method: 'POST',
      headers: { origin: FRONTEND, 'content-type': 'application/json' },
      body: Buffer.alloc(64 * 1024 + 1, 0x20),
    });
    expect(res.status).toBe(413);
    expect(res.headers['access-control-allow-origin']).toBe(FRONTEND);
  });

  it('pages and the discovery documents are not affected', async () => {
    const page = await request(`${gw.url}/apps`, { headers: { origin: FRONTEND } });
    expect(page.json().service).toBe('web');
    expect(page.headers['access-control-allow-origin']).toBeUndefined();
    expect(page.headers.vary).toBeUndefined();
    const doc = await request(`${gw.url}/llms.txt`, { headers: { origin: FRONTEND } });
    expect(doc.headers['access-control-allow-origin']).toBe('*');
    expect(doc.headers['access-control-allow-credentials']).toBeUndefined();
  });

  it('answers the preflight of a listed origin with 204 itself, without calling a service', async () => {
    const before = stubs['app-store'].seen.length;
    const res = await preflight(gw.url, '/api/v1/apps/x/reviews', FRONTEND);
    expect(res.status).toBe(204);
    expect(res.text).toBe('');
    expect(res.headers).toMatchObject({
      'access-control-allow-origin': FRONTEND,
      'access-control-allow-credentials': 'true',
      'access-control-allow-methods': CORS_ALLOW_METHODS,
      'access-control-allow-headers': CORS_ALLOW_HEADERS,
      'access-control-max-age': '600',
    });
    expect(res.headers.vary).toMatch(/^Origin\b/);
    expect(res.headers['x-request-id']).toBeDefined();
    expect(stubs['app-store'].seen.length).toBe(before);
  });

  it('refuses the preflight of an unlisted origin with 403 JSON and no CORS header', async () => {
    for (const base of [gw.url, off.url]) {
      const res = await preflight(base, '/api/v1/apps', OTHER);
      expect(res.status).toBe(403);
      expect(res.json()).toEqual({ error: 'Origin not allowed' });
      expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    }
    // With CORS_ORIGINS empty, no origin is listed.
    expect((await preflight(off.url, '/api/v1/apps', FRONTEND)).status).toBe(403);
    expect(stubs['app-store'].seen.some((s) => s.method === 'OPTIONS')).toBe(false);
  });

  it('passes an OPTIONS that is not a preflight, and any OPTIONS to a page, to the service', async () => {
    const plain = await request(`${gw.url}/api/v1/apps`, { method: 'OPTIONS', headers: { origin: FRONTEND } });
    expect(plain.json()).toMatchObject({ service: 'app-store', method: 'OPTIONS' });
    const page = await preflight(gw.url, '/apps', FRONTEND);
    expect(page.json()).toMatchObject({ service: 'web', method: 'OPTIONS' });
  });

  it('with CORS_ORIGINS empty, API answers carry no CORS header and no Vary', async () => {
    const res = await request(`${off.url}/api/v1/apps`, { headers: { origin: FRONTEND } });
    expect(Object.keys(res.headers).filter((h) => h.startsWith('access-control-'))).toEqual([]);
    expect(res.headers.vary).toBeUndefined();
  });

  it('counts preflights under their route', async () => {
    await preflight(gw.url, '/api/v1/apps', FRONTEND);
    const metrics = await request(`${gw.opsUrl}/metrics`);
    expect(metrics.text).toMatch(/gateway_requests_total\{route="\/api\/v1",status="204"\} \d+/);
  });
});
