import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import express from 'express';
import type { AddressInfo } from 'node:net';
import http from 'node:http';
import type { TrustProxy, UpstreamName } from '../src/config.js';
import { request, startGateway, startStubs, urlsOf, type Stub } from './helpers.js';

let stubs: Record<UpstreamName, Stub>;
beforeAll(async () => {
  stubs = await startStubs();
});
afterAll(async () => {
  await Promise.all(Object.values(stubs).map((s) => s.close()));
});

/** What an express app with the same trust setting computes for the same request. */
async function expressView(trust: TrustProxy, headers: Record<string, string>) {
  const app = express();
  app.set('trust proxy', trust);
  app.get('/', (req, res) => {
    res.json({ ip: req.ip, protocol: req.protocol, host: req.host });
  });
  const server = http.createServer(app);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  try {
    const res = await request(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`, { headers });
    return res.json() as { ip: string; protocol: string; host: string };
  } finally {
    server.close();
  }
}

const spoofed = {
  'x-forwarded-for': '203.0.113.7, 10.1.2.3',
  'x-forwarded-proto': 'https',
  'x-forwarded-host': 'public.example.com',
  forwarded: 'for=198.51.100.1',
  'x-real-ip': '198.51.100.2',
};

describe.each<[string, TrustProxy, { ip: string; proto: string; host: string | null }]>([
  ['TRUST_PROXY=false', false, { ip: '127.0.0.1', proto: 'http', host: null }],
  ['1 hop', 1, { ip: '10.1.2.3', proto: 'https', host: 'public.example.com' }],
  ['2 hops', 2, { ip: '203.0.113.7', proto: 'https', host: 'public.example.com' }],
  ['loopback subnet only', ['127.0.0.0/8'], { ip: '10.1.2.3', proto: 'https', host: 'public.example.com' }],
  ['loopback + 10/8 subnets', ['127.0.0.1/32', '10.0.0.0/8'], { ip: '203.0.113.7', proto: 'https', host: 'public.example.com' }],
  ['a subnet that is not the caller', ['192.168.0.0/16'], { ip: '127.0.0.1', proto: 'http', host: null }],
])('client address with %s', (_label, trust, expected) => {
  it('forwards X-Forwarded-For/Proto/Host computed like express, replacing the caller chain', async () => {
    const gw = await startGateway(urlsOf(stubs), { trustProxy: trust });
    try {
      const res = await request(`${gw.url}/api/v1/apps`, { headers: spoofed });
      const seen = res.json().headers ?? {};
      const host = expected.host ?? `127.0.0.1:${gw.port}`;
      expect(seen['x-forwarded-for']).toBe(expected.ip);
      expect(seen['x-forwarded-proto']).toBe(expected.proto);
      expect(seen['x-forwarded-host']).toBe(host);
      expect(seen.forwarded).toBeUndefined();
      expect(seen['x-real-ip']).toBeUndefined();
      // The same request to express with the same setting agrees.
      const view = await expressView(trust, spoofed);
      expect(view.ip).toBe(expected.ip);
      expect(view.protocol).toBe(expected.proto);
      if (expected.host !== null) expect(view.host).toBe(expected.host);
    } finally {
      await gw.close();
    }
  });
});
