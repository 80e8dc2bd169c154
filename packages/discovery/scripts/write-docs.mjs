// Writes the generated API reference into the repository's docs/ folder:
// docs/api-reference.md and docs/openapi.json (see src/reference-docs.ts).
// Run: pnpm --filter @svc/discovery write-docs (tsx, with the workspace's "development" sources).
import { writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { buildReferenceDocs } from '../src/reference-docs.ts';

const docsDir = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../docs');
for (const { file, text } of buildReferenceDocs()) {
  writeFileSync(path.join(docsDir, file), text);
  console.log(`wrote docs/${file}`);
}
