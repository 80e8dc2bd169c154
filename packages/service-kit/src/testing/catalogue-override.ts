// Test support: other rate-limit numbers in the endpoint catalogue for the length of a
// test file, to prove a service's limiters read the catalogue (not literals of their own).
import { ENDPOINTS, type RateLimit } from '@svc/types';

/**
 * Merges `changes[operationId]` into those operations' catalogue rate limits; build the
 * app after calling it. Returns the undo (for afterAll).
 */
export function overrideCatalogueLimits(changes: Record<string, Partial<RateLimit>>): () => void {
  const saved = new Map<string, RateLimit | undefined>();
  for (const e of ENDPOINTS) {
    const change = changes[e.operationId];
    if (!change) continue;
    if (!e.rateLimit) throw new Error(`${e.operationId} has no rate limit in the catalogue`);
    saved.set(e.operationId, e.rateLimit);
    e.rateLimit = { ...e.rateLimit, ...change };
  }
  return () => {
    for (const e of ENDPOINTS) if (saved.has(e.operationId)) e.rateLimit = saved.get(e.operationId);
  };
}
