// The internal calls' guard and setting: only the exact shared token passes, production
// refuses a missing or short one, development falls back to the known development value.
import { describe, expect, it } from '@jest/globals';
import request from 'supertest';
import { z } from 'zod';
import { DEV_INTERNAL_TOKEN, INTERNAL_TOKEN_HEADER, internalUserPath } from '@svc/types';
import { createServiceApp } from '../src/http/app.js';
import {
  internalHeaders,
  internalTokenOrDev,
  internalTokenRequiredInProduction,
  registerUserDeletion,
  requireInternalToken,
} from '../src/http/internal-token.js';
import { createLogger } from '../src/ops/logger.js';

const TOKEN = 'a-test-internal-token-0123456789';

const deletions: Array<[string, string]> = [];
const app = createServiceApp({
  logger: createLogger('test', 'silent'),
  routes: (a) => {
    a.get('/internal/thing', requireInternalToken(TOKEN), (_req, res) => {
      res.json({ ok: true });
    });
    registerUserDeletion(a, TOKEN, async (userId, pseudonym) => {
      deletions.push([userId, pseudonym]);
    });
  },
});

describe('requireInternalToken', () => {
  it('passes the exact token only; anything else is 403 JSON', async () => {
    expect((await request(app).get('/internal/thing').set(internalHeaders(TOKEN))).body).toEqual({ ok: true });
    for (const given of [undefined, '', TOKEN.slice(0, -1), `${TOKEN}x`, TOKEN.toUpperCase()]) {
      const req = request(app).get('/internal/thing');
      const res = await (given === undefined ? req : req.set(INTERNAL_TOKEN_HEADER, given));
      expect([given, res.status, res.body]).toEqual([given, 403, { error: 'Forbidden' }]);
    }
  });
});

describe('registerUserDeletion', () => {
  const pseudonym = 'deleted-user-0123456789abcdef';

  it('hands the user and pseudonym to the service, then answers 204; guarded and checked', async () => {
    const del = (id: string) => request(app).delete(internalUserPath(id));
    const res = await del('user1234').set(internalHeaders(TOKEN)).send({ pseudonym });
    expect([res.status, res.text]).toEqual([204, '']);
    expect(deletions).toEqual([['user1234', pseudonym]]);
    expect((await del('user1234').send({ pseudonym })).status).toBe(403);
    const bad = await del('user1234').set(internalHeaders(TOKEN)).send({ pseudonym: 'someone' });
    expect([bad.status, bad.body.error]).toEqual([400, 'pseudonym: deleted-user- and 16 hex digits']);
    for (const id of ['x'.repeat(129), 'short', 'has.dot12', 'spa ce123'])
      expect((await del(id).set(internalHeaders(TOKEN)).send({ pseudonym })).status).toBe(404);
    expect(deletions).toHaveLength(1);
  });
});

describe('INTERNAL_TOKEN setting', () => {
  const schema = z
    .object({ NODE_ENV: z.string(), INTERNAL_TOKEN: z.string().optional() })
    .superRefine(internalTokenRequiredInProduction);

  it('is required in production, 16 characters at least', () => {
    expect(schema.safeParse({ NODE_ENV: 'production' }).success).toBe(false);
    expect(schema.safeParse({ NODE_ENV: 'production', INTERNAL_TOKEN: 'x'.repeat(15) }).success).toBe(false);
    expect(schema.safeParse({ NODE_ENV: 'production', INTERNAL_TOKEN: 'x'.repeat(16) }).success).toBe(true);
    expect(schema.safeParse({ NODE_ENV: 'development' }).success).toBe(true);
  });

  it('falls back to the development value only when unset', () => {
    expect(internalTokenOrDev(undefined)).toBe(DEV_INTERNAL_TOKEN);
    expect(internalTokenOrDev(TOKEN)).toBe(TOKEN);
  });
});
