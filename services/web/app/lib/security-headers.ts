// The headers every page carries. The Content-Security-Policy allows scripts only from this
// origin and by this response's nonce (no 'unsafe-eval', no inline handlers), no framing of
// the page, and frames only where a page needs them (the desktop's apps, the CAPTCHA).
export interface PagePolicyInput {
  nonce: string;
  /** Origins the page may frame (`https://app.example`): the desktop's iframe apps. */
  frameSources?: readonly string[];
  /** The CAPTCHA provider's origin when the widget is on (its script and its frame). */
  captchaOrigin?: string;
}

export function contentSecurityPolicy(input: PagePolicyInput): string {
  const captcha = input.captchaOrigin ? [input.captchaOrigin] : [];
  const frames = [...new Set([...(input.frameSources ?? []), ...captcha])];
  const directives: Record<string, string[]> = {
    'default-src': ["'self'"],
    'script-src': ["'self'", `'nonce-${input.nonce}'`, ...captcha],
    // Style attributes only (computed colours, the desktop window's position); no <style>.
    'style-src': ["'self'"],
    'style-src-attr': ["'unsafe-inline'"],
    // Favicons, Open Graph images and the daily background live on other sites; app icons are data: SVG.
    'img-src': ["'self'", 'https:', 'http:', 'data:'],
    'font-src': ["'self'"],
    // The API and its WebSocket are on this origin.
    'connect-src': ["'self'"],
    'frame-src': frames.length > 0 ? frames : ["'none'"],
    'frame-ancestors': ["'none'"],
    'form-action': ["'self'"],
    'base-uri': ["'none'"],
    'object-src': ["'none'"],
    'manifest-src': ["'self'"],
    'worker-src': ["'self'"],
  };
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; ');
}

export function pageSecurityHeaders(input: PagePolicyInput): Record<string, string> {
  return {
    'content-security-policy': contentSecurityPolicy(input),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
    'cross-origin-opener-policy': 'same-origin',
  };
}

/** The origin of an http(s) URL, or undefined (other schemes are never framed). */
export function frameOriginOf(url: string): string | undefined {
  try {
    const u = new URL(url);
    return u.protocol === 'https:' || u.protocol === 'http:' ? u.origin : undefined;
  } catch {
    return undefined;
  }
}
