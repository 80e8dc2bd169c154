// `svc sites submit --wait` (the built binary) against a loopback fake of the API and its
// WebSocket: the socket opens before the submit, the site's site_update events become
// steps, other sites' are ignored; exit 0 done, 3 timeout, 4 page not fetched, 1 when the
// channel cannot open (nothing submitted), 2 for bad options.
import { afterAll, beforeAll, beforeEach, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { WebSocket } from 'ws';
import { run, sampleSite, startFakeApi, type FakeApi } from './helpers.js';

let api: FakeApi;
beforeAll(async () => {
  api = await startFakeApi();
});
afterAll(() => api.close());
beforeEach(() => api.reset());

const env = () => ({ SVC_BASE_URL: api.url });
const URL_ = 'https://example.com/page';
const lines = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map((l) => JSON.parse(l));
const event = (id: string, payload: Record<string, unknown>) =>
  JSON.stringify({ id, event: 'site_update', payload });
const metadata = (siteId = 's1') => ({
  id: siteId,
  title: 'Example Page',
  description: 'An example',
  favicon_url: null,
  og_image_url: null,
});

/** Answers the submit with `answer` and runs `then` on the socket the CLI opened. */
function onSubmit(answer: Record<string, unknown>, then: (socket: WebSocket) => void) {
  const seen: { socketsBefore: number; socketsAtSubmit?: number } = {
    socketsBefore: api.sockets.length,
  };
  api.on('POST /api/sites', () => {
    seen.socketsAtSubmit = api.sockets.length;
    setTimeout(() => then(api.sockets.at(-1)!), 20);
    return { status: answer.isNew ? 201 : 200, json: answer };
  });
  return seen;
}

describe('sites submit --wait', () => {
  it('prints accepted, metadata, tagged and done as JSON lines, ignoring other sites; exit 0', async () => {
    const seen = onSubmit({ site: sampleSite(), isNew: true }, (s) => {
      s.send(event('1-0', { id: 'other', tags: ['娱乐'] }));
      s.send(event('1-1', metadata()));
      s.send(event('1-2', { id: 's1', tags: ['工具', '技术'] }));
    });
    const res = await run(['sites', 'submit', URL_, '--wait', '--json'], { env: env() });
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    // The socket was open before the submit was sent.
    expect(seen.socketsAtSubmit).toBe(seen.socketsBefore + 1);
    const steps = lines(res.stdout);
    expect(steps.map((s) => s.step)).toEqual(['accepted', 'metadata', 'tagged', 'done']);
    expect(steps[0]).toMatchObject({ isNew: true, site: { id: 's1', tags: [] } });
    expect(steps[1].site).toMatchObject({ title: 'Example Page', description: 'An example' });
    expect(steps[3]).toMatchObject({
      result: 'done',
      site: { id: 's1', title: 'Example Page', tags: ['工具', '技术'] },
    });
  });

  it('prints one line per step for people', async () => {
    onSubmit({ site: sampleSite(), isNew: true }, (s) => {
      s.send(event('2-0', metadata()));
      s.send(event('2-1', { id: 's1', tags: ['工具'] }));
    });
    const res = await run(['sites', 'submit', URL_, '--wait'], { env: env() });
    expect(res.code).toBe(0);
    const out = res.stdout.trimEnd().split('\n');
    expect(out.slice(0, 3)).toEqual([
      `accepted: new site s1: ${URL_}`,
      'metadata fetched: Example Page',
      'tagged: 工具',
    ]);
    expect(out[3]).toMatch(/^done in \d+\.\d s$/);
  });

  it('follows events that arrive before the submit is answered', async () => {
    api.on('POST /api/sites', () => {
      const s = api.sockets.at(-1)!;
      s.send(event('3-0', metadata()));
      s.send(event('3-1', { id: 's1', tags: ['工具'] }));
      return { status: 201, json: { site: sampleSite(), isNew: true } };
    });
    const res = await run(['sites', 'submit', URL_, '--wait', '--json'], { env: env() });
    expect(res.code).toBe(0);
    expect(lines(res.stdout).map((s) => s.step)).toEqual([
      'accepted',
      'metadata',
      'tagged',
      'done',
    ]);
  });

  it('exits 4 when the site is tagged without metadata (its page could not be fetched)', async () => {
    onSubmit({ site: sampleSite(), isNew: true }, (s) => {
      s.send(event('4-0', { id: 's1', tags: ['资源'] }));
    });
    const res = await run(['sites', 'submit', URL_, '--wait', '--json'], { env: env() });
    expect(res.code).toBe(4);
    expect(lines(res.stdout).map((s) => s.step)).toEqual(['accepted', 'tagged', 'done']);
    expect(lines(res.stdout).at(-1)).toMatchObject({ result: 'page_unreadable' });
    expect(res.stderr).toMatch(
      /^svc: the page of https:\/\/example\.com\/page could not be fetched/,
    );
  });

  it('a known site processed earlier is done at once, with its steps from the record', async () => {
    const known = sampleSite({ title: 'Example', tags: ['工具'], submit_count: 3 });
    api.on('POST /api/sites', { status: 200, json: { site: known, isNew: false } });
    const res = await run(['sites', 'submit', URL_, '--wait'], { env: env() });
    expect(res.code).toBe(0);
    const out = res.stdout.trimEnd().split('\n');
    expect(out.slice(0, 3)).toEqual([
      `accepted: known site s1: ${URL_} (submitted 3 times)`,
      'metadata fetched: Example',
      'tagged: 工具',
    ]);
    expect(out[3]).toMatch(/^done in/);

    // Known, tagged, but never fetched: the same answer as when it was first submitted.
    api.on('POST /api/sites', {
      status: 200,
      json: { site: sampleSite({ tags: ['资源'] }), isNew: false },
    });
    const unread = await run(['sites', 'submit', URL_, '--wait'], { env: env() });
    expect(unread.code).toBe(4);
  });

  it('exits 3 after --timeout when the site is not tagged; the last JSON line says timeout', async () => {
    onSubmit({ site: sampleSite(), isNew: true }, (s) => s.send(event('5-0', metadata())));
    const res = await run(['sites', 'submit', URL_, '--wait', '--timeout', '1', '--json'], {
      env: env(),
    });
    expect(res.code).toBe(3);
    expect(lines(res.stdout).map((s) => s.step)).toEqual(['accepted', 'metadata', 'timeout']);
    expect(res.stderr).toMatch(/site s1 not processed within 1 s; it stays submitted/);
  });

  it('reads the site again when the channel reconnects without a resume point', async () => {
    api.on('GET /api/sites/s1', {
      json: { site: sampleSite({ title: 'Example Page', tags: ['工具'] }) },
    });
    // Dropped before any event, so the reconnection has no id to resume from.
    onSubmit({ site: sampleSite(), isNew: true }, (s) => s.close(1012, 'service restart'));
    const res = await run(['sites', 'submit', URL_, '--wait', '--json'], { env: env() });
    expect(res.code).toBe(0);
    expect(lines(res.stdout).map((s) => s.step)).toEqual([
      'accepted',
      'metadata',
      'tagged',
      'done',
    ]);
    expect(res.stderr).toMatch(/closed \(1012\); reconnecting/);
    expect(res.stderr).toMatch(/reading the site again/);
    expect(api.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'POST /api/sites',
      'GET /api/sites/s1',
    ]);
  });

  it('exits 1 with the API message when the submit is refused, without waiting on', async () => {
    api.on('POST /api/sites', {
      status: 403,
      json: { error: 'Missing or invalid CAPTCHA token' },
    });
    const res = await run(['sites', 'submit', URL_, '--wait'], { env: env() });
    expect(res.code).toBe(1);
    expect(res.stdout).toBe('');
    expect(res.stderr).toMatch(
      /^svc: Missing or invalid CAPTCHA token \[HTTP 403, request req-test\]/,
    );
  });

  it('exits 1 without submitting when the real-time channel cannot be opened', async () => {
    // An API without a WebSocket: every upgrade is refused.
    const plain = http.createServer((_req, res) => res.writeHead(404).end('{"error":"Not found"}'));
    plain.on('upgrade', (_req, socket) => socket.end('HTTP/1.1 404 Not Found\r\n\r\n'));
    await new Promise<void>((r) => plain.listen(0, '127.0.0.1', r));
    const posts: string[] = [];
    plain.on('request', (req) => posts.push(`${req.method} ${req.url}`));
    try {
      const url = `http://127.0.0.1:${(plain.address() as AddressInfo).port}`;
      const res = await run(['sites', 'submit', URL_, '--wait', '--timeout', '2'], {
        env: { SVC_BASE_URL: url },
      });
      expect(res.code).toBe(1);
      expect(res.stderr).toMatch(/nothing was submitted/);
      expect(posts).toEqual([]);
    } finally {
      plain.closeAllConnections();
      await new Promise((r) => plain.close(r));
    }
  });

  it('refuses --timeout without --wait, and out of range or not a number (exit 2, nothing sent)', async () => {
    const sockets = api.sockets.length;
    for (const args of [
      ['--timeout', '5'],
      ['--wait', '--timeout', '0'],
      ['--wait', '--timeout', '3601'],
      ['--wait', '--timeout', 'soon'],
    ]) {
      const res = await run(['sites', 'submit', URL_, ...args], { env: env() });
      expect(res.code).toBe(2);
      expect(res.stderr).toMatch(/--timeout/);
    }
    expect(api.requests).toEqual([]);
    expect(api.sockets.length).toBe(sockets);
  });
});
