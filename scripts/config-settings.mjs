// Where the processes' settings are declared and which names they declare: the zod schemas
// of the config.ts files, found by pattern (a new service's config.ts is included as it
// lands) and read as text. Shared by scripts/env-example.mjs and the tests that hold
// docs/configuration.md and .env.example to the schemas.
import { globSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** The kit's base settings (every service and web) and its catalogue of processes (ports, `*_URL` names). */
export const KIT_CONFIG_FILES = [
  'packages/service-kit/src/ops/config.ts',
  'packages/service-kit/src/ops/service-catalog.ts',
];

/** Each process's own settings, one config.ts per process directory. */
export const PROCESS_CONFIG_PATTERNS = [
  'gateway/src/config.ts',
  'services/*/src/config.ts',
  // The web client's HTTP server (docs/decisions/027-service-layout.md).
  'services/*/server/config.ts',
];

/** The process config files under `root`, in pattern order, each pattern's matches sorted. */
export function processConfigFiles(root) {
  const files = PROCESS_CONFIG_PATTERNS.flatMap((pattern) =>
    globSync(pattern, { cwd: root })
      .map((file) => file.split(path.sep).join('/'))
      .sort(),
  );
  return [...new Set(files)];
}

/** Every file that declares settings, relative to `root`. */
export function configFiles(root) {
  return [...KIT_CONFIG_FILES, ...processConfigFiles(root)];
}

/**
 * The setting names one file's source declares: the keys of its zod objects
 * (`  NAME: settings.…`) and the catalogue's environment names (`urlEnv: 'NAME'`).
 */
export function settingNamesIn(source) {
  const names = new Set();
  for (const m of source.matchAll(/^\s+([A-Z][A-Z0-9_]+):/gm)) names.add(m[1]);
  for (const m of source.matchAll(/Env: '([A-Z][A-Z0-9_]+)'/g)) names.add(m[1]);
  return names;
}

/** Every setting name under `root`, with the files that declare it. */
export function settingNames(root) {
  const found = new Map();
  for (const file of configFiles(root)) {
    for (const name of settingNamesIn(readFileSync(path.join(root, file), 'utf8'))) {
      found.set(name, [...(found.get(name) ?? []), file]);
    }
  }
  return found;
}
