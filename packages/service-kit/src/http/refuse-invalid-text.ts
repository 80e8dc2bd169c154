// Text no field of either API can hold is refused up front with 400, before
// authentication, limits or any store is touched (docs/decisions/001-errors-limits-and-headers.md):
// - a NUL (U+0000): PostgreSQL text cannot store one;
// - text that is not well-formed Unicode: a lone UTF-16 surrogate in a JSON string (the
//   escape "\ud800" is valid JSON; PostgreSQL refuses it), or a path or query that does not
//   percent-decode to UTF-8 (Express's query parser would quietly turn it into U+FFFD).
// The same rule serves the web process's page routes (`textProblemOfUrl`).
import { isUtf8 } from 'node:buffer';
import type { RequestHandler } from 'express';
import { ERROR_MESSAGES, isWellFormedText } from '@svc/types';

export type TextProblem = 'nul' | 'unicode';

/** A `%00` (any case) or a raw NUL in a request target. */
const NUL_IN_URL = /%00|\0/i;
/** Printable ASCII with no escape of a byte above 0x7f: valid UTF-8 as it stands. */
const PLAIN_URL = /^(?:[!-$&-~]|%[0-7][0-9a-f])*$/i;
const PERCENT_ESCAPE = /%([0-9a-f]{2})/gi;

/**
 * What is wrong with the text of a request target (path and query), if anything: its
 * escapes read back as the bytes they stand for and checked as UTF-8. (Node's parser
 * refuses raw bytes above 0x7f in a target; were one let through, it would arrive as a
 * latin1 character and be checked as its byte too.)
 */
export function textProblemOfUrl(url: string): TextProblem | undefined {
  if (NUL_IN_URL.test(url)) return 'nul';
  if (PLAIN_URL.test(url)) return undefined;
  const bytes = Buffer.from(
    url.replace(PERCENT_ESCAPE, (_, hex: string) => String.fromCharCode(parseInt(hex, 16))),
    'latin1',
  );
  return isUtf8(bytes) ? undefined : 'unicode';
}

/** What is wrong with any string or key of a parsed JSON body, if anything. */
export function textProblemOf(value: unknown, depth = 0): TextProblem | undefined {
  if (typeof value === 'string') return stringProblem(value);
  if (value === null || typeof value !== 'object' || depth > 64) return undefined;
  if (Array.isArray(value)) {
    for (const v of value) {
      const problem = textProblemOf(v, depth + 1);
      if (problem) return problem;
    }
    return undefined;
  }
  for (const [key, v] of Object.entries(value)) {
    const problem = stringProblem(key) ?? textProblemOf(v, depth + 1);
    if (problem) return problem;
  }
  return undefined;
}

function stringProblem(text: string): TextProblem | undefined {
  if (text.includes('\0')) return 'nul';
  return isWellFormedText(text) ? undefined : 'unicode';
}

export const TEXT_PROBLEM_MESSAGES: Record<TextProblem, string> = {
  nul: ERROR_MESSAGES.nulCharacter,
  unicode: ERROR_MESSAGES.invalidUnicode,
};

/**
 * The JSON parser's `verify`: a body whose bytes are not UTF-8 is refused, where decoding
 * would quietly put U+FFFD in their place. body-parser answers with this error's status.
 */
export function refuseInvalidUtf8(_req: unknown, _res: unknown, body: Buffer): void {
  if (!isUtf8(body)) throw Object.assign(new Error(ERROR_MESSAGES.invalidUnicode), { status: 400 });
}

export const refuseInvalidText: RequestHandler = (req, res, next) => {
  const problem = textProblemOfUrl(req.originalUrl) ?? textProblemOf(req.body);
  if (problem) {
    res.status(400).json({ error: TEXT_PROBLEM_MESSAGES[problem] });
    return;
  }
  next();
};
