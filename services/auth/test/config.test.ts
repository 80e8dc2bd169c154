// auth settings: production refuses the development mailer (docs/decisions/013-operations-port.md).
import { describe, expect, it } from '@jest/globals';
import { ConfigError } from '@svc/service-kit';
import { loadAuthConfig } from '../src/config.js';

describe('auth config', () => {
  it('refuses to start in production without RESEND_API_KEY, naming it and the code-logging mailer', () => {
    expect(() => loadAuthConfig({ NODE_ENV: 'production' })).toThrow(ConfigError);
    expect(() => loadAuthConfig({ NODE_ENV: 'production', RESEND_API_KEY: '' })).toThrow(
      /RESEND_API_KEY is invalid: required when NODE_ENV=production \(the development fallback writes login codes to the log/,
    );
    expect(() => loadAuthConfig({ NODE_ENV: 'production' })).toThrow(/RESEND_API_KEY is missing/);
  });

  it('takes RESEND_API_KEY in production, and lets development log the codes', () => {
    expect(loadAuthConfig({ NODE_ENV: 'production', RESEND_API_KEY: 're_x' }).RESEND_API_KEY).toBe(
      're_x',
    );
    expect(loadAuthConfig({ NODE_ENV: 'development' }).RESEND_API_KEY).toBeUndefined();
    expect(loadAuthConfig({ NODE_ENV: 'test' }).RESEND_API_KEY).toBeUndefined();
  });
});
