// Email-code login (/api/auth). `verify` keeps the session token so later calls send it.
import type {
  AuthMeResponse,
  DeleteAccountResponse,
  ExportResponse,
  GrantModeratorResponse,
  LogoutResponse,
  ModeratorListResponse,
  RevokeModeratorResponse,
  SendCodeResponse,
  SetUsernameResponse,
  VerifyResponse,
} from '@svc/types';
import { segment } from './query.js';
import { sessionTokenFromHeaders, type Transport } from './transport.js';

export interface VerifyResult extends VerifyResponse {
  /**
   * The `sn_token` from Set-Cookie, or undefined in a browser (which keeps the HttpOnly
   * cookie itself and never shows it to scripts).
   */
  sessionToken: string | undefined;
}

export class AuthApi {
  constructor(private readonly t: Transport) {}

  /** Mails a 6-digit code (answers `{ sent: true }` for any valid address). */
  sendCode(email: string, signal?: AbortSignal): Promise<SendCodeResponse> {
    return this.t.call('POST', '/api/auth/send-code', { auth: 'none', body: { email }, signal });
  }

  /** Exchanges the code for a session; the client uses it from then on. */
  async verify(email: string, code: string, signal?: AbortSignal): Promise<VerifyResult> {
    const res = await this.t.raw<VerifyResponse>('POST', '/api/auth/verify', {
      auth: 'none',
      body: { email, code },
      signal,
    });
    const sessionToken = sessionTokenFromHeaders(res.headers);
    if (sessionToken) this.t.sessionToken = sessionToken;
    return { ...res.data, sessionToken };
  }

  me(signal?: AbortSignal): Promise<AuthMeResponse> {
    return this.t.call('GET', '/api/auth/me', { auth: 'session', signal });
  }

  /**
   * Everything the platform holds about the logged-in user, one section per service
   * (3 an hour; 503 when a service cannot give its part: never a partial export).
   */
  exportData(signal?: AbortSignal): Promise<ExportResponse> {
    return this.t.call('GET', '/api/auth/export', { auth: 'session', signal });
  }

  /** Renames the user; the API answers with a fresh session, which the client keeps. */
  async setUsername(username: string, signal?: AbortSignal): Promise<SetUsernameResponse> {
    const res = await this.t.raw<SetUsernameResponse>('POST', '/api/auth/set-username', {
      auth: 'session',
      body: { username },
      signal,
    });
    const fresh = sessionTokenFromHeaders(res.headers);
    if (fresh) this.t.sessionToken = fresh;
    return res.data;
  }

  /** Revokes the session on the server and forgets it here. */
  async logout(signal?: AbortSignal): Promise<LogoutResponse> {
    const out = await this.t.call<LogoutResponse>('POST', '/api/auth/logout', {
      auth: 'optional-session',
      signal,
    });
    this.t.sessionToken = undefined;
    return out;
  }

  /**
   * Signs the user out everywhere: every session of the user ends, on every device, this
   * one included; the client forgets it.
   */
  async logoutAll(signal?: AbortSignal): Promise<LogoutResponse> {
    const out = await this.t.call<LogoutResponse>('POST', '/api/auth/logout-all', {
      auth: 'session',
      signal,
    });
    this.t.sessionToken = undefined;
    return out;
  }

  /**
   * Deletes the logged-in user's account for good. `code` is a login code just sent to the
   * account's address (`sendCode(email)` first): a fresh proof that the session alone does
   * not give. Every session ends; the client forgets its own.
   */
  async deleteAccount(code: string, signal?: AbortSignal): Promise<DeleteAccountResponse> {
    const out = await this.t.call<DeleteAccountResponse>('DELETE', '/api/auth/me', {
      auth: 'session',
      body: { code },
      signal,
    });
    this.t.sessionToken = undefined;
    return out;
  }

  /** Moderators only: everyone listed in MODERATOR_EMAILS, then those granted. */
  moderators(signal?: AbortSignal): Promise<ModeratorListResponse> {
    return this.t.call('GET', '/api/auth/moderators', { auth: 'session', signal });
  }

  /** Moderators only: makes the user with this email a moderator (idempotent). */
  grantModerator(email: string, signal?: AbortSignal): Promise<GrantModeratorResponse> {
    return this.t.call('PUT', `/api/auth/moderators/${segment(email)}`, { auth: 'session', signal });
  }

  /** Moderators only: takes the role back (409 for an email listed in MODERATOR_EMAILS). */
  revokeModerator(email: string, signal?: AbortSignal): Promise<RevokeModeratorResponse> {
    return this.t.call('DELETE', `/api/auth/moderators/${segment(email)}`, { auth: 'session', signal });
  }
}
