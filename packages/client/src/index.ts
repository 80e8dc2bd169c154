// @svc/client: a typed client for the svc APIs. Zero runtime dependencies: the shapes come
// from @svc/types as type-only imports and vanish from the built JavaScript.
export { SvcClient, type SvcClientOptions } from './client.js';
export { ApiError, NetworkError, SvcError } from './errors.js';
export {
  AppsApi,
  ApiKeysApi,
  MeApi,
  iconUrl,
  type AppListInput,
  type AuthorAuditInput,
  type ReportAppInput,
  type SubmitAppInput,
  type UpdateAppInput,
} from './app-store.js';
export {
  AppModerationApi,
  type AuditQueryInput,
  type DismissReportsInput,
  type ModerationQueueInput,
} from './app-moderation.js';
export { AuthApi, type VerifyResult } from './auth.js';
export {
  SiteModerationApi,
  type ChatAuditQueryInput,
  type SiteAuditQueryInput,
} from './site-moderation.js';
export {
  BookmarksApi,
  ChatApi,
  SitesApi,
  type ChatListInput,
  type SiteListInput,
  type SubmitSiteInput,
  type TranslateInput,
} from './site-sharing.js';
export {
  RECONNECT_CLOSE_CODES,
  WS_PATH,
  WS_CLOSE_BAD_RESUME,
  WS_RESUME_PARAM,
  subscribe,
  type RealtimeMessage,
  type SubscribeOptions,
  type Subscription,
  type WebSocketConstructor,
} from './realtime.js';
export { backoffCap, backoffDelay, DEFAULT_BACKOFF, type BackoffOptions } from './backoff.js';
export { buildQuery, normaliseBaseUrl, toWebSocketUrl } from './query.js';
export {
  DEFAULT_TIMEOUT_MS,
  SESSION_COOKIE,
  parseRetryAfter,
  sessionTokenFromHeaders,
  type AuthMode,
  type TransportOptions,
} from './transport.js';
