// PostgreSQL goes away behind a cuttable proxy: auth answers 503 and recovers alone.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { startTcpProxy, type TcpProxy } from '@svc/service-kit/testing';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
let proxy: TcpProxy;
beforeAll(async () => {
  proxy = await startTcpProxy(5432);
  h = await startHarness({ dbTarget: (t) => ({ ...t, host: '127.0.0.1', port: proxy.port }) });
});
afterAll(async () => {
  await h.close();
  await proxy.close();
});

describe('PostgreSQL outage', () => {
  it('answers 503 JSON while it is down and works again when it returns', async () => {
    expect(
      (await request(h.app).post('/api/auth/send-code').send({ email: 'k@example.com' })).status,
    ).toBe(200);
    await proxy.cut();
    const down = await request(h.app).post('/api/auth/send-code').send({ email: 'k2@example.com' });
    expect(down.status).toBe(503);
    expect(down.body).toEqual({ error: 'Service temporarily unavailable' });
    expect((await request(h.app).get('/readyz')).status).toBe(503);
    await proxy.restore();
    const back = await request(h.app).post('/api/auth/send-code').send({ email: 'k3@example.com' });
    expect(back.status).toBe(200);
    expect((await request(h.app).get('/readyz')).status).toBe(200);
  });
});
