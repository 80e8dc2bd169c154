// The repository is self-contained: no tracked file cites a document outside it (the
// contract the project was given, notes beside the checkout). Citations go to the
// project's own docs/ (decisions/NNN-title.md, architecture.md, configuration.md,
// api-reference.md), and every cited decision file exists and is in the index.
// Also: docs/configuration.md names every setting the config schemas read.
// SELF_CONTAINED_ROOT points the checks at another checkout (to see them fail).
import { describe, expect, it } from '@jest/globals';
import { execFileSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
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
  // repository's own decisions are docs/decisions/NNN-title.md (lower case).
  [/\bDECISIONS\b/, 'DECISIONS (use docs/decisions/NNN-title.md)'],
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

/** The text of a tracked file, or undefined when it is deleted in the working tree or binary. */
function textOf(file: string): string | undefined {
  const full = path.join(ROOT, file);
  if (!existsSync(full)) return undefined;
  const bytes = readFileSync(full);
  return bytes.includes(0) ? undefined : bytes.toString('utf8');
}

/** A decision file cited from anywhere, by its path from the repository root. */
const CITED_DECISION = /docs\/decisions\/[0-9]{3}-[a-z0-9-]+\.md/g;
/** A Markdown link to a decision file, relative to the linking file (docs/README.md, docs/decisions/). */
const LINKED_DECISION = /\]\(((?:[./a-z]*\/)?[0-9]{3}-[a-z0-9-]+\.md)[)#]/g;
/** The former single decisions file and its numbered sections. */
const FORMER_FILE = /decisions\.md/;
/**
 * Applied migrations are never edited (Prisma records them), so their comments keep the
 * citation they were applied with; AUDIT_LOG_MIGRATION_SQL is a byte copy of one.
 */
const APPLIED_MIGRATION = /\/prisma\/migrations\/[^/]+\/migration\.sql$/;

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
    for (const doc of ['README.md', 'api-reference.md', 'openapi.json', 'decisions', 'configuration.md', 'architecture.md']) {
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

  it('cites only decision files that exist', () => {
    const missing: string[] = [];
    let cited = 0;
    for (const file of trackedFiles()) {
      const text = textOf(file);
      if (text === undefined) continue;
      for (const m of text.matchAll(CITED_DECISION)) {
        cited++;
        if (!existsSync(path.join(ROOT, m[0]))) missing.push(`${file}: ${m[0]}`);
      }
      if (!file.endsWith('.md')) continue;
      for (const m of text.matchAll(LINKED_DECISION)) {
        const target = path.join(ROOT, path.dirname(file), m[1]!);
        if (!existsSync(target)) missing.push(`${file}: ${m[1]}`);
      }
    }
    expect(cited).toBeGreaterThan(100);
    expect(missing).toEqual([]);
  });

  it('cites nothing of the former docs/decisions.md', () => {
    const files = trackedFiles();
    const migrationLines = files
      .filter((f) => APPLIED_MIGRATION.test(f))
      .flatMap((f) => (textOf(f) ?? '').split('\n'))
      .filter((line) => FORMER_FILE.test(line));
    const found: string[] = [];
    for (const file of files) {
      if (APPLIED_MIGRATION.test(file)) continue;
      (textOf(file) ?? '').split('\n').forEach((line, i) => {
        if (FORMER_FILE.test(line) && !migrationLines.some((m) => line.includes(m))) {
          found.push(`${file}:${i + 1}: ${line.trim().slice(0, 120)}`);
        }
      });
    }
    expect(found).toEqual([]);
  });

  it('indexes every decision file once in docs/README.md', () => {
    const index = readFileSync(path.join(ROOT, 'docs/README.md'), 'utf8');
    const files = readdirSync(path.join(ROOT, 'docs/decisions')).filter((f) => f.endsWith('.md'));
    const numbers = files.map((f) => f.slice(0, 3));
    expect(files.filter((f) => !/^[0-9]{3}-[a-z0-9-]+\.md$/.test(f))).toEqual([]);
    expect(numbers.filter((n, i) => numbers.indexOf(n) !== i)).toEqual([]);
    expect(files.filter((f) => !index.includes(`](decisions/${f})`))).toEqual([]);
  });
});

describe('docs/configuration.md', () => {
  const CONFIG_FILES = [
    'packages/service-kit/src/ops/config.ts',
    'packages/service-kit/src/ops/service-catalog.ts',
    'gateway/src/config.ts',
    'services/auth/src/config.ts',
    'services/app-store/src/config.ts',
    'services/sites/src/config.ts',
    'services/chat/src/config.ts',
    'services/translate/src/config.ts',
    'services/realtime/src/config.ts',
    'services/web/server/config.ts',
    'services/mcp/src/config.ts',
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
