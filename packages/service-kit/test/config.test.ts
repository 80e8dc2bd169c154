import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ConfigError, baseConfigSchema, loadConfig, productionRequires, settings } from '../src/ops/config.js';
import { defaultOpsPort } from '../src/ops/ops.js';

describe('loadConfig', () => {
  it('applies the documented defaults', () => {
    const c = loadConfig(baseConfigSchema, {});
    expect(c.DATABASE_URL).toBe('postgresql://postgres@127.0.0.1:5432/svc');
    expect(c.REDIS_URL).toBe('redis://127.0.0.1:6379');
    expect(c.NODE_ENV).toBe('development');
  });

  it('names a bad setting', () => {
    expect(() => loadConfig(baseConfigSchema, { REDIS_URL: 'not a url' })).toThrow(/REDIS_URL is invalid/);
  });

  it('names a missing required setting and lists every problem', () => {
    const schema = z.object({ JWT_PRIVATE_KEY: z.string(), PORT: settings.port(4001) });
    try {
      loadConfig(schema, { PORT: 'eighty' });
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      const message = (err as Error).message;
      expect(message).toMatch(/JWT_PRIVATE_KEY is missing/);
      expect(message).toMatch(/PORT is invalid/);
    }
  });

  it('reads PEM keys with escaped newlines and booleans', () => {
    const schema = z.object({ KEY: settings.pem, FLAG: settings.bool(false) });
    const c = loadConfig(schema, { KEY: 'a\\nb', FLAG: 'true' });
    expect(c.KEY).toBe('a\nb');
    expect(c.FLAG).toBe(true);
    expect(loadConfig(schema, { KEY: '  ' }).KEY).toBeUndefined();
  });
});

describe('the ops port and trusted proxies', () => {
  it('OPS_PORT is unset by default, read when set, refused when not a port', () => {
    expect(loadConfig(baseConfigSchema, {}).OPS_PORT).toBeUndefined();
    expect(loadConfig(baseConfigSchema, { OPS_PORT: '' }).OPS_PORT).toBeUndefined();
    expect(loadConfig(baseConfigSchema, { OPS_PORT: '9090' }).OPS_PORT).toBe(9090);
    expect(() => loadConfig(baseConfigSchema, { OPS_PORT: 'ops' })).toThrow(/OPS_PORT is invalid/);
    expect(() => loadConfig(baseConfigSchema, { OPS_PORT: '70000' })).toThrow(/OPS_PORT is invalid/);
  });

  it('defaults the ops port to PORT + 1000 (any free port for PORT 0)', () => {
    expect(defaultOpsPort(4001)).toBe(5001);
    expect(defaultOpsPort(4001, 9090)).toBe(9090);
    expect(defaultOpsPort(0)).toBe(0);
    expect(() => defaultOpsPort(65000)).toThrow(/OPS_PORT/);
    expect(() => defaultOpsPort(9090, 9090)).toThrow(/OPS_PORT is invalid: must differ from PORT/);
  });

  it('trusts loopback only unless TRUSTED_PROXIES says otherwise', () => {
    expect(loadConfig(baseConfigSchema, {}).TRUSTED_PROXIES).toBe('loopback');
    expect(loadConfig(baseConfigSchema, { TRUSTED_PROXIES: '10.42.0.0/16' }).TRUSTED_PROXIES).toBe('10.42.0.0/16');
  });
});

describe('RATE_LIMIT_SCALE (tests and benchmarks only)', () => {
  it('defaults to 1, takes a multiplier outside production', () => {
    expect(loadConfig(baseConfigSchema, {}).RATE_LIMIT_SCALE).toBe(1);
    expect(loadConfig(baseConfigSchema, { NODE_ENV: 'test', RATE_LIMIT_SCALE: '1000' }).RATE_LIMIT_SCALE).toBe(1000);
    expect(() => loadConfig(baseConfigSchema, { RATE_LIMIT_SCALE: '0' })).toThrow(/RATE_LIMIT_SCALE is invalid/);
  });

  it("is refused in production by every schema built on the base, the service's own included", () => {
    const service = baseConfigSchema.extend({ OWN: z.string().default('x') });
    for (const schema of [baseConfigSchema, service])
      expect(() => loadConfig(schema, { NODE_ENV: 'production', RATE_LIMIT_SCALE: '10' })).toThrow(
        'RATE_LIMIT_SCALE is invalid: must be 1 (unset) when NODE_ENV=production',
      );
    expect(loadConfig(service, { NODE_ENV: 'production', RATE_LIMIT_SCALE: '1' }).RATE_LIMIT_SCALE).toBe(1);
  });
});

describe('productionRequires', () => {
  const schema = z
    .object({ NODE_ENV: z.string(), SECRET: settings.optionalString, OTHER: settings.optionalString })
    .superRefine(productionRequires({ SECRET: 'is a key in the source', OTHER: 'logs codes' }));

  it('names every unset setting in production, with the fallback it refuses', () => {
    try {
      loadConfig(schema, { NODE_ENV: 'production', OTHER: '  ' });
      throw new Error('expected a ConfigError');
    } catch (err) {
      expect(err).toBeInstanceOf(ConfigError);
      expect((err as ConfigError).problems).toEqual([
        'SECRET is missing: required when NODE_ENV=production (the development fallback is a key in the source)',
        'OTHER is invalid: required when NODE_ENV=production (the development fallback logs codes)',
      ]);
    }
  });

  it('lets development and tests use the fallbacks, and production the real values', () => {
    expect(loadConfig(schema, { NODE_ENV: 'development' }).SECRET).toBeUndefined();
    expect(loadConfig(schema, { NODE_ENV: 'test' }).SECRET).toBeUndefined();
    expect(loadConfig(schema, { NODE_ENV: 'production', SECRET: 's', OTHER: 'o' }).SECRET).toBe('s');
  });
});
