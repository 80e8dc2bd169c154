import { createHash } from 'node:crypto';
import { describe, expect, it } from '@jest/globals';
import zlib from 'node:zlib';
import { cacheKey, hashPolicy, inlineScriptHashes, isStorable, PageCache, pickEncoding, type RenderedPage } from '../server/page-cache';

const sha = (text: string) => `'sha256-${createHash('sha256').update(text, 'utf8').digest('base64')}'`;

const html = '<html><head><script nonce="N1">a()</script><script type="module" src="/assets/x.js"></script></head>' +
  '<body><script nonce="N1" type="module" async>import "/assets/y.js";\n</script></body></html>';

const page = (over: Partial<RenderedPage> = {}): RenderedPage => ({
  status: 200,
  headers: [
    ['content-type', 'text/html; charset=utf-8'],
    ['content-security-policy', "default-src 'self'; script-src 'self' 'nonce-N1'; frame-ancestors 'none'"],
    ['content-length', '999'],
  ],
  body: Buffer.from(html),
  ...over,
});

describe('the CSP of a stored page', () => {
  it('hashes every inline script, and no script with src', () => {
    expect(inlineScriptHashes(html)).toEqual([sha('a()'), sha('import "/assets/y.js";\n')]);
  });

  it('replaces the nonce by the hashes and keeps the other directives', () => {
    const csp = hashPolicy("default-src 'self'; script-src 'self' 'nonce-N1' https://c.example; frame-ancestors 'none'", html);
    expect(csp).toBe(
      `default-src 'self'; script-src 'self' ${sha('a()')} ${sha('import "/assets/y.js";\n')} https://c.example; frame-ancestors 'none'`,
    );
    expect(csp).not.toContain('nonce');
  });
});

describe('what may be stored', () => {
  it('200 and 404 HTML, with no cookie but the language one', () => {
    expect(isStorable(page())).toBe(true);
    expect(isStorable(page({ status: 404 }))).toBe(true);
    expect(isStorable(page({ headers: [...page().headers, ['set-cookie', 'lang=fr; Path=/']] }))).toBe(true);
  });

  it('not redirects, errors, other types or answers that set another cookie', () => {
    expect(isStorable(page({ status: 302 }))).toBe(false);
    expect(isStorable(page({ status: 500 }))).toBe(false);
    expect(isStorable(page({ headers: [['content-type', 'application/json']] }))).toBe(false);
    expect(isStorable(page({ headers: [...page().headers, ['set-cookie', 'sn_token=x']] }))).toBe(false);
  });

  it('keys on the URL and both language inputs', () => {
    const base = { url: '/?tag=x', langCookie: undefined, acceptLanguage: 'fr' };
    expect(cacheKey(base)).not.toBe(cacheKey({ ...base, langCookie: 'de' }));
    expect(cacheKey(base)).not.toBe(cacheKey({ ...base, acceptLanguage: 'de' }));
    expect(cacheKey(base)).not.toBe(cacheKey({ ...base, url: '/?tag=y' }));
  });
});

describe('PageCache', () => {
  it('renders once for concurrent misses, stores compressed, expires after its TTL', async () => {
    let now = 1_000;
    const cache = new PageCache({ ttlMs: 2_000, maxEntries: 10, now: () => now });
    let renders = 0;
    const produce = async () => {
      renders++;
      await new Promise((r) => setTimeout(r, 20));
      return page();
    };
    const results = await Promise.all([1, 2, 3].map(() => cache.render('k', produce)));
    expect(renders).toBe(1);
    const stored = cache.get('k')!;
    expect(results.every((r) => r.cached === results[0]!.cached)).toBe(true);
    expect(zlib.brotliDecompressSync(stored.br).toString()).toBe(html);
    expect(zlib.gunzipSync(stored.gzip).toString()).toBe(html);
    expect(stored.headers.find(([n]) => n === 'content-length')).toBeUndefined();
    expect(stored.headers.find(([n]) => n === 'content-security-policy')![1]).not.toContain('nonce');
    // Fresh for its whole TTL, gone 1 ms past it (the kit's cache: stale once older than the TTL).
    now += 2_000;
    expect(cache.get('k')).toBeDefined();
    now += 1;
    expect(cache.get('k')).toBeUndefined();
  });

  it('does not store what may not be stored, and keeps at most maxEntries (oldest out)', async () => {
    const cache = new PageCache({ ttlMs: 60_000, maxEntries: 2 });
    const redirect = await cache.render('r', async () => page({ status: 302 }));
    expect(redirect.cached).toBeUndefined();
    expect(cache.get('r')).toBeUndefined();
    for (const k of ['a', 'b', 'c']) await cache.render(k, async () => page());
    expect([cache.get('a'), cache.get('b'), cache.get('c')].map(Boolean)).toEqual([false, true, true]);
  });

  it('forgets a failed render, so the next request tries again', async () => {
    const cache = new PageCache({ ttlMs: 60_000, maxEntries: 2 });
    await expect(cache.render('x', async () => Promise.reject(new Error('boom')))).rejects.toThrow('boom');
    await expect(cache.render('x', async () => page())).resolves.toHaveProperty('cached');
  });
});

it('picks br, then gzip, then none, honouring q=0', () => {
  expect(pickEncoding('gzip, deflate, br')).toBe('br');
  expect(pickEncoding('gzip, br;q=0')).toBe('gzip');
  expect(pickEncoding('*')).toBe('br');
  expect(pickEncoding(undefined)).toBe('identity');
  expect(pickEncoding('identity')).toBe('identity');
});
