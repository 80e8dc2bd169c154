// `pnpm env-example` writes .env.example: every setting of every process, grouped by process,
// with its default, read from the zod schemas of the config.ts files (config-settings.mjs
// finds them by pattern). `--check` writes nothing and exits 1 when the committed file is not
// what it would write. It imports the TypeScript sources, so it runs under tsx with the
// "development" condition (the root package.json's script) and needs no build.
import { readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { KIT_CONFIG_FILES, processConfigFiles, settingNames } from './config-settings.mjs';

const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const OUTPUT = '.env.example';
const [BASE_FILE, CATALOG_FILE] = KIT_CONFIG_FILES;

/** Names of settings whose value is a credential: empty in the file, to be filled in. */
const SECRET = /SECRET|TOKEN|PASSWORD|PRIVATE_KEY|API_KEY/;

const HEADER = `# Every setting the svc platform's processes read, grouped by process, with its default.
# Generated from the config.ts schemas by \`pnpm env-example\` (scripts/env-example.mjs):
# do not edit it by hand. tests/test/env-example.test.ts fails when it and the schemas
# disagree. What each setting means, and what production requires: docs/configuration.md.
#
# A commented line shows a default: a copy of this file as .env changes nothing until a line
# is uncommented. Secrets are the empty lines, to fill in and never commit; left empty they
# count as unset (a feature off, or a development fallback that production refuses).
# \`npm start\` reads the environment, not this file: \`set -a; . ./.env; set +a; npm start\`.
# docker compose reads .env next to docker-compose.yml itself.
# Tracing's OTEL_* variables are read by packages/tracing: docs/configuration.md, "Tracing".
`;

/** The zod definition behind a schema or a field (zod 4 keeps it on `_zod.def`). */
const defOf = (schema) => schema?._zod?.def;

/** The object a schema validates, through the pipes that `.transform` adds around it. */
function shapeOf(schema) {
  const def = defOf(schema);
  if (def?.type === 'pipe') return shapeOf(def.in);
  if (def?.type === 'object') return def.shape;
  return undefined;
}

/**
 * What a field accepts from the environment, before its transforms: its default as the
 * environment would spell it and, for an enum, the values it allows.
 */
function describeField(field) {
  const def = defOf(field);
  switch (def?.type) {
    case 'default':
      return { ...describeField(def.innerType), fallback: String(def.defaultValue) };
    case 'pipe':
      return describeField(def.in);
    case 'optional':
    case 'nullable':
      return describeField(def.innerType);
    case 'enum':
      return { choices: Object.values(def.entries).map(String) };
    default:
      return {};
  }
}

/** A schema export is one whose object has only environment names as keys. */
function isSettingsSchema(value) {
  const shape = shapeOf(value);
  return shape !== undefined && Object.keys(shape).every((k) => /^[A-Z][A-Z0-9_]*$/.test(k));
}

const importSource = (file) => import(pathToFileURL(path.join(ROOT, file)).href);

/**
 * The processes: one per settings schema a process config file exports, named after its
 * directory (`services/sites` → `sites`); a second schema in the same file adds its prefix
 * (`workerConfigSchema` → `sites-worker`).
 */
async function loadProcesses() {
  const processes = [];
  for (const file of processConfigFiles(ROOT)) {
    const dir = path.basename(path.dirname(path.dirname(file)));
    const schemas = Object.entries(await importSource(file)).filter(([, v]) => isSettingsSchema(v));
    if (schemas.length === 0) throw new Error(`${file} exports no settings schema`);
    for (const [exportName, schema] of schemas) {
      const prefix = exportName.replace(/[Cc]onfigSchema$|Schema$/, '');
      const own =
        schemas.length === 1 || prefix === '' || prefix.toLowerCase() === dir.replace(/-/g, '');
      const name = own ? dir : `${dir}-${prefix.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`;
      processes.push({ name, file, fields: describeShape(shapeOf(schema)) });
    }
  }
  return processes;
}

/** name → { fallback?, choices? } for every key of a schema's object. */
function describeShape(shape) {
  return new Map(Object.entries(shape).map(([key, field]) => [key, describeField(field)]));
}

/** A value as an .env line spells it: bare when safe for every reader (shell, Node, compose), else double-quoted. */
function envValue(value) {
  if (/^[\w.,:/@+-]*$/.test(value)) return value;
  if (/["$`\\\n]/.test(value)) throw new Error(`a default no .env reader takes as it is: ${value}`);
  return `"${value}"`;
}

/** The lines of one setting: what it allows or who reads it, then the setting itself. */
function settingLines(key, field, readers) {
  const lines = [];
  if (readers) lines.push(...comment(`read by ${readers}`));
  if (field.choices) lines.push(`# one of: ${field.choices.join(', ')}`);
  if (SECRET.test(key)) {
    lines.push('# a secret: never commit it');
    lines.push(`${key}=`);
    return lines;
  }
  const fallback = field.fallback?.startsWith(ROOT + path.sep)
    ? `<repository>/${path.relative(ROOT, field.fallback).split(path.sep).join('/')}`
    : field.fallback;
  lines.push(`# ${key}=${fallback === undefined ? '' : envValue(fallback)}`);
  return lines;
}

const sameField = (a, b) => a.fallback === b.fallback && String(a.choices) === String(b.choices);

/** A comment, wrapped to lines of at most 92 characters. */
function comment(text) {
  const lines = [];
  let line = '#';
  for (const word of text.split(' ')) {
    if (line.length + 1 + word.length > 92 && line !== '#') {
      lines.push(line);
      line = '#  ';
    }
    line += ` ${word}`;
  }
  return [...lines, line];
}

function render(base, catalog, processes) {
  const readersOf = (key) => processes.filter((p) => p.fields.has(key));
  const readerNames = (key) =>
    readersOf(key)
      .map((p) => p.name)
      .join(', ');
  /** A setting whose default differs between its readers (PORT) is shown in each reader's group. */
  const perProcess = (key) => {
    const [first, ...others] = readersOf(key).map((p) => p.fields.get(key));
    return others.some((field) => !sameField(field, first));
  };
  const placed = new Set();
  const groups = [];
  const group = (title, keys, fieldOf, readersLine = () => undefined, trailer = []) => {
    const lines = [`# --- ${title} ---`];
    for (const key of keys) {
      lines.push(...settingLines(key, fieldOf(key), readersLine(key)));
      placed.add(key);
    }
    groups.push([...lines, ...trailer].join('\n'));
  };
  const firstField = (key) => readersOf(key)[0].fields.get(key);

  const baseKeys = [...base.keys()];
  group(`every service and web: ${BASE_FILE}`, baseKeys, (key) => base.get(key));

  // The addresses as one group; a process's own database URL goes with that process.
  const catalogKeys = [...catalog.keys()].filter((key) => !placed.has(key));
  const addresses = catalogKeys.filter(
    (key) => catalog.get(key).address && readersOf(key).length > 0 && !perProcess(key),
  );
  group(`where each process answers: ${CATALOG_FILE}`, addresses, (key) => catalog.get(key));

  const allKeys = [...new Set(processes.flatMap((p) => [...p.fields.keys()]))];
  const shared = allKeys.filter(
    (key) => !placed.has(key) && readersOf(key).length > 1 && !perProcess(key),
  );
  group('read by several processes', shared, firstField, readerNames);

  for (const proc of processes) {
    const keys = [...proc.fields.keys()];
    const readsWholeBase = baseKeys.every((key) => proc.fields.has(key));
    const own = keys.filter((key) => perProcess(key) || !placed.has(key));
    const elsewhere = keys.filter(
      (key) => !own.includes(key) && !(readsWholeBase && base.has(key)),
    );
    const trailer =
      elsewhere.length > 0
        ? comment(`${proc.name} also reads ${elsewhere.join(', ')} (above)`)
        : [];
    group(
      `${proc.name}: ${proc.file}`,
      own,
      (key) => proc.fields.get(key),
      () => undefined,
      trailer,
    );
  }

  const unread = catalogKeys.filter((key) => !placed.has(key));
  if (unread.length > 0)
    group(`in the catalogue, read by no process: ${CATALOG_FILE}`, unread, (key) =>
      catalog.get(key),
    );

  return { text: `${HEADER}\n${groups.join('\n\n')}\n`, placed };
}

/** The catalogue's environment names: each process's address (`http://127.0.0.1:<port>`) and database URL. */
function catalogFields(services) {
  const fields = new Map();
  for (const entry of Object.values(services)) {
    fields.set(entry.urlEnv, { fallback: `http://127.0.0.1:${entry.port}`, address: true });
    if (entry.databaseUrlEnv) fields.set(entry.databaseUrlEnv, {});
  }
  return fields;
}

const { baseConfigSchema } = await importSource(BASE_FILE);
const { SERVICES } = await importSource(CATALOG_FILE);
const { text, placed } = render(
  describeShape(shapeOf(baseConfigSchema)),
  catalogFields(SERVICES),
  await loadProcesses(),
);

// The schemas as text and as loaded must name the same settings: a name only the source
// shows is a schema this script did not find.
const missing = [...settingNames(ROOT).keys()].filter((name) => !placed.has(name));
if (missing.length > 0) {
  console.error(
    `env-example: declared in a config file but in no schema it loaded: ${missing.join(', ')}`,
  );
  process.exit(1);
}

if (process.argv.includes('--check')) {
  const committed = readFileSync(path.join(ROOT, OUTPUT), 'utf8');
  if (committed !== text) {
    const a = committed.split('\n');
    const b = text.split('\n');
    const line = a.findIndex((l, i) => l !== b[i]);
    console.error(
      `${OUTPUT} is not what the schemas give (run \`pnpm env-example\`): line ${line + 1}\n` +
        `  committed: ${a[line] ?? '(end of file)'}\n  expected:  ${b[line] ?? '(end of file)'}`,
    );
    process.exit(1);
  }
  console.log(`${OUTPUT} matches the schemas (${placed.size} settings)`);
} else {
  writeFileSync(path.join(ROOT, OUTPUT), text);
  console.log(`wrote ${OUTPUT} (${placed.size} settings)`);
}
