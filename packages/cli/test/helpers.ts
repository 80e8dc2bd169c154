// Runs the BUILT svc binary as a pipeline would, and a loopback fake of the API (HTTP and
// the /api/ws WebSocket) for it to talk to.
import { spawn } from 'node:child_process';
import { mkdtempSync, existsSync } from 'node:fs';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { WebSocketServer, type WebSocket } from 'ws';

export const BIN = fileURLToPath(new URL('../dist/main.js', import.meta.url));

export interface RunResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** A fresh, empty config home so no real session of the machine leaks in. */
export function tempHome(): string {
  return mkdtempSync(path.join(tmpdir(), 'svc-cli-test-'));
}

export function run(
  args: string[],
  opts: {
    env?: Record<string, string | undefined>;
    input?: string;
    home?: string;
    timeoutMs?: number;
  } = {},
): Promise<RunResult> & { child: ReturnType<typeof spawn> } {
  if (!existsSync(BIN)) throw new Error(`${BIN} is missing: build the CLI first (pnpm build)`);
  const home = opts.home ?? tempHome();
  const env: Record<string, string> = {};
  for (const [k, v] of Object.entries({
    PATH: process.env.PATH,
    HOME: home,
    XDG_CONFIG_HOME: path.join(home, '.config'),
    ...opts.env,
  })) {
    if (v !== undefined) env[k] = v;
  }
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (d: Buffer) => (stdout += d.toString()));
  child.stderr.on('data', (d: Buffer) => (stderr += d.toString()));
  if (opts.input !== undefined) child.stdin.end(opts.input);
  const timer = setTimeout(() => child.kill('SIGKILL'), opts.timeoutMs ?? 15_000);
  const done = new Promise<RunResult>((resolve) =>
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    }),
  ) as Promise<RunResult> & { child: ReturnType<typeof spawn> };
  done.child = child;
  return done;
}

export interface Recorded {
  method: string;
  url: string;
  path: string;
  headers: http.IncomingHttpHeaders;
  body: string;
}

export interface Answer {
  status?: number;
  json?: unknown;
  headers?: Record<string, string | string[]>;
}

type Handler = Answer | ((req: Recorded) => Answer);

export async function startFakeApi() {
  const requests: Recorded[] = [];
  const routes = new Map<string, Handler>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c: Buffer) => (body += c.toString()));
    req.on('end', () => {
      const rec: Recorded = {
        method: req.method ?? '',
        url: req.url ?? '',
        path: (req.url ?? '').split('?')[0] ?? '',
        headers: req.headers,
        body,
      };
      requests.push(rec);
      const handler = routes.get(`${rec.method} ${rec.path}`);
      const answer: Answer = handler
        ? typeof handler === 'function'
          ? handler(rec)
          : handler
        : { status: 404, json: { error: 'Not found' } };
      const status = answer.status ?? 200;
      res.writeHead(status, {
        'content-type': 'application/json',
        'x-request-id': 'req-test',
        ...answer.headers,
      });
      res.end(status === 204 ? '' : JSON.stringify(answer.json ?? {}));
    });
  });
  const wss = new WebSocketServer({ server, path: '/api/ws' });
  const sockets: WebSocket[] = [];
  const socketWaiters: Array<(s: WebSocket) => void> = [];
  /** The request URL of each WebSocket connection (its query carries last_event_id). */
  const socketUrls: string[] = [];
  wss.on('connection', (s, req) => {
    sockets.push(s);
    socketUrls.push(req.url ?? '');
    socketWaiters.splice(0).forEach((w) => w(s));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}`,
    requests,
    on: (route: string, handler: Handler) => void routes.set(route, handler),
    reset: () => {
      requests.length = 0;
      routes.clear();
    },
    nextSocket: () => new Promise<WebSocket>((resolve) => socketWaiters.push(resolve)),
    sockets,
    socketUrls,
    close: () =>
      new Promise<void>((r) => {
        for (const s of wss.clients) s.terminate();
        wss.close();
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
export type FakeApi = Awaited<ReturnType<typeof startFakeApi>>;

export const sampleApp = (over: Record<string, unknown> = {}) => ({
  id: 'app_1',
  slug: 'ci-app',
  name: 'CI App',
  description: 'Built in CI',
  url: 'https://ci-app.test',
  category: 'developer',
  app_type: 'web',
  open_mode: 'iframe',
  status: 'approved',
  downloads: 0,
  author_name: 'dev',
  chain: null,
  icon_gradient_from: null,
  icon_gradient_to: null,
  icon_svg: null,
  tech_tags: [],
  svc_sdk_version: null,
  ...over,
});

/** A site as the submit answers it for a new URL: the host as title, nothing fetched yet. */
export const sampleSite = (over: Record<string, unknown> = {}) => ({
  id: 's1',
  url: 'https://example.com/page',
  title: 'example.com',
  description: '',
  favicon_url: null,
  og_image_url: null,
  domain: 'example.com',
  tags: [],
  submit_count: 1,
  click_count: 0,
  hot_score: 0,
  site_type: 'website',
  social_platform: null,
  social_username: null,
  boost_count: 0,
  is_claimed: false,
  is_promoted: false,
  first_submitted_at: '2026-11-22T00:00:00.000Z',
  last_activity_at: '2026-11-22T00:00:00.000Z',
  ...over,
});
