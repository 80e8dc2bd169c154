// The whole pipeline in-process with the real Workers, PostgreSQL, Redis and BullMQ:
// a loopback website is scraped, its metadata stored and announced, then tagged by the
// (fake) Anthropic API and announced again; bad pages end `failed` but listed and tagged.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { SiteUpdateEvent } from '@svc/types';
import {
  enqueueScrape,
  enqueueTag,
  SCRAPE_QUEUE,
  scrapeJobId,
  TAG_QUEUE,
} from '../src/worker/queues.js';
import {
  createWorkerEnv,
  fakeAiTagger,
  htmlPage,
  startFakeAnthropic,
  startFakeWebsite,
  waitFor,
  waitForTagged,
  type FakeAnthropic,
  type FakeWebsite,
  type WorkerEnv,
} from './worker-harness.js';

let env: WorkerEnv;
let web: FakeWebsite;
let ai: FakeAnthropic;

beforeAll(async () => {
  env = await createWorkerEnv();
  web = await startFakeWebsite({
    '/tool': htmlPage(
      `<html><head><title>JSON Formatter</title>
       <meta name="description" content="Format and validate JSON online">
       <link rel="icon" href="/favicon-32.png" sizes="32x32">
       <meta property="og:image" content="https://cdn.example.com/card.png"></head><body></body></html>`,
    ),
    '/profile': htmlPage(
      `<html><head><title>octocat · GitHub</title>
       <meta name="description" content="generic description">
       <meta property="og:description" content="I build things with code.">
       <meta property="og:image" content="https://avatars.example.com/u/1.png"></head></html>`,
    ),
    '/gone': htmlPage('<title>Not here</title>', 'text/html', 404),
    '/never-ends': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write('<html><head><title>Never');
    },
    '/huge': (_req, res) => {
      res.writeHead(200, { 'content-type': 'text/html' });
      res.write(
        '<html><head><title>Big page</title><meta name="description" content="ten megabytes"></head><body>',
      );
      const chunk = Buffer.alloc(64 * 1024, 'x');
      let sent = 0;
      const pump = (): void => {
        while (sent < 10 * 1024 * 1024) {
          sent += chunk.length;
          if (!res.write(chunk)) return void res.once('drain', pump);
        }
        res.end('</body></html>');
      };
      pump();
    },
    '/broken-charset': htmlPage(
      Buffer.concat([
        Buffer.from('<html><head><title>Broken '),
        Buffer.from([0xff, 0xc3, 0x28, 0xa0]),
        Buffer.from(' page</title></head></html>'),
      ]),
      'text/html; charset=utf-8',
    ),
    '/unknown-charset': htmlPage(
      '<html><head><title>Odd charset</title></head></html>',
      'text/html; charset=x-no-such',
    ),
    '/private-images': htmlPage(
      '<html><head><title>Inside</title><link rel="icon" href="http://localhost:8080/admin.png"><meta property="og:image" content="http://169.254.169.254/latest/meta-data/"></head></html>',
    ),
    '/private-images-v6': htmlPage(
      '<html><head><title>P</title><meta property="og:image" content="http://[fd00::1]/me.png"><link rel="icon" href="http://0x7f.1/i.png"></head></html>',
    ),
    '/javascript-icon': htmlPage(
      '<html><head><title>Sneaky</title><link rel="icon" href="javascript:alert(1)"><meta property="og:image" content="data:image/png;base64,AAAA"></head></html>',
    ),
  });
  ai = await startFakeAnthropic();
  env.startWorkers(
    {
      OUTBOUND_ALLOW_HOSTS: web.host,
      SCRAPE_TIMEOUT_MS: '1000',
      SCRAPE_MAX_BYTES: String(512 * 1024),
      SCRAPE_CONCURRENCY: '4',
    },
    { ai: fakeAiTagger(ai) },
  );
});

afterAll(async () => {
  await env?.close();
  await web?.close();
  await ai?.close();
});

const siteEvents = (id: string) =>
  env.events
    .filter((e) => e.event === 'site_update' && e.payload.id === id)
    .map((e) => SiteUpdateEvent.parse(e).payload);

describe('scrape → tag pipeline', () => {
  it('stores the metadata, publishes it, then the AI tags (filtered to the 11), published again', async () => {
    ai.answer('["工具", "技术", "Productivity", "工具"]');
    const id = await env.insertSite(web.url('/tool'));
    await enqueueScrape(env.queues[SCRAPE_QUEUE], id);

    const site = await waitForTagged(env.db, id);
    expect(site).toMatchObject({
      title: 'JSON Formatter',
      description: 'Format and validate JSON online',
      faviconUrl: web.url('/favicon-32.png'),
      ogImageUrl: 'https://cdn.example.com/card.png',
      scrapeStatus: 'done',
      tags: ['工具', '技术'],
    });
    // The model saw the scraped page, through the real SDK.
    const call = ai.calls.find((c) => JSON.stringify(c.messages).includes(web.url('/tool')));
    expect(call?.model).toBe('claude-haiku-4-5');
    expect(JSON.stringify(call?.messages)).toContain('JSON Formatter');

    const updates = await waitFor(
      async () => siteEvents(id).length >= 2 && siteEvents(id),
      5000,
      'two site_update events',
    );
    expect(updates).toEqual([
      {
        id,
        title: 'JSON Formatter',
        description: 'Format and validate JSON online',
        favicon_url: web.url('/favicon-32.png'),
        og_image_url: 'https://cdn.example.com/card.png',
      },
      { id, tags: ['工具', '技术'] },
    ]);
  });

  it('takes a profile page’s avatar and bio from Open Graph', async () => {
    ai.answer('["社交"]');
    const id = await env.insertSite(web.url('/profile'), {
      siteType: 'profile',
      socialPlatform: 'github',
      socialUsername: 'octocat',
    });
    await enqueueScrape(env.queues[SCRAPE_QUEUE], id);
    const site = await waitForTagged(env.db, id);
    expect(site).toMatchObject({
      title: 'octocat · GitHub',
      description: 'I build things with code.',
      ogImageUrl: 'https://avatars.example.com/u/1.png',
      tags: ['社交'],
    });
  });

  it('falls back to the keyword classifier when the AI answers nothing usable', async () => {
    ai.answer('["Tools", "Software"]'); // none of the 11
    const id = await env.insertSite(web.url('/tool?ai=useless'));
    await enqueueScrape(env.queues[SCRAPE_QUEUE], id);
    const site = await waitForTagged(env.db, id);
    expect(site.tags).toContain('工具'); // "JSON Formatter ... online" → tools, by keywords
    expect(site.tags.length).toBeLessThanOrEqual(3);
    ai.answer('["工具"]');
  });

  it('falls back to the keyword classifier when the AI API fails after its retries', async () => {
    ai.failWith(500);
    const before = ai.calls.length;
    const id = await env.insertSite(web.url('/tool?ai=down'));
    await enqueueScrape(env.queues[SCRAPE_QUEUE], id);
    const site = await waitForTagged(env.db, id);
    expect(site.tags).toContain('工具');
    expect(ai.calls.length - before).toBe(2); // the call and the SDK's one retry
    ai.answer('["工具"]');
  });

  it('enqueueing the same site twice runs one job', async () => {
    const id = await env.insertSite(web.url('/tool?twice'));
    await enqueueScrape(env.queues[SCRAPE_QUEUE], id);
    await enqueueScrape(env.queues[SCRAPE_QUEUE], id);
    await waitForTagged(env.db, id);
    await enqueueScrape(env.queues[SCRAPE_QUEUE], id); // after completion too
    await new Promise((r) => setTimeout(r, 300));
    expect(web.requests.filter((p) => p === '/tool?twice')).toHaveLength(1);
    expect(await env.queues[SCRAPE_QUEUE].getJobState(scrapeJobId(id))).toBe('completed');
  });
});

describe('pages that cannot be scraped', () => {
  it('a 404 page: the site stays listed with what is known, marked failed, still tagged', async () => {
    const id = await env.insertSite(web.url('/gone'));
    await enqueueScrape(env.queues[SCRAPE_QUEUE], id);
    const site = await waitForTagged(env.db, id);
    expect(site).toMatchObject({ title: '127.0.0.1', description: '', scrapeStatus: 'failed' });
    // No metadata event for a failure, one for the tags. Tags are stored before they are
    // published (and pub/sub is asynchronous): wait for the event, then check it is the only one.
    await waitFor(async () => siteEvents(id).length > 0, undefined, 'the tags event');
    expect(siteEvents(id)).toEqual([{ id, tags: site.tags }]);
  });

  it('a page that never finishes is retried, then marked failed, and the worker carries on', async () => {
    const id = await env.insertSite(web.url('/never-ends'));
    // Two attempts, short backoff: the same processor as production, faster.
    await env.queues[SCRAPE_QUEUE].add(
      'scrape',
      { siteId: id },
      { jobId: scrapeJobId(id), attempts: 2, backoff: { type: 'fixed', delay: 100 } },
    );
    const site = await waitForTagged(env.db, id, 20_000);
    expect(site.scrapeStatus).toBe('failed');
    expect(web.requests.filter((p) => p === '/never-ends').length).toBe(2);

    // Still working: another site goes through.
    const next = await env.insertSite(web.url('/tool?after-hang'));
    await enqueueScrape(env.queues[SCRAPE_QUEUE], next);
    expect((await waitForTagged(env.db, next)).title).toBe('JSON Formatter');
  }, 30_000);

  it('a 10 MB page is read up to the cap and its <head> used', async () => {
    const id = await env.insertSite(web.url('/huge'));
    await enqueueScrape(env.queues[SCRAPE_QUEUE], id);
    const site = await waitForTagged(env.db, id);
    expect(site).toMatchObject({
      title: 'Big page',
      description: 'ten megabytes',
      scrapeStatus: 'done',
    });
  });

  it('broken bytes and unknown charsets decode to something readable', async () => {
    const broken = await env.insertSite(web.url('/broken-charset'));
    const odd = await env.insertSite(web.url('/unknown-charset'));
    await enqueueScrape(env.queues[SCRAPE_QUEUE], broken);
    await enqueueScrape(env.queues[SCRAPE_QUEUE], odd);
    expect((await waitForTagged(env.db, broken)).title).toMatch(/^Broken .*page$/);
    expect((await waitForTagged(env.db, odd)).title).toBe('Odd charset');
  });

  it('never stores javascript: or data: image URLs', async () => {
    const id = await env.insertSite(web.url('/javascript-icon'));
    await enqueueScrape(env.queues[SCRAPE_QUEUE], id);
    const site = await waitForTagged(env.db, id);
    expect(site.faviconUrl).toBe(`http://${web.host}/favicon.ico`);
    expect(site.ogImageUrl).toBeNull();
  });

  it('never stores or announces icon and image URLs at private addresses', async () => {
    const ids = [
      await env.insertSite(web.url('/private-images')),
      await env.insertSite(web.url('/private-images-v6')),
    ];
    for (const id of ids) await enqueueScrape(env.queues[SCRAPE_QUEUE], id);
    for (const id of ids) {
      const site = await waitForTagged(env.db, id);
      expect(site.scrapeStatus).toBe('done');
      // The page's own (allow-listed) origin's /favicon.ico replaces the refused icon.
      expect(site.faviconUrl).toBe(`http://${web.host}/favicon.ico`);
      expect(site.ogImageUrl).toBeNull();
      const update = env.events.find(
        (e) => e.event === 'site_update' && e.payload.id === id && 'og_image_url' in e.payload,
      );
      expect(update?.payload).toMatchObject({
        favicon_url: `http://${web.host}/favicon.ico`,
        og_image_url: null,
      });
    }
  });

  it('a job for a deleted site completes without effect', async () => {
    await enqueueScrape(env.queues[SCRAPE_QUEUE], 'no-such-site');
    await enqueueTag(env.queues[TAG_QUEUE], 'no-such-site');
    // Fetched again once completed: a job object read earlier keeps its old returnvalue.
    const job = await waitFor(async () => {
      const queue = env.queues[SCRAPE_QUEUE];
      if ((await queue.getJobState(scrapeJobId('no-such-site'))) !== 'completed') return undefined;
      return queue.getJob(scrapeJobId('no-such-site'));
    });
    expect(job.returnvalue).toBe('missing');
  });
});
