// The benchmarks' own database and schema, created when missing by the kit's
// ensureDatabaseAndSchema (built: run after the build), so a benchmark runs on a machine
// where only PostgreSQL itself was set up.
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');

/** Creates the database `url` names, and `schema` in it, unless they exist. */
export async function ensureDatabase(url, schema = 'public') {
  const kit = await import(pathToFileURL(path.join(ROOT, 'packages/service-kit/dist/index.js')).href);
  await kit.ensureDatabaseAndSchema(kit.resolveDatabaseTarget(undefined, url, schema));
}
