// Reconnection delays: exponential backoff with "full jitter" (a uniformly random delay
// between 0 and the exponential cap), so clients dropped together by a restart do not
// all come back in the same instant.

export interface BackoffOptions {
  /** Cap of the first retry, ms. Default 500. */
  initialDelayMs?: number;
  /** Largest cap, ms. Default 30 000. */
  maxDelayMs?: number;
  /** Growth of the cap per failed attempt. Default 2. */
  factor?: number;
}

export const DEFAULT_BACKOFF = { initialDelayMs: 500, maxDelayMs: 30_000, factor: 2 } as const;

/** The cap for retry number `attempt` (0-based): initial · factor^attempt, at most max. */
export function backoffCap(attempt: number, options: BackoffOptions = {}): number {
  const initial = options.initialDelayMs ?? DEFAULT_BACKOFF.initialDelayMs;
  const max = options.maxDelayMs ?? DEFAULT_BACKOFF.maxDelayMs;
  const factor = options.factor ?? DEFAULT_BACKOFF.factor;
  return Math.min(max, initial * Math.pow(factor, Math.max(0, attempt)));
}

/** A delay in [0, cap] for retry number `attempt`; `random` returns values in [0, 1). */
export function backoffDelay(
  attempt: number,
  options: BackoffOptions = {},
  random: () => number = Math.random,
): number {
  return Math.floor(random() * backoffCap(attempt, options));
}
