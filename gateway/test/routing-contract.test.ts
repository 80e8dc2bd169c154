// The routing table against the contract: every public endpoint of both interfaces and
// docs/decisions/ (packages/types' catalogue) reaches the service that owns it, none of
// them reaches the web client (pages are not API endpoints), and every API route of the
// table serves an endpoint the contract names.
import { describe, expect, it } from '@jest/globals';
import { ENDPOINTS } from '@svc/types';
import { HTTP_ROUTES, WS_ROUTES, findRoute } from '../src/proxy/routing-table.js';

const concrete = (path: string) => path.replace(/\{[^}]+\}/g, 'sample-id');

describe('routing table vs the endpoint catalogue', () => {
  it.each(ENDPOINTS.map((e) => [`${e.method} ${e.path}`, e] as const))('%s', (_name, endpoint) => {
    const routes = endpoint.path === '/api/ws' ? WS_ROUTES : HTTP_ROUTES;
    const route = findRoute(routes, concrete(endpoint.path));
    if (endpoint.service === 'gateway') expect(route).toBeUndefined();
    else expect(route?.upstream).toBe(endpoint.service);
  });

  it('sends no endpoint of the catalogue, in any case or with a trailing slash, to web', () => {
    for (const e of ENDPOINTS) {
      for (const path of [concrete(e.path), concrete(e.path).toUpperCase(), `${concrete(e.path)}/`]) {
        // The sitemap's paths are the catalogue's only ones outside the gateway's own segments.
        if (e.path.startsWith('/sitemap') && path !== concrete(e.path)) continue;
        expect([path, findRoute(HTTP_ROUTES, path)?.upstream === 'web']).toEqual([path, false]);
      }
    }
  });

  it('has no API route that no endpoint uses (the page route serves web, not the catalogue)', () => {
    // The MCP server (JSON-RPC at /mcp) is not a REST endpoint: gateway/test/discovery.test.ts
    // checks it against mcp.json's `remotes`.
    for (const route of [...HTTP_ROUTES, ...WS_ROUTES].filter((r) => r.upstream !== 'web' && r.upstream !== 'mcp')) {
      const used = ENDPOINTS.some(
        (e) => e.service === route.upstream && findRoute([route], concrete(e.path)) !== undefined,
      );
      expect({ route: route.path, used }).toEqual({ route: route.path, used: true });
    }
  });
});
