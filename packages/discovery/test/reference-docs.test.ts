// The committed API reference (docs/api-reference.md, docs/openapi.json) is exactly what the
// generator renders from the catalogue today: a change to a schema or an endpoint that is
// not followed by `pnpm --filter @svc/discovery write-docs` fails here, so the docs cannot drift.
import { describe, expect, it } from '@jest/globals';
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { ENDPOINTS } from '@svc/types';
import { buildReferenceDocs } from '../src/reference-docs.js';

const DOCS_DIR = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs');
const REGENERATE = 'run `pnpm --filter @svc/discovery write-docs` and commit docs/';

describe('docs/ generated reference', () => {
  const generated = buildReferenceDocs();

  it.each(generated.map((d) => [d.file, d.text]))('docs/%s is up to date', (file, text) => {
    const target = path.join(DOCS_DIR, file);
    if (!existsSync(target)) throw new Error(`docs/${file} is missing: ${REGENERATE}`);
    const committed = readFileSync(target, 'utf8');
    if (committed !== text) {
      const a = committed.split('\n');
      const b = text.split('\n');
      const line = a.findIndex((l, i) => l !== b[i]);
      throw new Error(
        `docs/${file} differs from the generator from line ${line + 1}:\n` +
          `  committed: ${a[line] ?? '(end of file)'}\n  generated: ${b[line] ?? '(end of file)'}\n` +
          REGENERATE,
      );
    }
  });

  it('names every endpoint of the catalogue', () => {
    const reference = generated.find((d) => d.file === 'api-reference.md')!.text;
    for (const e of ENDPOINTS) expect(reference).toContain(`### ${e.method} ${e.path}\n`);
    const openapi = JSON.parse(generated.find((d) => d.file === 'openapi.json')!.text);
    for (const e of ENDPOINTS) expect(openapi.paths[e.path][e.method.toLowerCase()]).toBeDefined();
  });

  it('says it is generated and how to regenerate it', () => {
    const reference = generated.find((d) => d.file === 'api-reference.md')!.text;
    expect(reference.startsWith('<!--\n  GENERATED FILE')).toBe(true);
    expect(reference).toContain('write-docs');
  });
});
