// The scraper's outbound rules (@svc/safe-fetch as the worker configures it): every
// spelling of loopback, private, link-local, unique-local, multicast and reserved space is
// refused, at the first hop and after a redirect, by name or by address, and so is every
// scheme but http(s). A canary server on loopback (IPv4 and IPv6) proves that nothing
// even connected; private addresses are refused before any socket exists (fast).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { OutboundBlockedError, type SafeFetcher } from '@svc/safe-fetch';
import { workerConfigSchema } from '../src/config.js';
import { createPageFetcher } from '../src/clients/page-fetcher.js';
import { SCRAPE_QUEUE, enqueueScrape } from '../src/worker/queues.js';
import {
  createWorkerEnv,
  htmlPage,
  startFakeWebsite,
  waitForTagged,
  type FakeWebsite,
  type WorkerEnv,
} from './worker-harness.js';

let canary: http.Server;
let canaryPort: number;
let canaryConnections = 0;
let web: FakeWebsite;
let fetcher: SafeFetcher;
let env: WorkerEnv;

beforeAll(async () => {
  canary = http.createServer((_req, res) => res.end('<title>internal secret</title>'));
  canary.on('connection', () => canaryConnections++);
  // '::' accepts IPv6 and IPv4 (mapped) connections: the canary sees both families.
  await new Promise<void>((resolve) => canary.listen(0, '::', resolve));
  canaryPort = (canary.address() as AddressInfo).port;

  web = await startFakeWebsite({ '/ok': htmlPage('<title>Public page</title>') });
  for (const [path, target] of Object.entries(redirects)) {
    web.route(path, (_req, res) => res.writeHead(302, { location: withPort(target) }).end());
  }
  fetcher = createPageFetcher(
    workerConfigSchema.parse({ OUTBOUND_ALLOW_HOSTS: web.host, SCRAPE_TIMEOUT_MS: '3000' }),
  );
  env = await createWorkerEnv();
  env.startWorkers({ OUTBOUND_ALLOW_HOSTS: web.host });
});

afterAll(async () => {
  await env?.close();
  await web?.close();
  canary.closeAllConnections();
  await new Promise<void>((resolve) => canary.close(() => resolve()));
});

// `{port}` stands for the canary's port (test names are built before it is known).
const loopbackSpellings = [
  `http://127.0.0.1:{port}/`,
  `http://127.1:{port}/`,
  `http://0x7f.1:{port}/`,
  `http://0x7f000001:{port}/`,
  `http://2130706433:{port}/`,
  `http://0177.0.0.1:{port}/`,
  `http://127.255.255.254:{port}/`,
  `http://0.0.0.0:{port}/`,
  `http://0:{port}/`,
  `http://[::1]:{port}/`,
  `http://[0:0:0:0:0:0:0:1]:{port}/`,
  `http://[::]:{port}/`,
  `http://[::ffff:127.0.0.1]:{port}/`,
  `http://[::ffff:7f00:1]:{port}/`,
  `http://localhost:{port}/`,
  `http://LocalHost:{port}/`,
  `https://localhost:{port}/`,
];

const privateSpace = [
  'http://10.0.0.1/',
  'http://10.255.255.254:8080/',
  'http://172.16.0.1/',
  'http://172.31.255.254/',
  'http://192.168.0.1/',
  'http://192.168.255.254/',
  'http://169.254.169.254/latest/meta-data/',
  'http://[fd00::1]/',
  'http://[fd12:3456:789a:1::1]/',
  'http://[fc00::1]/',
  'http://[fe80::1]/',
  'http://[::ffff:10.0.0.1]/',
  'http://[::ffff:169.254.169.254]/',
  'http://100.64.0.1/',
  'http://224.0.0.1/',
  'http://[ff02::1]/',
  'http://240.0.0.1/',
  'http://255.255.255.255/',
  'http://192.0.2.1/',
  'http://[64:ff9b::a00:1]/',
];

const otherSchemes = [
  'file:///etc/passwd',
  `gopher://127.0.0.1:{port}/_GET%20/`,
  'gopher://example.com/',
  'ftp://example.com/',
  'dict://example.com:11211/stat',
  'ws://example.com/',
  'data:text/html,<title>x</title>',
];

const redirects: Record<string, string> = {
  '/to-loopback': `http://127.0.0.1:{port}/`,
  '/to-loopback-v6': `http://[::1]:{port}/`,
  '/to-localhost': `http://localhost:{port}/`,
  '/to-decimal': `http://2130706433:{port}/`,
  '/to-metadata': 'http://169.254.169.254/latest/meta-data/',
  '/to-private': 'http://10.0.0.1/admin',
  '/to-ula': 'http://[fd00::1]/',
  '/to-file': 'file:///etc/passwd',
  '/to-gopher': `gopher://127.0.0.1:{port}/_x`,
};
const withPort = (url: string) => url.replace('{port}', String(canaryPort));

async function expectRefused(template: string, maxMs = 1000): Promise<void> {
  const url = withPort(template);
  expect(url).not.toContain('{port}');
  const before = canaryConnections;
  const started = Date.now();
  const err = await fetcher.fetchPage(url).then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(OutboundBlockedError);
  // Refused for what it points at, not for being malformed.
  expect((err as Error).message).not.toBe('not a valid URL');
  expect(canaryConnections).toBe(before);
  // Refused before connecting: no connect timeout was waited for.
  expect(Date.now() - started).toBeLessThan(maxMs);
}

describe('SSRF: refused destinations', () => {
  it('the canary is reachable when allow-listed (the matrix below would notice a connection)', async () => {
    const open = createPageFetcher(
      workerConfigSchema.parse({
        OUTBOUND_ALLOW_HOSTS: `127.0.0.1:${canaryPort} [::1]:${canaryPort}`,
      }),
    );
    expect((await open.fetchPage(`http://127.0.0.1:${canaryPort}/`)).html).toContain(
      'internal secret',
    );
    expect((await open.fetchPage(`http://[::1]:${canaryPort}/`)).html).toContain('internal secret');
    expect(canaryConnections).toBe(2);
  });

  it.each(loopbackSpellings.map((u) => [u]))('loopback: %s', async (url) => {
    await expectRefused(url);
  });

  it.each(privateSpace.map((u) => [u]))('private / reserved: %s', async (url) => {
    await expectRefused(url);
  });

  it.each(otherSchemes.map((u) => [u]))('scheme: %s', async (url) => {
    await expectRefused(url);
  });

  it.each(Object.keys(redirects).map((p) => [p]))(
    'redirect from an allowed host: %s',
    async (path) => {
      await expectRefused(web.url(path));
    },
  );

  it('the allowed host itself works (the redirects above were followed up to the refusal)', async () => {
    expect((await fetcher.fetchPage(web.url('/ok'))).html).toContain('Public page');
    expect(web.requests).toEqual(
      expect.arrayContaining(['/to-loopback', '/to-private', '/to-file']),
    );
  });
});

describe('SSRF: through the worker', () => {
  it('a site whose URL is private ends failed, untouched canary, still listed and tagged', async () => {
    const before = canaryConnections;
    const ids = [
      await env.insertSite(`http://127.1:${canaryPort}/`),
      await env.insertSite(web.url('/to-metadata')),
    ];
    for (const id of ids) await enqueueScrape(env.queues[SCRAPE_QUEUE], id);
    for (const id of ids) {
      const site = await waitForTagged(env.db, id);
      expect(site.scrapeStatus).toBe('failed');
      expect(site.title).toBe(new URL(site.url).hostname);
    }
    expect(canaryConnections).toBe(before);
    // Refusals are final: one attempt each, no retries.
    for (const id of ids)
      expect((await env.queues[SCRAPE_QUEUE].getJob(`scrape-${id}`))?.attemptsMade).toBe(1);
  });
});
