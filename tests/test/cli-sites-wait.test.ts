// End to end: `svc sites submit --wait` (built binary) through the real gateway, sites API,
// sites worker and realtime processes. The worker scrapes loopback web sites and tags with
// the fake Anthropic API; svc follows the site_update events over the gateway's WebSocket:
// exit 0 when tagged with metadata, 4 when the page could not be fetched, 3 on timeout.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ServiceProcess } from '@svc/service-kit/testing';
import { startFakeAnthropic, startFakeWebsite } from './contract-system-fakes.js';
import { runSvc } from './svc-binary.js';
import { createTestSystem } from './system-processes.js';

const system = createTestSystem();
let gateway: ServiceProcess;
let website: Awaited<ReturnType<typeof startFakeWebsite>>;
/** A site whose `/gone` is a 404 and whose `/slow` answers after SLOW_MS. */
let awkward: { origin: string; host: string };
const SLOW_MS = 3000;

const svc = (args: string[]) => runSvc(args, { SVC_BASE_URL: gateway.url });
const steps = (stdout: string) =>
  stdout
    .trim()
    .split('\n')
    .map(
      (line) =>
        JSON.parse(line) as { step: string; result?: string; site: Record<string, unknown> },
    );

async function startAwkwardSite() {
  const timers = new Set<NodeJS.Timeout>();
  const server = http.createServer((req, res) => {
    if (req.url === '/slow') {
      const timer = setTimeout(() => {
        timers.delete(timer);
        res.writeHead(200, { 'content-type': 'text/html' }).end('<title>Slow page</title>');
      }, SLOW_MS);
      timers.add(timer);
      return;
    }
    res.writeHead(404, { 'content-type': 'text/html' }).end('<title>Not found</title>');
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const { port } = server.address() as AddressInfo;
  system.track({
    close: () =>
      new Promise<void>((r) => {
        for (const timer of timers) clearTimeout(timer);
        server.closeAllConnections();
        server.close(() => r());
      }),
  });
  return { origin: `http://127.0.0.1:${port}`, host: `127.0.0.1:${port}` };
}

beforeAll(async () => {
  const [anthropic, site, other, db] = await Promise.all([
    startFakeAnthropic().then(system.track),
    startFakeWebsite().then(system.track),
    startAwkwardSite(),
    system.database('sites'),
  ]);
  website = site;
  awkward = other;
  const shared = {
    REDIS_PREFIX: system.redisPrefix,
    JWT_PUBLIC_KEY: system.keys.publicKey,
    SITES_DATABASE_URL: db.url,
    OUTBOUND_ALLOW_HOSTS: `${website.host},${awkward.host}`,
    ANTHROPIC_API_KEY: 'sk-ant-cli-wait',
    ANTHROPIC_BASE_URL: anthropic.baseURL,
  };
  const options = { healthTimeoutMs: 30_000 };
  const [sites, , realtime] = await Promise.all([
    system.start('services/sites/dist/main.js', shared, options),
    system.start('services/sites/dist/worker/main.js', shared, options),
    // No chat here: its entrance reports go to a closed port and are dropped.
    system.service('realtime', { CHAT_URL: 'http://127.0.0.1:1' }),
  ]);
  gateway = await system.start('gateway/dist/main.js', {
    SITES_URL: sites!.url,
    REALTIME_URL: realtime!.url,
  });
}, 120_000);

afterAll(() => system.stop(), 60_000);

describe('svc sites submit --wait through the real system', () => {
  it('follows a new site until it is fetched and tagged (exit 0), then finds it done at once', async () => {
    website.page('/wait-guide', { title: 'Wait Guide', description: 'Docs for the wait' });
    const url = website.url('/wait-guide');
    const res = await svc(['sites', 'submit', url, '--wait', '--json', '--timeout', '60']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    const out = steps(res.stdout);
    expect(out.map((s) => s.step)).toEqual(['accepted', 'metadata', 'tagged', 'done']);
    expect(out[0]).toMatchObject({ isNew: true, site: { url, tags: [] } });
    expect(out[1]!.site).toMatchObject({ title: 'Wait Guide', description: 'Docs for the wait' });
    // The fake Anthropic API chooses 工具 for every site.
    expect(out[3]).toMatchObject({ result: 'done', site: { title: 'Wait Guide', tags: ['工具'] } });

    // Submitted again: processed already, so done from the record, for people this time.
    const again = await svc(['sites', 'submit', url, '--wait']);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(0);
    const lines = again.stdout.trimEnd().split('\n');
    expect(lines.slice(0, 3)).toEqual([
      `accepted: known site ${out[0]!.site.id}: ${url} (submitted 2 times)`,
      'metadata fetched: Wait Guide',
      'tagged: 工具',
    ]);
    expect(lines[3]).toMatch(/^done in \d+\.\d s$/);
  }, 90_000);

  it('exits 4 when the page cannot be fetched: tagged from its URL, no metadata', async () => {
    const url = `${awkward.origin}/gone`;
    const res = await svc(['sites', 'submit', url, '--wait', '--json', '--timeout', '60']);
    expect(res.code).toBe(4);
    const out = steps(res.stdout);
    expect(out.map((s) => s.step)).toEqual(['accepted', 'tagged', 'done']);
    // Listed as submitted: the host as its title, no description.
    expect(out[2]).toMatchObject({
      result: 'page_unreadable',
      site: { title: out[0]!.site.domain, description: '' },
    });
    expect(res.stderr).toBe(
      `svc: the page of ${url} could not be fetched: the site is listed under its host name, tagged from its URL\n`,
    );
  }, 90_000);

  it('exits 3 when the site is not processed within --timeout; it stays submitted', async () => {
    const url = `${awkward.origin}/slow`;
    const res = await svc(['sites', 'submit', url, '--wait', '--timeout', '1']);
    expect(res.code).toBe(3);
    const lines = res.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(new RegExp(`^accepted: new site (\\w+): ${url}$`));
    expect(lines.at(-1)).toMatch(/^timed out after 1\.\d s$/);
    const id = /new site (\w+)/.exec(lines[0]!)![1]!;
    expect(res.stderr).toBe(
      `svc: site ${id} not processed within 1 s; it stays submitted and the work goes on (svc sites get ${id})\n`,
    );
    const later = await svc(['sites', 'get', id, '--json']);
    expect(later.code).toBe(0);
    expect(JSON.parse(later.stdout).site.url).toBe(url);
  }, 60_000);
});
