// web settings: production refuses the development origins (docs/decisions/013-operations-port.md).
import { describe, expect, it } from '@jest/globals';
import { loadConfig } from '@svc/service-kit';
import { configSchema } from '../server/config.js';

describe('web config', () => {
  it('defaults to the local gateway outside production', () => {
    const c = loadConfig(configSchema, {});
    expect(c.API_BASE_URL).toBe('http://127.0.0.1:8080');
    expect(c.PUBLIC_BASE_URL).toBe('http://localhost:8080');
    expect(c.TRUSTED_PROXIES).toBe('loopback');
  });

  it('keeps only the origin of PUBLIC_BASE_URL', () => {
    expect(
      loadConfig(configSchema, { PUBLIC_BASE_URL: 'https://svc.example/x/' }).PUBLIC_BASE_URL,
    ).toBe('https://svc.example');
  });

  it.each(['API_BASE_URL', 'PUBLIC_BASE_URL'])(
    'refuses production without %s, naming it',
    (name) => {
      const env: Record<string, string> = {
        NODE_ENV: 'production',
        API_BASE_URL: 'http://gateway:8080',
        PUBLIC_BASE_URL: 'https://svc.example',
      };
      expect(loadConfig(configSchema, env).API_BASE_URL).toBe('http://gateway:8080');
      delete env[name];
      expect(() => loadConfig(configSchema, env)).toThrow(
        new RegExp(`${name} is missing: required when NODE_ENV=production`),
      );
    },
  );
});
