// After `react-router build`, before precompress: copies Scalar's browser bundle (one file,
// its styles inside) into build/client/assets under a content-hashed name, so /docs loads it
// from this origin like any other asset (cached for a year, precompressed), and writes
// build/api-reference.json naming it for the server (server/api-reference.ts).
import { createHash } from 'node:crypto';
import { readFileSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The package exports no path to its browser build: it sits beside the entry point.
const entry = createRequire(import.meta.url).resolve('@scalar/api-reference');
const bundle = readFileSync(path.join(path.dirname(entry), 'browser', 'standalone.js'));
const version = JSON.parse(readFileSync(path.join(path.dirname(entry), '..', 'package.json'), 'utf8')).version;

const build = fileURLToPath(new URL('../build', import.meta.url));
const name = `scalar-api-reference-${createHash('sha256').update(bundle).digest('hex').slice(0, 16)}.js`;
writeFileSync(path.join(build, 'client', 'assets', name), bundle);
writeFileSync(
  path.join(build, 'api-reference.json'),
  `${JSON.stringify({ script: `/assets/${name}`, scalarVersion: version }, null, 2)}\n`,
);
console.log(`copied @scalar/api-reference ${version} to build/client/assets/${name} (${bundle.length} bytes)`);
