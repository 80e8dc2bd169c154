import { describe, expect, it } from '@jest/globals';
import { mkdtemp } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { ConfigError } from '../src/ops/config.js';
import { loadJwtKeys } from '../src/auth/jwt-keys.js';
import { generateTestKeyPair } from '../src/testing/index.js';

describe('loadJwtKeys', () => {
  it('requires the keys in production and names them', () => {
    expect(() => loadJwtKeys({ production: true, needPrivate: true })).toThrow(ConfigError);
    expect(() => loadJwtKeys({ production: true, needPrivate: true })).toThrow(/JWT_PUBLIC_KEY is missing[\s\S]*JWT_PRIVATE_KEY is missing/);
  });

  it('accepts a matching pair and refuses a mismatched one', () => {
    const a = generateTestKeyPair();
    const b = generateTestKeyPair();
    expect(loadJwtKeys({ ...a, production: true, needPrivate: true })).toEqual({ ...a, verifyKeys: [a.publicKey] });
    expect(() => loadJwtKeys({ publicKey: a.publicKey, privateKey: b.privateKey, production: true, needPrivate: true })).toThrow(/does not match/);
    expect(() => loadJwtKeys({ publicKey: 'nonsense', production: true, needPrivate: false })).toThrow(/invalid/);
  });

  it('generates development keys once and reuses them', async () => {
    const dir = await mkdtemp(path.join(os.tmpdir(), 'keys-'));
    const file = path.join(dir, 'jwt.json');
    const first = loadJwtKeys({ production: false, needPrivate: true, devKeysFile: file });
    const second = loadJwtKeys({ production: false, needPrivate: false, devKeysFile: file });
    expect(first.privateKey).toMatch(/BEGIN PRIVATE KEY/);
    expect(second).toEqual(first);
  });
});
