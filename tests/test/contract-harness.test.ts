// The contract harness itself: it must pass conforming answers and fail wrong ones
// (a harness that never fails would make every contract test worthless).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { buildOpenApi } from '@svc/discovery';
import {
  ContractViolation,
  createContract,
  type ObservedResponse,
  type OpenApiDocument,
} from './contract-harness.js';

const doc = buildOpenApi({ baseUrl: 'https://svc.test' }) as unknown as OpenApiDocument;
const contract = createContract(doc);

const site = {
  id: 'abc123',
  url: 'https://example.org/',
  title: 'Example',
  description: '',
  favicon_url: null,
  og_image_url: null,
  domain: 'example.org',
  tags: ['工具'],
  submit_count: 1,
  click_count: 0,
  hot_score: 1.5,
  site_type: 'website',
  social_platform: null,
  social_username: null,
  boost_count: 0,
  is_claimed: false,
  is_promoted: false,
  first_submitted_at: '2026-11-21T10:00:00.000Z',
  last_activity_at: '2026-11-21T10:00:00.000Z',
};

const RATE = { 'ratelimit-limit': '5', 'ratelimit-remaining': '4', 'ratelimit-reset': '60' };

function answer(
  method: string,
  url: string,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): ObservedResponse {
  const text = body === undefined ? '' : typeof body === 'string' ? body : JSON.stringify(body);
  const h = new Headers({ 'x-request-id': 'r-1', ...headers });
  if (body !== undefined && !h.has('content-type'))
    h.set('content-type', 'application/json; charset=utf-8');
  return { method, url, status, headers: h, text };
}

describe('contract harness: conforming answers pass', () => {
  it('a page of sites', () => {
    const ok = answer('GET', '/api/sites?page=1&sort=hot', 200, {
      sites: [site],
      total: 1,
      total_exact: true,
      page: 1,
      hasMore: false,
      next_cursor: null,
    });
    expect(contract.check(ok)).toEqual([]);
    expect(contract.covered().has('listSites 200')).toBe(true);
  });

  it('a rate-limited submit with its headers, and its 429', () => {
    expect(contract.check(answer('POST', '/api/sites', 201, { site, isNew: true }, RATE))).toEqual(
      [],
    );
    const limited = answer(
      'POST',
      '/api/sites',
      429,
      { error: 'Too many requests' },
      { ...RATE, 'retry-after': '42' },
    );
    expect(contract.check(limited)).toEqual([]);
  });

  it('a validation error with details, and a 204 without body', () => {
    const invalid = answer('GET', '/api/sites?page=0', 400, {
      error: 'Invalid request',
      details: [{ code: 'too_small', path: ['page'], message: 'x' }],
    });
    expect(contract.check(invalid)).toEqual([]);
    expect(
      contract.check(answer('DELETE', '/api/v1/apps/my-app/keys/k1', 204, undefined, RATE)),
    ).toEqual([]);
  });

  it('matches media ranges', () => {
    const ranged = {
      openapi: '3.1.0',
      paths: {
        '/img': {
          get: { responses: { 200: { content: { 'image/*': { schema: { type: 'string' } } } } } },
        },
      },
    } as OpenApiDocument;
    const png = answer('GET', '/img', 200, 'PNG', { 'content-type': 'image/png' });
    expect(createContract(ranged).check(png)).toEqual([]);
    expect(
      createContract(ranged).check({
        ...png,
        headers: new Headers({ 'content-type': 'text/html' }),
      })[0],
    ).toMatch(/not documented/);
  });

  it('resolves path templates, literal paths first', () => {
    expect(
      contract.operationFor('DELETE', '/api/v1/apps/my-app/keys/k1')?.operation.operationId,
    ).toBe('revokeApiKey');
    expect(contract.operationFor('GET', '/api/sites/my-submissions')?.operation.operationId).toBe(
      'listMySubmissions',
    );
    expect(contract.operationFor('GET', '/api/sites/tags?x=1')?.operation.operationId).toBe(
      'listSiteTags',
    );
    expect(contract.operationFor('HEAD', '/llms.txt')?.operation.operationId).toBe('getLlmsTxt');
  });
});

describe('contract harness: wrong answers fail', () => {
  const problemsOf = (r: ObservedResponse) => contract.check(r);

  it('a body missing a field or with a wrong type', () => {
    const { hot_score: _dropped, ...withoutScore } = site;
    expect(
      problemsOf(
        answer('GET', '/api/sites', 200, {
          sites: [withoutScore],
          total: 1,
          total_exact: true,
          page: 1,
          hasMore: false,
          next_cursor: null,
        }),
      ),
    ).toEqual([expect.stringMatching(/body\/sites\/0 must have required property 'hot_score'/)]);
    expect(
      problemsOf(
        answer('GET', '/api/sites', 200, { sites: [], total: '1', total_exact: true, page: 1, hasMore: false, next_cursor: null }),
      )[0],
    ).toMatch(/body\/total must be integer/);
  });

  it('a value outside an enum, a bad timestamp', () => {
    const bad = { ...site, tags: ['tools'], first_submitted_at: 'yesterday' };
    const problems = problemsOf(
      answer('GET', '/api/sites', 200, { sites: [bad], total: 1, total_exact: true, page: 1, hasMore: false, next_cursor: null }),
    );
    expect(problems.some((p) => p.includes('/tags/0'))).toBe(true);
    expect(problems.some((p) => p.includes('/first_submitted_at'))).toBe(true);
  });

  it('an error body without `error`, or HTML', () => {
    expect(problemsOf(answer('GET', '/api/sites', 500, { message: 'boom' }))[0]).toMatch(
      /required property 'error'/,
    );
    expect(
      problemsOf(
        answer('GET', '/api/sites', 500, '<h1>boom</h1>', { 'content-type': 'text/html' }),
      )[0],
    ).toMatch(/content-type text\/html is not documented/);
  });

  it('an undocumented status or path', () => {
    expect(problemsOf(answer('GET', '/api/sites', 418, { error: 'teapot' }))[0]).toMatch(
      /status 418 is not documented for listSites/,
    );
    expect(problemsOf(answer('GET', '/api/nothing', 200, {}))[0]).toMatch(
      /no operation documents GET \/api\/nothing/,
    );
    expect(problemsOf(answer('PUT', '/api/sites', 200, {}))[0]).toMatch(/no operation/);
  });

  it('missing rate-limit headers, a non-numeric one, a missing Set-Cookie', () => {
    expect(problemsOf(answer('POST', '/api/sites', 201, { site, isNew: true }))).toEqual([
      'required header RateLimit-Limit is missing',
      'required header RateLimit-Remaining is missing',
      'required header RateLimit-Reset is missing',
    ]);
    expect(
      problemsOf(
        answer(
          'POST',
          '/api/sites',
          429,
          { error: 'Too many requests' },
          { ...RATE, 'retry-after': 'soon' },
        ),
      )[0],
    ).toMatch(/header Retry-After/);
    const user = { user: { id: 'u1', email: 'a@b.c', username: 'abc' } };
    expect(
      problemsOf(
        answer('POST', '/api/auth/verify', 200, user, {
          'ratelimit-limit': '5',
          'ratelimit-remaining': '4',
          'ratelimit-reset': '60',
        }),
      ),
    ).toEqual(['required header Set-Cookie is missing']);
  });

  it('a body where none is documented', () => {
    expect(
      problemsOf(answer('DELETE', '/api/v1/apps/my-app/keys/k1', 204, { deleted: true }, RATE)),
    ).toEqual([expect.stringMatching(/no body is documented, got \d+ bytes/)]);
  });
});

describe('contract harness over HTTP', () => {
  let server: http.Server;
  let base: string;
  beforeAll(async () => {
    // A deliberately wrong service: a chat list whose messages have an unknown type.
    server = http.createServer((req, res) => {
      res.setHeader('x-request-id', 'stub');
      if (req.url?.startsWith('/api/messages')) {
        res.setHeader('content-type', 'application/json');
        res.end(
          JSON.stringify({
            messages: [
              {
                id: 'm1',
                type: 'shout',
                content: 'hi',
                content_key: null,
                content_params: null,
                sender_name: 'x',
                sender_location: null,
                created_at: '2026-11-21T10:00:00.000Z',
              },
            ],
          }),
        );
      } else if (req.url === '/api/sites/tags') {
        res.setHeader('content-type', 'application/json');
        res.end(JSON.stringify({ tags: ['工具', '技术'] }));
      } else {
        res.statusCode = 404;
        res.end();
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('request() returns a conforming answer and throws a ContractViolation on a wrong one', async () => {
    const live = createContract(doc, base);
    const tags = await live.request('/api/sites/tags');
    expect(tags.body).toEqual({ tags: ['工具', '技术'] });
    const wrong = live.request('/api/messages?limit=5');
    await expect(wrong).rejects.toThrow(ContractViolation);
    await expect(live.request('/api/messages')).rejects.toThrow(
      /body\/messages\/0\/type must be equal to one of the allowed values/,
    );
    expect([...live.covered()]).toEqual(['listSiteTags 200']);
    expect(live.uncovered()).toContain('listChatMessages');
    expect(live.uncovered()).not.toContain('listSiteTags');
  });
});
