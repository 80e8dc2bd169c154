// app-store settings: production refuses development fallbacks (docs/decisions/013-operations-port.md).
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '@svc/service-kit';
import { configSchema } from '../src/config.js';

describe('app-store config', () => {
  it('refuses to start in production without IP_HASH_SECRET, naming it', () => {
    expect(() => loadConfig(configSchema, { NODE_ENV: 'production' })).toThrow(
      /IP_HASH_SECRET is missing: required when NODE_ENV=production \(the development fallback is a key written in the source\)/,
    );
  });

  it('takes IP_HASH_SECRET in production; development uses the fallback', () => {
    const env = { NODE_ENV: 'production', IP_HASH_SECRET: 'a-long-random-secret' };
    expect(loadConfig(configSchema, env).IP_HASH_SECRET).toBe('a-long-random-secret');
    expect(loadConfig(configSchema, {}).IP_HASH_SECRET).toBeUndefined();
  });

  it("refuses the kit's test rate-limit scale in production, takes it elsewhere", () => {
    const env = { NODE_ENV: 'production', IP_HASH_SECRET: 'x', RATE_LIMIT_SCALE: '10' };
    expect(() => loadConfig(configSchema, env)).toThrow(
      /RATE_LIMIT_SCALE is invalid: must be 1 \(unset\) when NODE_ENV=production/,
    );
    expect(loadConfig(configSchema, { RATE_LIMIT_SCALE: '10' }).RATE_LIMIT_SCALE).toBe(10);
  });
});
