import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createHmac } from 'node:crypto';
import jwt from 'jsonwebtoken';
import request from 'supertest';
import { currentSessionEpoch, signSessionToken } from '@svc/service-kit';
import { startHarness, type Harness } from './harness.js';

let h: Harness;
beforeAll(async () => {
  h = await startHarness();
});
afterAll(() => h.close());

const b64 = (o: object) => Buffer.from(JSON.stringify(o)).toString('base64url');
const me = (cookie?: string) => {
  const r = request(h.app).get('/api/auth/me');
  return cookie ? r.set('Cookie', cookie) : r;
};

describe('GET /api/auth/me', () => {
  it('returns the logged-in user', async () => {
    const { user, cookie } = await h.login('erin@example.com');
    const res = await me(cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ user, is_moderator: false });
  });

  it('answers 401 JSON without a session', async () => {
    const res = await me();
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ error: 'Authentication required' });
  });

  describe('refuses forged and broken tokens', () => {
    let user: { id: string; email: string; username: string };
    beforeAll(async () => {
      user = (await h.login('frank@example.com')).user;
    });
    const claims = () => {
      const now = Math.floor(Date.now() / 1000);
      return {
        sub: user.id,
        email: user.email,
        username: user.username,
        jti: 'forged',
        iat: now,
        exp: now + 3600,
      };
    };

    it('alg none', async () => {
      const token = `${b64({ alg: 'none', typ: 'JWT' })}.${b64(claims())}.`;
      expect((await me(`sn_token=${token}`)).status).toBe(401);
    });

    it('HS256 signed with the public key as the secret', async () => {
      const head = `${b64({ alg: 'HS256', typ: 'JWT' })}.${b64(claims())}`;
      const sig = createHmac('sha256', h.keys.publicKey).update(head).digest('base64url');
      expect((await me(`sn_token=${head}.${sig}`)).status).toBe(401);
      // The same forgery through jsonwebtoken itself, for good measure.
      const viaLib = jwt.sign(claims(), h.keys.publicKey, { algorithm: 'HS256' });
      expect((await me(`sn_token=${viaLib}`)).status).toBe(401);
    });

    it('expired', async () => {
      const { token } = signSessionToken(user, h.keys.privateKey, -60);
      expect((await me(`sn_token=${token}`)).status).toBe(401);
    });

    it('tampered payload', async () => {
      const { token } = signSessionToken(user, h.keys.privateKey);
      const [head, , sig] = token.split('.');
      const forged = `${head}.${b64({ ...claims(), username: 'root' })}.${sig}`;
      expect((await me(`sn_token=${forged}`)).status).toBe(401);
    });

    it('while a correctly signed one passes', async () => {
      const { token } = signSessionToken(user, h.keys.privateKey);
      expect((await me(`sn_token=${token}`)).status).toBe(200);
    });
  });
});

describe('POST /api/auth/set-username', () => {
  it('changes the name, sets a fresh cookie and retires the old session', async () => {
    const { cookie } = await h.login('gina@example.com');
    const res = await request(h.app)
      .post('/api/auth/set-username')
      .set('Cookie', cookie)
      .send({ username: 'Gina_名前-1' });
    expect(res.status).toBe(200);
    expect(res.body.user.username).toBe('Gina_名前-1');
    const fresh = res.headers['set-cookie']![0]!.split(';')[0]!;
    expect((await me(fresh)).body.user.username).toBe('Gina_名前-1');
    expect((await me(cookie)).status).toBe(401);
  });

  it.each([['ab'], ['a'.repeat(33)], ['has space'], ['semi;colon'], ['']])(
    'refuses %j with 400',
    async (username) => {
      const { cookie } = await h.login(`bad-${username.length}-${Math.random()}@example.com`);
      const res = await request(h.app)
        .post('/api/auth/set-username')
        .set('Cookie', cookie)
        .send({ username });
      expect(res.status).toBe(400);
    },
  );

  it('answers 409 when the name is taken', async () => {
    await h.login('henry@example.com');
    const { cookie } = await h.login('iris@example.com');
    const res = await request(h.app)
      .post('/api/auth/set-username')
      .set('Cookie', cookie)
      .send({ username: 'henry' });
    expect(res.status).toBe(409);
    expect(res.body).toEqual({ error: 'Username already taken' });
  });

  it('answers 401 without a session', async () => {
    const res = await request(h.app).post('/api/auth/set-username').send({ username: 'nobody' });
    expect(res.status).toBe(401);
  });
});

describe('POST /api/auth/logout', () => {
  it('clears the cookie and revokes the session', async () => {
    const { cookie } = await h.login('jack@example.com');
    expect((await me(cookie)).status).toBe(200);
    const res = await request(h.app).post('/api/auth/logout').set('Cookie', cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(res.headers['set-cookie']![0]).toMatch(/^sn_token=;.*Expires=Thu, 01 Jan 1970/);
    expect((await me(cookie)).status).toBe(401);
  });

  it('is harmless without a session', async () => {
    expect((await request(h.app).post('/api/auth/logout')).body).toEqual({ success: true });
  });
});

describe('POST /api/auth/logout-all', () => {
  const logoutAll = (cookie?: string) => {
    const r = request(h.app).post('/api/auth/logout-all');
    return cookie ? r.set('Cookie', cookie) : r;
  };
  const claimsOf = (cookie: string) =>
    jwt.decode(cookie.replace(/^sn_token=/, '')) as { epoch?: number };

  it("ends every session of the user, clears the cookie, and leaves other users' sessions alone", async () => {
    const phone = await h.login('kate@example.com');
    const laptop = await h.login('kate@example.com');
    const other = await h.login('liam@example.com');
    for (const s of [phone, laptop, other]) expect((await me(s.cookie)).status).toBe(200);

    const res = await logoutAll(laptop.cookie);
    expect(res.status).toBe(200);
    expect(res.body).toEqual({ success: true });
    expect(res.headers['set-cookie']![0]).toMatch(/^sn_token=;.*Expires=Thu, 01 Jan 1970/);
    expect((await me(phone.cookie)).status).toBe(401);
    expect((await me(laptop.cookie)).status).toBe(401);
    expect((await me(other.cookie)).status).toBe(200);
    // The sessions it ended cannot sign out again (401), nor rename (401).
    expect((await logoutAll(phone.cookie)).status).toBe(401);
    const rename = await request(h.app)
      .post('/api/auth/set-username')
      .set('Cookie', phone.cookie)
      .send({ username: 'kate-2' });
    expect(rename.status).toBe(401);

    // A login afterwards starts a session in the new epoch, which works.
    const again = await h.login('kate@example.com');
    const epoch = await currentSessionEpoch(h.redis, h.redisPrefix, again.user.id);
    expect(epoch).toBeGreaterThan(0);
    expect(claimsOf(again.cookie).epoch).toBe(epoch);
    expect((await me(again.cookie)).body.user).toEqual(again.user);
  });

  it("set-username's fresh session keeps the epoch of the one it replaces", async () => {
    const first = await h.login('mia@example.com');
    await logoutAll(first.cookie).expect(200);
    const session = await h.login('mia@example.com');
    const renamed = await request(h.app)
      .post('/api/auth/set-username')
      .set('Cookie', session.cookie)
      .send({ username: 'mia-renamed' });
    expect(renamed.status).toBe(200);
    const fresh = renamed.headers['set-cookie']![0]!.split(';')[0]!;
    expect(claimsOf(fresh).epoch).toBe(claimsOf(session.cookie).epoch);
    expect((await me(fresh)).status).toBe(200);
    await logoutAll(fresh).expect(200);
    expect((await me(fresh)).status).toBe(401);
  });

  it('answers 401 without a session and with a forged one', async () => {
    const anonymous = await logoutAll();
    expect(anonymous.status).toBe(401);
    expect(anonymous.body).toEqual({ error: 'Authentication required' });
    expect((await logoutAll('sn_token=not-a-jwt')).status).toBe(401);
  });

  it('answers 429 with Retry-After past two an hour per user', async () => {
    const statuses: number[] = [];
    let last: request.Response | undefined;
    let cookie = '';
    for (let i = 0; i < 3; i++) {
      ({ cookie } = await h.login('nora@example.com'));
      last = await logoutAll(cookie);
      statuses.push(last.status);
    }
    expect(statuses).toEqual([200, 200, 429]);
    expect(last!.body).toEqual({ error: 'Too many requests' });
    expect(Number(last!.headers['retry-after'])).toBeGreaterThan(0);
    expect(last!.headers['ratelimit-limit']).toBe('2');
    // Refused, so that session was not ended.
    expect((await me(cookie)).status).toBe(200);
  });
});
