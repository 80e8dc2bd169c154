// Sends login codes and notices (the notify-email worker's): through Resend when
// RESEND_API_KEY is set, else a development mailer that writes them to the log (so a person
// can log in locally).
import { Resend } from 'resend';
import type { Logger } from '@svc/service-kit';
import type { EmailMessage } from '../domain/notice-email.js';

export interface Mailer {
  sendLoginCode(to: string, code: string): Promise<void>;
  /**
   * A notice; `idempotencyKey` (the job's id) makes Resend drop a resend of the same notice
   * for 24 hours (a job retried after the send but before its completion was recorded).
   */
  sendNotice(to: string, message: EmailMessage, idempotencyKey: string): Promise<void>;
}

export function loginCodeEmail(code: string) {
  return {
    subject: `Your login code: ${code}`,
    text: `Your login code is ${code}. It is valid for 10 minutes and can be used once.\n\nIf you did not ask for it, ignore this email.`,
    html: `<p>Your login code is <strong style="font-size:1.4em;letter-spacing:0.1em">${code}</strong>.</p><p>It is valid for 10 minutes and can be used once.</p><p>If you did not ask for it, ignore this email.</p>`,
  };
}

/** How long a send may take before it counts as failed (RESEND_TIMEOUT_MS's default). */
export const RESEND_TIMEOUT_MS = 10_000;

export function createResendMailer(opts: {
  apiKey: string;
  baseUrl?: string;
  from: string;
  /**
   * Bounds each send. The SDK sets no time limit, and fetch's own is 5 minutes: an API that
   * accepts and never answers would hold a login request, or a notify-email slot, that long.
   */
  timeoutMs?: number;
}): Mailer {
  const resend = new Resend(opts.apiKey, opts.baseUrl ? { baseUrl: opts.baseUrl } : undefined);
  const signal = () => AbortSignal.timeout(opts.timeoutMs ?? RESEND_TIMEOUT_MS);
  return {
    async sendLoginCode(to, code) {
      // The SDK returns errors instead of throwing them (an abort too).
      const { error } = await resend.emails.send(
        { from: opts.from, to, ...loginCodeEmail(code) },
        { signal: signal() },
      );
      if (error) throw new Error(`Resend refused the email: ${error.message}`);
    },
    async sendNotice(to, message, idempotencyKey) {
      const { error } = await resend.emails.send(
        { from: opts.from, to, ...message },
        { idempotencyKey, signal: signal() },
      );
      if (error) throw new Error(`Resend refused the email: ${error.message}`);
    },
  };
}

export function createDevMailer(logger: Logger): Mailer {
  return {
    async sendLoginCode(to, code) {
      logger.info({ to, code }, `login code for ${to}: ${code} (dev mailer: RESEND_API_KEY is not set)`);
    },
    async sendNotice(to, message) {
      logger.info(
        { to, subject: message.subject },
        `notice for ${to}: ${message.subject}\n${message.text} (dev mailer: RESEND_API_KEY is not set)`,
      );
    },
  };
}
