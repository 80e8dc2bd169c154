// Response headers the contract promises (docs/decisions/001-errors-limits-and-headers.md, docs/decisions/002-email-code-login-and-sessions.md), as OpenAPI header components.
// Documentation only: the services set them through the service kit.
import { RATE_LIMIT_HEADERS, REQUEST_ID_HEADER, SESSION_COOKIE_NAME } from '@svc/types';
import { z } from 'zod';

const count = z.number().int().min(0);

/** Header name → its value's schema and meaning. */
const HEADERS = {
  [REQUEST_ID_HEADER]: {
    schema: z.string().min(1).max(128),
    description:
      "Request id: the caller's own value when it is 1–128 characters of [A-Za-z0-9._-], else one the gateway generated.",
  },
  [RATE_LIMIT_HEADERS.limit]: {
    schema: z.number().int().min(1),
    description: "Requests allowed in the current window of this endpoint's rate limit.",
  },
  [RATE_LIMIT_HEADERS.remaining]: {
    schema: count,
    description: 'Requests left in the current window.',
  },
  [RATE_LIMIT_HEADERS.reset]: {
    schema: count,
    description: 'Seconds until the current window resets.',
  },
  [RATE_LIMIT_HEADERS.retryAfter]: {
    schema: count,
    description: 'Seconds to wait before trying again.',
  },
  'Content-Disposition': {
    schema: z.string().regex(/^attachment; filename="[^"\\/]+"$/),
    description: 'A download: `attachment; filename="<name>"`, the name a browser saves the file under.',
  },
  'Set-Cookie': {
    schema: z.string().regex(new RegExp(`^${SESSION_COOKIE_NAME}=`)),
    description: `The session cookie \`${SESSION_COOKIE_NAME}\`: HttpOnly; SameSite=Lax; Path=/; Secure over HTTPS; Max-Age 30 days (0 when cleared).`,
  },
} as const;

export type HeaderName = keyof typeof HEADERS;
export const RATE_LIMIT_HEADER_NAMES: HeaderName[] = [
  RATE_LIMIT_HEADERS.limit,
  RATE_LIMIT_HEADERS.remaining,
  RATE_LIMIT_HEADERS.reset,
];

export interface HeaderObject {
  description: string;
  required: boolean;
  schema: Record<string, unknown>;
  [extension: `x-${string}`]: unknown;
}

/** `components.headers`: every header, required wherever it is referenced. */
export function headerComponents(): Record<string, HeaderObject> {
  return Object.fromEntries(
    Object.entries(HEADERS).map(([name, { schema, description }]) => {
      const { $schema: _ignored, ...json } = z.toJSONSchema(schema, { target: 'draft-2020-12' });
      return [name, { description, required: true, schema: json }];
    }),
  );
}

/** `headers` of one response: references to the components above. */
export function headerRefs(names: HeaderName[]): Record<string, { $ref: string }> {
  return Object.fromEntries(names.map((name) => [name, { $ref: `#/components/headers/${name}` }]));
}
