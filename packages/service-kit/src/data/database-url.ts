// Where a service's tables live: its own *_DATABASE_URL if set, else the shared
// DATABASE_URL with the service's own PostgreSQL schema. `?schema=` overrides either.
export interface DatabaseTarget {
  host: string;
  port: number;
  user: string;
  password: string;
  database: string;
  schema: string;
  /** A query unanswered this long ends its connection (prisma-adapter.ts); default 10 s. */
  queryTimeoutMs?: number;
}

export const DEFAULT_DATABASE_URL = 'postgresql://postgres@127.0.0.1:5432/svc';

export function resolveDatabaseTarget(
  ownUrl: string | undefined,
  sharedUrl: string | undefined,
  defaultSchema: string,
): DatabaseTarget {
  const url = new URL(ownUrl || sharedUrl || DEFAULT_DATABASE_URL);
  if (url.protocol !== 'postgresql:' && url.protocol !== 'postgres:') {
    throw new Error(`Not a PostgreSQL URL: ${url.protocol}`);
  }
  return {
    host: url.hostname || '127.0.0.1',
    port: Number(url.port || 5432),
    user: decodeURIComponent(url.username || 'postgres'),
    password: decodeURIComponent(url.password || ''),
    database: decodeURIComponent(url.pathname.slice(1) || 'svc'),
    schema: url.searchParams.get('schema') || (ownUrl ? 'public' : defaultSchema),
  };
}

export function databaseTargetToUrl(t: DatabaseTarget): string {
  const auth = t.password
    ? `${encodeURIComponent(t.user)}:${encodeURIComponent(t.password)}`
    : encodeURIComponent(t.user);
  return `postgresql://${auth}@${t.host}:${t.port}/${encodeURIComponent(t.database)}?schema=${encodeURIComponent(t.schema)}`;
}

/**
 * The read replicas of a service's database (docs/decisions/037-read-replicas.md): its own
 * `<SERVICE>_DATABASE_REPLICA_URLS` if set; else, when its tables are in the shared
 * database (no own URL), the shared DATABASE_REPLICA_URLS; else none (replicas of the shared
 * database hold none of a database of its own). Comma-separated URLs, each with the
 * primary's schema (a replica holds the same schemas), its user and password when the URL
 * names no user (so a password lives in one setting), and its database when the URL names
 * none. `?schema=` overrides the schema, as for the primary.
 */
export function resolveReplicaTargets(
  urls: { own?: string; shared?: string; ownPrimary?: string },
  primary: DatabaseTarget,
): DatabaseTarget[] {
  const list = urls.own ?? (urls.ownPrimary ? undefined : urls.shared);
  return splitUrlList(list).map((text) => {
    const url = new URL(text);
    if (url.protocol !== 'postgresql:' && url.protocol !== 'postgres:') {
      throw new Error(`Not a PostgreSQL URL: ${url.protocol}`);
    }
    const named = url.username !== '';
    return {
      ...primary,
      host: url.hostname || primary.host,
      port: Number(url.port || 5432),
      user: named ? decodeURIComponent(url.username) : primary.user,
      password: named ? decodeURIComponent(url.password) : primary.password,
      database: decodeURIComponent(url.pathname.slice(1)) || primary.database,
      schema: url.searchParams.get('schema') || primary.schema,
    };
  });
}

/** A comma- or space-separated list of URLs (a setting), without empty items. */
export function splitUrlList(list: string | undefined): string[] {
  return (list ?? '').split(/[\s,]+/).filter(Boolean);
}

/** How a replica is named in metrics, logs and /readyz: `host:port`, never credentials. */
export function replicaName(t: Pick<DatabaseTarget, 'host' | 'port'>): string {
  return `${t.host}:${t.port}`;
}
