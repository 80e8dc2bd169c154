// The generated OpenAPI document against the catalogue it comes from.
import { describe, expect, it } from '@jest/globals';
import { ENDPOINTS, findEndpoint, type HttpMethod } from '@svc/types';
import { buildOpenApi } from '../src/openapi.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const doc = buildOpenApi({ baseUrl: 'https://svc.test' }) as Json;
const op = (method: HttpMethod, path: string): Json => doc.paths[path][method.toLowerCase()];

describe('buildOpenApi', () => {
  it('is OpenAPI 3.1 with the server, both security schemes and a tag per service', () => {
    expect(doc.openapi).toBe('3.1.0');
    expect(doc.servers).toEqual([{ url: 'https://svc.test', description: 'This deployment' }]);
    expect(doc.components.securitySchemes.sessionCookie).toMatchObject({
      type: 'apiKey',
      in: 'cookie',
      name: 'sn_token',
    });
    expect(doc.components.securitySchemes.apiKey).toMatchObject({ type: 'http', scheme: 'bearer' });
    expect(doc.tags.map((t: Json) => t.name)).toEqual([
      'auth',
      'app-store',
      'sites',
      'chat',
      'translate',
      'realtime',
      'discovery',
    ]);
  });

  it('has one operation per catalogue entry, with its id, summary and statuses', () => {
    for (const e of ENDPOINTS) {
      const o = op(e.method, e.path);
      expect([e.path, o?.operationId, o?.summary]).toEqual([e.path, e.operationId, e.summary]);
      expect(Object.keys(o.responses).sort()).toEqual(Object.keys(e.responses).sort());
    }
    const count = Object.values(doc.paths as Json).reduce(
      (n: number, ops) => n + Object.keys(ops as Json).length,
      0,
    );
    expect(count).toBe(ENDPOINTS.length);
  });

  it('maps auth modes to security requirements', () => {
    expect(op('GET', '/api/sites').security).toEqual([]);
    expect(op('POST', '/api/messages').security).toEqual([{}, { sessionCookie: [] }]);
    expect(op('GET', '/api/bookmarks').security).toEqual([{ sessionCookie: [] }]);
    expect(op('PATCH', '/api/v1/apps/{slug}').security).toEqual([
      { sessionCookie: [] },
      { apiKey: [] },
    ]);
  });

  it('describes parameters and bodies from the zod schemas', () => {
    const list = op('GET', '/api/sites').parameters as Json[];
    expect(list.map((p) => [p.in, p.name, p.required ?? false])).toEqual([
      ['query', 'search', false],
      ['query', 'tag', false],
      ['query', 'sort', false],
      ['query', 'page', false],
      ['query', 'cursor', false],
    ]);
    expect(list.find((p) => p.name === 'page')!.schema).toMatchObject({
      type: 'integer',
      minimum: 1,
      default: 1,
    });
    expect(list.find((p) => p.name === 'tag')!.schema).toEqual({
      $ref: '#/components/schemas/SiteTag',
    });
    // Parameter descriptions from the schemas' `param` metadata, on the parameter itself.
    expect(list.find((p) => p.name === 'search')!.description).toMatch(/title, description/);
    expect(list.find((p) => p.name === 'search')!.schema).not.toHaveProperty('param');
    expect(list.find((p) => p.name === 'page')!.description).toMatch(/60 sites a page/);
    expect(op('GET', '/api/v1/apps/{slug}').parameters).toEqual([
      expect.objectContaining({ in: 'path', name: 'slug', required: true }),
    ]);
    expect(op('POST', '/api/translate').requestBody).toEqual({
      required: true,
      content: { 'application/json': { schema: { $ref: '#/components/schemas/TranslateBody' } } },
    });
    const translate = doc.components.schemas.TranslateBody;
    expect(translate.required).toEqual(['text', 'targetLang']);
    expect(translate.properties.text).toMatchObject({
      type: 'string',
      minLength: 1,
      maxLength: 2000,
    });
    // Strict bodies refuse unknown fields in the document too.
    expect(doc.components.schemas.UpdateAppBody.additionalProperties).toBe(false);
  });

  it('gives every record one component, open to added fields', () => {
    const names = Object.keys(doc.components.schemas);
    for (const name of [
      'Site',
      'MyApp',
      'AppDetail',
      'ChatMessage',
      'AuthUser',
      'ErrorResponse',
      'SiteTag',
      'LanguageCode',
    ])
      expect(names).toContain(name);
    expect(names.filter((n) => n.endsWith('Output'))).toEqual([]);
    expect(doc.components.schemas.Site.additionalProperties).toBeUndefined();
    expect(doc.components.schemas.SiteListResponse.properties.sites.items).toEqual({
      $ref: '#/components/schemas/Site',
    });
  });

  it('documents errors with ErrorResponse, details included', () => {
    const res = op('POST', '/api/sites').responses;
    for (const status of ['400', '403', '413', '429', '500', '503'])
      expect(res[status].content['application/json'].schema).toEqual({
        $ref: '#/components/schemas/ErrorResponse',
      });
    expect(doc.components.schemas.ErrorResponse.properties.details.description).toMatch(
      /Validation errors/,
    );
  });

  it('documents rate-limit headers on rate-limited answers, Retry-After on 429 and 503', () => {
    const submit = op('POST', '/api/sites');
    for (const status of ['200', '201', '429'])
      expect(Object.keys(submit.responses[status].headers)).toEqual(
        expect.arrayContaining(['RateLimit-Limit', 'RateLimit-Remaining', 'RateLimit-Reset']),
      );
    expect(submit.responses['429'].headers['Retry-After']).toEqual({
      $ref: '#/components/headers/Retry-After',
    });
    expect(submit.responses['503'].headers['Retry-After'].required).toBe(false);
    expect(submit['x-rate-limit']).toEqual(findEndpoint('POST', '/api/sites')!.rateLimit);
    const unlimited = ENDPOINTS.find((e) => !e.rateLimit && e.responses[200])!;
    expect(Object.keys(op(unlimited.method, unlimited.path).responses['200'].headers)).toEqual([
      'X-Request-Id',
    ]);
    expect(doc.components.headers['RateLimit-Limit']).toMatchObject({
      required: true,
      schema: { type: 'integer' },
    });
  });

  it('documents the session cookie where it is set or cleared', () => {
    expect(op('POST', '/api/auth/verify').responses['200'].headers['Set-Cookie']).toBeDefined();
    expect(
      op('POST', '/api/auth/set-username').responses['200'].headers['Set-Cookie'],
    ).toBeDefined();
    expect(op('POST', '/api/auth/logout').responses['200'].headers['Set-Cookie']).toBeDefined();
    expect(op('GET', '/api/auth/me').responses['200'].headers['Set-Cookie']).toBeUndefined();
    expect(doc.components.headers['Set-Cookie'].schema).toEqual({
      type: 'string',
      pattern: '^sn_token=',
    });
  });

  it('documents the download name of the data export, and of nothing else', () => {
    const exported = op('GET', '/api/auth/export').responses['200'];
    expect(exported.headers['Content-Disposition']).toEqual({
      $ref: '#/components/headers/Content-Disposition',
    });
    expect(exported.content['application/json'].schema).toEqual({
      $ref: '#/components/schemas/ExportResponse',
    });
    expect(op('GET', '/api/auth/me').responses['200'].headers['Content-Disposition']).toBeUndefined();
    const pattern = new RegExp(doc.components.headers['Content-Disposition'].schema.pattern);
    expect(pattern.test('attachment; filename="svc-export-2026-11-21.json"')).toBe(true);
    expect(pattern.test('inline')).toBe(false);
  });

  it('documents non-JSON answers and the WebSocket messages', () => {
    expect(op('GET', '/api/daily-bg/image').responses['200'].content).toEqual({
      'image/*': { schema: { type: 'string' } },
    });
    expect(op('GET', '/llms.txt').responses['200'].content).toEqual({
      'text/plain': { schema: { type: 'string' } },
    });
    const ws = op('GET', '/api/ws');
    expect(ws.responses['101'].content).toBeUndefined();
    const events = ws['x-websocket'].serverMessages.oneOf.map(
      (m: Json) => m.properties.event.const,
    );
    expect(events).toEqual([
      'new_message',
      'site_update',
      'like',
      'message_deleted',
      'pong',
      'resync',
      'error',
    ]);
    // Events carry their id; the resume parameter, the window and the close codes are stated.
    expect(ws['x-websocket'].serverMessages.oneOf[0].properties.id.pattern).toBeDefined();
    expect(ws['x-websocket'].resume).toMatchObject({
      queryParameter: 'last_event_id',
      history: { minEvents: 10_000, minAgeSeconds: 600 },
      closeCodes: { 1012: expect.any(String), 4400: expect.any(String) },
    });
  });

  it('uses only formats JSON Schema defines', () => {
    const formats = new Set(
      [...JSON.stringify(doc).matchAll(/"format":"([^"]+)"/g)].map((m) => m[1]),
    );
    expect(
      [...formats].filter(
        (f) => !['date-time', 'email', 'uri', 'uuid', 'ipv4', 'ipv6'].includes(f!),
      ),
    ).toEqual([]);
  });

  it('is deterministic', () => {
    expect(JSON.stringify(buildOpenApi({ baseUrl: 'https://svc.test' }))).toBe(JSON.stringify(doc));
  });
});
