// Sends login codes: through Resend when RESEND_API_KEY is set, else a development
// mailer that writes the code to the log (so a person can log in locally).
import { Resend } from 'resend';
import type { Logger } from '@svc/service-kit';

export interface Mailer {
  sendLoginCode(to: string, code: string): Promise<void>;
}

export function loginCodeEmail(code: string) {
  return {
    subject: `Your login code: ${code}`,
    text: `Your login code is ${code}. It is valid for 10 minutes and can be used once.\n\nIf you did not ask for it, ignore this email.`,
    html: `<p>Your login code is <strong style="font-size:1.4em;letter-spacing:0.1em">${code}</strong>.</p><p>It is valid for 10 minutes and can be used once.</p><p>If you did not ask for it, ignore this email.</p>`,
  };
}

export function createResendMailer(opts: { apiKey: string; baseUrl?: string; from: string }): Mailer {
  const resend = new Resend(opts.apiKey, opts.baseUrl ? { baseUrl: opts.baseUrl } : undefined);
  return {
    async sendLoginCode(to, code) {
      // The SDK returns errors instead of throwing them.
      const { error } = await resend.emails.send({ from: opts.from, to, ...loginCodeEmail(code) });
      if (error) throw new Error(`Resend refused the email: ${error.message}`);
    },
  };
}

export function createDevMailer(logger: Logger): Mailer {
  return {
    async sendLoginCode(to, code) {
      logger.info({ to, code }, `login code for ${to}: ${code} (dev mailer: RESEND_API_KEY is not set)`);
    },
  };
}
