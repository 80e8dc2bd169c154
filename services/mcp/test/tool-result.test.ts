// REST answers as tool results: successes as structured content, every refusal of the API a
// tool error with the API's message, the rate limit with when to retry.
import { describe, expect, it } from '@jest/globals';
import { retryAfterOf, toolResultOf, unreachableResult } from '../src/domain/tool-result.js';

const NOW = new Date('2026-01-01T00:00:00.000Z');
const textOf = (r: { content: unknown[] }) => (r.content[0] as { text: string }).text;

describe('toolResultOf', () => {
  it('gives a success as structuredContent and the same JSON as text', () => {
    const json = { translated: 'こんにちは', detectedLang: 'en' };
    const result = toolResultOf('translate', { status: 200, json });
    expect(result).toEqual({ content: [{ type: 'text', text: JSON.stringify(json) }], structuredContent: json });
    expect(result.isError).toBeUndefined();
  });

  it('makes a 2xx without a JSON object a tool error, never a result without content', () => {
    expect(toolResultOf('read_chat', { status: 200, json: undefined })).toMatchObject({ isError: true });
    expect(toolResultOf('read_chat', { status: 200, json: [1] })).toMatchObject({ isError: true });
  });

  it('says when to retry after a 429', () => {
    const result = toolResultOf('translate', { status: 429, retryAfter: '42', json: { error: 'Too many requests' } }, NOW);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toBe('Rate limit reached: Too many requests (429). Retry after 42 s (at 2026-01-01T00:00:42.000Z).');
    expect(result._meta).toEqual({ status: 429, retryAfterSeconds: 42 });
    expect(textOf(toolResultOf('translate', { status: 429, json: undefined }, NOW))).toBe('Rate limit reached: HTTP 429 (429). Retry later.');
  });

  it('relays a 4xx with the API’s error and its validation details', () => {
    const result = toolResultOf('get_app', { status: 404, json: { error: 'App not found' } });
    expect(result).toMatchObject({ isError: true, _meta: { status: 404 } });
    expect(textOf(result)).toBe('App not found (404).');
    const invalid = toolResultOf('submit_site', {
      status: 400,
      json: { error: 'Invalid request', details: [{ path: ['url'], message: 'Invalid URL' }, { message: 'odd' }, 'x'] },
    });
    expect(textOf(invalid)).toBe('Invalid request (400). url: Invalid URL; odd.');
  });

  it('explains the CAPTCHA when submit_site is refused with 403', () => {
    const result = toolResultOf('submit_site', { status: 403, json: { error: 'Missing or invalid CAPTCHA token' } });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toMatch(/^Missing or invalid CAPTCHA token \(403\)\. This deployment checks a CAPTCHA on submissions: pass captchaToken/);
    expect(textOf(toolResultOf('get_app', { status: 403, json: { error: 'Forbidden' } }))).toBe('Forbidden (403).');
  });

  it('makes a 5xx a tool error to try again, with Retry-After when the API gives one', () => {
    const result = toolResultOf('read_chat', { status: 503, retryAfter: '5', json: { error: 'Service temporarily unavailable' } }, NOW);
    expect(result).toMatchObject({ isError: true, _meta: { status: 503, retryAfterSeconds: 5 } });
    expect(textOf(result)).toMatch(/^The service could not answer: Service temporarily unavailable \(503\)\. Retry after 5 s/);
    expect(textOf(toolResultOf('translate', { status: 500, json: { error: 'Translation failed' } }))).toBe(
      'The service could not answer: Translation failed (500). Try again later.',
    );
  });

  it('says the service could not be reached', () => {
    expect(unreachableResult('ECONNREFUSED')).toEqual({
      content: [{ type: 'text', text: 'The service could not be reached (ECONNREFUSED). Try again later.' }],
      isError: true,
      _meta: { status: 503 },
    });
  });
});

describe('retryAfterOf', () => {
  it('reads delay-seconds and HTTP dates, and nothing else', () => {
    expect(retryAfterOf(undefined, NOW)).toBeUndefined();
    expect(retryAfterOf(' 7 ', NOW)).toBe(7);
    expect(retryAfterOf('Thu, 01 Jan 2026 00:00:30 GMT', NOW)).toBe(30);
    expect(retryAfterOf('Wed, 31 Dec 2025 00:00:00 GMT', NOW)).toBe(0);
    expect(retryAfterOf('soon', NOW)).toBeUndefined();
  });
});
