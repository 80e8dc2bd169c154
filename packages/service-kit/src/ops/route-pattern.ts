import type { Request } from 'express';

/**
 * The matched route's pattern (`/api/v1/apps/:slug`), or undefined when no route matched:
 * what the metrics label and the server span name a request by (bounded cardinality, unlike
 * the raw path). Read once the handler answered: the router resets baseUrl when it leaves.
 */
export function routePattern(req: Request): string | undefined {
  return req.route?.path ? `${req.baseUrl}${String(req.route.path)}` : undefined;
}
