// CAPTCHA on POST /api/sites (docs/decisions/005-sites.md): on when CAPTCHA_SECRET_KEY is set, checked
// against a Cloudflare-Turnstile-compatible `siteverify` endpoint.
import { z } from 'zod';
import { HttpError } from '@svc/service-kit';
import { ERROR_MESSAGES } from '@svc/types';

export interface CaptchaVerifier {
  /** True when the provider accepts the token; throws 503 when it cannot be asked. */
  verify(token: string, remoteIp: string): Promise<boolean>;
}

const SiteverifyAnswer = z.object({ success: z.boolean() });

export function createCaptchaVerifier(opts: {
  secret: string;
  verifyUrl: string;
  timeoutMs?: number;
}): CaptchaVerifier {
  return {
    async verify(token, remoteIp) {
      let answer: unknown;
      try {
        const res = await fetch(opts.verifyUrl, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ secret: opts.secret, response: token, remoteip: remoteIp }),
          signal: AbortSignal.timeout(opts.timeoutMs ?? 5000),
          redirect: 'error',
        });
        if (!res.ok) throw new Error(`siteverify answered ${res.status}`);
        answer = await res.json();
      } catch {
        // The provider is down or answered garbage: refuse, but say it is on our side.
        throw new HttpError(503, ERROR_MESSAGES.serviceUnavailable, undefined, {
          'Retry-After': '5',
        });
      }
      const parsed = SiteverifyAnswer.safeParse(answer);
      return parsed.success && parsed.data.success;
    },
  };
}
