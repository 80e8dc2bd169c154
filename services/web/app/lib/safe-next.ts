// Where to go after logging in: `?next=` is accepted only as a same-origin path (a single
// leading `/`, never `//`, `/\`, a scheme or control characters), so a crafted login link
// cannot send the reader to another site (open redirect). Pure: used by loaders, the
// browser and unit tests.

export const DEFAULT_NEXT = '/';

const BASE = 'http://next.invalid';

export function safeNext(value: string | null | undefined): string {
  if (typeof value !== 'string' || value.length === 0 || value.length > 2048) return DEFAULT_NEXT;
  if (!value.startsWith('/')) return DEFAULT_NEXT;
  // `//host` and `/\host` are protocol-relative to browsers; control characters and
  // whitespace are stripped by URL parsers and could hide either.
  if (value[1] === '/' || value[1] === '\\') return DEFAULT_NEXT;
  // eslint-disable-next-line no-control-regex
  if (/[\u0000-\u001f\u007f\s\\]/.test(value)) return DEFAULT_NEXT;
  let url: URL;
  try {
    url = new URL(value, BASE);
  } catch {
    return DEFAULT_NEXT;
  }
  if (url.origin !== BASE) return DEFAULT_NEXT;
  const path = `${url.pathname}${url.search}${url.hash}`;
  // Dot segments can turn `/..//host` into `//host` once normalised.
  if (path.startsWith('//')) return DEFAULT_NEXT;
  // Back to the login page itself would only loop.
  if (url.pathname === '/login' || url.pathname.startsWith('/login/')) return DEFAULT_NEXT;
  return path;
}

/** The login page that comes back to `path` afterwards. */
export function loginHref(path: string): string {
  const next = safeNext(path);
  return next === DEFAULT_NEXT ? '/login' : `/login?next=${encodeURIComponent(next)}`;
}
