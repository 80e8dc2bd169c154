// Which browser origins may call /mcp (MCP_ALLOWED_ORIGINS) and what a request's Origin gets.
import { describe, expect, it } from '@jest/globals';
import { originAllowed, parseAllowedOrigins } from '../src/domain/allowed-origins.js';

describe('parseAllowedOrigins', () => {
  it('reads comma-separated origins as browsers serialize them', () => {
    expect(parseAllowedOrigins(undefined)).toEqual([]);
    expect(parseAllowedOrigins(' , ')).toEqual([]);
    expect(parseAllowedOrigins('https://Tools.Example, http://localhost:6274,https://tools.example:443')).toEqual([
      'https://tools.example',
      'http://localhost:6274',
    ]);
  });

  it.each(['https://tools.example/', 'https://tools.example/mcp', 'ftp://tools.example', 'tools.example', 'https://u:p@tools.example', 'null'])(
    'refuses %p',
    (raw) => {
      expect(() => parseAllowedOrigins(raw)).toThrow(/not an origin/);
    },
  );
});

describe('originAllowed', () => {
  const allowed = ['https://tools.example'];
  it('lets programs (no Origin) and listed origins in, and nothing else', () => {
    expect(originAllowed(undefined, [])).toBe(true);
    expect(originAllowed('https://tools.example', allowed)).toBe(true);
    expect(originAllowed('https://evil.example', allowed)).toBe(false);
    expect(originAllowed('https://TOOLS.example', allowed)).toBe(false);
    expect(originAllowed('null', allowed)).toBe(false);
    expect(originAllowed('https://tools.example', [])).toBe(false);
  });
});
