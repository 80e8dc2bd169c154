// POST and GET /api/sites and GET /api/sites/tags on the real app, PostgreSQL, Redis and
// BullMQ queue: validation, normalised dedup under concurrency, profiles, queueing, the
// chat system message, the per-IP limit, search, tags, sorting and paging.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { SITE_TAGS } from '@svc/types';
import { hotScore } from '../src/domain/hot-score.js';
import { nextIp, startHarness, type Harness } from './api-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

const submit = (url: unknown, ip = nextIp(), cookie?: string) => {
  const req = request(h.app).post('/api/sites').set('X-Forwarded-For', ip);
  if (cookie) req.set('Cookie', cookie);
  return req.send({ url });
};

describe('POST /api/sites', () => {
  it('stores a new site (201, isNew true) with the placeholder metadata, queues its scrape and announces it', async () => {
    const res = await submit('https://WWW.Example.com/?utm_source=x#top');
    expect(res.status).toBe(201);
    expect(res.body.isNew).toBe(true);
    const site = res.body.site;
    expect(site).toMatchObject({
      url: 'https://www.example.com',
      domain: 'example.com',
      title: 'example.com',
      description: '',
      tags: [],
      submit_count: 1,
      click_count: 0,
      boost_count: 0,
      site_type: 'website',
      social_platform: null,
      social_username: null,
      favicon_url: null,
      og_image_url: null,
      is_claimed: false,
      is_promoted: false,
    });
    expect(typeof site.id).toBe('string');
    expect(site.first_submitted_at).toMatch(/Z$/);
    expect(site.hot_score).toBeCloseTo(
      hotScore({
        submitCount: 1,
        clickCount: 0,
        boostCount: 0,
        firstSubmittedAt: new Date(site.first_submitted_at),
      }),
      6,
    );
    expect(res.headers['ratelimit-limit']).toBe('5');

    // Both were committed with the row (job_outbox, system_message_outbox); the relays move them.
    await h.relay();
    const job = await h.scrapeQueue.getJob(`scrape-${site.id}`);
    expect(job?.data).toEqual({ siteId: site.id });
    const chatJobs = await h.chatQueue.getJobs(['waiting', 'delayed', 'prioritized']);
    expect(chatJobs.map((j) => j.data)).toContainEqual({
      content_key: 'site_submitted',
      content_params: { site_id: site.id, url: 'https://www.example.com', domain: 'example.com' },
    });
  });

  it('answers 200 isNew false for a known URL in another spelling and counts the submission', async () => {
    const first = await submit('https://dedupe.example/page');
    expect(first.status).toBe(201);
    const again = await submit('HTTPS://DEDUPE.example:443/page?fbclid=abc#frag');
    expect(again.status).toBe(200);
    expect(again.body.isNew).toBe(false);
    expect(again.body.site.id).toBe(first.body.site.id);
    expect(again.body.site.submit_count).toBe(2);
    expect(again.body.site.hot_score).toBeGreaterThan(first.body.site.hot_score);
    await h.outbox.drain();
    const chatJobs = await h.chatQueue.getJobs(['waiting', 'delayed', 'prioritized']);
    expect(
      chatJobs.filter((j) => j.data.content_params.site_id === first.body.site.id),
    ).toHaveLength(1);
  });

  it.each([2, 10])('creates one site for %i simultaneous submits of the same URL', async (n) => {
    const url = `https://race-${n}.example/`;
    const results = await Promise.all(Array.from({ length: n }, () => submit(url)));
    const statuses = results.map((r) => r.status).sort();
    expect(statuses).toEqual([...Array(n - 1).fill(200), 201]);
    expect(new Set(results.map((r) => r.body.site.id)).size).toBe(1);
    expect(results.filter((r) => r.body.isNew)).toHaveLength(1);
    const row = await h.db.site.findUnique({ where: { url: `https://race-${n}.example` } });
    expect(row?.submitCount).toBe(n);
  });

  it('stores a recognised social profile as a profile site', async () => {
    const res = await submit('https://twitter.com/Jack');
    expect(res.status).toBe(201);
    expect(res.body.site).toMatchObject({
      site_type: 'profile',
      social_platform: 'x',
      social_username: 'Jack',
      domain: 'twitter.com',
    });
    const reserved = await submit('https://github.com/settings');
    expect(reserved.body.site).toMatchObject({
      site_type: 'website',
      social_platform: null,
      social_username: null,
    });
  });

  it.each([
    ['no url', {}, 'Invalid request'],
    ['a number', { url: 42 }, 'Invalid request'],
    ['an empty url', { url: '' }, 'Invalid request'],
    ['ftp:', { url: 'ftp://example.com' }, 'Only http and https URLs are accepted'],
    ['javascript:', { url: 'javascript:alert(1)' }, 'Only http and https URLs are accepted'],
    ['credentials', { url: 'https://u:p@example.com' }, 'URLs with credentials are not accepted'],
    ['no host', { url: 'http://' }, 'Invalid URL'],
    ['a 2100-character URL', { url: `https://example.com/${'x'.repeat(2100)}` }, 'Invalid request'],
  ])('answers 400 for %s', async (_label, body, error) => {
    const res = await request(h.app).post('/api/sites').set('X-Forwarded-For', nextIp()).send(body);
    expect(res.status).toBe(400);
    expect(res.body.error).toBe(error);
  });

  it.each([
    'http://169.254.169.254/latest/meta-data/',
    'http://10.0.0.1/',
    'http://[fd00::1]/',
    'http://127.0.0.1/',
    'http://127.1:8080/admin',
    'http://2130706433/',
    'http://0x7f.0.0.1/',
    'http://0177.0.0.1/',
    'http://[::1]/',
    'http://[::ffff:127.0.0.1]/',
    'http://[::ffff:169.254.169.254]/',
    'http://[64:ff9b::a9fe:a9fe]/', // NAT64 of the metadata address
    'http://[fe80::1]/',
    'http://192.168.1.1/',
    'http://100.64.0.1/',
    'http://0.0.0.0/',
    'localhost:3000', // read as https://localhost:3000
    'http://LOCALHOST./',
    'https://app.localhost/',
    'http://metadata.google.internal/computeMetadata/v1/',
    'http://printer.local/',
    'http://router.home.arpa/',
    'http://intranet/',
  ])('refuses the non-public destination %s with 400, storing nothing', async (url) => {
    const before = await h.db.site.count();
    const res = await submit(url);
    expect(res.status).toBe(400);
    expect(res.body.error).toMatch(
      /^URL must point to a public web site: .*(is not a public address|names a local or private host|is not a fully qualified domain name)$/,
    );
    expect(await h.db.site.count()).toBe(before);
  });

  it('names the refused address in the error', async () => {
    const res = await submit('http://0x7f.1/');
    expect(res.body).toEqual({
      error: 'URL must point to a public web site: 127.0.0.1 is not a public address',
    });
  });

  it('answers 400 for a body that is not JSON', async () => {
    const res = await request(h.app)
      .post('/api/sites')
      .set('X-Forwarded-For', nextIp())
      .set('Content-Type', 'application/json')
      .send('{"url":');
    expect(res.status).toBe(400);
    expect(res.body).toEqual({ error: 'Invalid JSON body' });
  });

  it('allows 5 submissions per minute per IP, then 429 with Retry-After', async () => {
    const ip = nextIp();
    for (let i = 0; i < 5; i++)
      expect((await submit(`https://limit-${i}.example`, ip)).status).toBe(201);
    const sixth = await submit('https://limit-6.example', ip);
    expect(sixth.status).toBe(429);
    expect(sixth.body).toEqual({ error: 'Too many requests' });
    expect(Number(sixth.headers['retry-after'])).toBeGreaterThan(0);
    expect(sixth.headers['ratelimit-remaining']).toBe('0');
    expect((await submit('https://limit-7.example', nextIp())).status).toBe(201);
  });

  it('records the submission of a logged-in user for my-submissions, newest first', async () => {
    const cookie = h.sessionCookie({ id: 'user-sub' });
    const a = await submit('https://mine-a.example', nextIp(), cookie);
    const b = await submit('https://mine-b.example', nextIp(), cookie);
    await submit('https://mine-a.example', nextIp(), cookie); // resubmitting keeps one entry
    await submit('https://not-mine.example');
    const res = await request(h.app).get('/api/sites/my-submissions').set('Cookie', cookie);
    expect(res.status).toBe(200);
    expect(res.body.sites.map((s: { id: string }) => s.id)).toEqual([
      b.body.site.id,
      a.body.site.id,
    ]);
    const row = await h.db.site.findUnique({ where: { id: a.body.site.id } });
    expect(row?.submittedBy).toBe('user-sub');
  });

  it('my-submissions needs a session', async () => {
    const res = await request(h.app).get('/api/sites/my-submissions');
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Authentication required' });
    const forged = await request(h.app)
      .get('/api/sites/my-submissions')
      .set('Cookie', 'sn_token=not.a.jwt');
    expect(forged.status).toBe(401);
  });
});

describe('queueing is durable', () => {
  it('re-queues a stored site whose job is missing when it is submitted again', async () => {
    const first = await submit('https://requeue.example');
    const id = first.body.site.id;
    await h.relay();
    await (await h.scrapeQueue.getJob(`scrape-${id}`))!.remove();
    expect(await h.scrapeQueue.getJob(`scrape-${id}`)).toBeUndefined();
    expect((await submit('https://requeue.example')).status).toBe(200);
    await h.relay();
    expect((await h.scrapeQueue.getJob(`scrape-${id}`))?.data).toEqual({ siteId: id });
  });

  it('gives a site whose scrape failed another try when it is submitted again, not a scraped one', async () => {
    const failed = (await submit('https://failed-scrape.example')).body.site.id;
    const done = (await submit('https://done-scrape.example')).body.site.id;
    await h.relay();
    for (const id of [failed, done]) await (await h.scrapeQueue.getJob(`scrape-${id}`))!.remove();
    await h.db.site.update({ where: { id: failed }, data: { scrapeStatus: 'failed' } });
    await h.db.site.update({ where: { id: done }, data: { scrapeStatus: 'done' } });
    expect((await submit('https://failed-scrape.example')).status).toBe(200);
    expect((await submit('https://done-scrape.example')).status).toBe(200);
    await h.relay();
    expect((await h.scrapeQueue.getJob(`scrape-${failed}`))?.data).toEqual({ siteId: failed });
    expect(await h.scrapeQueue.getJob(`scrape-${done}`)).toBeUndefined();
  });

  it('the sweep queues pending sites older than two minutes and leaves scraped ones alone', async () => {
    const { requeuePendingScrapes } = await import('../src/actions/scrape-requeue.js');
    const { createSiteStore } = await import('../src/store/site-store.js');
    const old = new Date(Date.now() - 10 * 60_000);
    await h.db.site.create({
      data: {
        id: 'sweep-pending',
        url: 'https://sweep-1.example',
        title: 't',
        domain: 'sweep-1.example',
        firstSubmittedAt: old,
      },
    });
    await h.db.site.create({
      data: {
        id: 'sweep-done',
        url: 'https://sweep-2.example',
        title: 't',
        domain: 'sweep-2.example',
        firstSubmittedAt: old,
        scrapeStatus: 'done',
      },
    });
    const n = await requeuePendingScrapes(createSiteStore(h.db), h.scrapeQueue);
    expect(n).toBeGreaterThanOrEqual(1);
    expect((await h.scrapeQueue.getJob('scrape-sweep-pending'))?.data).toEqual({
      siteId: 'sweep-pending',
    });
    expect(await h.scrapeQueue.getJob('scrape-sweep-done')).toBeUndefined();
  });

  it('the sweep queues tagging of scraped sites left without tags, and leaves tagged ones alone', async () => {
    const { requeueUntagged } = await import('../src/actions/scrape-requeue.js');
    const { createSiteStore } = await import('../src/store/site-store.js');
    const old = new Date(Date.now() - 10 * 60_000);
    const site = (id: string, data: Record<string, unknown>) =>
      h.db.site.create({
        data: { id, url: `https://${id}.example`, title: 't', domain: `${id}.example`, ...data },
      });
    await site('untagged-done', { firstSubmittedAt: old, scrapeStatus: 'done' });
    await site('untagged-failed', { firstSubmittedAt: old, scrapeStatus: 'failed' });
    await site('tagged-done', { firstSubmittedAt: old, scrapeStatus: 'done', tags: ['工具'] });
    await site('untagged-pending', { firstSubmittedAt: old });
    await site('untagged-recent', { scrapeStatus: 'done' });
    // At least these two (sites of the tests above may also qualify).
    expect(await requeueUntagged(createSiteStore(h.db), h.tagQueue)).toBeGreaterThanOrEqual(2);
    for (const id of ['untagged-done', 'untagged-failed'])
      expect((await h.tagQueue.getJob(`tag-${id}`))?.data).toEqual({ siteId: id });
    for (const id of ['tagged-done', 'untagged-pending', 'untagged-recent'])
      expect(await h.tagQueue.getJob(`tag-${id}`)).toBeUndefined();
  });
});

describe('GET /api/sites/tags', () => {
  it('lists the 11 tags', async () => {
    const res = await request(h.app).get('/api/sites/tags');
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ tags: [...SITE_TAGS] });
    expect(res.body.tags).toHaveLength(11);
  });
});
