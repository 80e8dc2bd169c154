// The ETag of an app's icon (GET /api/v1/apps/{slug}/icon) and the If-None-Match check:
// a strong validator made from the SVG's bytes, so it changes exactly when the icon does.
import { createHash } from 'node:crypto';

export function iconEtag(svg: string): string {
  return `"${createHash('sha256').update(svg, 'utf8').digest('base64url').slice(0, 27)}"`;
}

/**
 * True when an If-None-Match header names `etag` (RFC 9110 §13.1.2: `*`, or any listed tag,
 * compared weakly so `W/"x"` matches `"x"`).
 */
export function ifNoneMatchHits(header: string | undefined, etag: string): boolean {
  if (!header) return false;
  if (header.trim() === '*') return true;
  const bare = (tag: string) => tag.trim().replace(/^W\//, '');
  return header.split(',').some((tag) => bare(tag) === bare(etag));
}
