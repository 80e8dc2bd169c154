// Abuse limits on POST /api/v1/apps/{slug}/report (docs/decisions/018-abuse-resistant-reporting.md "Abuse-resistant
// reporting"): 10 reports an hour per user and 20 per client IP, answered 429 before
// anything is written; REPORT_DISTINCT_NETWORKS counts one client network (IPv4 /24,
// IPv6 /56) once toward the block threshold, and off it the documented rule holds as written.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { REPORT_LIMITS } from '@svc/types';
import { DEV_IP_HASH_SECRET, configSchema, ipHashSecret } from '../src/config.js';
import { reporterNetworkOf } from '../src/domain/reporter-network.js';
import { startHarness, type Harness, type TestUser } from './harness.js';

const [PER_USER, PER_IP] = REPORT_LIMITS.also;

const reportFrom = (h: Harness, u: TestUser, slug: string, ip: string) =>
  request(h.app)
    .post(`/api/v1/apps/${slug}/report`)
    .set('Cookie', u.cookie)
    .set('X-Forwarded-For', ip)
    .send({ reason: 'spam' });

describe('settings', () => {
  it('REPORT_DISTINCT_NETWORKS is off unless set; IP_HASH_SECRET is required in production', () => {
    expect(configSchema.parse({}).REPORT_DISTINCT_NETWORKS).toBe(false);
    expect(configSchema.parse({ REPORT_DISTINCT_NETWORKS: 'true' }).REPORT_DISTINCT_NETWORKS).toBe(
      true,
    );
    expect(() => ipHashSecret({ NODE_ENV: 'production', IP_HASH_SECRET: undefined })).toThrow(
      /IP_HASH_SECRET/,
    );
    expect(ipHashSecret({ NODE_ENV: 'production', IP_HASH_SECRET: 's3cret' })).toBe('s3cret');
    expect(ipHashSecret({ NODE_ENV: 'development', IP_HASH_SECRET: undefined })).toBe(
      DEV_IP_HASH_SECRET,
    );
  });
});

describe('reporterNetworkOf', () => {
  it('is the IPv4 /24 and the IPv6 /56', () => {
    expect(reporterNetworkOf('203.0.113.7')).toBe('203.0.113.0/24');
    expect(reporterNetworkOf('::ffff:203.0.113.200')).toBe('203.0.113.0/24');
    expect(reporterNetworkOf('2001:db8:aa:bbcc::1')).toBe('2001:db8:aa:bb00::/56');
    expect(reporterNetworkOf('2001:DB8:AA:BBFF:1:2:3:4')).toBe('2001:db8:aa:bb00::/56');
    expect(reporterNetworkOf('2001:db8:aa:cc00::1')).not.toBe(
      reporterNetworkOf('2001:db8:aa:bb00::1'),
    );
    expect(reporterNetworkOf('::1')).toBe('0:0:0:0::/56');
    expect(reporterNetworkOf('64:ff9b::192.0.2.33')).toBe('64:ff9b:0:0::/56');
  });
});

describe('report limits (per user and per client IP, an hour)', () => {
  let h: Harness;
  let author: TestUser;
  beforeAll(async () => {
    h = await startHarness({ trustProxy: true });
    author = h.user('author');
  });
  afterAll(() => h.close());

  it(`answers 429 with the RateLimit headers after ${PER_USER.limit} reports by one user, recording nothing more`, async () => {
    const reporter = h.user('busy');
    const apps = [];
    for (let i = 0; i <= PER_USER.limit; i++)
      apps.push(await h.seedApp(author, { slug: `per-user-${i}` }));
    // Each from its own address, so only the per-user limit can refuse.
    for (let i = 0; i < PER_USER.limit; i++) {
      const res = await reportFrom(h, reporter, apps[i]!.slug, `198.51.${i}.1`);
      expect(res.status).toBe(200);
    }
    const refused = await reportFrom(h, reporter, apps[PER_USER.limit]!.slug, '198.51.200.1');
    expect(refused.status).toBe(429);
    expect(refused.body.error).toEqual(expect.any(String));
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(Number(refused.headers['retry-after'])).toBeLessThanOrEqual(3600);
    expect(refused.headers['ratelimit-limit']).toBe(String(PER_USER.limit));
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(refused.headers['ratelimit-reset']).toEqual(expect.any(String));
    const last = await h.db.app.findUniqueOrThrow({ where: { id: apps[PER_USER.limit]!.id } });
    expect(last.reportCount).toBe(0);
    expect(await h.db.appReport.count({ where: { appId: last.id } })).toBe(0);
    expect(await h.db.appReport.count({ where: { userId: reporter.id } })).toBe(PER_USER.limit);
    // Another user is not affected.
    expect(
      (await reportFrom(h, h.user('calm'), apps[PER_USER.limit]!.slug, '198.51.201.1')).status,
    ).toBe(200);
  });

  it(`answers 429 after ${PER_IP.limit} reports from one client IP, whoever sends them`, async () => {
    const ip = '192.0.2.77';
    const target = await h.seedApp(author, { slug: 'per-ip-target' });
    const apps = [];
    for (let i = 0; i < PER_IP.limit; i++)
      apps.push(await h.seedApp(author, { slug: `per-ip-${i}` }));
    for (const [i, app] of apps.entries()) {
      // A fresh account for each report: only the per-IP limit can refuse.
      const res = await reportFrom(h, h.user(`farm${i}`), app.slug, ip);
      expect(res.status).toBe(200);
    }
    const refused = await reportFrom(h, h.user('farm-last'), target.slug, ip);
    expect(refused.status).toBe(429);
    expect(Number(refused.headers['retry-after'])).toBeGreaterThan(0);
    expect(refused.headers['ratelimit-limit']).toBe(String(PER_IP.limit));
    expect(refused.headers['ratelimit-remaining']).toBe('0');
    expect(await h.db.appReport.count({ where: { appId: target.id } })).toBe(0);
    expect((await h.db.app.findUniqueOrThrow({ where: { id: target.id } })).reportCount).toBe(0);
    // The next address is not affected.
    expect((await reportFrom(h, h.user('elsewhere'), target.slug, '192.0.2.78')).status).toBe(200);
  });

  it('stores a keyed hash of the network with each report, never the address', async () => {
    const app = await h.seedApp(author, { slug: 'hashed-network' });
    const a = h.user('na');
    const b = h.user('nb');
    expect((await reportFrom(h, a, app.slug, '203.0.113.5')).status).toBe(200);
    expect((await reportFrom(h, b, app.slug, '203.0.113.99')).status).toBe(200);
    const rows = await h.db.appReport.findMany({ where: { appId: app.id } });
    expect(rows).toHaveLength(2);
    const [first, second] = rows.map((r) => r.reporterNetwork);
    expect(first).toMatch(/^[0-9a-f]{64}$/);
    expect(second).toBe(first);
    expect(JSON.stringify(rows)).not.toContain('203.0.113');
  });
});

/** Five fresh accounts report `slug`, one after the other, from the given addresses. */
async function fiveReports(h: Harness, slug: string, ips: string[]) {
  const answers = [];
  for (const [i, ip] of ips.entries())
    answers.push(await reportFrom(h, h.user(`acc${i}`), slug, ip));
  return answers;
}

describe('REPORT_DISTINCT_NETWORKS=true', () => {
  let h: Harness;
  let author: TestUser;
  beforeAll(async () => {
    h = await startHarness({ trustProxy: true, reportDistinctNetworks: true });
    author = h.user('author');
  });
  afterAll(() => h.close());

  it('five accounts from one /24 cannot block an app; every report is still recorded', async () => {
    const app = await h.seedApp(author, { slug: 'one-nat' });
    const answers = await fiveReports(
      h,
      app.slug,
      [1, 2, 3, 4, 5].map((i) => `203.0.113.${i}`),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((a) => a.body.report_count)).toEqual([1, 1, 1, 1, 1]);
    expect(answers.every((a) => a.body.blocked === false)).toBe(true);
    expect(answers[4]!.body.message).toBe(
      'Report recorded. 4 more reports needed to trigger the automatic block.',
    );
    const row = await h.db.app.findUniqueOrThrow({ where: { id: app.id } });
    expect(row).toMatchObject({ status: 'approved', reportCount: 1 });
    expect(await h.db.appReport.count({ where: { appId: app.id } })).toBe(5);
    // IPv6: one /56 is one network too.
    const v6 = await h.seedApp(author, { slug: 'one-v6-site' });
    const v6answers = await fiveReports(
      h,
      v6.slug,
      ['00', '11', '22', '33', 'ff'].map((b) => `2001:db8:5:7${b}::1`),
    );
    expect(v6answers.map((a) => a.body.report_count)).toEqual([1, 1, 1, 1, 1]);
  });

  it('five accounts from five networks block it at the fifth', async () => {
    const app = await h.seedApp(author, { slug: 'five-nets', name: 'Five Nets' });
    const answers = await fiveReports(
      h,
      app.slug,
      [1, 2, 3, 4, 5].map((i) => `198.18.${i}.9`),
    );
    expect(answers.map((a) => a.status)).toEqual([200, 200, 200, 200, 200]);
    expect(answers.map((a) => a.body.report_count)).toEqual([1, 2, 3, 4, 5]);
    expect(answers[4]!.body).toMatchObject({ blocked: true, report_count: 5 });
    expect((await h.db.app.findUniqueOrThrow({ where: { id: app.id } })).status).toBe('blocked');
    const jobs = (await h.systemJobs()).filter((j) => j.data.content_params.slug === app.slug);
    expect(jobs).toHaveLength(1);
  });

  it('a shared network adds nothing, a new network adds one', async () => {
    const app = await h.seedApp(author, { slug: 'mixed-nets' });
    const ips = ['10.1.1.1', '10.1.1.2', '10.1.2.1', '10.1.2.2', '10.1.3.1'];
    const answers = await fiveReports(h, app.slug, ips);
    expect(answers.map((a) => a.body.report_count)).toEqual([1, 1, 2, 2, 3]);
  });

  it('concurrent reports from distinct networks block exactly once, in 20 rounds', async () => {
    for (let round = 0; round < 20; round++) {
      const slug = `net-race-${round}`;
      await h.seedApp(author, { slug });
      // Six networks at once: five reach the threshold, the sixth finds the app blocked.
      const answers = await Promise.all(
        [1, 2, 3, 4, 5, 6].map((i) => reportFrom(h, h.user('racer'), slug, `100.${round}.${i}.1`)),
      );
      expect(answers.map((a) => a.status).sort()).toEqual([200, 200, 200, 200, 200, 409]);
      expect(answers.filter((a) => a.body.blocked === true)).toHaveLength(1);
      const row = await h.db.app.findUniqueOrThrow({ where: { slug } });
      expect(row).toMatchObject({ status: 'blocked', reportCount: 5 });
    }
    const jobs = (await h.systemJobs()).filter((j) =>
      j.data.content_params.slug.startsWith('net-race-'),
    );
    expect(jobs).toHaveLength(20);
  }, 60_000);
});

describe('REPORT_DISTINCT_NETWORKS off (the default): the documented rule as written', () => {
  let h: Harness;
  let author: TestUser;
  beforeAll(async () => {
    h = await startHarness({ trustProxy: true });
    author = h.user('author');
  });
  afterAll(() => h.close());

  it('five accounts from one /24 block the app at the fifth', async () => {
    const app = await h.seedApp(author, { slug: 'one-nat-off' });
    const answers = await fiveReports(
      h,
      app.slug,
      [1, 2, 3, 4, 5].map((i) => `203.0.113.${i}`),
    );
    expect(answers.map((a) => a.body.report_count)).toEqual([1, 2, 3, 4, 5]);
    expect(answers[4]!.body).toMatchObject({ blocked: true });
    expect((await h.db.app.findUniqueOrThrow({ where: { id: app.id } })).status).toBe('blocked');
  });
});
