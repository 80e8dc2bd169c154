// renovate.json holds what Renovate's own validator cannot know: the packages that move
// together are grouped, and a patched package (pnpm-workspace.yaml) never gets an update
// nobody asked for, since its patch names the exact version it applies to.
import { describe, expect, it } from '@jest/globals';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

interface PackageRule {
  description?: string;
  matchPackageNames?: string[];
  matchDepNames?: string[];
  groupName?: string;
  allowedVersions?: string;
  enabled?: boolean;
  dependencyDashboardApproval?: boolean;
}
interface RenovateConfig {
  extends?: string[];
  packageRules?: PackageRule[];
}

const config = JSON.parse(readFileSync(path.join(ROOT, 'renovate.json'), 'utf8')) as RenovateConfig;
const rules = config.packageRules ?? [];

/** Renovate's name matching: exact names and globs (`@prisma/**`); no regex patterns here. */
function matches(patterns: string[] | undefined, name: string): boolean {
  return (patterns ?? []).some((pattern) => {
    const glob = pattern
      .replace(/[.+^${}()|[\]\\]/g, '\\$&')
      .replace(/\*\*/g, '.*')
      .replace(/(?<!\.)\*/g, '[^/]*');
    return new RegExp(`^${glob}$`).test(name);
  });
}

const rulesFor = (name: string) => rules.filter((rule) => matches(rule.matchPackageNames, name));

describe('renovate.json', () => {
  it('extends only presets built into Renovate (no remote preset to fetch)', () => {
    for (const preset of config.extends ?? []) expect(preset).toMatch(/^[a-z]+:[A-Za-z]+$/);
  });

  it('says why for every package rule', () => {
    expect(rules.length).toBeGreaterThan(5);
    expect(rules.filter((rule) => !rule.description?.trim())).toEqual([]);
  });

  it.each([
    [
      'OpenTelemetry',
      ['@opentelemetry/api', '@opentelemetry/sdk-trace', '@opentelemetry/instrumentation-pg'],
    ],
    ['Prisma', ['prisma', '@prisma/client', '@prisma/adapter-pg']],
    ['React Router', ['react-router', '@react-router/node', '@react-router/dev']],
  ])('updates %s as one group', (group, names) => {
    for (const name of names) expect(rulesFor(name).map((rule) => rule.groupName)).toContain(group);
  });

  it('holds back every patched package until a person asks for its update', () => {
    const workspace = parse(readFileSync(path.join(ROOT, 'pnpm-workspace.yaml'), 'utf8')) as {
      patchedDependencies?: Record<string, string>;
    };
    const patched = Object.keys(workspace.patchedDependencies ?? {}).map((key) =>
      key.slice(0, key.lastIndexOf('@')),
    );
    expect(patched).toEqual(expect.arrayContaining(['@prisma/adapter-pg', 'ioredis']));
    const unheld = patched.filter(
      (name) =>
        !rulesFor(name).some(
          (rule) => rule.enabled === false || rule.dependencyDashboardApproval === true,
        ),
    );
    expect(unheld).toEqual([]);
  });

  it('keeps Prisma below 7 and Node on the major scripts/toolchain.mjs pins', () => {
    expect(rulesFor('prisma').map((rule) => rule.allowedVersions)).toContain('<7');
    const toolchain = readFileSync(path.join(ROOT, 'scripts/toolchain.mjs'), 'utf8');
    const major = /NODE_VERSION = '(\d+)\./.exec(toolchain)?.[1];
    expect(major).toBeDefined();
    const node = rules.filter((rule) => rule.matchDepNames?.includes('node'));
    expect(node.map((rule) => rule.allowedVersions)).toContain(`/^v?${major}\\./`);
  });
});
