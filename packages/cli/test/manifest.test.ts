// The manifest plan: the pure rule behind `svc apps submit --from`.
import { describe, expect, it } from '@jest/globals';
import type { App } from '@svc/types';
import { parseManifest, planManifest } from '../src/manifest.js';
import { UsageError } from '../src/exit-codes.js';

const existing = (over: Partial<App> = {}): App => ({
  id: 'app_1',
  slug: 'ci-app',
  name: 'CI App',
  description: '',
  url: 'https://ci-app.test',
  category: 'tools',
  app_type: 'web',
  open_mode: 'iframe',
  status: 'approved',
  downloads: 3,
  author_name: 'dev',
  chain: null,
  icon_gradient_from: null,
  icon_gradient_to: null,
  icon_svg: null,
  tech_tags: [],
  svc_sdk_version: null,
  ...over,
});

const parse = (m: object) => parseManifest(JSON.stringify(m), 'app.json');
const base = { slug: 'ci-app', name: 'CI App', url: 'https://ci-app.test' };

describe('planManifest', () => {
  it('creates with the submit fields (defaults filled) and applies PATCH-only fields after', () => {
    const plan = planManifest(
      parse({ ...base, tech_tags: ['a'], svc_sdk_version: '1.0.0' }),
      undefined,
    );
    expect(plan).toEqual({
      action: 'create',
      body: { ...base, description: '', category: 'tools', app_type: 'web', open_mode: 'iframe' },
      followUp: { tech_tags: ['a'], svc_sdk_version: '1.0.0' },
    });
  });

  it('creates without a follow-up when there are no PATCH-only fields', () => {
    const plan = planManifest(parse(base), undefined);
    expect(plan.action === 'create' && plan.followUp).toBeUndefined();
  });

  it('is unchanged when every written field matches, whatever the unwritten ones hold', () => {
    const plan = planManifest(
      parse(base),
      existing({ description: 'set elsewhere', tech_tags: ['x'] }),
    );
    expect(plan).toEqual({ action: 'unchanged', ignored: [] });
  });

  it('patches only written fields that differ', () => {
    const plan = planManifest(
      parse({ ...base, name: 'Renamed', category: 'tools', tech_tags: ['a', 'b'], chain: 'eth' }),
      existing({ tech_tags: ['a', 'b'] }),
    );
    expect(plan).toEqual({
      action: 'update',
      patch: { name: 'Renamed', chain: 'eth' },
      changed: ['name', 'chain'],
      ignored: [],
    });
  });

  it('clears a PATCH-only field written as null', () => {
    const plan = planManifest(parse({ ...base, icon_svg: null }), existing({ icon_svg: '<svg/>' }));
    expect(plan).toEqual({
      action: 'update',
      patch: { icon_svg: null },
      changed: ['icon_svg'],
      ignored: [],
    });
    expect(planManifest(parse({ ...base, icon_svg: null }), existing()).action).toBe('unchanged');
  });

  it('reports fixed fields that differ instead of sending them', () => {
    const plan = planManifest(
      parse({ ...base, url: 'https://moved.test', app_type: 'pwa', open_mode: 'iframe' }),
      existing(),
    );
    expect(plan).toEqual({ action: 'unchanged', ignored: ['url', 'app_type'] });
  });

  it('compares tag lists by value and order', () => {
    expect(
      planManifest(parse({ ...base, tech_tags: ['b', 'a'] }), existing({ tech_tags: ['a', 'b'] }))
        .action,
    ).toBe('update');
    expect(
      planManifest(parse({ ...base, tech_tags: ['a', 'b'] }), existing({ tech_tags: ['a', 'b'] }))
        .action,
    ).toBe('unchanged');
  });
});

describe('parseManifest', () => {
  it('remembers which fields the file wrote', () => {
    const parsed = parse({ ...base, description: '' });
    expect([...parsed.present].sort()).toEqual(['description', 'name', 'slug', 'url']);
    expect(parsed.manifest.category).toBe('tools');
  });

  it('refuses what POST /api/v1/apps would refuse, as a usage error', () => {
    expect(() => parse({ ...base, url: 'http://x.test' })).toThrow(UsageError);
    expect(() => parse({ ...base, category: 'weather' })).toThrow(/category/);
    expect(() => parse({ ...base, name: '' })).toThrow(/name/);
    expect(() => parse({ ...base, slug: 'ab' })).toThrow(/slug/);
    expect(() => parse({ ...base, tech_tags: Array(11).fill('t') })).toThrow(/tech_tags/);
    expect(() => parse({ ...base, status: 'approved' })).toThrow(/status/);
  });
});
