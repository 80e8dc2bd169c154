// auth settings: production refuses the development mailer (docs/decisions/013-operations-port.md).
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@svc/service-kit';
import { DEV_INTERNAL_TOKEN } from '@svc/types';
import { loadAuthConfig } from '../src/config.js';

const PRODUCTION = {
  NODE_ENV: 'production',
  RESEND_API_KEY: 're_x',
  INTERNAL_TOKEN: 'an-internal-token-of-enough-length',
};

describe('auth config', () => {
  it('refuses to start in production without RESEND_API_KEY, naming it and the code-logging mailer', () => {
    expect(() => loadAuthConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadAuthConfig({ NODE_ENV: 'production', RESEND_API_KEY: '' })).toThrow(
      /RESEND_API_KEY is invalid: required when NODE_ENV=production \(the development fallback writes login codes to the log/,
    );
    expect(() => loadAuthConfig({ NODE_ENV: 'production' })).toThrow(/RESEND_API_KEY is missing/);
  });

  it('takes RESEND_API_KEY in production, and lets development log the codes', () => {
    expect(loadAuthConfig({ ...PRODUCTION, RESEND_API_KEY: 're_x' }).RESEND_API_KEY).toBe('re_x');
    expect(loadAuthConfig({ NODE_ENV: 'development' }).RESEND_API_KEY).toBeUndefined();
    expect(loadAuthConfig({ NODE_ENV: 'test' }).RESEND_API_KEY).toBeUndefined();
  });

  it('finds the services of the data export, with the internal token production requires', () => {
    expect(() => loadAuthConfig({ ...PRODUCTION, INTERNAL_TOKEN: 'short' })).toThrow(
      /INTERNAL_TOKEN .*at least 16 characters/,
    );
    const config = loadAuthConfig({ ...PRODUCTION, SITES_URL: 'http://sites:4003' });
    expect(config).toMatchObject({
      INTERNAL_TOKEN: PRODUCTION.INTERNAL_TOKEN,
      APP_STORE_URL: 'http://127.0.0.1:4002',
      SITES_URL: 'http://sites:4003',
      CHAT_URL: 'http://127.0.0.1:4004',
      DATA_EXPORT_TIMEOUT_MS: 10_000,
    });
    expect(loadAuthConfig({}).INTERNAL_TOKEN).toBe(DEV_INTERNAL_TOKEN);
    expect(() => loadAuthConfig({ CHAT_URL: 'not a url' })).toThrow(/CHAT_URL is invalid/);
  });
});
