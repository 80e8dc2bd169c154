// The client must run in Node ≥ 22 and browsers with nothing installed beside it: every
// import in its sources is relative, or type-only (erased from the built JavaScript).
import { describe, expect, it } from '@jest/globals';
import { readdirSync, readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

const SRC = fileURLToPath(new URL('../src/', import.meta.url));

describe('runtime dependencies', () => {
  it('has none: value imports are relative, package imports are type-only', () => {
    const offending: string[] = [];
    for (const file of readdirSync(SRC).filter((f) => f.endsWith('.ts'))) {
      const text = readFileSync(SRC + file, 'utf8');
      for (const m of text.matchAll(/^(import|export)\s+(type\s+)?[^;]*?from\s+'([^']+)';/gms)) {
        const [, , typeOnly, spec] = m;
        if (!spec!.startsWith('.') && !typeOnly) offending.push(`${file}: ${spec}`);
      }
    }
    expect(offending).toEqual([]);
  });

  it('declares no dependencies in package.json', () => {
    const pkg = JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8'));
    expect(pkg.dependencies ?? {}).toEqual({});
  });
});
