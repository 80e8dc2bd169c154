// The one catalogue of public endpoints of both interfaces and of docs/decisions/. It drives the
// OpenAPI document and the gateway's route check, so every public path is here and nothing else.
import { z } from 'zod';
import {
  AuthMeResponse,
  DeleteAccountBody,
  DeleteAccountResponse,
  GrantModeratorResponse,
  LogoutResponse,
  MODERATORS_ONLY,
  ModeratorEmailParams,
  ModeratorListResponse,
  RevokeModeratorResponse,
  SendCodeBody,
  SendCodeResponse,
  SetUsernameBody,
  SetUsernameResponse,
  VerifyBody,
  VerifyResponse,
} from './auth.js';
import {
  ApiKeyListResponse,
  ApiKeyParams,
  AppDetailResponse,
  AppListQuery,
  AppListResponse,
  AppSlugParams,
  AppStoreMeResponse,
  CategoriesResponse,
  CreateApiKeyResponse,
  InstallAppResponse,
  InstalledAppsResponse,
  MyAppsResponse,
  ReportAppBody,
  ReportAppResponse,
  SubmitAppBody,
  SubmitAppResponse,
  UpdateAppBody,
  UpdateAppResponse,
  WithdrawAppQuery,
} from './app-store.js';
import {
  AppReportHistoryResponse,
  AppealBody,
  AppealResponse,
  AuditPageResponse,
  AuthorAuditPageResponse,
  AuthorAuditQuery,
  AuditQuery,
  ChatAuditQuery,
  SiteAuditQuery,
  DismissReportsBody,
  ModerationActionResponse,
  ModerationQueueQuery,
  ModerationQueueResponse,
  ModerationReasonBody,
} from './app-moderation.js';
import {
  ChatMessageListQuery,
  ChatMessageListResponse,
  ChatMessageParams,
  DeleteChatMessageResponse,
  MuteChatSenderBody,
  MuteChatSenderResponse,
  LikeChatMessageResponse,
  PostChatMessageBody,
  PostChatMessageResponse,
} from './chat.js';
import { ErrorResponse } from './common.js';
import {
  BookmarkListResponse,
  BookmarkParams,
  BoostSiteResponse,
  ClaimSiteResponse,
  CreateBookmarkBody,
  CreateBookmarkResponse,
  DailyBgResponse,
  GetSiteResponse,
  HideSiteBody,
  HideSiteResponse,
  RestoreSiteResponse,
  MySubmissionsResponse,
  RecordClickResponse,
  SiteIdParams,
  SitemapFileParams,
  SiteListQuery,
  SiteListResponse,
  SiteTagsResponse,
  SubmitSiteBody,
  SubmitSiteCreatedResponse,
  SubmitSiteHeaders,
  SubmitSiteExistingResponse,
} from './sites.js';
import {
  APP_WITHDRAWAL_RETENTION_DAYS,
  BOOSTS_PER_DAY_USER,
  BOOSTS_PER_DAY_VISITOR,
  DATA_EXPORT_PATH,
  EXPORTS_PER_HOUR,
} from './constants.js';
import { ExportResponse } from './data-export.js';
import { TranslateBody, TranslateResponse } from './translate.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

export const SERVICE_NAMES = [
  'auth',
  'app-store',
  'sites',
  'chat',
  'translate',
  'realtime',
  'gateway',
] as const;
export type ServiceName = (typeof SERVICE_NAMES)[number];

/**
 * none: public. session: `sn_token` cookie only (an API key is refused with 403).
 * session-or-key: cookie or `Authorization: Bearer <API_KEY>`. optional-session: public,
 * but a session changes the outcome (sender name, boost allowance, ownership...).
 */
export type AuthMode = 'none' | 'session' | 'session-or-key' | 'optional-session';

export type RateLimitWindow = 'minute' | 'hour' | 'day';
/**
 * ip: the client address. network: the client's IPv4 address or IPv6 /64 (one subscriber
 * usually holds a whole /64, so counting single IPv6 addresses would bound nothing).
 */
export type RateLimitKey = 'ip' | 'network' | 'user' | 'key-or-user' | 'email';
/**
 * requests: every request counts. distinct-emails: only a new address counts (asking again
 * for one already counted in the window is free). failures: only refused attempts count,
 * and once they are used up every attempt is refused until the window ends.
 */
export type RateLimitCounts = 'requests' | 'distinct-emails' | 'failures';

/** A further limit that holds at the same time as the endpoint's main one. */
export interface RateLimitRule {
  limit: number;
  window: RateLimitWindow;
  key: RateLimitKey;
  counts: RateLimitCounts;
}

export interface RateLimit {
  limit: number;
  window: RateLimitWindow;
  key: RateLimitKey;
  /** Replaces limit/key when the caller has a valid session (boost: 1/day per IP, 3/day per user). */
  session?: { limit: number; key: RateLimitKey };
  /** Limits per client beside the main one (login: per address and per client IP). */
  also?: readonly RateLimitRule[];
}

/** Seconds in a rate-limit window. */
export const WINDOW_SECONDS: Record<RateLimitWindow, number> = {
  minute: 60,
  hour: 3600,
  day: 86_400,
};

export interface EndpointResponse {
  description: string;
  schema?: z.ZodType;
  /** Omitted means application/json (or no body when there is no schema). */
  contentType?: string;
  /** The response sets (or clears) the `sn_token` session cookie. */
  cookie?: 'set' | 'clear';
  /** A download: `Content-Disposition: attachment; filename="…"` names the file. */
  attachment?: true;
}

export interface Endpoint {
  method: HttpMethod;
  /** OpenAPI style: `/api/v1/apps/{slug}`. */
  path: string;
  service: ServiceName;
  /** Unique, camelCase; used as OpenAPI operationId and tool name. */
  operationId: string;
  summary: string;
  auth: AuthMode;
  /** Path parameters; a value that fails them means "no such resource": answer 404, not 400. */
  params?: z.ZodObject;
  query?: z.ZodObject;
  /** Request headers the operation reads (beyond cookies and Authorization). */
  headers?: z.ZodObject;
  body?: z.ZodType;
  responses: { [status: number]: EndpointResponse };
  rateLimit?: RateLimit;
}

type EndpointSpec = Omit<Endpoint, 'responses'> & {
  /** Success (and 101/204) responses. */
  ok: { [status: number]: EndpointResponse };
  /** Error statuses specific to this endpoint, with their condition. */
  errors?: { [status: number]: string };
  /** Needs PostgreSQL or Redis, so answers 503 when they are unreachable. Default true. */
  store?: boolean;
};

const error = (description: string): EndpointResponse => ({ description, schema: ErrorResponse });

/**
 * Services answering through the service kit's app, which refuses text no store can hold
 * anywhere in a request with 400: a NUL character, or text that is not valid Unicode.
 */
const SERVED_BY_KIT = (service: ServiceName) => service !== 'gateway' && service !== 'realtime';

/**
 * Adds the error statuses that follow from the endpoint's shape (docs/decisions/001-errors-limits-and-headers.md), so they are
 * never forgotten: 400 when there is a query or body to validate (and, from the kit's
 * services, for a NUL or invalid Unicode anywhere), 401 when authentication
 * is required, 413 with a body, 429 when rate-limited, 503 when a data store is needed, and
 * 408 (a request too slow to arrive), 431 (a request head too large) and 500 (a crash still
 * answers JSON) everywhere. Specific `errors` override these texts.
 */
function endpoint(spec: EndpointSpec): Endpoint {
  const { ok, errors = {}, store = true, ...rest } = spec;
  const responses: { [status: number]: EndpointResponse } = { ...ok };
  if (rest.query || rest.body)
    responses[400] = error(
      'Invalid request (validation failed, body is not JSON or not decodable, a NUL character or text that is not valid Unicode)',
    );
  else if (SERVED_BY_KIT(rest.service))
    responses[400] = error(
      'Invalid request (a NUL character, or text that is not valid Unicode, in the path or query string)',
    );
  if (rest.auth === 'session' || rest.auth === 'session-or-key')
    responses[401] = error('Authentication required');
  if (rest.body) responses[413] = error('Request body too large');
  if (rest.rateLimit)
    responses[429] = error('Too many requests (Retry-After and RateLimit-* headers)');
  // The gateway's, on every path: see gateway/README.md "Slow and greedy clients".
  responses[408] = error('Headers or body not received in time (the connection is closed)');
  responses[431] = error('Request line and headers over 15 KiB (the connection is closed)');
  responses[500] = error('Internal error');
  if (store) responses[503] = error('Service temporarily unavailable');
  for (const [status, description] of Object.entries(errors))
    responses[Number(status)] = error(description);
  return { ...rest, responses };
}

const json = (description: string, schema: z.ZodType): EndpointResponse => ({
  description,
  schema,
});
const noContent = (description: string): EndpointResponse => ({ description });

// Rate limits from the documents and docs/decisions/; endpoints whose limit is "not shown" have none.
const APP_PUBLIC: RateLimit = { limit: 200, window: 'minute', key: 'ip' };
const APP_AUTHENTICATED: RateLimit = { limit: 60, window: 'minute', key: 'key-or-user' };
const APP_SESSION: RateLimit = { limit: 60, window: 'minute', key: 'user' };

/**
 * Login (docs/decisions/002-email-code-login-and-sessions.md per address, plus per client network where the documents are
 * silent). One client network may ask codes for 30 different addresses an hour and get 60
 * codes wrong an hour across all addresses. An office behind one NAT stays well inside
 * (sessions last 30 days, so people rarely log in), while a sprayer gets 60 guesses an
 * hour from each network: one lucky 6-digit guess in about 16,000 hours.
 */
export const LOGIN_LIMITS = {
  sendCode: {
    limit: 3,
    window: 'minute',
    key: 'email',
    also: [{ limit: 30, window: 'hour', key: 'network', counts: 'distinct-emails' }],
  },
  verify: {
    limit: 5,
    window: 'minute',
    key: 'email',
    also: [{ limit: 60, window: 'hour', key: 'network', counts: 'failures' }],
  },
} as const satisfies Record<string, RateLimit>;

/**
 * Sign out everywhere (docs/decisions/032-sign-out-everywhere.md), per user. Each success
 * ends the session it was sent with, so every further call needs a fresh login: two an hour
 * leave room for a second thought, and bound what a script with the user's mailbox can make
 * auth write.
 */
export const LOGOUT_ALL_LIMIT = { limit: 2, window: 'hour', key: 'user' } as const satisfies RateLimit;

/**
 * Delete my account, per user: each try spends one of the code's wrong attempts as a login
 * does, and five an hour leave room for a mistyped code or two.
 */
export const ACCOUNT_DELETION_LIMIT = { limit: 5, window: 'hour', key: 'user' } as const satisfies RateLimit;

/**
 * Reporting an app (docs/decisions/018-abuse-resistant-reporting.md per user a minute; per user and per client IP an
 * hour where the documents are silent). A reader reports an app now and then, so 10 an
 * hour per account is far above honest use, while an account farm must spread its reports
 * over many hours; 20 an hour per client IP lets a few colleagues behind one NAT report
 * freely but caps what one address can push through fresh accounts. Each is counted
 * before anything is written (docs/decisions/018-abuse-resistant-reporting.md).
 */
export const REPORT_LIMITS = {
  limit: 60,
  window: 'minute',
  key: 'user',
  also: [
    { limit: 10, window: 'hour', key: 'user', counts: 'requests' },
    { limit: 20, window: 'hour', key: 'ip', counts: 'requests' },
  ],
} as const satisfies RateLimit;

const KEY_REFUSED = 'an API key cannot be used here (session cookie only)';
const MODERATION_FORBIDDEN = `${MODERATORS_ONLY} (any caller but a moderator), or ${KEY_REFUSED}`;

/** The gateway's discovery documents carry an ETag (a hash of their bytes). */
const DISCOVERY_NOT_MODIFIED = noContent('Not modified (If-None-Match names the current ETag, or is *)');

export const ENDPOINTS: readonly Endpoint[] = [
  // ---- auth: /api/auth/* -----------------------------------------------------------------
  endpoint({
    method: 'POST',
    path: '/api/auth/send-code',
    service: 'auth',
    operationId: 'sendLoginCode',
    summary: 'Email a 6-digit login code (answers the same for every valid address)',
    auth: 'none',
    body: SendCodeBody,
    ok: { 200: json('Code sent', SendCodeResponse) },
    errors: { 400: 'Invalid email' },
    rateLimit: LOGIN_LIMITS.sendCode,
  }),
  endpoint({
    method: 'POST',
    path: '/api/auth/verify',
    service: 'auth',
    operationId: 'verifyLoginCode',
    summary: 'Exchange email + code for a session; sets the HttpOnly sn_token cookie',
    auth: 'none',
    body: VerifyBody,
    ok: {
      200: {
        ...json('Logged in; Set-Cookie sn_token (JWT, 30 days)', VerifyResponse),
        cookie: 'set',
      },
    },
    errors: { 400: 'Invalid request, or Invalid or expired code' },
    rateLimit: LOGIN_LIMITS.verify,
  }),
  endpoint({
    method: 'GET',
    path: '/api/auth/me',
    service: 'auth',
    operationId: 'getSessionUser',
    summary: 'The logged-in user',
    auth: 'session',
    ok: { 200: json('The user of the session', AuthMeResponse) },
  }),
  endpoint({
    method: 'POST',
    path: '/api/auth/set-username',
    service: 'auth',
    operationId: 'setUsername',
    summary: 'Change the username; issues a fresh sn_token cookie',
    auth: 'session',
    body: SetUsernameBody,
    ok: {
      200: { ...json('Username changed; Set-Cookie sn_token', SetUsernameResponse), cookie: 'set' },
    },
    errors: {
      400: 'Invalid username (3–32 letters, digits, _ or -)',
      409: 'Username already taken',
    },
  }),
  endpoint({
    method: 'POST',
    path: '/api/auth/logout',
    service: 'auth',
    operationId: 'logout',
    summary: 'Revoke the session and clear the cookie (idempotent)',
    auth: 'optional-session',
    ok: { 200: { ...json('Logged out; cookie cleared', LogoutResponse), cookie: 'clear' } },
  }),
  endpoint({
    method: 'POST',
    path: '/api/auth/logout-all',
    service: 'auth',
    operationId: 'logoutAll',
    summary:
      "Sign out everywhere: end every session of the user on every device, this one included, in every service at once; clears the cookie",
    auth: 'session',
    ok: {
      200: {
        ...json('Every session of the user ended; cookie cleared', LogoutResponse),
        cookie: 'clear',
      },
    },
    rateLimit: LOGOUT_ALL_LIMIT,
  }),
  endpoint({
    method: 'DELETE',
    path: '/api/auth/me',
    service: 'auth',
    operationId: 'deleteAccount',
    summary:
      'Delete my account: needs a login code just sent to the account\'s address (POST /api/auth/send-code). Every session ends at once; each service then removes or anonymises what it holds (docs/decisions/035-account-deletion.md)',
    auth: 'session',
    body: DeleteAccountBody,
    ok: {
      200: {
        ...json('The account is deleted; the cookie cleared. The services finish their part in the background', DeleteAccountResponse),
        cookie: 'clear',
      },
    },
    errors: { 400: 'Invalid request, or Invalid or expired code' },
    rateLimit: ACCOUNT_DELETION_LIMIT,
  }),
  endpoint({
    method: 'GET',
    path: DATA_EXPORT_PATH,
    service: 'auth',
    operationId: 'exportUserData',
    summary:
      'Download everything the platform holds about the caller: one JSON file, a section per service (docs/decisions/034-data-export.md)',
    auth: 'session',
    ok: {
      200: {
        ...json(
          'The export, as a download (Content-Disposition: attachment; filename="svc-export-<UTC date>.json"; Cache-Control: no-store)',
          ExportResponse,
        ),
        attachment: true,
      },
    },
    errors: {
      503: 'A service holding part of the data did not answer, or a data store is down: nothing is sent (never a partial export), and the try is not counted against the limit',
    },
    rateLimit: { limit: EXPORTS_PER_HOUR, window: 'hour', key: 'user' },
  }),
  endpoint({
    method: 'GET',
    path: '/api/auth/moderators',
    service: 'auth',
    operationId: 'listModerators',
    summary: 'Moderators: those listed in MODERATOR_EMAILS and those granted (moderators only)',
    auth: 'session',
    ok: { 200: json('Every moderator, configured ones first, then by grant date', ModeratorListResponse) },
    errors: { 403: MODERATORS_ONLY },
  }),
  endpoint({
    method: 'PUT',
    path: '/api/auth/moderators/{email}',
    service: 'auth',
    operationId: 'grantModerator',
    summary: "Make a user a moderator, at once in their open sessions (moderators only; idempotent)",
    auth: 'session',
    params: ModeratorEmailParams,
    ok: { 200: json('The user is a moderator', GrantModeratorResponse) },
    errors: { 403: MODERATORS_ONLY, 404: 'User not found (no account with that email)' },
  }),
  endpoint({
    method: 'DELETE',
    path: '/api/auth/moderators/{email}',
    service: 'auth',
    operationId: 'revokeModerator',
    summary: "Take the role away, at once in the user's open sessions (moderators only; idempotent)",
    auth: 'session',
    params: ModeratorEmailParams,
    ok: { 200: json('The user is no longer a moderator', RevokeModeratorResponse) },
    errors: {
      403: MODERATORS_ONLY,
      404: 'User not found (no account with that email)',
      409: 'Listed in MODERATOR_EMAILS: the configuration decides, not the API',
    },
  }),

  // ---- app-store: /api/v1/* --------------------------------------------------------------
  endpoint({
    method: 'GET',
    path: '/api/v1/apps',
    service: 'app-store',
    operationId: 'listApps',
    summary: 'Approved apps, by downloads then newest; filters category, app_type, q',
    auth: 'none',
    query: AppListQuery,
    ok: { 200: json('A page of approved apps', AppListResponse) },
    rateLimit: APP_PUBLIC,
  }),
  endpoint({
    method: 'POST',
    path: '/api/v1/apps',
    service: 'app-store',
    operationId: 'submitApp',
    summary: 'Submit an app; it is approved at once',
    auth: 'session-or-key',
    body: SubmitAppBody,
    ok: { 201: json('App created with status approved', SubmitAppResponse) },
    errors: { 409: 'Slug already taken' },
    rateLimit: { limit: 5, window: 'hour', key: 'user' },
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/apps/{slug}',
    service: 'app-store',
    operationId: 'getApp',
    summary: 'Full detail of an approved app',
    auth: 'none',
    params: AppSlugParams,
    ok: { 200: json('The app', AppDetailResponse) },
    errors: { 404: 'App not found (unknown, or not approved)' },
    rateLimit: APP_PUBLIC,
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/apps/{slug}/icon',
    service: 'app-store',
    operationId: 'getAppIcon',
    summary:
      'The SVG icon of an approved app, as an image (CSP sandboxed, nosniff; ETag, max-age 300)',
    auth: 'none',
    params: AppSlugParams,
    ok: {
      200: {
        description:
          "The stored SVG; Content-Security-Policy: default-src 'none'; style-src 'unsafe-inline'; " +
          'img-src data:, X-Content-Type-Options: nosniff, Cache-Control: public, max-age=300, ETag',
        contentType: 'image/svg+xml',
      },
      304: noContent('Not modified (If-None-Match names the current ETag)'),
    },
    errors: { 404: 'App not found (unknown, not approved) or it has no icon' },
    rateLimit: APP_PUBLIC,
  }),
  endpoint({
    method: 'PATCH',
    path: '/api/v1/apps/{slug}',
    service: 'app-store',
    operationId: 'updateApp',
    summary: 'Update metadata of an app (author only; unknown fields refused)',
    auth: 'session-or-key',
    params: AppSlugParams,
    body: UpdateAppBody,
    ok: { 200: json('The updated app', UpdateAppResponse) },
    errors: {
      403: 'Not the author of the app, or API key is not valid for this app',
      404: 'App not found (a blocked app is 404 for everyone but its author)',
    },
    rateLimit: APP_AUTHENTICATED,
  }),
  endpoint({
    method: 'DELETE',
    path: '/api/v1/apps/{slug}',
    service: 'app-store',
    operationId: 'withdrawApp',
    summary:
      `Withdraw one's own app (author's session): gone from the listing, search, detail and every desktop, its keys refused; kept as withdrawn in /me/apps for ${APP_WITHDRAWAL_RETENTION_DAYS} days and its slug reserved as long. permanent=true deletes it for good now. Idempotent`,
    auth: 'session',
    params: AppSlugParams,
    query: WithdrawAppQuery,
    ok: { 204: noContent('Withdrawn (or already withdrawn), or deleted for good with permanent=true') },
    errors: {
      403: `Not the author of the app, or ${KEY_REFUSED}`,
      404: "App not found (unknown, deleted for good, or another author's blocked or withdrawn app)",
    },
    rateLimit: APP_SESSION,
  }),
  endpoint({
    method: 'POST',
    path: '/api/v1/apps/{slug}/report',
    service: 'app-store',
    operationId: 'reportApp',
    summary: 'Report an app; the 5th distinct reporter blocks it',
    auth: 'session',
    params: AppSlugParams,
    body: ReportAppBody,
    ok: { 200: json('Report recorded', ReportAppResponse) },
    errors: {
      403: `Reporting your own app, or ${KEY_REFUSED}`,
      404: 'App not found',
      409: 'Already reported by this user, or app already blocked',
    },
    rateLimit: REPORT_LIMITS,
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/apps/{slug}/keys',
    service: 'app-store',
    operationId: 'listApiKeys',
    summary: "List the app's API keys (author only; no secrets)",
    auth: 'session',
    params: AppSlugParams,
    ok: { 200: json('Keys of the app', ApiKeyListResponse) },
    errors: { 403: `Not the author of the app, or ${KEY_REFUSED}`, 404: 'App not found' },
    rateLimit: APP_SESSION,
  }),
  endpoint({
    method: 'POST',
    path: '/api/v1/apps/{slug}/keys',
    service: 'app-store',
    operationId: 'createApiKey',
    summary: 'Create an API key for the app; the secret is shown only in this response',
    auth: 'session',
    params: AppSlugParams,
    ok: { 201: json('Key created', CreateApiKeyResponse) },
    errors: { 403: `Not the author of the app, or ${KEY_REFUSED}`, 404: 'App not found' },
    rateLimit: APP_SESSION,
  }),
  endpoint({
    method: 'DELETE',
    path: '/api/v1/apps/{slug}/keys/{id}',
    service: 'app-store',
    operationId: 'revokeApiKey',
    summary: 'Revoke an API key; it answers 401 from then on',
    auth: 'session',
    params: ApiKeyParams,
    ok: { 204: noContent('Key revoked') },
    errors: { 403: `Not the author of the app, or ${KEY_REFUSED}`, 404: 'App or key not found' },
    rateLimit: APP_SESSION,
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/categories',
    service: 'app-store',
    operationId: 'listAppCategories',
    summary: 'The 12 app categories',
    auth: 'none',
    ok: { 200: json('All categories', CategoriesResponse) },
    rateLimit: APP_PUBLIC,
    store: false,
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/me',
    service: 'app-store',
    operationId: 'getAppStoreMe',
    summary: 'The caller (session user, or the owner of the API key)',
    auth: 'session-or-key',
    ok: { 200: json('The caller', AppStoreMeResponse) },
    rateLimit: APP_AUTHENTICATED,
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/me/apps',
    service: 'app-store',
    operationId: 'listMyApps',
    summary:
      "The caller's apps in any status, newest first; a blocked app says when, why and its appeal; a withdrawn one when it is deleted for good",
    auth: 'session-or-key',
    ok: { 200: json("The caller's apps", MyAppsResponse) },
    rateLimit: APP_AUTHENTICATED,
  }),
  endpoint({
    method: 'POST',
    path: '/api/v1/me/apps/{slug}/appeal',
    service: 'app-store',
    operationId: 'appealAppBlock',
    summary:
      "Appeal the block of one's own app: once per block, at most 1,000 characters (moderators see it in their queue)",
    auth: 'session',
    params: AppSlugParams,
    body: AppealBody,
    ok: { 201: json('Appeal recorded (audit entry app.appealed)', AppealResponse) },
    errors: {
      403: KEY_REFUSED,
      404: 'App not found (unknown, or not the caller\'s)',
      409: 'App is not blocked, or this block was already appealed',
    },
    rateLimit: APP_SESSION,
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/me/apps/{slug}/audit',
    service: 'app-store',
    operationId: 'listMyAppAudit',
    summary:
      "The audit entries about one's own app, newest first (actors shown as system, moderator or author)",
    auth: 'session-or-key',
    params: AppSlugParams,
    query: AuthorAuditQuery,
    ok: { 200: json('A page of audit entries', AuthorAuditPageResponse) },
    errors: {
      400: 'Invalid query (an invalid cursor)',
      404: 'App not found (unknown, or not the caller\'s)',
    },
    rateLimit: APP_AUTHENTICATED,
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/me/installed',
    service: 'app-store',
    operationId: 'listInstalledApps',
    summary: "Apps installed in the caller's desktop (approved only)",
    auth: 'session-or-key',
    ok: { 200: json('Installed approved apps', InstalledAppsResponse) },
    rateLimit: APP_AUTHENTICATED,
  }),
  endpoint({
    method: 'PUT',
    path: '/api/v1/me/installed/{slug}',
    service: 'app-store',
    operationId: 'installApp',
    summary: 'Install an approved app (idempotent; the first install counts a download)',
    auth: 'session',
    params: AppSlugParams,
    ok: { 200: json('Installed', InstallAppResponse) },
    errors: { 403: KEY_REFUSED, 404: 'App not found (unknown, or not approved)' },
    rateLimit: APP_SESSION,
  }),
  endpoint({
    method: 'DELETE',
    path: '/api/v1/me/installed/{slug}',
    service: 'app-store',
    operationId: 'uninstallApp',
    summary: 'Uninstall an app (idempotent)',
    auth: 'session',
    params: AppSlugParams,
    ok: { 204: noContent('Uninstalled (or was not installed)') },
    errors: { 403: KEY_REFUSED },
    rateLimit: APP_SESSION,
  }),

  // ---- app moderation: /api/v1/moderation/* (moderators only; docs/decisions/009-moderation-audit-log.md) -------
  endpoint({
    method: 'GET',
    path: '/api/v1/moderation/reports',
    service: 'app-store',
    operationId: 'listAppReportQueue',
    summary:
      'The report queue: apps with open reports or an open appeal, newest first (moderators only)',
    auth: 'session',
    query: ModerationQueueQuery,
    ok: {
      200: json(
        'Apps with open reports, reasons counted, reporters never named',
        ModerationQueueResponse,
      ),
    },
    errors: { 403: MODERATION_FORBIDDEN },
    rateLimit: APP_SESSION,
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/moderation/apps/{slug}/reports',
    service: 'app-store',
    operationId: 'listAppReportHistory',
    summary: "An app's reports, open and resolved, newest first (moderators only)",
    auth: 'session',
    params: AppSlugParams,
    ok: { 200: json('Reports by opaque id (never the reporter)', AppReportHistoryResponse) },
    errors: { 403: MODERATION_FORBIDDEN, 404: 'App not found' },
    rateLimit: APP_SESSION,
  }),
  endpoint({
    method: 'POST',
    path: '/api/v1/moderation/apps/{slug}/restore',
    service: 'app-store',
    operationId: 'restoreApp',
    summary:
      'Restore a blocked app (approved again; its open reports are resolved, so 5 new reporters are needed to block it again)',
    auth: 'session',
    params: AppSlugParams,
    body: ModerationReasonBody,
    ok: { 200: json('Restored (audit entry app.restored)', ModerationActionResponse) },
    errors: { 403: MODERATION_FORBIDDEN, 404: 'App not found', 409: 'App is not blocked' },
    rateLimit: APP_SESSION,
  }),
  endpoint({
    method: 'POST',
    path: '/api/v1/moderation/apps/{slug}/block',
    service: 'app-store',
    operationId: 'blockApp',
    summary: 'Block an app by hand, with a reason (moderators only)',
    auth: 'session',
    params: AppSlugParams,
    body: ModerationReasonBody,
    ok: { 200: json('Blocked (audit entry app.blocked)', ModerationActionResponse) },
    errors: {
      403: MODERATION_FORBIDDEN,
      404: 'App not found',
      409: 'App is already blocked, or was withdrawn by its author',
    },
    rateLimit: APP_SESSION,
  }),
  endpoint({
    method: 'POST',
    path: '/api/v1/moderation/apps/{slug}/dismiss',
    service: 'app-store',
    operationId: 'dismissAppReports',
    summary: "Resolve an app's open reports without blocking it (moderators only)",
    auth: 'session',
    params: AppSlugParams,
    body: DismissReportsBody,
    ok: { 200: json('Reports resolved (audit entry reports.dismissed)', ModerationActionResponse) },
    errors: { 403: MODERATION_FORBIDDEN, 404: 'App not found' },
    rateLimit: APP_SESSION,
  }),
  endpoint({
    method: 'GET',
    path: '/api/v1/moderation/audit',
    service: 'app-store',
    operationId: 'listAppAudit',
    summary: "The app-store's audit log, newest first, optionally of one target (moderators only)",
    auth: 'session',
    query: AuditQuery,
    ok: { 200: json('A page of audit entries', AuditPageResponse) },
    errors: {
      400: 'Invalid query (an invalid cursor, or target_id without target_type)',
      403: MODERATION_FORBIDDEN,
    },
    rateLimit: APP_SESSION,
  }),

  // ---- sites: /api/sites*, /api/clicks/*, /api/bookmarks*, /api/daily-bg*, /sitemap.xml ----
  endpoint({
    method: 'GET',
    path: '/api/sites',
    service: 'sites',
    operationId: 'listSites',
    summary: 'Browse sites (60 per page), by hot score or most recent; search and tag filter',
    auth: 'none',
    query: SiteListQuery,
    ok: { 200: json('A page of sites', SiteListResponse) },
  }),
  endpoint({
    method: 'POST',
    path: '/api/sites',
    service: 'sites',
    operationId: 'submitSite',
    summary: 'Submit a site URL; metadata and tags follow asynchronously (site_update event)',
    auth: 'optional-session',
    headers: SubmitSiteHeaders,
    body: SubmitSiteBody,
    ok: {
      201: json('New site (stored with its scrape request: nothing is lost)', SubmitSiteCreatedResponse),
      200: json(
        'Known site, submit_count incremented; or, for a repeated Idempotency-Key, the first answer again (`Idempotent-Replayed: true`)',
        SubmitSiteExistingResponse,
      ),
    },
    errors: {
      400: 'Invalid URL or request format, a URL that does not point to a public web site (IP literals of private, loopback, link-local or reserved ranges in any spelling, local or single-label names), or an invalid Idempotency-Key header',
      403: 'Missing or invalid CAPTCHA token',
      422: 'Idempotency-Key already used for a different request',
      503: 'Service temporarily unavailable; nothing was stored',
    },
    rateLimit: { limit: 5, window: 'minute', key: 'ip' },
  }),
  endpoint({
    method: 'GET',
    path: '/api/sites/tags',
    service: 'sites',
    operationId: 'listSiteTags',
    summary: 'The 11 site tags',
    auth: 'none',
    ok: { 200: json('All tags', SiteTagsResponse) },
    store: false,
  }),
  endpoint({
    method: 'GET',
    path: '/api/sites/my-submissions',
    service: 'sites',
    operationId: 'listMySubmissions',
    summary: "The caller's submitted sites, newest first",
    auth: 'session',
    ok: { 200: json('Submitted sites', MySubmissionsResponse) },
  }),
  endpoint({
    method: 'GET',
    path: '/api/sites/{id}',
    service: 'sites',
    operationId: 'getSite',
    summary: 'One site by its id: the same Site object as in the listing, claim status included',
    // Like the listing: the answer is the same for every caller (the Site has no
    // viewer-specific field), and there is no rate limit.
    auth: 'none',
    params: SiteIdParams,
    ok: { 200: json('The site', GetSiteResponse) },
    errors: { 404: 'Site not found (unknown id, or one longer than 128 characters)' },
  }),
  endpoint({
    method: 'POST',
    path: '/api/sites/{id}/boost',
    service: 'sites',
    operationId: 'boostSite',
    summary: 'Boost a site in the hot ranking (1/day per visitor IP, 3/day per user)',
    auth: 'optional-session',
    params: SiteIdParams,
    ok: { 200: json('Boosted; credits = boosts left today', BoostSiteResponse) },
    errors: { 404: 'Site not found', 429: 'Daily boost limit reached' },
    rateLimit: {
      limit: BOOSTS_PER_DAY_VISITOR,
      window: 'day',
      key: 'ip',
      session: { limit: BOOSTS_PER_DAY_USER, key: 'user' },
    },
  }),
  endpoint({
    method: 'POST',
    path: '/api/sites/{id}/claim',
    service: 'sites',
    operationId: 'claimSite',
    summary: 'Claim a site by its <meta name="svc-verify" content="{id}"> tag',
    auth: 'optional-session',
    params: SiteIdParams,
    ok: { 200: json('Ownership verified', ClaimSiteResponse) },
    errors: {
      400: 'Verification meta tag not found, or site already claimed',
      404: 'Site not found',
    },
    // Not in the documents: a claim makes the service fetch a page (sites README).
    rateLimit: { limit: 10, window: 'minute', key: 'ip' },
  }),
  endpoint({
    method: 'POST',
    path: '/api/clicks/{id}',
    service: 'sites',
    operationId: 'recordClick',
    summary: 'Record a click on a site',
    auth: 'none',
    params: SiteIdParams,
    ok: { 200: json('Click recorded', RecordClickResponse) },
    errors: { 404: 'Site not found' },
    rateLimit: { limit: 30, window: 'minute', key: 'ip' },
  }),
  endpoint({
    method: 'GET',
    path: '/api/bookmarks',
    service: 'sites',
    operationId: 'listBookmarks',
    summary: "The caller's bookmarks",
    auth: 'session',
    ok: { 200: json('Bookmarks', BookmarkListResponse) },
  }),
  endpoint({
    method: 'POST',
    path: '/api/bookmarks',
    service: 'sites',
    operationId: 'createBookmark',
    summary: 'Bookmark a site (idempotent: 200 with the existing bookmark)',
    auth: 'session',
    body: CreateBookmarkBody,
    ok: {
      201: json('Bookmark created', CreateBookmarkResponse),
      200: json('Already bookmarked', CreateBookmarkResponse),
    },
    errors: { 404: 'Site not found' },
    rateLimit: { limit: 60, window: 'minute', key: 'user' },
  }),
  endpoint({
    method: 'DELETE',
    path: '/api/bookmarks/{site_id}',
    service: 'sites',
    operationId: 'deleteBookmark',
    summary: 'Remove the bookmark of a site',
    auth: 'session',
    params: BookmarkParams,
    ok: { 204: noContent('Bookmark removed') },
    errors: { 404: 'Bookmark not found' },
    rateLimit: { limit: 60, window: 'minute', key: 'user' },
  }),
  endpoint({
    method: 'GET',
    path: '/api/daily-bg',
    service: 'sites',
    operationId: 'getDailyBackground',
    summary:
      'Image of the day (cached 6 h; last good or bundled default when the provider is down)',
    auth: 'none',
    ok: { 200: json('Background of the day', DailyBgResponse) },
  }),
  endpoint({
    method: 'GET',
    path: '/api/daily-bg/image',
    service: 'sites',
    operationId: 'getDailyBackgroundImage',
    summary: 'The image bytes of the daily background, proxied with caching headers',
    auth: 'none',
    ok: {
      200: {
        // A media range: the provider's images are JPEG, the bundled default is PNG.
        description: "Image bytes (the provider's type; the bundled default is PNG)",
        contentType: 'image/*',
      },
    },
  }),
  endpoint({
    method: 'GET',
    path: '/sitemap.xml',
    service: 'sites',
    operationId: 'getSitemap',
    summary:
      'XML sitemap of the home page and each site page, with hreflang alternates for the 12 languages; past SITEMAP_MAX_SITES sites, an index of /sitemap-{n}.xml',
    auth: 'none',
    ok: { 200: { description: 'Sitemap, or sitemap index', contentType: 'application/xml' } },
  }),
  endpoint({
    method: 'GET',
    path: '/sitemap-{n}.xml',
    service: 'sites',
    operationId: 'getSitemapFile',
    summary: 'One file of the sitemap index: the site pages of one hash range (the first also lists the home page)',
    auth: 'none',
    params: SitemapFileParams,
    ok: { 200: { description: 'Sitemap', contentType: 'application/xml' } },
    errors: { 404: 'No such file (no index, or n past the last file)' },
  }),

  // ---- chat: /api/messages* --------------------------------------------------------------
  endpoint({
    method: 'GET',
    path: '/api/messages',
    service: 'chat',
    operationId: 'listChatMessages',
    summary: 'The newest chat messages, oldest first',
    auth: 'none',
    query: ChatMessageListQuery,
    ok: { 200: json('Messages', ChatMessageListResponse) },
  }),
  endpoint({
    method: 'POST',
    path: '/api/messages',
    service: 'chat',
    operationId: 'postChatMessage',
    summary: 'Post a chat message (1–200 characters after trimming)',
    auth: 'optional-session',
    body: PostChatMessageBody,
    ok: { 201: json('Message stored and broadcast as new_message', PostChatMessageResponse) },
    errors: {
      400: 'Empty content or over 200 characters',
      403: 'You are muted until <ISO time> (a moderator muted this user or visitor)',
    },
    rateLimit: { limit: 10, window: 'minute', key: 'ip' },
  }),
  endpoint({
    method: 'POST',
    path: '/api/messages/{id}/like',
    service: 'chat',
    operationId: 'likeChatMessage',
    summary: 'Like a chat message once per IP/user; broadcast as like',
    auth: 'optional-session',
    params: ChatMessageParams,
    ok: { 200: json('Liked', LikeChatMessageResponse) },
    errors: { 404: 'Message not found', 409: 'Already liked by this IP or user' },
    rateLimit: { limit: 30, window: 'minute', key: 'ip' },
  }),

  // ---- moderation of sites and chat (moderators only) ------------------------------------
  endpoint({
    method: 'POST',
    path: '/api/moderation/sites/{id}/hide',
    service: 'sites',
    operationId: 'hideSite',
    summary:
      'Hide a site: gone from the listing, search, tag filters, the sitemap and GET /api/sites/{id} for everyone but moderators (moderators only)',
    auth: 'session',
    params: SiteIdParams,
    body: HideSiteBody,
    ok: { 200: json('The site is hidden', HideSiteResponse) },
    errors: {
      400: 'Missing or empty reason, or one over 500 characters',
      403: MODERATORS_ONLY,
      404: 'Site not found',
      409: 'Site already hidden',
    },
  }),
  endpoint({
    method: 'POST',
    path: '/api/moderation/sites/{id}/restore',
    service: 'sites',
    operationId: 'restoreSite',
    summary: 'Show a hidden site again (moderators only)',
    auth: 'session',
    params: SiteIdParams,
    ok: { 200: json('The site is visible again', RestoreSiteResponse) },
    errors: { 403: MODERATORS_ONLY, 404: 'Site not found', 409: 'Site is not hidden' },
  }),
  endpoint({
    method: 'DELETE',
    path: '/api/moderation/messages/{id}',
    service: 'chat',
    operationId: 'deleteChatMessage',
    summary:
      'Delete a chat message: no longer listed, and message_deleted { id } tells every open client (moderators only)',
    auth: 'session',
    params: ChatMessageParams,
    ok: { 200: json('Deleted and broadcast', DeleteChatMessageResponse) },
    errors: { 403: MODERATORS_ONLY, 404: 'Message not found (unknown or already deleted)' },
  }),
  endpoint({
    method: 'POST',
    path: '/api/moderation/chat/mutes',
    service: 'chat',
    operationId: 'muteChatSender',
    summary:
      'Mute the sender of a chat message for some minutes: their posts answer 403 until then (moderators only)',
    auth: 'session',
    body: MuteChatSenderBody,
    ok: { 200: json('Muted (a new mute replaces an older one)', MuteChatSenderResponse) },
    errors: {
      400: 'sender is not a message id, minutes not an integer from 1 to 43200, or a reason over 500 characters',
      403: MODERATORS_ONLY,
      404: 'Message not found, or one without a sender (system messages)',
    },
  }),
  endpoint({
    method: 'GET',
    path: '/api/moderation/sites/audit',
    service: 'sites',
    operationId: 'listSiteAudit',
    summary:
      "The sites service's audit log (site.hidden, site.restored), newest first, optionally of one site (moderators only)",
    auth: 'session',
    query: SiteAuditQuery,
    ok: { 200: json('A page of audit entries', AuditPageResponse) },
    errors: {
      400: 'Invalid query (an invalid cursor, or target_id without target_type)',
      403: MODERATORS_ONLY,
    },
  }),
  endpoint({
    method: 'GET',
    path: '/api/moderation/chat/audit',
    service: 'chat',
    operationId: 'listChatAudit',
    summary:
      "The chat's audit log (message.deleted, sender.muted), newest first, optionally of one message or sender (moderators only)",
    auth: 'session',
    query: ChatAuditQuery,
    ok: { 200: json('A page of audit entries', AuditPageResponse) },
    errors: {
      400: 'Invalid query (an invalid cursor, or target_id without target_type)',
      403: MODERATORS_ONLY,
    },
  }),

  // ---- translate -------------------------------------------------------------------------
  endpoint({
    method: 'POST',
    path: '/api/translate',
    service: 'translate',
    operationId: 'translateText',
    summary: 'Translate text into one of the 12 languages, detecting the input language',
    auth: 'none',
    body: TranslateBody,
    ok: { 200: json('Translation', TranslateResponse) },
    errors: {
      400: 'Missing parameters or text too long',
      500: 'Translation failed',
      503: 'No AI provider configured (texts that need the AI; Redis down only skips the cache)',
    },
    rateLimit: { limit: 20, window: 'minute', key: 'ip' },
  }),

  // ---- realtime --------------------------------------------------------------------------
  endpoint({
    method: 'GET',
    path: '/api/ws',
    service: 'realtime',
    operationId: 'openRealtimeChannel',
    summary:
      'WebSocket upgrade; server sends {id, event, payload} messages (no authentication); ?last_event_id=<id> resumes after that event',
    auth: 'none',
    ok: { 101: noContent('Switching Protocols to WebSocket') },
    errors: {
      426: 'Upgrade Required (not a WebSocket handshake)',
      429: 'Too many open WebSockets from this client IP (64 per realtime replica); Retry-After',
    },
    store: false,
  }),

  // ---- gateway: discovery ----------------------------------------------------------------
  endpoint({
    method: 'GET',
    path: '/openapi.json',
    service: 'gateway',
    operationId: 'getOpenApi',
    summary: 'OpenAPI 3.1 document of every public path',
    auth: 'none',
    ok: { 200: { description: 'OpenAPI document', contentType: 'application/json' }, 304: DISCOVERY_NOT_MODIFIED },
    store: false,
  }),
  endpoint({
    method: 'GET',
    path: '/llms.txt',
    service: 'gateway',
    operationId: 'getLlmsTxt',
    summary: 'Short summary for language-model contexts',
    auth: 'none',
    ok: { 200: { description: 'Summary', contentType: 'text/plain' }, 304: DISCOVERY_NOT_MODIFIED },
    store: false,
  }),
  endpoint({
    method: 'GET',
    path: '/llms-full.txt',
    service: 'gateway',
    operationId: 'getLlmsFullTxt',
    summary: 'Complete reference for language-model use',
    auth: 'none',
    ok: { 200: { description: 'Reference', contentType: 'text/plain' }, 304: DISCOVERY_NOT_MODIFIED },
    store: false,
  }),
  endpoint({
    method: 'GET',
    path: '/.well-known/ai-plugin.json',
    service: 'gateway',
    operationId: 'getAiPluginManifest',
    summary: 'Plugin manifest for AI agents',
    auth: 'none',
    ok: { 200: { description: 'Plugin manifest', contentType: 'application/json' }, 304: DISCOVERY_NOT_MODIFIED },
    store: false,
  }),
  endpoint({
    method: 'GET',
    path: '/.well-known/mcp.json',
    service: 'gateway',
    operationId: 'getMcpManifest',
    summary: 'Tool definitions for AI agents',
    auth: 'none',
    ok: { 200: { description: 'MCP tool definitions', contentType: 'application/json' }, 304: DISCOVERY_NOT_MODIFIED },
    store: false,
  }),
];

/** /sitemap-{n}.xml as the gateway matches it: any name, sites answers 404 for a bad `n`. */
export const SITEMAP_FILE_PATH = /^\/sitemap-[^/]+\.xml$/;

/** Which service owns a public path (the gateway routes by these prefixes). */
export function serviceForPath(path: string): ServiceName | undefined {
  const under = (prefix: string) => path === prefix || path.startsWith(`${prefix}/`);
  if (under('/api/auth')) return 'auth';
  if (under('/api/v1')) return 'app-store';
  if (
    under('/api/sites') ||
    under('/api/clicks') ||
    under('/api/bookmarks') ||
    under('/api/daily-bg')
  )
    return 'sites';
  if (path === '/sitemap.xml' || SITEMAP_FILE_PATH.test(path)) return 'sites';
  if (under('/api/moderation/sites')) return 'sites';
  if (under('/api/messages')) return 'chat';
  if (under('/api/moderation/messages') || under('/api/moderation/chat')) return 'chat';
  if (path === '/api/translate') return 'translate';
  if (path === '/api/ws') return 'realtime';
  if (ENDPOINTS.some((e) => e.service === 'gateway' && e.path === path)) return 'gateway';
  return undefined;
}

/** `/api/v1/apps/{slug}` → `/api/v1/apps/:slug` for Express routers. */
export function toExpressPath(path: string): string {
  return path.replace(/\{([A-Za-z0-9_]+)\}/g, ':$1');
}

/** The catalogue entry of a method and OpenAPI-style path, if any. */
export function findEndpoint(method: HttpMethod, path: string): Endpoint | undefined {
  return ENDPOINTS.find((e) => e.method === method && e.path === path);
}
