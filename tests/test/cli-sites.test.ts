// End to end: `svc sites submit | list | get` (built binary) through the real gateway and
// sites processes. `sites get` takes an id (GET /api/sites/{id}) or a URL (found through the
// real search).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import type { ServiceProcess } from '@svc/service-kit/testing';
import { runSvc } from './svc-binary.js';
import { createTestSystem } from './system-processes.js';

const svc = (args: string[]) => runSvc(args, { SVC_BASE_URL: gateway.url });

const system = createTestSystem();
let gateway: ServiceProcess;

beforeAll(async () => {
  const sites = await system.service('sites', {
    SITES_LIST_CACHE_MS: '0',
    SITES_COUNT_CACHE_MS: '0',
  });
  gateway = await system.start('gateway/dist/main.js', { SITES_URL: sites.url });
}, 90_000);

afterAll(() => system.stop());

describe('svc sites through the real service', () => {
  let id = '';

  it('submit creates a site, and a second submit finds the known one', async () => {
    const first = await svc([
      'sites',
      'submit',
      'https://docs.cli-e2e.test/guide?utm_source=x',
      '--json',
    ]);
    expect(first.stderr).toBe('');
    expect(first.code).toBe(0);
    const created = JSON.parse(first.stdout);
    expect(created.isNew).toBe(true);
    id = created.site.id;

    const again = await svc(['sites', 'submit', 'https://docs.cli-e2e.test/guide']);
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(`known site ${id}: ${created.site.url} (submitted 2 times)\n`);
    await svc(['sites', 'submit', 'https://other.cli-e2e.test/']);
  }, 60_000);

  it('list --json is parseable and holds both sites', async () => {
    const res = await svc(['sites', 'list', '--json', '--sort', 'recent']);
    expect(res.code).toBe(0);
    const body = JSON.parse(res.stdout);
    expect(body.total).toBe(2);
    expect(body.sites.map((s: { domain: string }) => s.domain).sort()).toEqual([
      'docs.cli-e2e.test',
      'other.cli-e2e.test',
    ]);
  }, 60_000);

  it('get finds the site by its URL, written differently', async () => {
    const res = await svc(['sites', 'get', 'HTTPS://Docs.CLI-e2e.test/guide#intro', '--json']);
    expect(res.stderr).toBe('');
    expect(res.code).toBe(0);
    expect(JSON.parse(res.stdout).site.id).toBe(id);
  }, 60_000);

  it('get finds a site by its id, and exits 1 for an unknown id or a URL nobody submitted', async () => {
    const byId = await svc(['sites', 'get', id, '--json']);
    expect(byId.stderr).toBe('');
    expect(byId.code).toBe(0);
    expect(JSON.parse(byId.stdout).site.id).toBe(id);
    const unknown = await svc(['sites', 'get', 'NoSuchSiteId123']);
    expect(unknown.code).toBe(1);
    const missing = await svc(['sites', 'get', 'https://docs.cli-e2e.test/other-page']);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toMatch(/no site with the URL/);
  }, 60_000);

  it('boost answers the credits left, then exit 1 at the daily limit', async () => {
    const first = await svc(['sites', 'boost', id, '--json']);
    expect(first.code).toBe(0);
    expect(JSON.parse(first.stdout)).toMatchObject({ site: { id, boost_count: 1 }, credits: 0 });
    const second = await svc(['sites', 'boost', id]);
    expect(second.code).toBe(1);
    expect(second.stderr).toMatch(/\[HTTP 429/);
  }, 60_000);
});
