// The `cursor` of GET /api/sites (keyset paging): where a page ended, as the sort key and id
// of its last site, so the next page starts right after it at the cost of a first page,
// however deep. Opaque to clients: base64url of a JSON array [sort, key, id]. The key is the
// text PostgreSQL wrote for the last row's hot_score (float8, shortest exact form) or
// first_submitted_at (ISO with milliseconds, the column's precision), so a cursor never
// rounds the position it names.
import { codePointLength, isWellFormedText, type SiteSort } from '@svc/types';

export interface SiteCursor {
  sort: SiteSort;
  /** hot: a float8 as text; recent: `YYYY-MM-DDTHH:MM:SS.mmmZ`. */
  key: string;
  id: string;
}

const FLOAT = /^-?(?:\d+(?:\.\d*)?|\.\d+)(?:e[+-]?\d+)?$/i;
const ISO_MS = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;
/** A site id as the catalogue's `Id` allows it (1–128 code points) and PostgreSQL stores it (no NUL). */
const isId = (id: string) =>
  id.length > 0 && codePointLength(id) <= 128 && isWellFormedText(id) && !id.includes('\u0000');

const isoRoundTrips = (key: string) => {
  const d = new Date(key);
  return !Number.isNaN(d.getTime()) && d.toISOString() === key;
};

export function encodeSiteCursor(c: SiteCursor): string {
  return Buffer.from(JSON.stringify([c.sort, c.key, c.id])).toString('base64url');
}

/** The cursor a client sent back, or null when it is not one this service wrote. */
export function decodeSiteCursor(text: string): SiteCursor | null {
  if (!/^[A-Za-z0-9_-]+$/.test(text)) return null;
  let value: unknown;
  try {
    value = JSON.parse(Buffer.from(text, 'base64url').toString('utf8'));
  } catch {
    return null;
  }
  if (!Array.isArray(value) || value.length !== 3) return null;
  const [sort, key, id] = value as unknown[];
  if (typeof key !== 'string' || typeof id !== 'string' || !isId(id)) return null;
  // Re-written by JavaScript (the same double, shortest form): text PostgreSQL always takes.
  if (sort === 'hot' && FLOAT.test(key) && Number.isFinite(Number(key)))
    return { sort, key: String(Number(key)), id };
  // Round trip: a date PostgreSQL would refuse (February 30th) is not one.
  if (sort === 'recent' && ISO_MS.test(key) && isoRoundTrips(key)) return { sort, key, id };
  return null;
}
