// Sentences about an endpoint's authentication and rate limit, shared by the OpenAPI
// descriptions and the llms.txt reference so both say the same thing.
import {
  SESSION_COOKIE_NAME,
  type Endpoint,
  type RateLimit,
  type RateLimitCounts,
  type RateLimitKey,
} from '@svc/types';

const PER: Record<RateLimitKey, string> = {
  ip: 'per client IP',
  network: 'per client network (IPv4 address or IPv6 /64)',
  user: 'per user',
  'key-or-user': 'per API key or user',
  email: 'per email address',
};

export function describeAuth(endpoint: Endpoint): string {
  switch (endpoint.auth) {
    case 'none':
      return 'Public: no authentication.';
    case 'optional-session':
      return `Public; a \`${SESSION_COOKIE_NAME}\` session cookie, when sent, changes the outcome (sender name, boost allowance, ownership).`;
    case 'session':
      // The app store answers 403 to an API key here; elsewhere a key is simply no session.
      return /API key/.test(endpoint.responses[403]?.description ?? '')
        ? `Requires the \`${SESSION_COOKIE_NAME}\` session cookie (an API key is refused with 403).`
        : `Requires the \`${SESSION_COOKIE_NAME}\` session cookie.`;
    case 'session-or-key':
      return `Requires the \`${SESSION_COOKIE_NAME}\` session cookie or an API key (\`Authorization: Bearer <API_KEY>\`).`;
  }
}

const COUNTED: Record<RateLimitCounts, string> = {
  requests: 'requests',
  'distinct-emails': 'different email addresses',
  failures: 'failed attempts',
};

export function rateLimitText(limit: RateLimit): string {
  const base = `${limit.limit} per ${limit.window} ${PER[limit.key]}`;
  const parts = [
    limit.session
      ? `${base}; ${limit.session.limit} per ${limit.window} ${PER[limit.session.key]} with a session`
      : base,
    ...(limit.also ?? []).map(
      (rule) => `${rule.limit} ${COUNTED[rule.counts]} per ${rule.window} ${PER[rule.key]}`,
    ),
  ];
  return parts.join('; and ');
}

export function describeRateLimit(endpoint: Endpoint): string | undefined {
  return endpoint.rateLimit && `Rate limit: ${rateLimitText(endpoint.rateLimit)} (429 beyond).`;
}
