import { describe, expect, it } from '@jest/globals';
import { Writable } from 'node:stream';
import { pino } from 'pino';
import request from 'supertest';
import { createServiceApp } from '../src/app.js';

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
});
