// A loopback HTTP server standing in for the API: records every request and answers
// what the test scripted for `METHOD /path` (or 200 {} by default).
import http from 'node:http';
import type { AddressInfo } from 'node:net';

export interface Recorded {
  method: string;
  url: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Scripted {
  status?: number;
  headers?: Record<string, string | string[]>;
  /** Sent as JSON unless `raw` is given. */
  json?: unknown;
  raw?: string;
  /** Delay before answering, ms. */
  delayMs?: number;
}

export async function startFakeApi() {
  const requests: Recorded[] = [];
  const routes = new Map<string, Scripted>();
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const path = (req.url ?? '').split('?')[0] ?? '';
      requests.push({
        method: req.method ?? '',
        url: req.url ?? '',
        path,
        headers: req.headers,
        body,
      });
      const s = routes.get(`${req.method} ${path}`) ?? { json: {} };
      const answer = () => {
        res.writeHead(s.status ?? 200, {
          ...(s.raw === undefined ? { 'content-type': 'application/json' } : {}),
          ...s.headers,
        });
        res.end(s.raw ?? (s.status === 204 ? '' : JSON.stringify(s.json ?? {})));
      };
      if (s.delayMs) {
        const timer = setTimeout(() => {
          timers.delete(timer);
          if (!res.destroyed) answer();
        }, s.delayMs);
        timers.add(timer);
      } else answer();
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    last: () => requests[requests.length - 1]!,
    on: (route: string, answer: Scripted) => void routes.set(route, answer),
    reset: () => {
      requests.length = 0;
      routes.clear();
    },
    close: () =>
      new Promise<void>((r) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
export type FakeApi = Awaited<ReturnType<typeof startFakeApi>>;
