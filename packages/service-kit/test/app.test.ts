import { describe, expect, it } from '@jest/globals';
import express from 'express';
import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import request from 'supertest';
import { ENDPOINTS, HTTP_METHODS, SERVICE_NAMES, toExpressPath } from '@svc/types';
import { z } from 'zod';
import { createServiceApp } from '../src/http/app.js';
import { opsHandlerOf } from '../src/ops/ops.js';
import { HttpError } from '../src/http/errors.js';
import { createLogger } from '../src/ops/logger.js';
import { createMetrics } from '../src/ops/metrics.js';

const logger = createLogger('test', 'silent');

function buildApp(ready = true) {
  return createServiceApp({
    logger,
    metrics: createMetrics('test'),
    readiness: {
      postgres: async () => {
        if (!ready) throw new Error('down');
      },
    },
    routes: (app) => {
      app.get('/items/:id', (req, res) => {
        res.json({ id: req.params.id });
      });
      app.post('/items', (req, res) => {
        const body = z.object({ name: z.string().min(1) }).parse(req.body);
        res.status(201).json(body);
      });
      app.get('/teapot', () => {
        throw new HttpError(418, "I'm a teapot", { hint: 'tea' });
      });
      app.get('/crash', () => {
        throw new Error('secret internals at /srv/app.ts:12');
      });
      app.get('/db-down', async () => {
        throw Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' });
      });
    },
  });
}

/** POSTs `bytes` as they are (supertest would serialise a Buffer as JSON). */
async function postBytes(app: express.Express, path: string, bytes: Buffer): Promise<{ status: number; body: unknown }> {
  const server = app.listen(0, '127.0.0.1');
  await once(server, 'listening');
  try {
    const { port } = server.address() as AddressInfo;
    const res = await fetch(`http://127.0.0.1:${port}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: new Uint8Array(bytes),
    });
    return { status: res.status, body: await res.json() };
  } finally {
    server.close();
  }
}

describe('createServiceApp', () => {
  const app = buildApp();

  it('refuses a NUL character in the path, the query or any body string or key with 400', async () => {
    const nul = { error: 'Invalid request: NUL characters (U+0000) are not accepted' };
    for (const res of [
      await request(app).get('/items/a%00b'),
      await request(app).get('/items/1?q=a%00b'),
      await request(app).get('/nope?%00=1'),
      await request(app).post('/items').send({ name: 'a\u0000b' }),
      await request(app).post('/items').send({ name: 'ok', tags: [['x', 'y\u0000']] }),
      await request(app).post('/items').send({ name: 'ok', ['k\u0000']: 1 }),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toEqual(nul);
    }
    // `%2500` is a literal "%00", not a NUL.
    expect((await request(app).get('/items/a%2500b')).body).toEqual({ id: 'a%00b' });
    expect((await request(app).post('/items').send({ name: 'fine' })).status).toBe(201);
  });

  it('refuses text that is not valid Unicode anywhere in a request with 400', async () => {
    const invalid = { error: 'Invalid request: text must be valid Unicode' };
    const refused = [
      await request(app).get('/items/%ED%A0%80'), // an encoded surrogate
      await request(app).get('/items/a%FFb'),
      await request(app).get('/items/1?q=%C3'), // a cut two-byte sequence
      await request(app).get('/items/1?%C0%AF=1'), // an overlong "/"
      await request(app).post('/items').send({ name: '\ud800' }),
      await request(app).post('/items').send({ name: 'a\udfffb' }),
      await request(app).post('/items').send({ name: 'ok', tags: ['\udc00\ud800'] }),
      await request(app).post('/items').send({ name: 'ok', ['k\ud83d']: 1 }),
      await request(app).post('/items').set('content-type', 'application/json').send('{"name":"\\ud800"}'),
      await postBytes(app, '/items', Buffer.from('{"name":"\xff"}', 'latin1')),
    ];
    for (const res of refused) {
      expect([res.status, res.body]).toEqual([400, invalid]);
    }
  });

  it('leaves such text to the routes when told to (refuseInvalidText: false)', async () => {
    const lenient = createServiceApp({
      logger,
      refuseInvalidText: false,
      routes: (a) => a.post('/echo', (req, res) => void res.json({ got: req.body })),
    });
    const res = await request(lenient).post('/echo').send({ text: 'a\u0000b', other: '\ud800' });
    expect([res.status, res.body]).toEqual([200, { got: { text: 'a\u0000b', other: '\ud800' } }]);
    // Bytes that are not UTF-8 are still no JSON text.
    expect((await postBytes(lenient, '/echo', Buffer.from('{"text":"\xff"}', 'latin1'))).status).toBe(400);
  });

  it('takes text outside the Basic Multilingual Plane and bidirectional marks as ordinary input', async () => {
    expect((await request(app).get('/items/%F0%A0%AE%B7%F0%9F%98%80')).body).toEqual({ id: '𠮷😀' });
    expect((await request(app).get('/items/%E2%80%AEx?q=%F0%A9%B8%BD')).body).toEqual({ id: '\u202ex' });
    const res = await request(app).post('/items').send({ name: '👩‍👩‍👧‍👦 𠮷 مرحبا' });
    expect([res.status, res.body]).toEqual([201, { name: '👩‍👩‍👧‍👦 𠮷 مرحبا' }]);
  });

  it('answers a GET in full whatever its conditional headers say (no route here makes ETags)', async () => {
    for (const [name, value] of [
      ['if-none-match', '*'],
      ['if-modified-since', new Date().toUTCString()],
    ] as const) {
      const res = await request(app).get('/items/1').set(name, value);
      expect([name, res.status, res.body]).toEqual([name, 200, { id: '1' }]);
    }
  });

  it('answers a body in a charset or coding it cannot decode with 400 JSON, not 415', async () => {
    const latin1 = await request(app)
      .post('/items')
      .set('content-type', 'application/json; charset=LATIN1')
      .send('{"name":"x"}');
    expect(latin1.status).toBe(400);
    expect(latin1.body).toEqual({ error: 'Invalid JSON body', details: 'unsupported charset "LATIN1"' });
    const unknownCoding = await request(app)
      .post('/items')
      .set('content-type', 'application/json')
      .set('content-encoding', 'x-unknown')
      .send('{"name":"x"}');
    expect(unknownCoding.status).toBe(400);
    expect(unknownCoding.body.error).toBe('Invalid JSON body');
    const utf8 = await request(app)
      .post('/items')
      .set('content-type', 'application/json; charset=utf-8')
      .send('{"name":"é"}');
    expect(utf8.status).toBe(201);
  });

  it('serves /healthz and a bare /readyz (the verdict, no detail) on the public app', async () => {
    expect((await request(app).get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request(app).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready' });
    const notReady = await request(buildApp(false)).get('/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.body).toEqual({ status: 'unavailable' });
  });

  it('has no /metrics on the public app: 404', async () => {
    const res = await request(app).get('/metrics');
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ error: 'Not found' });
  });

  it('serves the detailed /readyz, /healthz and /metrics on its ops handler, nothing else', async () => {
    const ops = opsHandlerOf(app)!;
    expect((await request(ops).get('/healthz')).body).toEqual({ status: 'ok' });
    const ready = await request(ops).get('/readyz');
    expect(ready.status).toBe(200);
    expect(ready.body).toEqual({ status: 'ready', checks: { postgres: 'ok' } });
    expect(ready.headers['cache-control']).toBe('no-store');
    const notReady = await request(opsHandlerOf(buildApp(false))!).get('/readyz');
    expect(notReady.status).toBe(503);
    expect(notReady.body).toEqual({ status: 'unavailable', checks: { postgres: 'unavailable' } });
    expect((await request(ops).get('/items/1')).status).toBe(404);
    const post = await request(ops).post('/metrics');
    expect(post.status).toBe(405);
    expect(post.headers.allow).toBe('GET, HEAD');
    const head = await request(ops).head('/readyz');
    expect(head.status).toBe(200);
  });

  it('answers unknown paths with 404 JSON and wrong methods with 405 JSON + Allow', async () => {
    const missing = await request(app).get('/nope');
    expect(missing.status).toBe(404);
    expect(missing.body).toEqual({ error: 'Not found' });
    const wrong = await request(app).delete('/items/1');
    expect(wrong.status).toBe(405);
    expect(wrong.headers.allow).toBe('GET, HEAD');
    expect(wrong.body).toEqual({ error: 'Method not allowed' });
  });

  it('answers 405 + Allow from the catalogue for routes mounted on a Router, on every catalogue path of the service', async () => {
    // The issue: `GET /api/auth/send-code` answered 404 because auth mounts a Router.
    const router = express.Router();
    router.post('/send-code', (_req, res) => void res.json({ sent: true }));
    const auth = createServiceApp({ logger, service: 'auth', routes: (a) => void a.use('/api/auth', router) });
    const sendCode = await request(auth).get('/api/auth/send-code');
    expect(sendCode.status).toBe(405);
    expect(sendCode.headers.allow).toBe('POST');
    expect(sendCode.body).toEqual({ error: 'Method not allowed' });
    expect((await request(auth).get('/api/auth/nope')).status).toBe(404);

    // Generated: every catalogue path of every kit service, with each method it does not list,
    // on an app whose routes are all inside one mounted Router.
    const wrong: string[] = [];
    for (const service of SERVICE_NAMES.filter((s) => s !== 'gateway')) {
      const mine = ENDPOINTS.filter((e) => e.service === service);
      const inner = express.Router();
      for (const e of mine) inner[e.method.toLowerCase() as 'get'](toExpressPath(e.path), (_q, r) => void r.json({}));
      const svc = createServiceApp({ logger, service, routes: (a) => void a.use('/', inner) });
      for (const path of new Set(mine.map((e) => e.path))) {
        const listed = mine.filter((e) => e.path === path).map((e) => e.method as string);
        if (listed.includes('GET')) listed.push('HEAD');
        const allow = listed.sort().join(', ');
        const concrete = path.replace(/\{[^}]+\}/g, 'x1');
        for (const method of HTTP_METHODS.filter((m) => !listed.includes(m))) {
          const res = await request(svc)[method.toLowerCase() as 'get'](concrete);
          if (res.status !== 405 || res.headers.allow !== allow || res.body.error !== 'Method not allowed')
            wrong.push(`${method} ${path}: ${res.status} ${res.headers.allow}`);
        }
      }
    }
    expect(wrong).toEqual([]);
  });

  it('turns zod errors into 400 with details', async () => {
    const res = await request(app).post('/items').send({ name: '' });
    expect(res.status).toBe(400);
    expect(res.body.error).toBe('Invalid request');
    expect(res.body.details[0].path).toEqual(['name']);
  });

  it('answers 400 JSON for a body that is not JSON and 413 JSON over the limit', async () => {
    const bad = await request(app).post('/items').set('Content-Type', 'application/json').send('{"name":');
    expect(bad.status).toBe(400);
    expect(bad.body).toEqual({ error: 'Invalid JSON body' });
    const big = await request(app)
      .post('/items')
      .send({ name: 'x'.repeat(70 * 1024) });
    expect(big.status).toBe(413);
    expect(big.body).toEqual({ error: 'Payload too large' });
  });

  it('answers HttpErrors with their status and details', async () => {
    const res = await request(app).get('/teapot');
    expect(res.status).toBe(418);
    expect(res.body).toEqual({ error: "I'm a teapot", details: { hint: 'tea' } });
  });

  it('answers 500 without a stack trace', async () => {
    const res = await request(app).get('/crash');
    expect(res.status).toBe(500);
    expect(res.body).toEqual({ error: 'Internal server error' });
    expect(res.text).not.toMatch(/srv|secret|at /);
  });

  it('maps an unreachable dependency to 503', async () => {
    const res = await request(app).get('/db-down');
    expect(res.status).toBe(503);
    expect(res.body).toEqual({ error: 'Service temporarily unavailable' });
  });

  it('keeps a sane X-Request-Id and replaces an unsafe one', async () => {
    const kept = await request(app).get('/items/1').set('X-Request-Id', 'abc-123');
    expect(kept.headers['x-request-id']).toBe('abc-123');
    const replaced = await request(app).get('/items/1').set('X-Request-Id', 'bad id with spaces and /slashes');
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
  });

  it('counts requests per route at /metrics (ops handler)', async () => {
    await request(app).get('/items/7');
    const res = await request(opsHandlerOf(app)!).get('/metrics');
    expect(res.status).toBe(200);
    expect(res.text).toMatch(/http_requests_total\{[^}]*route="\/items\/:id"[^}]*status="200"[^}]*\} \d+/);
    expect(res.text).toMatch(/http_request_duration_seconds_bucket/);
  });
});
