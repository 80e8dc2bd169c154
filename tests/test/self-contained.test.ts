// The repository is self-contained: no tracked file cites a document outside it (the
// contract the project was given, notes beside the checkout). Citations go to the
// project's own docs/ (decisions.md §n, architecture.md, configuration.md,
// api-reference.md). Also: docs/configuration.md names every setting the config schemas read.
// SELF_CONTAINED_ROOT points the checks at another checkout (used to see them fail).
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT =
  process.env.SELF_CONTAINED_ROOT ??
  path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const THIS_FILE = 'tests/test/self-contained.test.ts';

/** What a reference to a document outside the repository looks like, and why it is one. */
const OUTSIDE: Array<[RegExp, string]> = [
  [/\.\.\/shared\b/, 'a path above the repository (../shared)'],
  [/\bshared\/(spec|notes)\b/, 'the shared spec/notes folder'],
  [/\/work\/shared\b/, 'an absolute path outside the repository'],
  // The given decisions file, cited as DECISIONS, DECISIONS.md or DECISIONS §n; the
  // repository's own is docs/decisions.md (lower case).
  [/\bDECISIONS\b/, 'DECISIONS (use docs/decisions.md §n)'],
  [/\bARCHITECTURE\.md\b/, 'ARCHITECTURE.md (use docs/architecture.md)'],
  [/\bapp-listing-api\.md\b/, 'app-listing-api.md (use docs/api-reference.md)'],
  [/\bsite-sharing-api\.md\b/, 'site-sharing-api.md (use docs/api-reference.md)'],
  [/\b(ENVIRONMENT|STYLE)\.md\b/, 'a note outside the repository'],
];

function trackedFiles(): string[] {
  return execFileSync('git', ['ls-files', '-z'], { cwd: ROOT, maxBuffer: 64 * 1024 * 1024 })
    .toString('utf8')
    .split('\0')
    .filter((f) => f !== '' && f !== THIS_FILE && f !== 'pnpm-lock.yaml');
}

/** `file:line: text (why)` for each line of a tracked text file that points outside. */
function offenders(): string[] {
  const found: string[] = [];
  for (const file of trackedFiles()) {
    const full = path.join(ROOT, file);
    if (!existsSync(full)) continue; // deleted in the working tree, not yet committed
    const bytes = readFileSync(full);
    if (bytes.includes(0)) continue; // binary
    bytes
      .toString('utf8')
      .split('\n')
      .forEach((line, i) => {
        for (const [pattern, why] of OUTSIDE) {
          if (pattern.test(line)) found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)} (${why})`);
        }
      });
  }
  return found;
}

describe('the repository is self-contained', () => {
  it('has its own documentation', () => {
    for (const doc of ['README.md', 'api-reference.md', 'openapi.json', 'decisions.md', 'configuration.md', 'architecture.md']) {
      expect(existsSync(path.join(ROOT, 'docs', doc))).toBe(true);
    }
  });

  it('cites no document outside the repository', () => {
    const found = offenders();
    if (found.length > 0) {
      throw new Error(
        `${found.length} reference(s) to documents outside the repository; cite docs/ instead:\n  ${found.join('\n  ')}`,
      );
    }
  });

  it('cites only sections that docs/decisions.md has', () => {
    const decisions = readFileSync(path.join(ROOT, 'docs/decisions.md'), 'utf8');
    const sections = new Set([...decisions.matchAll(/^## (\d+)\. /gm)].map((m) => m[1]));
    const bad: string[] = [];
    for (const file of trackedFiles()) {
      const full = path.join(ROOT, file);
      if (!existsSync(full) || file.startsWith('docs/')) continue;
      const bytes = readFileSync(full);
      if (bytes.includes(0)) continue;
      for (const m of bytes.toString('utf8').matchAll(/docs\/decisions\.md §(\d+)(?:[–-]§?(\d+))?/g)) {
        for (const n of [m[1], m[2]]) if (n !== undefined && !sections.has(n)) bad.push(`${file}: ${m[0]}`);
      }
    }
    expect(bad).toEqual([]);
  });
});

describe('docs/configuration.md', () => {
  const CONFIG_FILES = [
    'packages/service-kit/src/config.ts',
    'packages/service-kit/src/service-catalog.ts',
    'gateway/src/config.ts',
    'services/auth/src/config.ts',
    'services/app-store/src/config.ts',
    'services/sites/src/config.ts',
    'services/chat/src/config.ts',
    'services/translate/src/config.ts',
    'services/realtime/src/config.ts',
    'services/web/src/config.ts',
  ];

  it('names every setting of the config schemas', () => {
    const table = readFileSync(path.join(ROOT, 'docs/configuration.md'), 'utf8');
    const names = new Set<string>();
    for (const file of CONFIG_FILES) {
      const source = readFileSync(path.join(ROOT, file), 'utf8');
      // Keys of the zod objects (`  NAME: settings.…`) and the catalogue's env names.
      for (const m of source.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)) names.add(m[1]!);
      for (const m of source.matchAll(/Env: '([A-Z][A-Z0-9_]+)'/g)) names.add(m[1]!);
    }
    expect(names.size).toBeGreaterThan(40);
    expect([...names].filter((n) => !table.includes(`\`${n}\``)).sort()).toEqual([]);
  });
});
