import { describe, expect, it } from '@jest/globals';
import { z } from 'zod';
import { ConfigError, baseConfigSchema, loadConfig, settings } from '../src/config.js';

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
