// app-store settings: production refuses development fallbacks (docs/decisions/013-operations-port.md).
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '@svc/service-kit';
import { DEV_INTERNAL_TOKEN } from '@svc/types';
import { configSchema } from '../src/config.js';

const PRODUCTION = {
  NODE_ENV: 'production',
  IP_HASH_SECRET: 'x',
  INTERNAL_TOKEN: 'an-internal-token-of-enough-length',
};

describe('app-store config', () => {
  it('refuses to start in production without IP_HASH_SECRET, naming it', () => {
    expect(() => loadConfig(configSchema, { NODE_ENV: 'production' })).toThrow(
      /IP_HASH_SECRET is missing: required when NODE_ENV=production \(the development fallback is a key written in the source\)/,
    );
  });

  it('takes IP_HASH_SECRET in production; development uses the fallback', () => {
    const env = { ...PRODUCTION, IP_HASH_SECRET: 'a-long-random-secret' };
    expect(loadConfig(configSchema, env).IP_HASH_SECRET).toBe('a-long-random-secret');
    expect(loadConfig(configSchema, {}).IP_HASH_SECRET).toBeUndefined();
  });

  it('wants an INTERNAL_TOKEN of 16 characters at least in production (the internal calls)', () => {
    for (const INTERNAL_TOKEN of [undefined, 'short'])
      expect(() => loadConfig(configSchema, { ...PRODUCTION, INTERNAL_TOKEN })).toThrow(
        /INTERNAL_TOKEN .*at least 16 characters/,
      );
    expect(loadConfig(configSchema, PRODUCTION).INTERNAL_TOKEN).toBe(PRODUCTION.INTERNAL_TOKEN);
    expect(loadConfig(configSchema, {}).INTERNAL_TOKEN).toBe(DEV_INTERNAL_TOKEN);
  });

  it("refuses the kit's test rate-limit scale in production, takes it elsewhere", () => {
    const env = { ...PRODUCTION, RATE_LIMIT_SCALE: '10' };
    expect(() => loadConfig(configSchema, env)).toThrow(
      /RATE_LIMIT_SCALE is invalid: must be 1 \(unset\) when NODE_ENV=production/,
    );
    expect(loadConfig(configSchema, { RATE_LIMIT_SCALE: '10' }).RATE_LIMIT_SCALE).toBe(10);
  });
});
