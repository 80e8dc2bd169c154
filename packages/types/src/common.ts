// Shapes and constants shared by every bounded context (docs/decisions/001-errors-limits-and-headers.md).
import { z } from 'zod';
import { LANGUAGE_CODES, SITE_TAGS } from './constants.js';
import { INVALID_UNICODE } from './text.js';
import { text } from './text-schema.js';

/** Every error of both interfaces; `details` carries validation issues only. */
export const ErrorResponse = z
  .object({
    error: z.string().min(1).meta({ description: 'What went wrong, in English' }),
    details: z.unknown().optional().meta({
      description:
        'Validation errors: the failed checks (each with code, path, message); for a body that could not be decoded, the reason',
    }),
  })
  .meta({ description: 'The body of every error response of both interfaces' });
export type ErrorResponse = z.infer<typeof ErrorResponse>;

/** Fixed messages docs/decisions/001-errors-limits-and-headers.md prescribes, so every service answers them word for word. */
export const ERROR_MESSAGES = {
  authenticationRequired: 'Authentication required',
  tooManyRequests: 'Too many requests',
  serviceUnavailable: 'Service temporarily unavailable',
  notFound: 'Not found',
  methodNotAllowed: 'Method not allowed',
  payloadTooLarge: 'Payload too large',
  invalidJson: 'Invalid JSON body',
  nulCharacter: 'Invalid request: NUL characters (U+0000) are not accepted',
  invalidUnicode: INVALID_UNICODE,
  invalidOrExpiredCode: 'Invalid or expired code',
  usernameTaken: 'Username already taken',
  slugTaken: 'Slug already taken',
  appNotFound: 'App not found',
  keyNotValidForApp: 'API key is not valid for this app',
  translationFailed: 'Translation failed',
} as const;

/** ISO 8601 UTC with `Z` (docs/decisions/001-errors-limits-and-headers.md: `2026-11-21T10:00:00.000Z`); offsets are refused. */
export const IsoDateTime = z.iso.datetime();
export type IsoDateTime = z.infer<typeof IsoDateTime>;

/** Query page size shared by the app listing and the chat list: default 50, 1..100. */
export const LimitParam = z.coerce
  .number()
  .int()
  .min(1)
  .max(100)
  .default(50)
  .meta({ description: 'Page size' });
export type LimitParam = z.infer<typeof LimitParam>;
export const OffsetParam = z.coerce
  .number()
  .int()
  .min(0)
  .default(0)
  .meta({ description: 'Number of items to skip' });
export type OffsetParam = z.infer<typeof OffsetParam>;

export const OffsetPaginationQuery = z.object({
  limit: LimitParam,
  offset: OffsetParam,
});
export type OffsetPaginationQuery = z.infer<typeof OffsetPaginationQuery>;

/** `count` is the size of this page, `total` all matches (docs/decisions/004-app-store-rules.md). */
export const OffsetPaginationMeta = z.object({
  limit: z.number().int().min(1).max(100),
  offset: z.number().int().min(0),
  count: z.number().int().min(0),
  total: z.number().int().min(0),
});
export type OffsetPaginationMeta = z.infer<typeof OffsetPaginationMeta>;

/** 1-based page number with coercion from the query string. */
export const PageParam = z.coerce
  .number()
  .int()
  .min(1)
  .default(1)
  .meta({ description: 'Page number, from 1' });
export type PageParam = z.infer<typeof PageParam>;

export const LanguageCode = z.enum(LANGUAGE_CODES);
export type LanguageCode = z.infer<typeof LanguageCode>;

export const SiteTag = z.enum(SITE_TAGS);
export type SiteTag = z.infer<typeof SiteTag>;

/** Headers of rate-limited responses (429 and successful ones alike). */
export const RATE_LIMIT_HEADERS = {
  limit: 'RateLimit-Limit',
  remaining: 'RateLimit-Remaining',
  reset: 'RateLimit-Reset',
  retryAfter: 'Retry-After',
} as const;

export const REQUEST_ID_HEADER = 'X-Request-Id';

/** Default JSON body limit (docs/decisions/001-errors-limits-and-headers.md); larger bodies answer 413. */
export const MAX_JSON_BODY_BYTES = 64 * 1024;

/** Non-empty opaque identifier used in path parameters and ids (nanoid, cuid, uuid...). */
export const Id = text(128, { min: 1 });
export type Id = z.infer<typeof Id>;

/** Generic body of a 200 that only acknowledges. */
export const SuccessResponse = z.object({ success: z.literal(true) });
export type SuccessResponse = z.infer<typeof SuccessResponse>;
