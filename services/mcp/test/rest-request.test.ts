// A tool call as its REST request: arguments into path, query and body, as the catalogue says.
import { describe, expect, it } from '@jest/globals';
import { buildAgentTools } from '@svc/discovery';
import { percentEncoded, restRequestOf } from '../src/domain/rest-request.js';

const tools = buildAgentTools();
const tool = (name: string) => tools.find((t) => t.name === name)!;

describe('restRequestOf', () => {
  it('puts query arguments in the query string, leaving out those not given', () => {
    expect(restRequestOf(tool('search_sites'), { search: '工具 & more', page: 2 })).toEqual({
      method: 'GET',
      path: '/api/sites?search=%E5%B7%A5%E5%85%B7%20%26%20more&page=2',
    });
    expect(restRequestOf(tool('read_chat'), {})).toEqual({ method: 'GET', path: '/api/messages' });
  });

  it('puts body arguments in a JSON body, an empty one when none is given', () => {
    expect(restRequestOf(tool('translate'), { text: 'Hello', targetLang: 'ja' })).toEqual({
      method: 'POST',
      path: '/api/translate',
      body: { text: 'Hello', targetLang: 'ja' },
    });
    expect(restRequestOf(tool('submit_site'), { url: 'https://a.example/' })).toEqual({
      method: 'POST',
      path: '/api/sites',
      body: { url: 'https://a.example/' },
    });
  });

  it('encodes a path argument as one segment, dots included', () => {
    expect(restRequestOf(tool('get_app'), { slug: 'my-app' }).path).toBe('/api/v1/apps/my-app');
    expect(restRequestOf(tool('get_app'), { slug: 'a/b?c#d' }).path).toBe('/api/v1/apps/a%2Fb%3Fc%23d');
    expect(restRequestOf(tool('get_app'), { slug: '..' }).path).toBe('/api/v1/apps/%2E%2E');
    expect(restRequestOf(tool('get_app'), { slug: '.' }).path).toBe('/api/v1/apps/%2E');
    expect(restRequestOf(tool('get_app'), { slug: 'v1.2' }).path).toBe('/api/v1/apps/v1.2');
  });

  it('writes a lone surrogate as its WTF-8 bytes, for the endpoint to refuse as REST would', () => {
    expect(percentEncoded('a\ud800b')).toBe('a%ED%A0%80b');
    expect(percentEncoded('😀\udfff')).toBe('%F0%9F%98%80%ED%BF%BF');
    expect(percentEncoded('a b/é')).toBe(encodeURIComponent('a b/é'));
    expect(restRequestOf(tool('get_app'), { slug: '\ud800' }).path).toBe('/api/v1/apps/%ED%A0%80');
    expect(restRequestOf(tool('search_sites'), { search: 'x\udc00' }).path).toBe('/api/sites?search=x%ED%B0%80');
  });
});
