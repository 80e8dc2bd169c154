import { describe, expect, it } from '@jest/globals';
import { MAX_JSON_BODY_BYTES } from '@svc/types';
import { loadConfig, parseTrustProxy } from '../src/config.js';
import { findRoute, HTTP_ROUTES } from '../src/proxy/routing-table.js';
import { requestIdFrom } from '../src/edge/request-id.js';

describe('loadConfig', () => {
  it('has the documented defaults', () => {
    const config = loadConfig({});
    expect(config.port).toBe(8080);
    expect(config.trustProxy).toBe(false);
    expect(config.logLevel).toBe('info');
    expect(config.upstreamTimeoutMs).toBe(30_000);
    expect(config.headersTimeoutMs).toBe(10_000);
    expect(config.bodyTimeoutMs).toBe(10_000);
    expect(config.maxBodyBytes).toBe(MAX_JSON_BODY_BYTES);
    expect(config.maxConnectionsPerIp).toBe(256);
    expect(config.upstreams).toEqual({
      auth: 'http://127.0.0.1:4001',
      'app-store': 'http://127.0.0.1:4002',
      sites: 'http://127.0.0.1:4003',
      chat: 'http://127.0.0.1:4004',
      translate: 'http://127.0.0.1:4005',
      realtime: 'http://127.0.0.1:4006',
      web: 'http://127.0.0.1:4007',
      mcp: 'http://127.0.0.1:4008',
    });
    expect(config.corsOrigins).toEqual([]);
  });

  it('serves ops on OPS_PORT, default PORT + 1000 (PORT 0: any free port)', () => {
    expect(loadConfig({}).opsPort).toBe(9080);
    expect(loadConfig({ PORT: '9000' }).opsPort).toBe(10000);
    expect(loadConfig({ PORT: '0' }).opsPort).toBe(0);
    expect(loadConfig({ OPS_PORT: '9090' }).opsPort).toBe(9090);
    expect(() => loadConfig({ PORT: '65000' })).toThrow(/OPS_PORT/);
    expect(() => loadConfig({ PORT: '9090', OPS_PORT: '9090' })).toThrow(/OPS_PORT: must differ/);
    expect(() => loadConfig({ OPS_PORT: 'x' })).toThrow(/OPS_PORT/);
  });

  it('trusts no proxy unless TRUST_PROXY says so', () => {
    expect(loadConfig({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://svc.example' }).trustProxy).toBe(false);
  });

  it('refuses to start in production with the development public origin, naming PUBLIC_BASE_URL', () => {
    expect(() => loadConfig({ NODE_ENV: 'production' })).toThrow(/PUBLIC_BASE_URL: required when NODE_ENV=production/);
    expect(loadConfig({ NODE_ENV: 'production', PUBLIC_BASE_URL: 'https://svc.example' }).publicBaseUrl).toBe('https://svc.example');
    expect(loadConfig({ NODE_ENV: 'development' }).publicBaseUrl).toBe('http://localhost:8080');
  });

  it('reads WEB_URL', () => {
    expect(loadConfig({ WEB_URL: 'http://web:4007' }).upstreams.web).toBe('http://web:4007');
  });

  it('reads the *_URL settings', () => {
    const config = loadConfig({ APP_STORE_URL: 'http://app-store:80/', REALTIME_URL: 'https://rt.internal:8443', PORT: '9000' });
    expect(config.upstreams['app-store']).toBe('http://app-store');
    expect(config.upstreams.realtime).toBe('https://rt.internal:8443');
    expect(config.port).toBe(9000);
  });

  it('reads the client limits', () => {
    const config = loadConfig({
      GATEWAY_HEADERS_TIMEOUT_MS: '5000',
      GATEWAY_BODY_TIMEOUT_MS: '15000',
      GATEWAY_MAX_BODY_BYTES: '1024',
      GATEWAY_MAX_CONNECTIONS_PER_IP: '0',
    });
    expect(config).toMatchObject({ headersTimeoutMs: 5_000, bodyTimeoutMs: 15_000, maxBodyBytes: 1024, maxConnectionsPerIp: 0 });
  });

  it('takes the public base URL from PUBLIC_BASE_URL, else localhost on PORT', () => {
    expect(loadConfig({}).publicBaseUrl).toBe('http://localhost:8080');
    expect(loadConfig({ PORT: '9000' }).publicBaseUrl).toBe('http://localhost:9000');
    expect(loadConfig({ PUBLIC_BASE_URL: 'https://svc.example/' }).publicBaseUrl).toBe('https://svc.example');
  });

  it.each([
    { PORT: 'abc' },
    { AUTH_URL: 'not a url' },
    { SITES_URL: 'ftp://x' },
    { LOG_LEVEL: 'loud' },
    { TRUST_PROXY: '300.1.1.1' },
    { PUBLIC_BASE_URL: 'ftp://svc.example' },
    { PUBLIC_BASE_URL: 'https://svc.example/?a=1' },
    { GATEWAY_HEADERS_TIMEOUT_MS: '0' },
    { GATEWAY_BODY_TIMEOUT_MS: '-1' },
    { GATEWAY_MAX_BODY_BYTES: '1.5' },
    { GATEWAY_MAX_CONNECTIONS_PER_IP: '-1' },
    { WEB_URL: 'web:4007' },
    { CORS_ORIGINS: 'https://a.example/app' },
    { CORS_ORIGINS: '*' },
  ])(
    'rejects %p',
    (env) => {
      expect(() => loadConfig(env)).toThrow(/Invalid gateway configuration/);
    },
  );
});

describe('parseTrustProxy', () => {
  it.each([
    [undefined, false],
    ['', false],
    ['false', false],
    ['true', true],
    ['1', 1],
    ['2', 2],
    ['loopback', ['loopback']],
    ['10.0.0.0/8, 192.168.1.1', ['10.0.0.0/8', '192.168.1.1']],
    ['loopback,uniquelocal', ['loopback', 'uniquelocal']],
  ])('%p → %p', (raw, expected) => {
    expect(parseTrustProxy(raw)).toEqual(expected);
  });
});

describe('findRoute', () => {
  it('matches whole segments and ignores the query string', () => {
    expect(findRoute(HTTP_ROUTES, '/api/sites?x=/api/v1/')?.upstream).toBe('sites');
    expect(findRoute(HTTP_ROUTES, '/api/sites2')).toBeUndefined();
    expect(findRoute(HTTP_ROUTES, '/api/v1?x')).toBeUndefined();
    expect(findRoute(HTTP_ROUTES, 'http://evil/api/v1/apps')).toBeUndefined();
  });

  it('sends /mcp, any method, to the MCP server and keeps the rest of its segment', () => {
    expect(findRoute(HTTP_ROUTES, '/mcp')?.upstream).toBe('mcp');
    expect(findRoute(HTTP_ROUTES, '/mcp?x=1')?.upstream).toBe('mcp');
    for (const url of ['/mcp/', '/mcp/x', '/MCP', '/%6dcp']) expect([url, findRoute(HTTP_ROUTES, url)]).toEqual([url, undefined]);
    expect(findRoute(HTTP_ROUTES, '/mcpx')?.upstream).toBe('web');
  });

  it('sends every other origin-form path to web', () => {
    for (const url of ['/', '/?q=1', '/site/x', '/apps', '/assets/a.js', '/favicon.ico', '/robots.txt', '/apix', '/sitemap.xml/x', '//api/v1']) {
      expect([url, findRoute(HTTP_ROUTES, url)?.upstream]).toEqual([url, 'web']);
    }
  });

  it('keeps its own segments from web, in any case and with anything after them', () => {
    for (const url of [
      '/api',
      '/api/',
      '/api/unknown',
      '/API/v1/apps',
      '/%61pi/v1',
      '/%2e%77ell-known/x',
      '/.well-known/mcp.json',
      '/healthz',
      '/healthz/',
      '/HEALTHZ',
      '/readyz?x',
      '/metrics',
      '/Metrics/',
      '/openapi.json',
      '/OpenAPI.json/x',
      '/llms.txt',
      '/llms-full.txt',
      // The services' internal calls, in any spelling.
      '/internal/users/u1/export',
      '/Internal/entrance',
      '/%69nternal/users/u1/export',
      '/internal',
      '/%zz',
      '*',
      'http://evil/',
      '',
    ]) {
      expect([url, findRoute(HTTP_ROUTES, url)]).toEqual([url, undefined]);
    }
  });

  it('has the page route last, after every API route', () => {
    expect(HTTP_ROUTES.at(-1)).toEqual({ path: '/', match: 'pages', upstream: 'web' });
    expect(HTTP_ROUTES.filter((r) => r.upstream === 'web')).toHaveLength(1);
  });
});

describe('requestIdFrom', () => {
  it('keeps sane ids, replaces others', () => {
    expect(requestIdFrom('a-b_c.d')).toBe('a-b_c.d');
    expect(requestIdFrom(['first', 'second'])).toBe('first');
    expect(requestIdFrom('x'.repeat(128))).toHaveLength(128);
    expect(requestIdFrom('x'.repeat(129))).not.toBe('x'.repeat(129));
    expect(requestIdFrom('')).toMatch(/^[0-9a-f-]{36}$/);
    expect(requestIdFrom(undefined)).toMatch(/^[0-9a-f-]{36}$/);
  });
});
