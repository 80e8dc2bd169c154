// Where audit entries come from. Each service that moderates keeps its own append-only log
// (the app store's, the sites', the chat's), so the audit page reads one source at a time,
// chosen by `?source=`. Adding a source is: its name and target types
// here, its reader in moderation.server.ts (`AUDIT_READERS`), its label in the `moderation`
// messages (`audit.sources.<name>`). Pure: the loader, the page and the unit tests share it.

export const AUDIT_SOURCES = ['apps', 'sites', 'chat'] as const;
export type AuditSource = (typeof AUDIT_SOURCES)[number];

/** The target types each source's log knows (its `target_type` filter). */
export const AUDIT_TARGET_TYPES: Record<AuditSource, readonly string[]> = {
  apps: ['app'],
  sites: ['site'],
  // a sender is `user:<user id>` or `ip:<keyed address hash>` (never a raw address)
  chat: ['message', 'sender'],
};

/** Entries per page (the API allows up to 100). */
export const AUDIT_PAGE_SIZE = 20;

/** The API's bounds for the filter (AuditQuery in @svc/types): longer values are dropped. */
const TARGET_ID_MAX = 200;
const CURSOR_MAX = 40;

export interface AuditFilter {
  source: AuditSource;
  targetType?: string;
  targetId?: string;
  cursor?: string;
}

function isSource(value: string | null): value is AuditSource {
  return value !== null && (AUDIT_SOURCES as readonly string[]).includes(value);
}

/**
 * The filter of an audit page's URL. Anything the API would refuse is dropped rather than
 * answered with an error page: an unknown source is the first, an unknown target type none,
 * a target id without a type takes the source's only type (or is dropped when it has several).
 */
export function auditFilterOf(params: URLSearchParams): AuditFilter {
  const rawSource = params.get('source');
  const source: AuditSource = isSource(rawSource) ? rawSource : AUDIT_SOURCES[0];
  const types = AUDIT_TARGET_TYPES[source];
  const rawType = params.get('target_type')?.trim() ?? '';
  let targetType = types.includes(rawType) ? rawType : undefined;
  const rawId = params.get('target_id')?.trim() ?? '';
  let targetId = rawId !== '' && rawId.length <= TARGET_ID_MAX ? rawId : undefined;
  if (targetId !== undefined && targetType === undefined) {
    if (types.length === 1) targetType = types[0];
    else targetId = undefined;
  }
  const rawCursor = params.get('cursor') ?? '';
  const cursor = rawCursor !== '' && rawCursor.length <= CURSOR_MAX ? rawCursor : undefined;
  return { source, targetType, targetId, cursor };
}

/** The audit page's URL for `filter` (without its cursor unless `cursor` is given). */
export function auditHref(filter: AuditFilter, cursor?: string): string {
  const params = new URLSearchParams();
  if (filter.source !== AUDIT_SOURCES[0]) params.set('source', filter.source);
  if (filter.targetType) params.set('target_type', filter.targetType);
  if (filter.targetId) params.set('target_id', filter.targetId);
  if (cursor) params.set('cursor', cursor);
  const query = params.toString();
  return query ? `/moderation/audit?${query}` : '/moderation/audit';
}
