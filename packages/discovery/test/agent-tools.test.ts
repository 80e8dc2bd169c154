// The agent tools and their two manifests: the six tools docs/decisions/007-discovery-documents.md names, with JSON
// Schemas that accept what the zod schemas accept and refuse what they refuse.
import { describe, expect, it } from '@jest/globals';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { buildAgentTools } from '../src/agent-tools.js';
import { buildAiPlugin, buildMcpManifest, mcpToolOf } from '../src/agent-manifests.js';
import { buildDiscoveryDocuments } from '../src/documents.js';

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any
const addFormats = addFormatsModule as unknown as (ajv: Ajv2020) => Ajv2020;
const ajv = addFormats(new Ajv2020({ strict: false, allErrors: true }));
/** Strict mode refuses unknown keywords, ambiguous types and unknown formats. */
const strictAjv = addFormats(new Ajv2020({ strict: true, allErrors: true }));
const tools = buildAgentTools();
const tool = (name: string) => tools.find((t) => t.name === name)!;
const accepts = (name: string, input: unknown) => ajv.validate(tool(name).inputSchema, input);

describe('agent tools', () => {
  it('are the six of docs/decisions/007-discovery-documents.md, each an HTTP call of the catalogue', () => {
    expect(tools.map((t) => [t.name, t.http.method, t.http.path])).toEqual([
      ['search_sites', 'GET', '/api/sites'],
      ['submit_site', 'POST', '/api/sites'],
      ['search_apps', 'GET', '/api/v1/apps'],
      ['get_app', 'GET', '/api/v1/apps/{slug}'],
      ['translate', 'POST', '/api/translate'],
      ['read_chat', 'GET', '/api/messages'],
    ]);
    for (const t of tools) expect(t.inputSchema.type).toBe('object');
  });

  it('have input and output schemas that compile as strict JSON Schema 2020-12', () => {
    for (const t of tools) {
      for (const which of ['inputSchema', 'outputSchema'] as const) {
        let problem: string | undefined;
        try {
          strictAjv.compile(t[which]);
        } catch (error) {
          problem = (error as Error).message;
        }
        expect({ tool: t.name, which, problem }).toEqual({ tool: t.name, which, problem: undefined });
      }
    }
    // The parameter's OpenAPI description is the property's own.
    expect(tool('search_sites').inputSchema.properties).toMatchObject({
      search: { description: expect.stringContaining('Words to find') },
    });
    expect(JSON.stringify(tools.map((t) => t.inputSchema))).not.toContain('"param"');
  });

  it('refuse arguments they do not know (a misspelt name is an error, not ignored)', () => {
    for (const t of tools) expect(t.inputSchema.additionalProperties).toBe(false);
    expect(accepts('search_sites', { query: 'tools' })).toBe(false);
    expect(accepts('search_sites', { search: 'tools' })).toBe(true);
  });

  it('merge path, query and body into one input schema and say where each goes', () => {
    expect(tool('get_app').http.arguments).toEqual({ slug: 'path' });
    expect(tool('submit_site').http.arguments).toEqual({ url: 'body', captchaToken: 'body' });
    expect(tool('search_apps').http.arguments).toMatchObject({
      q: 'query',
      limit: 'query',
      category: 'query',
    });
    expect(accepts('translate', { text: 'hello', targetLang: 'ja' })).toBe(true);
    expect(accepts('translate', { text: 'hello', targetLang: 'xx' })).toBe(false);
    expect(accepts('translate', { text: 'x'.repeat(2001), targetLang: 'ja' })).toBe(false);
    expect(accepts('get_app', {})).toBe(false);
    expect(accepts('read_chat', { limit: 100 })).toBe(true);
    expect(accepts('read_chat', { limit: 101 })).toBe(false);
    expect(accepts('search_sites', { tag: '工具', sort: 'recent' })).toBe(true);
    expect(accepts('search_sites', { tag: 'tools' })).toBe(false);
  });

  it('describe outputs from the success responses', () => {
    const translated = { translated: 'こんにちは', detectedLang: 'en' };
    expect(ajv.validate(tool('translate').outputSchema, translated)).toBe(true);
    expect(ajv.validate(tool('translate').outputSchema, { translated: 1 })).toBe(false);
    expect(tool('submit_site').outputSchema).toMatchObject({ type: 'object' });
    expect((tool('submit_site').outputSchema.anyOf as unknown[]).length).toBe(2);
    expect(tool('read_chat').annotations.readOnlyHint).toBe(true);
    expect(tool('submit_site').annotations).toMatchObject({
      readOnlyHint: false,
      openWorldHint: true,
    });
  });
});

describe('manifests', () => {
  it('ai-plugin.json is a v1 plugin manifest pointing at /openapi.json', () => {
    const plugin = buildAiPlugin('https://svc.test', tools) as Json;
    expect(plugin).toMatchObject({
      schema_version: 'v1',
      name_for_model: 'svc_platform',
      auth: { type: 'none' },
      api: { type: 'openapi', url: 'https://svc.test/openapi.json' },
    });
    expect(plugin.description_for_model.length).toBeGreaterThan(50);
    expect(plugin.tools.map((t: Json) => t.name)).toEqual(tools.map((t) => t.name));
  });

  it('mcp.json names the MCP server at /mcp (Streamable HTTP) as the registry does', () => {
    const mcp = buildMcpManifest('https://svc.test', tools) as Json;
    expect(mcp.remotes).toEqual([{ type: 'streamable-http', url: 'https://svc.test/mcp' }]);
    expect(mcp.transport).toMatchObject({ type: 'streamable-http', url: 'https://svc.test/mcp' });
    expect(mcp.transport.note).not.toMatch(/plain HTTPS/);
  });

  it('the live server lists the tools of mcp.json, without the HTTP call', () => {
    const mcp = buildMcpManifest('https://svc.test', tools) as Json;
    const listed = tools.map(mcpToolOf);
    expect(listed.map((t) => ({ ...t, _meta: mcp.tools.find((m: Json) => m.name === t.name)._meta }))).toEqual(mcp.tools);
    for (const t of listed) expect(Object.keys(t)).not.toContain('_meta');
  });

  it('mcp.json lists the tools in MCP Tool shape with the HTTP call in _meta', () => {
    const mcp = buildMcpManifest('https://svc.test', tools) as Json;
    expect(mcp.tools).toHaveLength(6);
    const getApp = mcp.tools.find((t: Json) => t.name === 'get_app');
    expect(Object.keys(getApp).sort()).toEqual([
      '_meta',
      'annotations',
      'description',
      'inputSchema',
      'name',
      'outputSchema',
      'title',
    ]);
    expect(getApp._meta.http).toMatchObject({
      method: 'GET',
      url: 'https://svc.test/api/v1/apps/{slug}',
      arguments: { slug: 'path' },
    });
    expect(getApp.inputSchema.required).toEqual(['slug']);
  });

  it('are served as JSON documents by buildDiscoveryDocuments', () => {
    const docs = buildDiscoveryDocuments({ baseUrl: 'https://svc.test/' });
    const mcp = JSON.parse(
      docs.find((d) => d.path === '/.well-known/mcp.json')!.body.toString('utf8'),
    );
    expect(mcp.documentation.openapi).toBe('https://svc.test/openapi.json');
    expect(docs.map((d) => d.path)).toEqual([
      '/openapi.json',
      '/llms.txt',
      '/llms-full.txt',
      '/.well-known/ai-plugin.json',
      '/.well-known/mcp.json',
    ]);
  });
});
