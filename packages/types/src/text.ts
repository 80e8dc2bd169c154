// The text rules of both interfaces. A character is a Unicode code point, as a person
// counts them: 200 emoji are 200 characters, although JavaScript's `length` says 400. Text
// is well-formed Unicode: a lone UTF-16 surrogate (JSON allows the escape "\ud800") is no
// character at all, and PostgreSQL cannot store one. No zod here, so a browser bundle may
// import these as `@svc/types/text`; the schema helper `text()` is in text-schema.ts.

/** Unicode code points in `text` (a surrogate pair is one; a lone surrogate counts as one). */
export function codePointLength(text: string): number {
  let pairs = 0;
  for (let i = 0; i < text.length - 1; i++) {
    const unit = text.charCodeAt(i);
    if (unit >= 0xd800 && unit <= 0xdbff) {
      const next = text.charCodeAt(i + 1);
      if (next >= 0xdc00 && next <= 0xdfff) {
        pairs++;
        i++;
      }
    }
  }
  return text.length - pairs;
}

/** The error of a request holding text that is not well-formed Unicode (ERROR_MESSAGES). */
export const INVALID_UNICODE = 'Invalid request: text must be valid Unicode';

/** Matched by an unpaired surrogate only: with the `u` flag a pair is one code point. */
const LONE_SURROGATE = /\p{Cs}/u;

/** False for a string holding an unpaired UTF-16 surrogate. */
export function isWellFormedText(text: string): boolean {
  return !LONE_SURROGATE.test(text);
}

const graphemes = new Intl.Segmenter('en', { granularity: 'grapheme' });

/**
 * `text` cut to at most `max` code points, `ellipsis` included when it was cut (after the
 * white space the cut left at the end), between user-perceived characters: never inside a
 * surrogate pair, an emoji sequence or a letter with its combining marks.
 */
export function truncateText(text: string, max: number, ellipsis = ''): string {
  if (codePointLength(text) <= max) return text;
  const room = max - codePointLength(ellipsis);
  let out = '';
  let used = 0;
  for (const { segment } of graphemes.segment(text)) {
    const size = codePointLength(segment);
    if (used + size > room) break;
    out += segment;
    used += size;
  }
  return ellipsis ? `${out.trimEnd()}${ellipsis}` : out;
}
