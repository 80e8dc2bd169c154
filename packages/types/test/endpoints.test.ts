import { describe, it, expect } from '@jest/globals';
import { z } from 'zod';
import {
  ENDPOINTS,
  findEndpoint,
  serviceForPath,
  toExpressPath,
  type HttpMethod,
} from '../src/endpoints.js';
import { ErrorResponse } from '../src/common.js';

/** Every method + path of both interfaces (docs/api-reference.md) and docs/decisions/. */
const EXPECTED: ReadonlyArray<[HttpMethod, string]> = [
  // app store (/api/v1)
  ['GET', '/api/v1/apps'],
  ['POST', '/api/v1/apps'],
  ['GET', '/api/v1/apps/{slug}'],
  ['PATCH', '/api/v1/apps/{slug}'],
  ['DELETE', '/api/v1/apps/{slug}'],
  ['POST', '/api/v1/apps/{slug}/report'],
  ['GET', '/api/v1/me'],
  ['GET', '/api/v1/me/apps'],
  ['GET', '/api/v1/me/installed'],
  // site sharing (/api)
  ['GET', '/api/sites'],
  ['POST', '/api/sites'],
  ['GET', '/api/sites/tags'],
  ['POST', '/api/sites/{id}/boost'],
  ['POST', '/api/sites/{id}/claim'],
  ['POST', '/api/clicks/{id}'],
  ['GET', '/api/messages'],
  ['POST', '/api/messages'],
  ['POST', '/api/translate'],
  ['GET', '/api/daily-bg'],
  ['POST', '/api/auth/send-code'],
  ['POST', '/api/auth/verify'],
  ['GET', '/api/bookmarks'],
  ['POST', '/api/bookmarks'],
  ['DELETE', '/api/bookmarks/{site_id}'], // "{id}" in the document, "{site_id}" in docs/decisions/005-sites.md
  ['GET', '/api/sites/my-submissions'],
  ['POST', '/api/auth/set-username'],
  ['GET', '/openapi.json'],
  ['GET', '/llms.txt'],
  ['GET', '/llms-full.txt'],
  ['GET', '/.well-known/ai-plugin.json'],
  ['GET', '/.well-known/mcp.json'],
  ['GET', '/sitemap.xml'],
  ['GET', '/sitemap-{n}.xml'],
  ['GET', '/api/ws'],
  // added by docs/decisions/
  ['POST', '/api/auth/logout'],
  ['GET', '/api/auth/me'],
  // moderators (docs/decisions/016-moderator-role.md)
  ['GET', '/api/auth/moderators'],
  ['PUT', '/api/auth/moderators/{email}'],
  ['DELETE', '/api/auth/moderators/{email}'],
  // sign out everywhere (docs/decisions/032-sign-out-everywhere.md)
  ['POST', '/api/auth/logout-all'],
  // moderation of sites and chat
  ['POST', '/api/moderation/sites/{id}/hide'],
  ['POST', '/api/moderation/sites/{id}/restore'],
  ['DELETE', '/api/moderation/messages/{id}'],
  ['POST', '/api/moderation/chat/mutes'],
  // the audit logs of sites and chat, moderators only
  ['GET', '/api/moderation/sites/audit'],
  ['GET', '/api/moderation/chat/audit'],
  ['POST', '/api/v1/apps/{slug}/keys'],
  ['GET', '/api/v1/apps/{slug}/keys'],
  ['DELETE', '/api/v1/apps/{slug}/keys/{id}'],
  ['GET', '/api/v1/categories'],
  ['PUT', '/api/v1/me/installed/{slug}'],
  ['DELETE', '/api/v1/me/installed/{slug}'],
  ['POST', '/api/messages/{id}/like'],
  ['GET', '/api/daily-bg/image'],
  // added for the web client's site page (/site/{id})
  ['GET', '/api/sites/{id}'],
  // added for the web client's app cards and desktop icons (the SVG as an image)
  ['GET', '/api/v1/apps/{slug}/icon'],
  // moderation of apps, moderators only
  ['GET', '/api/v1/moderation/reports'],
  ['GET', '/api/v1/moderation/apps/{slug}/reports'],
  ['POST', '/api/v1/moderation/apps/{slug}/restore'],
  ['POST', '/api/v1/moderation/apps/{slug}/block'],
  ['POST', '/api/v1/moderation/apps/{slug}/dismiss'],
  ['GET', '/api/v1/moderation/audit'],
  // the author's side: appeal once per block, their app's audit entries
  ['POST', '/api/v1/me/apps/{slug}/appeal'],
  ['GET', '/api/v1/me/apps/{slug}/audit'],
  // the caller's data: one download, and the account's deletion (decisions 034, 035)
  ['GET', '/api/auth/export'],
  ['DELETE', '/api/auth/me'],
];

const key = (method: string, path: string) => `${method} ${path}`;

describe('endpoint catalogue', () => {
  it('has unique method + path pairs and unique operationIds', () => {
    const pairs = ENDPOINTS.map((e) => key(e.method, e.path));
    expect(new Set(pairs).size).toBe(pairs.length);
    const ids = ENDPOINTS.map((e) => e.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('contains exactly the paths of the three documents', () => {
    const actual = ENDPOINTS.map((e) => key(e.method, e.path)).sort();
    expect(actual).toEqual(EXPECTED.map(([m, p]) => key(m, p)).sort());
  });

  it('assigns each path to the service that owns its prefix', () => {
    for (const e of ENDPOINTS)
      expect([e.path, serviceForPath(e.path)]).toEqual([e.path, e.service]);
    expect(serviceForPath('/sitemap-3.xml')).toBe('sites');
    expect(serviceForPath('/sitemap-3.xml/x')).toBeUndefined();
    expect(serviceForPath('/api/unknown')).toBeUndefined();
    expect(serviceForPath('/api/v1x')).toBeUndefined();
  });

  it('declares a params schema with exactly the path placeholders', () => {
    for (const e of ENDPOINTS) {
      const placeholders = [...e.path.matchAll(/\{([^}]+)\}/g)].map((m) => m[1]).sort();
      const declared = e.params ? Object.keys(e.params.shape).sort() : [];
      expect([e.path, declared]).toEqual([e.path, placeholders]);
    }
  });

  it('documents a success response and JSON errors everywhere', () => {
    for (const e of ENDPOINTS) {
      const statuses = Object.keys(e.responses).map(Number);
      expect([e.path, statuses.some((s) => s >= 100 && s < 300)]).toEqual([e.path, true]);
      expect(e.responses[500]?.schema).toBe(ErrorResponse);
      for (const s of statuses.filter((n) => n >= 400))
        expect(e.responses[s]?.schema).toBe(ErrorResponse);
      if (e.body) expect([e.path, e.responses[400], e.responses[413]].every(Boolean)).toBe(true);
      if (e.query) expect(e.responses[400]).toBeDefined();
      if (e.auth === 'session' || e.auth === 'session-or-key') {
        expect(e.responses[401]?.description).toBe('Authentication required');
      } else {
        expect([e.path, e.responses[401]]).toEqual([e.path, undefined]);
      }
      if (e.rateLimit) expect(e.responses[429]).toBeDefined();
      expect(e.summary.length).toBeGreaterThan(0);
    }
  });

  it('carries the documented errors, rate limits and auth modes', () => {
    const get = (m: HttpMethod, p: string) => {
      const e = findEndpoint(m, p);
      if (!e) throw new Error(`missing ${m} ${p}`);
      return e;
    };
    const report = get('POST', '/api/v1/apps/{slug}/report');
    expect(Object.keys(report.responses).map(Number).sort()).toEqual([
      200, 400, 401, 403, 404, 408, 409, 413, 429, 431, 500, 503,
    ]);
    expect(report.auth).toBe('session');
    expect(get('POST', '/api/v1/apps').responses[409]).toBeDefined();
    expect(get('POST', '/api/v1/apps').rateLimit).toEqual({
      limit: 5,
      window: 'hour',
      key: 'user',
    });
    expect(get('GET', '/api/v1/apps').rateLimit).toEqual({
      limit: 200,
      window: 'minute',
      key: 'ip',
    });
    expect(get('PATCH', '/api/v1/apps/{slug}').rateLimit).toEqual({
      limit: 60,
      window: 'minute',
      key: 'key-or-user',
    });
    expect(get('POST', '/api/sites').rateLimit).toEqual({ limit: 5, window: 'minute', key: 'ip' });
    expect(Object.keys(get('POST', '/api/sites').responses).map(Number).sort()).toEqual([
      200, 201, 400, 403, 408, 413, 422, 429, 431, 500, 503,
    ]);
    expect(get('POST', '/api/messages').rateLimit).toEqual({
      limit: 10,
      window: 'minute',
      key: 'ip',
    });
    expect(get('POST', '/api/translate').rateLimit).toEqual({
      limit: 20,
      window: 'minute',
      key: 'ip',
    });
    expect(get('POST', '/api/translate').responses[500]?.description).toBe('Translation failed');
    expect(get('POST', '/api/clicks/{id}').rateLimit).toEqual({
      limit: 30,
      window: 'minute',
      key: 'ip',
    });
    expect(get('POST', '/api/sites/{id}/boost').rateLimit).toEqual({
      limit: 1,
      window: 'day',
      key: 'ip',
      session: { limit: 3, key: 'user' },
    });
    expect(get('POST', '/api/auth/send-code').rateLimit).toEqual({
      limit: 3,
      window: 'minute',
      key: 'email',
      also: [{ limit: 30, window: 'hour', key: 'network', counts: 'distinct-emails' }],
    });
    expect(get('POST', '/api/auth/verify').rateLimit).toEqual({
      limit: 5,
      window: 'minute',
      key: 'email',
      also: [{ limit: 60, window: 'hour', key: 'network', counts: 'failures' }],
    });
    expect(get('POST', '/api/messages/{id}/like').responses[409]).toBeDefined();
    expect(get('POST', '/api/auth/set-username').responses[409]).toBeDefined();
    expect(get('DELETE', '/api/v1/apps/{slug}/keys/{id}').responses[204]).toBeDefined();
    // Withdrawing an app: the author's session only (a key is 403), in the session bucket.
    const withdraw = get('DELETE', '/api/v1/apps/{slug}');
    expect(withdraw.auth).toBe('session');
    expect(withdraw.rateLimit).toEqual(get('GET', '/api/v1/apps/{slug}/keys').rateLimit);
    expect(Object.keys(withdraw.responses).map(Number).sort()).toEqual([
      204, 400, 401, 403, 404, 408, 429, 431, 500, 503,
    ]);
    expect(get('GET', '/api/ws').responses[101]).toBeDefined();
    expect(get('GET', '/api/v1/apps/{slug}').auth).toBe('none');
    expect(get('GET', '/api/v1/me').auth).toBe('session-or-key');
    // One site: public like the listing, no rate limit like the listing, 404 for an unknown id.
    const getSite = get('GET', '/api/sites/{id}');
    expect(getSite.operationId).toBe('getSite');
    expect(getSite.auth).toBe(get('GET', '/api/sites').auth);
    expect(getSite.rateLimit).toBeUndefined();
    expect(Object.keys(getSite.responses).map(Number).sort()).toEqual([
      200, 400, 404, 408, 431, 500, 503,
    ]);
    // An app's icon: public like the detail, in the same per-IP bucket, an SVG image.
    const icon = get('GET', '/api/v1/apps/{slug}/icon');
    expect(icon.operationId).toBe('getAppIcon');
    expect(icon.auth).toBe('none');
    expect(icon.rateLimit).toEqual(get('GET', '/api/v1/apps/{slug}').rateLimit);
    expect(icon.responses[200]?.contentType).toBe('image/svg+xml');
    expect(icon.responses[304]?.schema).toBeUndefined();
    expect(Object.keys(icon.responses).map(Number).sort()).toEqual([
      200, 304, 400, 404, 408, 429, 431, 500, 503,
    ]);
  });

  it('schemas can be turned into JSON Schema (for OpenAPI)', () => {
    for (const e of ENDPOINTS) {
      for (const s of [
        e.params,
        e.query,
        e.body,
        ...Object.values(e.responses).map((r) => r.schema),
      ]) {
        if (s) expect(() => z.toJSONSchema(s, { io: 'input' })).not.toThrow();
      }
    }
  });

  it('converts paths for Express', () => {
    expect(toExpressPath('/api/v1/apps/{slug}/keys/{id}')).toBe('/api/v1/apps/:slug/keys/:id');
    expect(toExpressPath('/api/sites')).toBe('/api/sites');
  });
});
