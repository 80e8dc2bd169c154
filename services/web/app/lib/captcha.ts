// The CAPTCHA widget: Cloudflare Turnstile (the sites service verifies its tokens against a
// Turnstile-compatible siteverify). Loaded only when a site key is configured.
export const CAPTCHA_ORIGIN = 'https://challenges.cloudflare.com';
export const CAPTCHA_SCRIPT = `${CAPTCHA_ORIGIN}/turnstile/v0/api.js`;
