// Property-based: whatever a client sends, the answer is a JSON 2xx/4xx, never a 500.
// Random values run through the shared validators and through the real app.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import fc from 'fast-check';
import request from 'supertest';
import { AppSlug, AppUrl, SubmitAppBody, UpdateAppBody } from '@svc/types';
import { startHarness, type Harness, type TestUser } from './harness.js';

let h: Harness;
let owner: TestUser;
beforeAll(async () => {
  h = await startHarness({ rateLimitScale: 10_000 });
  owner = h.user('prop');
  await h.seedApp(owner, { slug: 'prop-app' });
});
afterAll(() => h.close());

const SLUG = /^[a-z0-9]+(?:-[a-z0-9]+)*$/;
const anyJson = fc.jsonValue({ maxDepth: 3 });
const fieldValue = fc.oneof(
  fc.string({ maxLength: 90 }),
  fc.string({ unit: 'grapheme', maxLength: 40 }),
  fc.webUrl(),
  fc.integer(),
  fc.constant(null),
  fc.boolean(),
  fc.array(fc.string({ maxLength: 40 }), { maxLength: 12 }),
  anyJson,
);
const bodyOf = (keys: string[]) =>
  fc.dictionary(fc.constantFrom(...keys, 'extra', '__proto__', 'constructor'), fieldValue, {
    maxKeys: 8,
  });

function expectClientAnswer(res: request.Response) {
  expect(res.status).toBeLessThan(500);
  expect(res.headers['content-type']).toMatch(/application\/json/);
  if (res.status >= 400) expect(typeof res.body.error).toBe('string');
}

describe('validators', () => {
  it('AppSlug accepts exactly the documented form', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 80 }), (s) => {
        expect(AppSlug.safeParse(s).success).toBe(SLUG.test(s) && s.length >= 3 && s.length <= 64);
      }),
    );
    fc.assert(
      fc.property(
        fc.array(fc.stringMatching(/^[a-z0-9]{1,8}$/), { minLength: 1, maxLength: 6 }),
        (parts) => {
          const slug = parts.join('-');
          expect(AppSlug.safeParse(slug).success).toBe(slug.length >= 3 && slug.length <= 64);
        },
      ),
    );
  });

  it('AppUrl accepts only https URLs of at most 2048 characters', () => {
    fc.assert(
      fc.property(
        fc.oneof(
          fc.webUrl(),
          fc.string(),
          fc.webUrl({ withQueryParameters: true, withFragments: true }),
        ),
        (s) => {
          const ok = AppUrl.safeParse(s).success;
          if (ok) {
            expect(s.toLowerCase().startsWith('https://')).toBe(true);
            expect(s.length).toBeLessThanOrEqual(2048);
            expect(new URL(s).protocol).toBe('https:');
          }
          if (s.startsWith('http://')) expect(ok).toBe(false);
        },
      ),
    );
    fc.assert(
      fc.property(fc.webUrl({ validSchemes: ['https'] }), (s) => {
        expect(AppUrl.safeParse(s).success).toBe(s.length <= 2048);
      }),
    );
  });

  it('SubmitAppBody and UpdateAppBody never throw anything but a validation result', () => {
    fc.assert(
      fc.property(anyJson, (v) => {
        expect(() => SubmitAppBody.safeParse(v)).not.toThrow();
        expect(() => UpdateAppBody.safeParse(v)).not.toThrow();
      }),
    );
  });
});

describe('random requests through the real app', () => {
  it('POST /api/v1/apps never answers 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          bodyOf([
            'slug',
            'name',
            'url',
            'description',
            'category',
            'app_type',
            'open_mode',
            'chain',
          ]),
          anyJson,
        ),
        async (body) => {
          const res = await request(h.app)
            .post('/api/v1/apps')
            .set('Cookie', h.user().cookie)
            .set('Content-Type', 'application/json')
            .send(JSON.stringify(body));
          expectClientAnswer(res);
          if (res.status === 201) expect(SubmitAppBody.safeParse(body).success).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('PATCH /api/v1/apps/{slug} never answers 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        bodyOf([
          'name',
          'description',
          'icon_gradient_from',
          'icon_gradient_to',
          'icon_svg',
          'tech_tags',
          'category',
          'chain',
          'svc_sdk_version',
        ]),
        async (body) => {
          const res = await request(h.app)
            .patch('/api/v1/apps/prop-app')
            .set('Cookie', owner.cookie)
            .send(body);
          expectClientAnswer(res);
          if (res.status === 200) expect(UpdateAppBody.safeParse(body).success).toBe(true);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('GET /api/v1/apps with random query strings never answers 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.dictionary(
          fc.constantFrom('q', 'limit', 'offset', 'category', 'app_type', 'other'),
          fc.oneof(
            fc.string({ maxLength: 60 }),
            fc.string({ unit: 'grapheme', maxLength: 30 }),
            fc.integer().map(String),
          ),
          { maxKeys: 5 },
        ),
        async (query) => {
          const res = await request(h.app).get('/api/v1/apps').query(query);
          expectClientAnswer(res);
        },
      ),
      { numRuns: 150 },
    );
  });

  it('random slugs in paths and random report bodies never answer 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.string({ minLength: 1, maxLength: 80 }),
        bodyOf(['reason', 'detail']),
        async (slug, body) => {
          const path = encodeURIComponent(slug);
          expectClientAnswer(await request(h.app).get(`/api/v1/apps/${path}`));
          expectClientAnswer(
            await request(h.app)
              .post(`/api/v1/apps/${path}/report`)
              .set('Cookie', h.user().cookie)
              .send(body),
          );
          expectClientAnswer(
            await request(h.app).put(`/api/v1/me/installed/${path}`).set('Cookie', h.user().cookie),
          );
        },
      ),
      { numRuns: 100 },
    );
  });

  it('random Authorization headers answer 401, never 500', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          fc.string({ maxLength: 300 }).map((s) => `Bearer ${s}`),
          fc.string({ maxLength: 100 }),
        ),
        async (header) => {
          const res = await request(h.app)
            .get('/api/v1/me')
            .set('Authorization', header.replace(/[\r\n\0]/g, ''));
          expect(res.status).toBe(401);
        },
      ),
      { numRuns: 100 },
    );
  });
});
