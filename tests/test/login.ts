// Logging a user in through the gateway the way a person does: send-code, the code from the
// fake Resend mailbox, verify. Answers the session cookie.
import { expect } from '@jest/globals';
import type { ContractAnswer, ContractRequestInit } from './contract-harness.js';
import type { FakeResend } from './system-processes.js';

export interface LoggedIn {
  /** `sn_token=...`, ready for a Cookie header. */
  cookie: string;
  username: string;
  email: string;
}

/**
 * Logs `email` in with `request` (contract.request, or a wrapper that adds headers), asserting
 * both steps answer 200.
 */
export async function login(
  request: (path: string, init: ContractRequestInit) => Promise<ContractAnswer>,
  resend: FakeResend,
  email: string,
): Promise<LoggedIn> {
  const sent = await request('/api/auth/send-code', { method: 'POST', body: { email } });
  expect(sent.status).toBe(200);
  const verified = await request('/api/auth/verify', {
    method: 'POST',
    body: { email, code: resend.lastCodeFor(email) },
  });
  expect(verified.status).toBe(200);
  return {
    cookie: verified.headers.get('set-cookie')!.split(';')[0]!,
    username: verified.body.user.username,
    email,
  };
}

/** The newest code mailed to `email`, waiting for it to arrive (for a login typed into svc). */
export async function codeFor(resend: FakeResend, email: string, ms = 15_000): Promise<string> {
  const deadline = Date.now() + ms;
  for (;;) {
    try {
      return resend.lastCodeFor(email);
    } catch (error) {
      if (Date.now() > deadline) throw error;
      await new Promise((r) => setTimeout(r, 50));
    }
  }
}
