import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { randomBytes, createHash } from 'node:crypto';
import http from 'node:http';
import net from 'node:net';
import type { UpstreamName } from '../src/config.js';
import {
  closedPortUrl,
  PAGE_HEADERS,
  request,
  startGateway,
  startStubs,
  urlsOf,
  type RunningGateway,
  type Stub,
} from './helpers.js';

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

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe('routing table', () => {
  it.each([
    ['GET', '/api/auth/me', 'auth'],
    ['POST', '/api/auth/send-code', 'auth'],
    ['GET', '/api/v1/apps?page=2&q=x', 'app-store'],
    ['GET', '/api/v1/me/installed', 'app-store'],
    ['GET', '/api/sites', 'sites'],
    ['GET', '/api/sites?tag=x', 'sites'],
    ['POST', '/api/sites/abc/boost', 'sites'],
    ['POST', '/api/clicks/123', 'sites'],
    ['POST', '/api/bookmarks', 'sites'],
    ['DELETE', '/api/bookmarks/42', 'sites'],
    ['GET', '/api/daily-bg', 'sites'],
    ['GET', '/api/daily-bg/image', 'sites'],
    ['GET', '/sitemap.xml', 'sites'],
    ['GET', '/sitemap-12.xml', 'sites'],
    ['GET', '/api/messages?limit=5', 'chat'],
    ['POST', '/api/messages/7/like', 'chat'],
    ['POST', '/api/translate', 'translate'],
    // Every other path is a page: the web client.
    ['GET', '/', 'web'],
    ['HEAD', '/', 'web'],
    ['GET', '/?lang=fr', 'web'],
    ['GET', '/site/example.com', 'web'],
    ['GET', '/apps', 'web'],
    ['GET', '/apps/some-app?tab=reviews', 'web'],
    ['POST', '/login', 'web'],
    ['PUT', '/settings', 'web'],
    ['DELETE', '/bookmarks/1', 'web'],
    ['GET', '/assets/entry.client-AbC123.js', 'web'],
    ['GET', '/favicon.ico', 'web'],
    ['GET', '/robots.txt', 'web'],
    ['GET', '/apix', 'web'],
    ['GET', '/apis/x', 'web'],
    ['GET', '/sitemap.xml/x', 'web'],
    ['GET', '/sitemap-1.xml/x', 'web'],
    ['GET', '/sitemap-1.xmlx', 'web'],
    ['GET', '/healthzz', 'web'],
    ['GET', '/well-known/x', 'web'],
    ['GET', '//api/v1/apps', 'web'],
  ])('%s %s → %s', async (method, path, service) => {
    const res = await request(gw.url + path, { method });
    expect(res.status).toBe(201);
    if (method === 'HEAD') {
      expect([res.text, res.headers['content-type']]).toEqual(['', 'application/json']);
      expect(stubs[service as UpstreamName].seen.at(-1)).toMatchObject({ method, url: path });
      return;
    }
    const body = res.json();
    expect(body.service).toBe(service);
    expect(body.url).toBe(path);
    expect(body.method).toBe(method);
  });

  it.each([
    '/api/auth',
    '/api/authx/me',
    '/api/v1',
    '/api/sitesx',
    '/api/clicks',
    '/api/translate/extra',
    '/api/unknown',
    '/api/',
    '/api',
    '/API/V1/apps',
    '/Api/unknown',
    '/%61pi/v1/apps',
    '/openapi.json/x',
    '/openapi.json/',
    '/OPENAPI.JSON',
    '/LLMS.txt',
    '/HEALTHZ',
    '/healthz/',
    '/Metrics',
    '/metrics/',
    '/readyz/x',
    '/.well-known/other.json',
    '/.well-known/',
    '/.WELL-KNOWN/security.txt',
    '/%zz',
  ])('%s → 404 JSON from the gateway (never web)', async (path) => {
    const res = await request(gw.url + path);
    expect(res.status).toBe(404);
    expect(res.headers['content-type']).toMatch(/^application\/json/);
    expect(res.json()).toEqual({ error: 'Not found' });
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(stubs.web.seen.some((s) => s.url === path)).toBe(false);
  });

  it.each(['*', 'http://evil.example/', 'http://evil.example/api/v1/apps'])(
    'a request target that is not a path (%s) → 404 JSON, not web',
    async (target) => {
      const res = await rawRequest(gw.port, `OPTIONS ${target} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n`);
      expect(res).toMatch(/^HTTP\/1\.1 404 /);
      expect(stubs.web.seen.some((s) => s.url === target)).toBe(false);
    },
  );

  it('plain HTTP on /api/ws is 426 JSON', async () => {
    const res = await request(`${gw.url}/api/ws`);
    expect(res.status).toBe(426);
    expect(res.json()).toEqual({ error: 'Upgrade required' });
  });
});

describe('request id', () => {
  it('generates one, forwards it, and returns it (replacing the upstream one)', async () => {
    const res = await request(`${gw.url}/api/v1/apps`);
    const id = res.headers['x-request-id'];
    expect(id).toMatch(UUID);
    expect(res.json().headers?.['x-request-id']).toBe(id);
  });

  it("keeps a caller's sane id", async () => {
    const res = await request(`${gw.url}/api/v1/apps`, { headers: { 'x-request-id': 'abc.DEF_123-x' } });
    expect(res.headers['x-request-id']).toBe('abc.DEF_123-x');
    expect(res.json().headers?.['x-request-id']).toBe('abc.DEF_123-x');
  });

  it.each(['has space', 'x'.repeat(129), 'semi;colon', 'ünï'])('replaces an insane id (%s)', async (bad) => {
    const res = await request(`${gw.url}/api/v1/apps`, { headers: { 'x-request-id': encodeURI(bad) === bad ? bad : encodeURI(bad) } });
    expect(res.headers['x-request-id']).toMatch(UUID);
    expect(res.json().headers?.['x-request-id']).toBe(res.headers['x-request-id']);
  });

  it('is on own routes and errors too', async () => {
    for (const path of ['/healthz', '/nope']) {
      const res = await request(gw.url + path, { headers: { 'x-request-id': 'mine-1' } });
      expect(res.headers['x-request-id']).toBe('mine-1');
    }
  });
});

describe('headers and bodies', () => {
  it('passes Cookie and Authorization untouched, keeps Host, and relays every Set-Cookie', async () => {
    const res = await request(`${gw.url}/api/auth/cookies`, {
      method: 'POST',
      headers: { cookie: 'sn_token=eyJ.abc.def; theme=dark', authorization: 'Bearer svc_live_xyz', 'x-custom': 'kept' },
    });
    const seen = res.json().headers ?? {};
    expect(seen.cookie).toBe('sn_token=eyJ.abc.def; theme=dark');
    expect(seen.authorization).toBe('Bearer svc_live_xyz');
    expect(seen['x-custom']).toBe('kept');
    expect(seen.host).toBe(`127.0.0.1:${gw.port}`);
    expect(res.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/; HttpOnly']);
  });

  it('drops hop-by-hop headers and those the Connection header lists', async () => {
    const res = await request(`${gw.url}/api/v1/apps`, {
      headers: { connection: 'keep-alive, x-secret-hop', 'x-secret-hop': '1', 'proxy-authorization': 'Basic x', te: 'trailers' },
    });
    const seen = res.json().headers ?? {};
    expect(seen['x-secret-hop']).toBeUndefined();
    expect(seen['proxy-authorization']).toBeUndefined();
    expect(seen.te).toBeUndefined();
  });

  it('proxies a JSON POST body intact', async () => {
    const body = JSON.stringify({ text: 'héllo 世界', targetLang: 'en' });
    const res = await request(`${gw.url}/api/translate`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(body)) },
      body,
    });
    const seen = res.json();
    expect(seen.bytes).toBe(Buffer.byteLength(body));
    expect(seen.sha256).toBe(createHash('sha256').update(body).digest('hex'));
    expect(seen.headers?.['content-type']).toBe('application/json');
  });

  it('proxies a 64 KiB body (the most a route takes) intact, with Content-Length and chunked', async () => {
    const body = randomBytes(64 * 1024);
    const digest = createHash('sha256').update(body).digest('hex');
    const sized = await request(`${gw.url}/api/sites`, {
      method: 'POST',
      headers: { 'content-type': 'application/octet-stream', 'content-length': String(body.length) },
      body,
    });
    expect(sized.json()).toMatchObject({ bytes: body.length, sha256: digest });
    const chunked = await request(`${gw.url}/api/sites`, { method: 'POST', body, chunked: true });
    expect(chunked.json()).toMatchObject({ bytes: body.length, sha256: digest });
  });
});

describe('client going away', () => {
  it('aborts the upstream request and keeps serving', async () => {
    await new Promise<void>((resolve, reject) => {
      const req = http.get(`${gw.url}/api/messages/drip`, { agent: false }, (res) => {
        res.once('data', () => {
          req.destroy();
          resolve();
        });
      });
      req.on('error', (err) => (err.message.includes('socket hang up') ? undefined : reject(err)));
    });
    await expect(stubs.chat.aborted).resolves.toBe('/api/messages/drip');
    const res = await request(`${gw.url}/healthz`);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('survives a client that leaves before the upstream answers', async () => {
    await new Promise<void>((resolve) => {
      const req = http.get(`${gw.url}/api/v1/slow`, { agent: false });
      req.on('error', () => resolve());
      setTimeout(() => req.destroy(), 100);
    });
    const res = await request(`${gw.url}/api/v1/apps`);
    expect(res.status).toBe(201);
  });
});

describe('upstream failures', () => {
  it('answers 502 JSON when the upstream is down', async () => {
    const upstreams = { ...urlsOf(stubs), 'app-store': await closedPortUrl() };
    const down = await startGateway(upstreams);
    try {
      const res = await request(`${down.url}/api/v1/apps`, { headers: { 'x-request-id': 'down-1' } });
      expect(res.status).toBe(502);
      expect(res.json()).toEqual({ error: 'Bad gateway' });
      expect(res.headers['x-request-id']).toBe('down-1');
    } finally {
      await down.close();
    }
  });

  it('answers 504 JSON when the upstream is too slow', async () => {
    const slow = await startGateway(urlsOf(stubs), { upstreamTimeoutMs: 200 });
    try {
      const started = Date.now();
      const res = await request(`${slow.url}/api/v1/slow`);
      expect(res.status).toBe(504);
      expect(res.json()).toEqual({ error: 'Gateway timeout' });
      expect(Date.now() - started).toBeLessThan(1_500);
    } finally {
      await slow.close();
    }
  });
});

describe('own routes', () => {
  it('GET /healthz', async () => {
    const res = await request(`${gw.url}/healthz`);
    expect(res.status).toBe(200);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('wrong method on an own route is 405 JSON', async () => {
    const res = await request(`${gw.url}/healthz`, { method: 'POST' });
    expect(res.status).toBe(405);
    expect(res.headers.allow).toBe('GET, HEAD');
    expect(res.json()).toEqual({ error: 'Method not allowed' });
  });

  it('GET /readyz is 200 when every upstream is ready, 503 otherwise', async () => {
    const ok = await request(`${gw.opsUrl}/readyz`);
    expect(ok.status).toBe(200);
    expect(ok.json()).toEqual({
      status: 'ready',
      services: {
        auth: 'ready',
        'app-store': 'ready',
        sites: 'ready',
        chat: 'ready',
        translate: 'ready',
        realtime: 'ready',
        web: 'ready',
        mcp: 'ready',
      },
    });
    stubs.chat.ready = false;
    try {
      const ko = await request(`${gw.opsUrl}/readyz`);
      expect(ko.status).toBe(503);
      expect(ko.json()).toMatchObject({ status: 'unavailable', services: { chat: 'unavailable', auth: 'ready' } });
    } finally {
      stubs.chat.ready = true;
    }
  });

  it('GET /readyz is 503 while web is not ready: the origin serves no pages without it', async () => {
    stubs.web.ready = false;
    try {
      const ko = await request(`${gw.opsUrl}/readyz`);
      expect(ko.status).toBe(503);
      expect(ko.json()).toMatchObject({ status: 'unavailable', services: { web: 'unavailable', auth: 'ready' } });
    } finally {
      stubs.web.ready = true;
    }
  });

  it('GET /readyz reports an upstream that is down', async () => {
    const down = await startGateway({ ...urlsOf(stubs), translate: await closedPortUrl() });
    try {
      const res = await request(`${down.opsUrl}/readyz`);
      expect(res.status).toBe(503);
      expect(res.json()).toMatchObject({ services: { translate: 'unavailable', sites: 'ready' } });
    } finally {
      await down.close();
    }
  });

  it('GET /metrics counts requests per route prefix and status', async () => {
    await request(`${gw.url}/api/v1/apps`);
    const res = await request(`${gw.opsUrl}/metrics`);
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/gateway_requests_total\{route="\/api\/v1",status="201"\} \d+/);
    expect(res.text).toMatch(/gateway_request_duration_seconds_bucket\{le="0.005",route="\/api\/v1",status="201"\}/);
  });

  it('GET /metrics counts every page under the route label "/"', async () => {
    await request(`${gw.url}/site/x`);
    const res = await request(`${gw.opsUrl}/metrics`);
    expect(res.text).toMatch(/gateway_requests_total\{route="\/",status="201"\} \d+/);
  });
});

describe('the private ops listener (docs/decisions/013-operations-port.md)', () => {
  it('through the public port, /metrics and /readyz are 404 JSON, whatever the method or spelling', async () => {
    for (const path of ['/metrics', '/readyz', '/Metrics', '/readyz/', '/metrics?x=1', '/%72eadyz']) {
      for (const method of ['GET', 'HEAD', 'POST']) {
        const res = await request(`${gw.url}${path}`, { method });
        expect({ path, method, status: res.status }).toEqual({ path, method, status: 404 });
        if (method !== 'HEAD') expect(res.json()).toEqual({ error: 'Not found' });
        expect(res.text).not.toMatch(/gateway_requests_total|services/);
      }
    }
    // Nothing of it reached an upstream (web would otherwise answer its own /metrics).
    const upstreamSaw = Object.values(stubs).flatMap((s) => s.seen.map((x) => x.url));
    expect(upstreamSaw.filter((u) => /metrics/i.test(u))).toEqual([]);
  });

  it('the public port keeps /healthz (liveness, no detail)', async () => {
    const res = await request(`${gw.url}/healthz`);
    expect(res.json()).toEqual({ status: 'ok' });
  });

  it('the ops port serves /healthz, the detailed /readyz and /metrics, and nothing else', async () => {
    expect((await request(`${gw.opsUrl}/healthz`)).json()).toEqual({ status: 'ok' });
    expect((await request(`${gw.opsUrl}/readyz`)).json()).toMatchObject({ services: { auth: 'ready' } });
    expect((await request(`${gw.opsUrl}/metrics`)).text).toMatch(/gateway_requests_total/);
    expect((await request(`${gw.opsUrl}/api/v1/apps`)).status).toBe(404);
    expect((await request(`${gw.opsUrl}/openapi.json`)).status).toBe(404);
    expect((await request(`${gw.opsUrl}/metrics`, { method: 'POST' })).status).toBe(405);
  });

  it('closes with the gateway', async () => {
    const g = await startGateway(urlsOf(stubs));
    await g.close();
    await expect(request(`${g.opsUrl}/healthz`)).rejects.toThrow(/ECONNREFUSED/);
  });
});

describe('shutdown', () => {
  it('lets an in-flight request finish, then stops accepting', async () => {
    const g = await startGateway(urlsOf(stubs));
    const inFlight = request(`${g.url}/api/v1/slow`);
    await new Promise((r) => setTimeout(r, 200));
    const closing = g.close();
    const res = await inFlight;
    expect(res.status).toBe(201);
    await closing;
    await expect(request(`${g.url}/healthz`)).rejects.toThrow(/ECONNREFUSED/);
  });
});

// Every answer of the origin carries the API security headers: proxied, the gateway's own,
// and its JSON errors; a service's own value of one of them is kept.
const SECURITY_HEADERS_EXPECTED = {
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
    ['the gateway’s 404', '/api/nowhere'],
    ['a page answer that sets none of them', '/site/x'],
  ])('%s carries them', async (_what, path) => {
    const res = await request(gw.url + path);
    expect(res.status).toBeLessThan(500);
    for (const [name, value] of Object.entries(SECURITY_HEADERS_EXPECTED)) {
      expect([name, res.headers[name]]).toEqual([name, value]);
    }
    expect(res.headers['x-powered-by']).toBeUndefined();
  });

  it('on the gateway’s own JSON errors for an unreachable service', async () => {
    const down = await startGateway({ ...urlsOf(stubs), 'app-store': 'http://127.0.0.1:1' });
    try {
      const res = await request(`${down.url}/api/v1/apps`);
      expect(res.status).toBe(502);
      expect(res.headers['content-security-policy']).toBe(SECURITY_HEADERS_EXPECTED['content-security-policy']);
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

describe('page answers (web)', () => {
  it('keep every header web sets, unchanged and not doubled', async () => {
    const res = await request(`${gw.url}/site/x/page-headers`);
    expect(res.status).toBe(201);
    for (const [name, value] of Object.entries(PAGE_HEADERS)) {
      expect([name, res.headers[name]]).toEqual([name, value]);
      const lines = res.rawHeaders.filter((h, i) => i % 2 === 0 && h.toLowerCase() === name);
      expect([name, lines.length]).toEqual([name, 1]);
    }
    // What web did not send is filled with the strict default.
    expect(res.headers['x-content-type-options']).toBe('nosniff');
    expect(res.headers['strict-transport-security']).toBe(SECURITY_HEADERS_EXPECTED['strict-transport-security']);
    // No CORS on pages, whatever the Origin.
    expect(res.headers['access-control-allow-origin']).toBeUndefined();
  });

  it('get no default CSP when web sends a report-only policy (a CSP being tried out)', async () => {
    const res = await request(`${gw.url}/report-only`);
    expect(res.headers['content-security-policy-report-only']).toBe("default-src 'self'");
    expect(res.headers['content-security-policy']).toBeUndefined();
    expect(res.headers['x-frame-options']).toBe('DENY');
  });

  it('carry the caller’s cookies to web and every Set-Cookie back', async () => {
    const res = await request(`${gw.url}/account/cookies`, { headers: { cookie: 'sn_token=abc' } });
    expect(res.json().headers?.cookie).toBe('sn_token=abc');
    expect(res.headers['set-cookie']).toEqual(['a=1; Path=/', 'b=2; Path=/; HttpOnly']);
  });

  it('are a 502 HTML page when web is down, while the API keeps working', async () => {
    const down = await startGateway({ ...urlsOf(stubs), web: await closedPortUrl() });
    try {
      const page = await request(`${down.url}/site/<b>x`);
      expect(page.status).toBe(502);
      expect(page.headers['content-type']).toBe('text/html; charset=utf-8');
      expect(page.text).toMatch(/^<!doctype html>.*<h1>Bad gateway<\/h1>/s);
      expect(Number(page.headers['content-length'])).toBe(Buffer.byteLength(page.text));
      expect(page.headers['x-request-id']).toBeDefined();
      expect(page.text).not.toContain('<b>');
      expect((await request(`${down.url}/api/v1/apps`)).status).toBe(201);
    } finally {
      await down.close();
    }
  });
});

/** One raw request on a fresh connection; resolves with everything the gateway sent back. */
function rawRequest(port: number, text: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1', () => socket.write(text));
    const chunks: Buffer[] = [];
    socket.on('data', (c: Buffer) => chunks.push(c));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
  });
}
