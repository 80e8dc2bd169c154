import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { createServiceApp } from '../src/http/app.js';
import { recordedUrl } from '../src/http/recorded-url.js';

describe('access log', () => {
  it('writes one JSON line per request with the request id, and none for probes', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(JSON.parse(String(chunk)));
        cb();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    const app = createServiceApp({ logger, routes: (a) => a.get('/x', (_q, r) => void r.json({})) });
    await request(app).get('/x?y=1').set('X-Request-Id', 'req-42').expect(200);
    await request(app).get('/missing').expect(404);
    await request(app).get('/healthz').expect(200);
    expect(lines).toHaveLength(2);
    expect(lines[0]).toMatchObject({ level: 30, reqId: 'req-42', method: 'GET', url: '/x?y=1', status: 200, msg: 'request' });
    expect(typeof lines[0]!.ms).toBe('number');
    expect(lines[1]).toMatchObject({ level: 40, status: 404 });
  });

  it('holds no client address, raw or forwarded (docs/decisions/013-operations-port.md)', async () => {
    const text: string[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        text.push(String(chunk));
        cb();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    const app = createServiceApp({ logger, routes: (a) => a.get('/x', (_q, r) => void r.json({})) });
    await request(app).get('/x').set('X-Forwarded-For', '203.0.113.77').expect(200);
    await request(app).get('/nope').set('X-Forwarded-For', '2001:db8::7').expect(404);
    expect(text).toHaveLength(2);
    for (const line of text) {
      const entry = JSON.parse(line) as Record<string, unknown>;
      expect(entry.ip).toBeUndefined();
      expect(line).not.toMatch(/203\.0\.113\.77|2001:db8|127\.0\.0\.1|::ffff|::1/);
    }
  });

  it('names no person in the url: e-mail addresses, internal user ids, audit senders', async () => {
    const lines: Record<string, unknown>[] = [];
    const sink = new Writable({
      write(chunk, _enc, cb) {
        lines.push(JSON.parse(String(chunk)));
        cb();
      },
    });
    const logger = pino({ level: 'info' }, sink);
    const app = createServiceApp({ logger, routes: (a) => a.all('/{*rest}', (_q, r) => void r.json({})) });
    await request(app).put('/api/auth/moderators/ann%40example.com').expect(200);
    await request(app).delete('/internal/users/u_4fe1aXk9').expect(200);
    await request(app).get('/api/moderation/audit?target_type=sender&target_id=user%3Au_4fe1aXk9&limit=5').expect(200);
    expect(lines.map((l) => l.url)).toEqual([
      '/api/auth/moderators/{email}',
      '/internal/users/{id}',
      '/api/moderation/audit?target_type=sender&target_id=user:{id}&limit=5',
    ]);
    expect(JSON.stringify(lines)).not.toMatch(/ann|u_4fe1aXk9/);
  });

  it.each([
    ['/api/sites/abc?page=2', '/api/sites/abc?page=2'],
    ['/api/auth/moderators/a@b.c', '/api/auth/moderators/{email}'],
    ['/internal/users/xyz/export', '/internal/users/{id}/export'],
    ['/api/moderation/messages/audit?target_id=ip%3A0f3a', '/api/moderation/messages/audit?target_id=ip:{id}'],
    ['/api/v1/apps?q=mail%40home&offset=50', '/api/v1/apps?q={email}&offset=50'],
    ['/api/v1/apps?q=%E0%A4%A', '/api/v1/apps?q=%E0%A4%A'],
    ['/x?flag&y=', '/x?flag&y='],
  ])('logs %s as %s', (url, logged) => {
    expect(recordedUrl(url)).toBe(logged);
  });
});
