// API settings: the production-only requirements and the defaults.
import { describe, expect, it } from '@jest/globals';
import { ConfigError, loadConfig } from '@svc/service-kit';
import { DEV_INTERNAL_TOKEN } from '@svc/types';
import {
  DEV_IP_HASH_SECRET,
  configSchema,
  ipHashSecret,
  workerConfigSchema,
} from '../src/config.js';

describe('sites API config', () => {
  it('requires IP_HASH_SECRET in production and has a dev default elsewhere', () => {
    expect(() => ipHashSecret({ NODE_ENV: 'production', IP_HASH_SECRET: undefined })).toThrow(
      ConfigError,
    );
    expect(ipHashSecret({ NODE_ENV: 'production', IP_HASH_SECRET: 's3cret' })).toBe('s3cret');
    expect(ipHashSecret({ NODE_ENV: 'development', IP_HASH_SECRET: undefined })).toBe(
      DEV_IP_HASH_SECRET,
    );
  });

  it('defaults the caches, the sitemap size and the public origin', () => {
    const config = loadConfig(configSchema, {});
    expect(config).toMatchObject({
      SITES_LIST_CACHE_MS: 5000,
      SITES_COUNT_CACHE_MS: 30000,
      SITEMAP_MAX_SITES: 10000,
      SITEMAP_CACHE_MS: 600000,
      PUBLIC_BASE_URL: 'http://localhost:8080',
    });
  });

  it('refuses a sitemap beyond the protocol limit and a bad public origin', () => {
    expect(() => loadConfig(configSchema, { SITEMAP_MAX_SITES: '50000' })).toThrow(ConfigError);
    expect(() => loadConfig(configSchema, { PUBLIC_BASE_URL: 'not a url' })).toThrow(ConfigError);
  });
});

describe('production refuses development fallbacks (docs/decisions/013-operations-port.md)', () => {
  const production = {
    NODE_ENV: 'production',
    IP_HASH_SECRET: 'a-secret-of-enough-length',
    PUBLIC_BASE_URL: 'https://svc.example',
    INTERNAL_TOKEN: 'an-internal-token-of-enough-length',
  };

  it('starts with every required setting given', () => {
    expect(loadConfig(configSchema, production).PUBLIC_BASE_URL).toBe('https://svc.example');
  });

  it.each(['IP_HASH_SECRET', 'PUBLIC_BASE_URL'])('names %s when it is unset', (name) => {
    const env: Record<string, string> = { ...production };
    delete env[name];
    expect(() => loadConfig(configSchema, env)).toThrow(
      new RegExp(`${name} is missing: required when NODE_ENV=production`),
    );
  });

  it('wants an INTERNAL_TOKEN of 16 characters at least (the internal calls), the dev one elsewhere', () => {
    for (const INTERNAL_TOKEN of [undefined, 'short']) {
      const env: Record<string, string | undefined> = { ...production, INTERNAL_TOKEN };
      expect(() => loadConfig(configSchema, env)).toThrow(/INTERNAL_TOKEN .*at least 16 characters/);
    }
    expect(loadConfig(configSchema, production).INTERNAL_TOKEN).toBe(production.INTERNAL_TOKEN);
    expect(loadConfig(configSchema, {}).INTERNAL_TOKEN).toBe(DEV_INTERNAL_TOKEN);
  });

  it('refuses OUTBOUND_ALLOW_HOSTS (a test-only opening to private hosts), API and worker', () => {
    const env = { ...production, OUTBOUND_ALLOW_HOSTS: '127.0.0.1:8000' };
    expect(() => loadConfig(configSchema, env)).toThrow(
      /OUTBOUND_ALLOW_HOSTS is invalid: must be empty/,
    );
    expect(() => loadConfig(workerConfigSchema, env)).toThrow(/OUTBOUND_ALLOW_HOSTS/);
    expect(
      loadConfig(workerConfigSchema, { ...env, NODE_ENV: 'test' }).OUTBOUND_ALLOW_HOSTS,
    ).toEqual(['127.0.0.1:8000']);
  });
});
