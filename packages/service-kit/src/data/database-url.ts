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
