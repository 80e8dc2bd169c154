// Idempotency-Key on POST /api/sites, on the real app and PostgreSQL: a retry with the same
// key gets the first answer byte for byte and is not counted again, under concurrency too;
// keys are per caller, live 24 hours, and a key reused for another URL is refused (422).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { nextIp, startHarness, type Harness } from './api-harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(async () => {
  await h?.close();
});

let keyCounter = 0;
const newKey = () => `key-${Date.now()}-${keyCounter++}`;

const submit = (url: string, opts: { key?: string; ip?: string; cookie?: string } = {}) => {
  const req = request(h.app)
    .post('/api/sites')
    .set('X-Forwarded-For', opts.ip ?? nextIp());
  if (opts.key !== undefined) req.set('Idempotency-Key', opts.key);
  if (opts.cookie) req.set('Cookie', opts.cookie);
  return req.send({ url });
};

const row = (url: string) => h.db.site.findUnique({ where: { url } });

/** Scrape jobs and chat messages for a site once both relays have run. */
async function relayed(siteId: string) {
  await h.relay();
  const scrape = (
    await h.scrapeQueue.getJobs(['waiting', 'delayed', 'prioritized', 'active', 'completed'])
  ).filter((j) => j.data.siteId === siteId);
  const chat = (await h.chatQueue.getJobs(['waiting', 'delayed', 'prioritized'])).filter(
    (j) => j.data.content_params.site_id === siteId,
  );
  return { scrape: scrape.length, chat: chat.length };
}

describe('Idempotency-Key on POST /api/sites', () => {
  it('a retry with the same key gets the first answer (status and body) and is not counted', async () => {
    const ip = nextIp();
    const key = newKey();
    const first = await submit('https://idem-once.example', { key, ip });
    expect(first.status).toBe(201);
    expect(first.headers['idempotent-replayed']).toBeUndefined();
    const retry = await submit('https://idem-once.example', { key, ip });
    expect(retry.status).toBe(201);
    expect(retry.text).toBe(first.text);
    expect(retry.headers['content-type']).toMatch(/^application\/json/);
    expect(retry.headers['idempotent-replayed']).toBe('true');
    // Another spelling of the same URL is the same request.
    const spelled = await submit('HTTPS://IDEM-ONCE.example/?utm_source=retry', { key, ip });
    expect(spelled.status).toBe(201);
    expect(spelled.text).toBe(first.text);

    expect((await row('https://idem-once.example'))?.submitCount).toBe(1);
    expect(await relayed(first.body.site.id)).toEqual({ scrape: 1, chat: 1 });
  });

  it('a retried resubmission of a known site (200) is counted once too', async () => {
    expect((await submit('https://idem-known.example')).status).toBe(201);
    const ip = nextIp();
    const key = newKey();
    const first = await submit('https://idem-known.example', { key, ip });
    expect(first.status).toBe(200);
    expect(first.body.site.submit_count).toBe(2);
    for (let i = 0; i < 3; i++) {
      const retry = await submit('https://idem-known.example', { key, ip });
      expect(retry.status).toBe(200);
      expect(retry.text).toBe(first.text);
    }
    expect((await row('https://idem-known.example'))?.submitCount).toBe(2);
  });

  it('concurrent retries with the same key (one visitor) are counted once, all with one answer', async () => {
    const ip = nextIp();
    const key = newKey();
    // 5: the per-IP submit limit per minute.
    const answers = await Promise.all(
      Array.from({ length: 5 }, () => submit('https://idem-race-ip.example', { key, ip })),
    );
    expect(answers.map((a) => a.status)).toEqual([201, 201, 201, 201, 201]);
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    const site = await row('https://idem-race-ip.example');
    expect(site?.submitCount).toBe(1);
    expect(await relayed(site!.id)).toEqual({ scrape: 1, chat: 1 });
  });

  it('concurrent retries with the same key (one user, from 10 addresses) are counted once', async () => {
    const cookie = h.sessionCookie({ id: 'idem-user' });
    const key = newKey();
    const answers = await Promise.all(
      Array.from({ length: 10 }, () => submit('https://idem-race-user.example', { key, cookie })),
    );
    expect(answers.map((a) => a.status)).toEqual(Array(10).fill(201));
    expect(new Set(answers.map((a) => a.text)).size).toBe(1);
    expect((await row('https://idem-race-user.example'))?.submitCount).toBe(1);
    // The user's history has the site once, as for any submission.
    const mine = await request(h.app).get('/api/sites/my-submissions').set('Cookie', cookie);
    expect(mine.body.sites.map((s: { url: string }) => s.url)).toEqual([
      'https://idem-race-user.example',
    ]);
  });

  it('keys belong to their caller: the same key from another visitor or user is a new request', async () => {
    const key = newKey();
    const a = await submit('https://idem-scope.example', { key });
    const b = await submit('https://idem-scope.example', { key }); // another IP
    expect([a.status, b.status]).toEqual([201, 200]);
    const alice = h.sessionCookie({ id: 'idem-alice' });
    const c = await submit('https://idem-scope.example', { key, cookie: alice });
    const d = await submit('https://idem-scope.example', { key, cookie: alice }); // her retry, other IP
    expect([c.status, d.status]).toEqual([200, 200]);
    expect(d.text).toBe(c.text);
    expect((await row('https://idem-scope.example'))?.submitCount).toBe(3);
  });

  it('the same key for another URL answers 422 and stores nothing', async () => {
    const ip = nextIp();
    const key = newKey();
    expect((await submit('https://idem-first.example', { key, ip })).status).toBe(201);
    const other = await submit('https://idem-other.example', { key, ip });
    expect(other.status).toBe(422);
    expect(other.body).toEqual({ error: 'Idempotency-Key already used for a different request' });
    expect(await row('https://idem-other.example')).toBeNull();
  });

  it.each([
    ['256 characters', 'k'.repeat(256)],
    ['non-ASCII', 'clé'],
    ['a tab', 'a\tb'],
    ['an empty quoted string', '""'],
    ['an unterminated quoted string', '"abc'],
  ])('answers 400 for a key with %s, storing nothing', async (_label, key) => {
    const url = `https://idem-bad-${keyCounter++}.example`;
    const res = await submit(url, { key });
    expect(res.status).toBe(400);
    expect(res.body).toEqual({
      error: 'Invalid Idempotency-Key header: 1 to 255 printable ASCII characters',
    });
    expect(await row(url)).toBeNull();
  });

  it('accepts 255 characters, and the quoted (structured field) form names the same key', async () => {
    const ip = nextIp();
    const long = `${'k'.repeat(250)}${keyCounter++}`.slice(0, 255);
    expect((await submit('https://idem-long.example', { key: long, ip })).status).toBe(201);
    const key = newKey();
    const first = await submit('https://idem-quoted.example', { key: `"${key}"`, ip });
    const bare = await submit('https://idem-quoted.example', { key, ip });
    expect([first.status, bare.status]).toEqual([201, 201]);
    expect(bare.headers['idempotent-replayed']).toBe('true');
    expect((await row('https://idem-quoted.example'))?.submitCount).toBe(1);
  });

  it('forgets a key after 24 hours: the retry then counts, and its answer is the one kept', async () => {
    const ip = nextIp();
    const key = newKey();
    expect((await submit('https://idem-expired.example', { key, ip })).status).toBe(201);
    await h.db.idempotencyKey.updateMany({
      where: { key },
      data: { createdAt: new Date(Date.now() - 24 * 3600_000 - 60_000) },
    });
    const later = await submit('https://idem-expired.example', { key, ip });
    expect(later.status).toBe(200);
    expect(later.headers['idempotent-replayed']).toBeUndefined();
    const again = await submit('https://idem-expired.example', { key, ip });
    expect(again.status).toBe(200);
    expect(again.text).toBe(later.text);
    expect((await row('https://idem-expired.example'))?.submitCount).toBe(2);
  });

  it('the sweep deletes expired keys and keeps live ones', async () => {
    const { createSubmissionStore } = await import('../src/store/submission-store.js');
    const live = newKey();
    const old = newKey();
    await submit('https://idem-sweep-1.example', { key: live });
    await submit('https://idem-sweep-2.example', { key: old });
    await h.db.idempotencyKey.updateMany({
      where: { key: old },
      data: { createdAt: new Date(Date.now() - 25 * 3600_000) },
    });
    expect(
      await createSubmissionStore(h.listingPool).deleteExpiredIdempotencyKeys(),
    ).toBeGreaterThanOrEqual(1);
    expect(await h.db.idempotencyKey.count({ where: { key: old } })).toBe(0);
    expect(await h.db.idempotencyKey.count({ where: { key: live } })).toBe(1);
  });
});
