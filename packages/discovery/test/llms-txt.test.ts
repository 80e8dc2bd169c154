// /llms.txt and /llms-full.txt: llmstxt.org structure, absolute links, and a reference that
// names every endpoint with its parameters, limits and errors.
import { describe, expect, it } from '@jest/globals';
import { ENDPOINTS, findEndpoint } from '@svc/types';
import { buildDiscoveryDocuments } from '../src/documents.js';

const BASE = 'https://svc.test';
const docs = new Map(
  buildDiscoveryDocuments({ baseUrl: BASE }).map((d) => [d.path, d.body.toString('utf8')]),
);
const short = docs.get('/llms.txt')!;
const full = docs.get('/llms-full.txt')!;

/** The text of one endpoint's section in llms-full.txt. */
function section(method: string, path: string): string {
  const start = full.indexOf(`### ${method} ${path}\n`);
  if (start === -1) throw new Error(`no section for ${method} ${path}`);
  const next = full.indexOf('\n#', start + 4);
  return full.slice(start, next === -1 ? undefined : next);
}

describe('llms.txt', () => {
  it('follows llmstxt.org: H1, blockquote summary, H2 sections of links', () => {
    const lines = short.split('\n');
    expect(lines[0]).toBe('# Svc platform API');
    expect(lines.find((l) => l.startsWith('> '))).toMatch(/chat room/);
    expect(lines.filter((l) => l.startsWith('## ')).length).toBeGreaterThanOrEqual(5);
    expect(lines).toContain('## Optional');
    const links = [...short.matchAll(/\[[^\]]+\]\(([^)]+)\)/g)].map((m) => m[1]!);
    // One per API endpoint, plus the six documents of the Docs and Optional sections.
    expect(links.length).toBe(ENDPOINTS.filter((e) => e.service !== 'gateway').length + 6);
    for (const link of links) expect(link.startsWith(`${BASE}/`)).toBe(true);
  });

  it('links the interactive reference among the docs', () => {
    const docsSection = short.slice(short.indexOf('## Docs\n'), short.indexOf('\n## ', short.indexOf('## Docs\n') + 1));
    expect(docsSection).toContain(`- [Interactive API reference](${BASE}/docs): `);
  });

  it('links every public API endpoint', () => {
    for (const e of ENDPOINTS.filter((x) => x.service !== 'gateway'))
      expect(short).toContain(`[${e.method} ${e.path}](`);
  });
});

describe('llms-full.txt', () => {
  it('has a section for every endpoint with all its response statuses', () => {
    for (const e of ENDPOINTS) {
      const text = section(e.method, e.path);
      for (const status of Object.keys(e.responses))
        expect([e.path, text]).toEqual([e.path, expect.stringContaining(`- ${status}: `)]);
    }
  });

  it('states parameters with their limits and defaults', () => {
    const list = section('GET', '/api/v1/apps');
    expect(list).toContain('- `limit` (optional, integer, 1–100, default 50): Page size');
    expect(list).toContain(
      '- `offset` (optional, integer, ≥ 0, default 0): Number of items to skip',
    );
    expect(list).toContain('Rate limit: 200 per minute per client IP (429 beyond).');
    const translate = section('POST', '/api/translate');
    expect(translate).toContain('- `text` (string, required, 1–2000 characters)');
    expect(translate).toContain('Rate limit: 20 per minute per client IP');
    expect(translate).toContain('- 500: Translation failed');
    expect(section('POST', '/api/sites/{id}/boost')).toContain(
      '1 per day per client IP; 3 per day per user with a session',
    );
    expect(section('POST', '/api/auth/send-code')).toContain('3 per minute per email address');
    expect(section('GET', '/api/bookmarks')).toContain('Requires the `sn_token` session cookie.');
    expect(section('POST', '/api/v1/apps/{slug}/report')).toContain(
      '(an API key is refused with 403)',
    );
  });

  it('describes the shapes and the agent tools', () => {
    expect(full).toContain('### Site\n');
    expect(full).toMatch(/- `hot_score` \(number, required\)/);
    expect(full).toMatch(/### SiteTag\n\n"工具" \| "技术"/);
    expect(full).toContain(
      '- `search_sites`: GET /api/sites; arguments search (query), tag (query), sort (query), page (query), cursor (query).',
    );
    expect(findEndpoint('GET', '/api/sites')).toBeDefined();
  });
});
