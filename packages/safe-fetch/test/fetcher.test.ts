// The fetcher against loopback servers: the allow-list admits them, so these tests reach
// real sockets; without it (or on a redirect elsewhere) nothing may connect.
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import { createSafeFetcher, OutboundBlockedError, OutboundFetchError } from '../src/index.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse) => void;

interface TestServer {
  port: number;
  host: string;
  connections: number;
  requests: string[];
  close(): Promise<void>;
}

async function startServer(routes: Record<string, Handler>): Promise<TestServer> {
  const state = { connections: 0, requests: [] as string[] };
  const server = http.createServer((req, res) => {
    state.requests.push(req.url ?? '');
    const route = routes[(req.url ?? '').split('?')[0] ?? ''];
    if (route) route(req, res);
    else res.writeHead(404).end('no');
  });
  server.on('connection', (socket) => {
    state.connections++;
    socket.on('error', () => {});
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    host: `127.0.0.1:${port}`,
    get connections() {
      return state.connections;
    },
    get requests() {
      return state.requests;
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  } as TestServer;
}

let site: TestServer;
let canary: TestServer;

beforeAll(async () => {
  canary = await startServer({ '/': (_req, res) => res.end('<title>internal</title>') });
  site = await startServer({
    '/page': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
      res.end('<html><head><title>Hello</title></head></html>');
    },
    '/redirect': (_req, res) => res.writeHead(302, { location: '/page' }).end(),
    '/to-canary': (_req, res) =>
      res.writeHead(301, { location: `http://127.0.0.1:${canary.port}/` }).end(),
    '/to-localhost': (_req, res) =>
      res.writeHead(302, { location: `http://localhost:${canary.port}/` }).end(),
    '/to-file': (_req, res) => res.writeHead(302, { location: 'file:///etc/passwd' }).end(),
    '/to-gopher': (_req, res) =>
      res.writeHead(302, { location: `gopher://127.0.0.1:${canary.port}/_x` }).end(),
    '/to-metadata': (_req, res) =>
      res.writeHead(307, { location: 'http://169.254.169.254/latest/meta-data/' }).end(),
    '/loop': (_req, res) => res.writeHead(302, { location: '/loop' }).end(),
    '/never-ends': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><head><title>slow');
      // ...and never ends.
    },
    '/no-headers': () => {
      // never answers at all
    },
    '/huge': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><head><title>Huge</title></head><body>');
      const chunk = Buffer.alloc(64 * 1024, 'a');
      let sent = 0;
      const pump = () => {
        while (sent < 10 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return res.once('drain', pump);
        }
        res.end('</body></html>');
      };
      pump();
    },
    '/gzip-bomb': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html', 'content-encoding': 'gzip' });
      res.end(
        gzipSync(
          Buffer.concat([Buffer.from('<title>Bomb</title>'), Buffer.alloc(20 * 1024 * 1024, ' ')]),
        ),
      );
    },
    '/image': (_req, res) => {
      res.writeHead(200, { 'content-type': 'image/png' });
      res.end(Buffer.alloc(1000));
    },
    '/gbk': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.end(
        Buffer.concat([
          Buffer.from('<meta charset="gbk"><title>'),
          Buffer.from([0xd6, 0xd0, 0xce, 0xc4]),
          Buffer.from('</title>'),
        ]),
      );
    },
    '/missing': (_req, res) =>
      res.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not found</title>'),
  });
});

afterAll(async () => {
  await site.close();
  await canary.close();
});

let canaryConnectionsBefore = 0;
beforeEach(() => {
  canaryConnectionsBefore = canary.connections;
});
const canaryUntouched = () => expect(canary.connections).toBe(canaryConnectionsBefore);

const allowed = (opts: Parameters<typeof createSafeFetcher>[0] = {}) =>
  createSafeFetcher({ allowHosts: [site.host], ...opts });

describe('safe fetcher: pages', () => {
  it('fetches and decodes an allowed page', async () => {
    const page = await allowed().fetchPage(`http://${site.host}/page`);
    expect(page).toMatchObject({
      status: 200,
      url: `http://${site.host}/page`,
      truncated: false,
      charset: 'utf-8',
    });
    expect(page.html).toContain('<title>Hello</title>');
  });

  it('follows a redirect and reports the final URL', async () => {
    const page = await allowed().fetchPage(`http://${site.host}/redirect`);
    expect(page.url).toBe(`http://${site.host}/page`);
    expect(page.html).toContain('Hello');
  });

  it('returns non-2xx pages with their status (the caller decides)', async () => {
    const page = await allowed().fetchPage(`http://${site.host}/missing`);
    expect(page.status).toBe(404);
  });

  it('decodes with the meta charset', async () => {
    expect((await allowed().fetchPage(`http://${site.host}/gbk`)).html).toContain(
      '<title>中文</title>',
    );
  });

  it('does not read non-text bodies', async () => {
    const page = await allowed().fetchPage(`http://${site.host}/image`);
    expect(page).toMatchObject({ status: 200, contentType: 'image/png', html: '' });
  });
});

describe('safe fetcher: limits', () => {
  it('stops after maxRedirects', async () => {
    const err = await allowed({ maxRedirects: 3 })
      .fetchPage(`http://${site.host}/loop`)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundFetchError);
    expect((err as OutboundFetchError).reason).toBe('too_many_redirects');
  });

  it('gives up on a page that never finishes within the total timeout', async () => {
    const started = Date.now();
    const err = await allowed({ totalTimeoutMs: 800 })
      .fetchPage(`http://${site.host}/never-ends`)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundFetchError);
    expect((err as OutboundFetchError).reason).toBe('timeout');
    expect(Date.now() - started).toBeLessThan(3000);
  });

  it('gives up on a server that never answers', async () => {
    const err = await allowed({ totalTimeoutMs: 800 })
      .fetchPage(`http://${site.host}/no-headers`)
      .catch((e: unknown) => e);
    expect((err as OutboundFetchError).reason).toBe('timeout');
  });

  it('cuts a 10 MB page at maxBytes', async () => {
    const page = await allowed({ maxBytes: 256 * 1024 }).fetchPage(`http://${site.host}/huge`);
    expect(page.truncated).toBe(true);
    expect(Buffer.byteLength(page.html)).toBeLessThanOrEqual(256 * 1024);
    expect(page.html).toContain('<title>Huge</title>');
  });

  it('caps decompressed bytes (gzip bomb)', async () => {
    const page = await allowed({ maxBytes: 64 * 1024 }).fetchPage(`http://${site.host}/gzip-bomb`);
    expect(page.truncated).toBe(true);
    expect(page.html.length).toBeLessThanOrEqual(64 * 1024);
    expect(page.html).toContain('<title>Bomb</title>');
  });
});

describe('safe fetcher: refused destinations', () => {
  const expectBlocked = async (promise: Promise<unknown>) => {
    const err = await promise.catch((e: unknown) => e);
    expect(err).toBeInstanceOf(OutboundBlockedError);
    canaryUntouched();
  };

  it('refuses loopback when it is not allow-listed, without connecting', async () => {
    await expectBlocked(createSafeFetcher().fetchPage(`http://127.0.0.1:${canary.port}/`));
    await expectBlocked(createSafeFetcher().fetchPage(`http://localhost:${canary.port}/`));
  });

  it('allows only the listed port of an allow-listed host', async () => {
    await expectBlocked(allowed().fetchPage(`http://127.0.0.1:${canary.port}/`));
  });

  it.each(['/to-canary', '/to-localhost', '/to-file', '/to-gopher', '/to-metadata'])(
    'refuses a redirect from an allowed host into private space or another scheme (%s)',
    async (path) => {
      await expectBlocked(allowed().fetchPage(`http://${site.host}${path}`));
    },
  );

  it('judges the addresses DNS returns, all of them', async () => {
    const resolvesTo = (...ips: string[]) =>
      createSafeFetcher({
        resolver: async () =>
          ips.map((address) => ({ address, family: address.includes(':') ? 6 : 4 })),
      });
    await expectBlocked(resolvesTo('10.0.0.1').fetchPage('http://internal.example/'));
    await expectBlocked(
      resolvesTo('93.184.216.34', '192.168.0.10').fetchPage('https://mixed.example/'),
    );
    await expectBlocked(
      resolvesTo('::ffff:127.0.0.1').fetchPage(`http://mapped.example:${canary.port}/`),
    );
    await expectBlocked(resolvesTo().fetchPage('http://nothing.example/'));
  });

  it('refuses local names by the URL policy, before asking DNS at all', async () => {
    let asked = 0;
    const answersPublic = createSafeFetcher({
      resolver: async () => {
        asked++;
        return [{ address: '93.184.216.34', family: 4 }];
      },
    });
    for (const url of [
      'http://printer.local/',
      'http://metadata.google.internal/computeMetadata/v1/',
      'http://app.localhost/',
      'http://metadata/',
    ]) {
      const err = await answersPublic.fetchPage(url).catch((e: unknown) => e);
      expect(err).toBeInstanceOf(OutboundBlockedError);
      expect((err as Error).message).toMatch(/local or private host|fully qualified/);
    }
    expect(asked).toBe(0);
  });

  it('checkUrl is the URL policy with the fetcher allow-list', () => {
    const fetcher = allowed();
    expect(fetcher.checkUrl(`http://${site.host}/icon.png`).ok).toBe(true);
    expect(fetcher.checkUrl(`http://127.0.0.1:${canary.port}/icon.png`).ok).toBe(false);
    expect(fetcher.checkUrl('https://cdn.example.com/icon.png').ok).toBe(true);
    expect(fetcher.checkUrl('http://169.254.169.254/').ok).toBe(false);
    expect(createSafeFetcher().checkUrl(`http://${site.host}/`).ok).toBe(false);
  });

  it.each([
    'ftp://example.com/',
    'file:///etc/passwd',
    'data:text/html,hi',
    'javascript:alert(1)',
    'not a url',
  ])('refuses %s', async (url) => {
    await expectBlocked(createSafeFetcher().fetchPage(url));
  });
});
