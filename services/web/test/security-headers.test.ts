import { describe, expect, it } from '@jest/globals';
import { contentSecurityPolicy, frameOriginOf, pageSecurityHeaders } from '../app/lib/security-headers';

const directive = (csp: string, name: string) =>
  csp
    .split('; ')
    .find((d) => d.startsWith(`${name} `))
    ?.slice(name.length + 1);

describe('the pages’ Content-Security-Policy', () => {
  const csp = contentSecurityPolicy({ nonce: 'abc123' });

  it('runs scripts only from this origin and by nonce, never eval or inline handlers', () => {
    expect(directive(csp, 'script-src')).toBe("'self' 'nonce-abc123'");
    expect(csp).not.toMatch(/unsafe-eval|unsafe-hashes|'unsafe-inline'[^;]*script/);
  });

  it('cannot be framed, and frames nothing unless a page asks', () => {
    expect(directive(csp, 'frame-ancestors')).toBe("'none'");
    expect(directive(csp, 'frame-src')).toBe("'none'");
    expect(directive(csp, 'object-src')).toBe("'none'");
    expect(directive(csp, 'base-uri')).toBe("'none'");
  });

  it('frames exactly the desktop’s app origins, and the CAPTCHA when it is on', () => {
    const desktop = contentSecurityPolicy({
      nonce: 'n',
      frameSources: ['https://a.example', 'https://b.example', 'https://a.example'],
      captchaOrigin: 'https://challenges.cloudflare.com',
    });
    expect(directive(desktop, 'frame-src')).toBe(
      'https://a.example https://b.example https://challenges.cloudflare.com',
    );
    expect(directive(desktop, 'script-src')).toBe("'self' 'nonce-n' https://challenges.cloudflare.com");
  });

  it('comes with the other page headers', () => {
    const headers = pageSecurityHeaders({ nonce: 'n' });
    expect(headers['x-frame-options']).toBe('DENY');
    expect(headers['x-content-type-options']).toBe('nosniff');
    expect(headers['referrer-policy']).toBe('strict-origin-when-cross-origin');
  });
});

describe('frameOriginOf', () => {
  it('keeps only http(s) origins', () => {
    expect(frameOriginOf('https://app.example/path?q=1')).toBe('https://app.example');
    expect(frameOriginOf('javascript:alert(1)')).toBeUndefined();
    expect(frameOriginOf('data:text/html,x')).toBeUndefined();
    expect(frameOriginOf('not a url')).toBeUndefined();
  });
});
