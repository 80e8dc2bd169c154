// The routing table against the contract: every public endpoint of both interfaces and
// docs/decisions.md (packages/types' catalogue) reaches the service that owns it, and the
// table routes nothing the contract does not name.
import { describe, expect, it } from '@jest/globals';
import { ENDPOINTS } from '@svc/types';
import { HTTP_ROUTES, WS_ROUTES, findRoute } from '../src/routing-table.js';

const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'sample-id');

describe('routing table vs the endpoint catalogue', () => {
  it.each(ENDPOINTS.map((e) => [`${e.method} ${e.path}`, e] as const))('%s', (_name, endpoint) => {
    const routes = endpoint.path === '/api/ws' ? WS_ROUTES : HTTP_ROUTES;
    const route = findRoute(routes, concrete(endpoint.path));
    if (endpoint.service === 'gateway') expect(route).toBeUndefined();
    else expect(route?.upstream).toBe(endpoint.service);
  });

  it('has no route that no endpoint uses', () => {
    for (const route of [...HTTP_ROUTES, ...WS_ROUTES]) {
      const used = ENDPOINTS.some(
        (e) => e.service === route.upstream && findRoute([route], concrete(e.path)) !== undefined,
      );
      expect({ route: route.path, used }).toEqual({ route: route.path, used: true });
    }
  });
});
