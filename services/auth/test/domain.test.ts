import { describe, expect, it } from '@jest/globals';
import { baseUsername, usernameCandidate } from '../src/domain/default-username.js';
import { codeMatches, generateCode, hashCode } from '../src/domain/login-code.js';
import { Username } from '@svc/types';

describe('login codes', () => {
  it('are 6 digits, leading zeros included', () => {
    const codes = Array.from({ length: 2000 }, generateCode);
    expect(codes.every((c) => /^\d{6}$/.test(c))).toBe(true);
    expect(new Set(codes).size).toBeGreaterThan(1900);
  });

  it('match only the same email and code under the same secret', () => {
    const h = hashCode('s', 'a@x.io', '012345');
    expect(codeMatches('s', 'a@x.io', '012345', h)).toBe(true);
    expect(codeMatches('s', 'a@x.io', '012346', h)).toBe(false);
    expect(codeMatches('s', 'b@x.io', '012345', h)).toBe(false);
    expect(codeMatches('t', 'a@x.io', '012345', h)).toBe(false);
    expect(codeMatches('s', 'a@x.io', '012345', 'short')).toBe(false);
  });
});

describe('default usernames', () => {
  it.each([
    ['alice@example.com', 'alice'],
    ['bob.smith+tag@example.com', 'bob_smith_tag'],
    ['张伟@example.cn', '张伟_user'],
    ['a@example.com', 'a_user'],
    ['...@example.com', 'user_user'],
    [`${'x'.repeat(60)}@example.com`, 'x'.repeat(32)],
  ])('%s → %s', (email, expected) => {
    expect(baseUsername(email)).toBe(expected);
    expect(Username.safeParse(baseUsername(email)).success).toBe(true);
  });

  it('numbers alternatives within 32 characters', () => {
    expect(usernameCandidate('alice', 0)).toBe('alice');
    expect(usernameCandidate('alice', 1)).toBe('alice-2');
    expect(usernameCandidate('x'.repeat(32), 9)).toBe(`${'x'.repeat(29)}-10`);
  });
});
