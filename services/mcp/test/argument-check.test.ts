// Tool arguments against the listed inputSchemas: what is advertised is what is enforced.
import { describe, expect, it } from '@jest/globals';
import { buildAgentTools } from '@svc/discovery';
import { compileArgumentChecks } from '../src/domain/argument-check.js';
import { runnableTools } from '../src/app.js';

const checks = compileArgumentChecks(buildAgentTools());
const check = (name: string, args: unknown) => checks.get(name)!(args);

describe('argument checks', () => {
  it('compile for every catalogue tool, each owned by the service of its endpoint', () => {
    const tools = runnableTools(buildAgentTools());
    expect([...tools.values()].map((t) => [t.tool.name, t.service])).toEqual([
      ['search_sites', 'sites'],
      ['submit_site', 'sites'],
      ['search_apps', 'app-store'],
      ['get_app', 'app-store'],
      ['translate', 'translate'],
      ['read_chat', 'chat'],
    ]);
  });

  it('accept valid arguments', () => {
    expect(check('translate', { text: 'Hello', targetLang: 'ja' })).toEqual([]);
    expect(check('read_chat', {})).toEqual([]);
    expect(check('search_apps', { q: 'chess', limit: 100, offset: 0, category: 'games' })).toEqual([]);
  });

  it('name each argument that does not fit, in words an agent reads', () => {
    expect(check('translate', { text: 'Hello' })).toEqual(['targetLang: required']);
    expect(check('translate', { text: 'Hello', targetLang: 'xx' })).toEqual([
      expect.stringMatching(/^targetLang: must be one of zh-CN, zh-HK, zh-TW, en, /),
    ]);
    expect(check('translate', { text: 'x'.repeat(2001), targetLang: 'ja' })).toEqual([
      'text: must NOT have more than 2000 characters',
    ]);
    expect(check('read_chat', { limit: '5' })).toEqual(['limit: must be integer']);
    expect(check('search_sites', { query: 'tools' })).toEqual(['query: not an argument of this tool']);
    expect(check('get_app', {})).toEqual(['slug: required']);
  });
});
