// The generated part of the repository's API reference (docs/api-reference.md and
// docs/openapi.json): the same renderers as /llms-full.txt and /openapi.json, for a fixed
// base URL, so the committed files are byte-for-byte what the catalogue produces.
// `pnpm --filter @svc/discovery write-docs` writes them; test/reference-docs.test.ts fails when
// the committed files differ.
import { buildDiscoveryDocuments } from './documents.js';

/** The address `npm start` prints; the reference's links and `servers` point there. */
export const REFERENCE_BASE_URL = 'http://localhost:8080';

export interface ReferenceDoc {
  /** Path relative to the repository's `docs/` folder. */
  file: string;
  text: string;
}

const HEADER = [
  '<!--',
  '  GENERATED FILE: do not edit by hand.',
  '  Rendered from the endpoint catalogue and zod schemas of packages/types by',
  '  packages/discovery (the /llms-full.txt renderer). Regenerate with',
  '  `pnpm --filter @svc/discovery write-docs`; packages/discovery/test/reference-docs.test.ts',
  '  fails when this file differs from what the generator produces.',
  '  Hand-written decisions behind these rules: docs/decisions/ (indexed in docs/README.md).',
  '-->',
  '',
].join('\n');

/** docs/api-reference.md and docs/openapi.json, as the generator renders them. */
export function buildReferenceDocs(): ReferenceDoc[] {
  const byPath = new Map(
    buildDiscoveryDocuments({ baseUrl: REFERENCE_BASE_URL }).map((d) => [
      d.path,
      d.body.toString('utf8'),
    ]),
  );
  const text = (path: string) => {
    const body = byPath.get(path);
    if (body === undefined) throw new Error(`no discovery document ${path}`);
    return body;
  };
  return [
    { file: 'api-reference.md', text: HEADER + text('/llms-full.txt') },
    { file: 'openapi.json', text: text('/openapi.json') },
  ];
}
