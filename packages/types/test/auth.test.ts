import { describe, it, expect } from '@jest/globals';
import {
  AuthMeResponse,
  JwtClaims,
  ModeratorEmailParams,
  ModeratorListResponse,
  LogoutResponse,
  SendCodeBody,
  SendCodeResponse,
  SetUsernameBody,
  VerifyBody,
  VerifyResponse,
} from '../src/auth.js';

describe('auth', () => {
  it('send-code takes a valid email, lower-cased', () => {
    expect(SendCodeBody.parse({ email: 'Ann@Example.COM' })).toEqual({ email: 'ann@example.com' });
    expect(SendCodeBody.safeParse({ email: 'not-an-email' }).success).toBe(false);
    expect(SendCodeBody.safeParse({}).success).toBe(false);
    expect(SendCodeResponse.safeParse({ sent: true }).success).toBe(true);
    expect(SendCodeResponse.safeParse({ sent: false }).success).toBe(false);
  });

  it('verify takes a 6-digit code', () => {
    expect(VerifyBody.safeParse({ email: 'a@b.co', code: '012345' }).success).toBe(true);
    expect(VerifyBody.safeParse({ email: 'a@b.co', code: '12345' }).success).toBe(false);
    expect(VerifyBody.safeParse({ email: 'a@b.co', code: '1234567' }).success).toBe(false);
    expect(VerifyBody.safeParse({ email: 'a@b.co', code: '12a456' }).success).toBe(false);
    const user = { id: 'u1', email: 'a@b.co', username: 'a' };
    expect(VerifyResponse.parse({ user })).toEqual({ user });
    expect(AuthMeResponse.safeParse({ user: { id: 'u1' } }).success).toBe(false);
    expect(AuthMeResponse.safeParse({ user }).success).toBe(false);
    expect(AuthMeResponse.parse({ user, is_moderator: true })).toEqual({ user, is_moderator: true });
  });

  it('set-username: 3–32 letters of any script, digits, _ or -', () => {
    for (const ok of ['abc', 'ann_01', 'a-b', '日本語', 'राहुल', 'ä'.repeat(32)]) {
      expect(SetUsernameBody.safeParse({ username: ok }).success).toBe(true);
    }
    for (const bad of ['ab', 'a'.repeat(33), 'a b', 'a.b', 'a@b', '<script>', '']) {
      expect(SetUsernameBody.safeParse({ username: bad }).success).toBe(false);
    }
    expect(SetUsernameBody.parse({ username: '  ann  ' })).toEqual({ username: 'ann' });
  });

  it('logout answers success true', () => {
    expect(LogoutResponse.safeParse({ success: true }).success).toBe(true);
  });

  it('JWT claims carry sub, email, username, iat, exp, jti', () => {
    const claims = { sub: 'u1', email: 'a@b.co', username: 'a', iat: 1, exp: 2, jti: 'j' };
    expect(JwtClaims.parse(claims)).toEqual(claims);
    const { jti: _jti, ...noJti } = claims;
    expect(JwtClaims.safeParse(noJti).success).toBe(false);
    expect(JwtClaims.safeParse({ ...claims, exp: 1.5 }).success).toBe(false);
  });

  it('the optional epoch claim (sign out everywhere) is a whole number from 0', () => {
    const claims = { sub: 'u1', email: 'a@b.co', username: 'a', iat: 1, exp: 2, jti: 'j' };
    expect(JwtClaims.safeParse({ ...claims, epoch: 1_750_000_000_123 }).success).toBe(true);
    expect(JwtClaims.safeParse({ ...claims, epoch: 0 }).success).toBe(true);
    for (const epoch of [-1, 1.5, '5', null])
      expect([epoch, JwtClaims.safeParse({ ...claims, epoch }).success]).toEqual([epoch, false]);
  });

  it('moderators: an email path (lower-cased), the list entries, the optional mod claim', () => {
    expect(ModeratorEmailParams.parse({ email: 'Mod@Example.com' })).toEqual({ email: 'mod@example.com' });
    expect(ModeratorEmailParams.safeParse({ email: 'nope' }).success).toBe(false);
    const entry = {
      email: 'a@b.co',
      user_id: null,
      username: null,
      source: 'configuration',
      granted_by: null,
      granted_at: null,
    };
    expect(ModeratorListResponse.safeParse({ moderators: [entry] }).success).toBe(true);
    expect(ModeratorListResponse.safeParse({ moderators: [{ ...entry, source: 'other' }] }).success).toBe(false);
    const claims = { sub: 'u1', email: 'a@b.co', username: 'a', iat: 1, exp: 2, jti: 'j' };
    expect(JwtClaims.safeParse({ ...claims, mod: true }).success).toBe(true);
    expect(JwtClaims.safeParse({ ...claims, mod: false }).success).toBe(false);
  });
});
