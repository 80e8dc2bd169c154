// Invalid variants of valid requests: what clients, proxies and attackers actually send.
// Each mutation is chosen and placed by plain generated numbers, so fast-check shrinks
// them like any other value and a seed replays the same ones.
import fc from 'fast-check';

/**
 * Text a store, a parser or a length check may choke on, by kind (each kind is drawn as
 * often as the others, however many strings it lists).
 */
export const NASTY_TEXT = {
  'control characters': ['a\u0000b', '\u0000', '\u0001\u0002\u001b[31m\u007f', '\u0085\u009f', '\t\n\r '],
  'lone surrogates': ['\ud800', 'x\udfffy', '\udc00\ud800', '😀\ud83d'],
  'bidi and invisible': ['\u200f\u202eevil\u202c', '\u2066\u2069', '\u200b\u200d\ufeff', '\uffff\ufffe', '\u{10FFFF}'],
  'long in code units': ['e' + '\u0301'.repeat(300), '😀'.repeat(120), '𝄞'.repeat(1100)],
  'blank': ['', ' ', '\u3000'],
  'injection': ["' OR 1=1 --", '%_\\', '%%%', '\\', '(.*)+$[', '<script>alert(1)</script>', '<svg onload=alert(1)>', '../../etc/passwd', '%s%n%x', '{"a":1}', 'null', 'undefined', '__proto__'],
  'long': ['x'.repeat(5000)],
} as const satisfies Record<string, readonly string[]>;

export const NASTY_STRINGS: readonly string[] = Object.values(NASTY_TEXT).flat();

/** A nasty string, each kind as likely as the others. */
export const nastyString: fc.Arbitrary<{ kind: string; value: string }> = fc.oneof(
  ...Object.entries(NASTY_TEXT).map(([kind, values]) => fc.constantFrom(...values).map((value) => ({ kind, value }))),
);

/** Numbers and booleans written as strings, where a number (or a string) is expected. */
export const NUMBERS_AS_STRINGS: readonly string[] = [
  '1',
  '-1',
  '0',
  '1.5',
  '1e309',
  '-0',
  'NaN',
  'Infinity',
  '0x1F',
  ' 7 ',
  '007',
  '9007199254740993',
  'true',
];

/** JSON values of every type, to put where another type is expected. */
export const WRONG_TYPES: readonly unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  1e308,
  -1e21,
  [],
  {},
  [1, 'two'],
  { a: {} },
  'string',
];

/** Keys an object should not be surprised by. */
export const ODD_KEYS: readonly string[] = [
  '__proto__',
  'constructor',
  'prototype',
  'toString',
  'hasOwnProperty',
  '',
  'a\u0000b',
  '\ud800',
  'x'.repeat(300),
  'unknown_field',
];

/**
 * A value nested `depth` levels deep in arrays or objects. Kept as this marker, written out
 * by `toJsonText`: JSON.stringify (and structuredClone) of such a value overflows the stack.
 */
const NESTED_MARK = '\u0000nested\u0000';

export class Nested {
  constructor(
    readonly depth: number,
    readonly inObjects: boolean,
  ) {}
  toText(): string {
    return this.inObjects
      ? '{"a":'.repeat(this.depth) + '1' + '}'.repeat(this.depth)
      : '['.repeat(this.depth) + '1' + ']'.repeat(this.depth);
  }
  toJSON(): string {
    return `${NESTED_MARK}${this.inObjects ? 'o' : 'a'}${this.depth}${NESTED_MARK}`;
  }
}

/** JSON text of a value that may hold Nested markers. */
export function toJsonText(value: unknown): string {
  return JSON.stringify(value).replace(/"\\u0000nested\\u0000([oa])(\d+)\\u0000nested\\u0000"/g, (_, kind: string, depth: string) =>
    new Nested(Number(depth), kind === 'o').toText(),
  );
}

/** What a location's value may become. */
export const valueMutation = fc.oneof(
  { weight: 6, arbitrary: nastyString.map((n) => ({ kind: n.kind, value: n.value as unknown })) },
  { weight: 2, arbitrary: fc.constantFrom(...NUMBERS_AS_STRINGS).map((v) => ({ kind: 'number as string', value: v as unknown })) },
  { weight: 3, arbitrary: fc.constantFrom(...WRONG_TYPES).map((v) => ({ kind: 'wrong type', value: v })) },
  {
    weight: 1,
    arbitrary: fc
      .tuple(fc.constantFrom(50, 1000, 5000, 20_000), fc.boolean())
      .map(([depth, inObjects]) => ({ kind: `nested ${depth} deep`, value: new Nested(Math.min(depth, inObjects ? 9000 : depth), inObjects) as unknown })),
  },
  { weight: 1, arbitrary: fc.integer({ min: 2000, max: 70_000 }).map((n) => ({ kind: 'oversized string', value: 'y'.repeat(n) as unknown })) },
);

export type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** Every location of a JSON value: [] is the root, then each key or index path. */
export function locationsOf(value: unknown, path: (string | number)[] = []): (string | number)[][] {
  const here = [path];
  if (Array.isArray(value)) return here.concat(...value.map((v, i) => locationsOf(v, [...path, i])));
  if (value !== null && typeof value === 'object')
    return here.concat(...Object.entries(value).map(([k, v]) => locationsOf(v, [...path, k])));
  return here;
}

// Mutations apply to valid values, which hold no Nested marker yet.
const clone = <T>(value: T): T => (value === undefined ? value : structuredClone(value));

function parentOf(root: unknown, path: (string | number)[]): Record<string | number, unknown> | undefined {
  let node = root as Record<string | number, unknown>;
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>;
  return node !== null && typeof node === 'object' ? node : undefined;
}

/** One mutation of a JSON body: how, where (an index into its locations) and with what. */
export interface BodyMutation {
  kind: 'replace' | 'delete' | 'add key' | 'array for object' | 'duplicate key';
  at: number;
  value: { kind: string; value: unknown };
  key: string;
}

export const bodyMutation: fc.Arbitrary<BodyMutation> = fc.record({
  kind: fc.constantFrom('replace', 'replace', 'replace', 'delete', 'add key', 'array for object', 'duplicate key'),
  at: fc.nat(),
  value: valueMutation,
  key: fc.oneof(fc.constantFrom(...ODD_KEYS), fc.string({ minLength: 1, maxLength: 8 })),
});

/**
 * Applies `m` to a copy of `value`. Answers JSON to send, or raw text when the mutation
 * cannot be written as a JSON value (a duplicate key).
 */
export function applyBodyMutation(value: unknown, m: BodyMutation): { json: unknown } | { text: string; what: string } {
  const root = { root: clone(value) } as Record<string, unknown>;
  const locations = locationsOf(root.root).map((p) => ['root', ...p]);
  const path = locations[m.at % locations.length]!;
  const parent = parentOf(root, path)!;
  const last = path[path.length - 1]!;
  const target = parent[last];
  switch (m.kind) {
    case 'replace':
      parent[last] = m.value.value;
      break;
    case 'delete':
      if (path.length === 1) return { json: undefined };
      if (Array.isArray(parent)) parent.splice(Number(last), 1);
      else delete parent[last];
      break;
    case 'add key':
      if (target !== null && typeof target === 'object' && !Array.isArray(target))
        Object.defineProperty(target, m.key, { value: m.value.value, enumerable: true, writable: true, configurable: true });
      else parent[last] = { [m.key]: m.value.value };
      break;
    case 'array for object':
      parent[last] = [target];
      break;
    case 'duplicate key': {
      // JSON.parse keeps the last of two equal keys; a hand-rolled parser may keep the first.
      if (target === null || typeof target !== 'object' || Array.isArray(target) || Object.keys(target).length === 0)
        return { json: root.root };
      const [key] = Object.keys(target);
      const text = toJsonText(root.root).replace(
        toJsonText(target),
        toJsonText(target).replace(/^\{/, `{${JSON.stringify(key)}:${toJsonText(m.value.value ?? null)},`),
      );
      return { text, what: `duplicate key ${key}` };
    }
  }
  return { json: root.root };
}

/** Bodies that are not the JSON object an operation expects at all. */
export const RAW_BODIES: readonly { what: string; contentType: string | undefined; bytes: string }[] = [
  { what: 'empty body', contentType: 'application/json', bytes: '' },
  { what: 'truncated JSON', contentType: 'application/json', bytes: '{"a":' },
  { what: 'single quotes', contentType: 'application/json', bytes: "{'a':1}" },
  { what: 'trailing garbage', contentType: 'application/json', bytes: '{}x' },
  { what: 'NaN literal', contentType: 'application/json', bytes: '{"a":NaN}' },
  { what: 'byte order mark', contentType: 'application/json', bytes: '\ufeff{}' },
  { what: 'top-level null', contentType: 'application/json', bytes: 'null' },
  { what: 'top-level string', contentType: 'application/json', bytes: '"text"' },
  { what: 'top-level number', contentType: 'application/json', bytes: '1e999' },
  { what: 'top-level array', contentType: 'application/json', bytes: '[]' },
  { what: 'escaped lone surrogate', contentType: 'application/json', bytes: '{"a":"\\ud800"}' },
  { what: 'escaped NUL key', contentType: 'application/json', bytes: '{"\\u0000":1}' },
  { what: 'plain text', contentType: 'text/plain', bytes: 'hello' },
  { what: 'form encoded', contentType: 'application/x-www-form-urlencoded', bytes: 'a=1&a=2&b[c]=3' },
  { what: 'no content type', contentType: undefined, bytes: '{"a":1}' },
  { what: 'JSON in latin1', contentType: 'application/json; charset=latin1', bytes: '{}' },
  { what: 'JSON as UTF-16', contentType: 'application/json; charset=utf-16', bytes: '{}' },
  { what: 'multipart', contentType: 'multipart/form-data; boundary=x', bytes: '--x\r\n\r\n--x--' },
  { what: 'vendor JSON', contentType: 'application/vnd.api+json', bytes: '{}' },
];

/** Byte sequences that are not UTF-8, as hex (sent inside a JSON string). */
export const INVALID_UTF8_HEX: readonly string[] = ['ff', 'fe', 'c080', '80', 'eda080', 'f4908080', 'e0a4'];

/** Percent-encoded sequences a path or query decoder may refuse or mis-decode. */
export const PERCENT_JUNK: readonly string[] = [
  '%',
  '%zz',
  '%ff',
  '%c0%80',
  '%ed%a0%80',
  '%e0%a4',
  '%00',
  '%0a',
  '%2f',
  '%2e%2e',
  '%252e',
  '+',
  '%u0041',
];

/** A string as a path segment or query value: percent-encoded, lone surrogates as raw bytes. */
export function encode(value: string): string {
  let out = '';
  for (const ch of value) {
    const code = ch.codePointAt(0)!;
    // A lone surrogate has no UTF-8 form: send the bytes a careless encoder would (CESU-8).
    if (code >= 0xd800 && code <= 0xdfff)
      out += `%${(0xe0 | (code >> 12)).toString(16)}%${(0x80 | ((code >> 6) & 0x3f)).toString(16)}%${(0x80 | (code & 0x3f)).toString(16)}`;
    else out += encodeURIComponent(ch);
  }
  return out;
}

/** One mutation of a query string (as pairs), placed by `at`. */
export interface QueryMutation {
  kind: 'duplicate' | 'replace' | 'unknown' | 'brackets' | 'percent junk' | 'bare key' | 'deep brackets' | 'oversized';
  at: number;
  value: string;
  junk: string;
}

export const queryMutation: fc.Arbitrary<QueryMutation> = fc.record({
  kind: fc.oneof(
    { weight: 30, arbitrary: fc.constantFrom('duplicate', 'duplicate', 'replace', 'replace', 'unknown', 'brackets', 'percent junk', 'bare key', 'deep brackets') },
    { weight: 1, arbitrary: fc.constant('oversized') },
  ),
  at: fc.nat(),
  // Short enough that two of them stay within a request head: 'oversized' goes past it.
  value: fc.oneof(nastyString.map((n) => n.value).filter((v) => encode(v).length <= 4000), fc.constantFrom(...NUMBERS_AS_STRINGS)),
  junk: fc.constantFrom(...PERCENT_JUNK),
});

/** The query string (without `?`) of `pairs` after `m`; `known` are the operation's keys. */
export function mutateQuery(pairs: [string, string][], known: string[], m: QueryMutation): string {
  const keys = known.length > 0 ? known : ['q'];
  const key = keys[m.at % keys.length]!;
  const parts = pairs.map(([k, v]) => `${encode(k)}=${encode(v)}`);
  switch (m.kind) {
    case 'duplicate':
      return [...parts, `${encode(key)}=${encode(m.value)}`, `${encode(key)}=${encode(m.value)}x`].join('&');
    case 'replace':
      return [...pairs.filter(([k]) => k !== key).map(([k, v]) => `${encode(k)}=${encode(v)}`), `${encode(key)}=${encode(m.value)}`].join('&');
    case 'unknown':
      return [...parts, `${encode(m.value.slice(0, 50) || 'x')}=1`].join('&');
    case 'brackets':
      return [...parts, `${encode(key)}[]=${encode(m.value)}`, `${encode(key)}[x]=1`].join('&');
    case 'deep brackets':
      return [...parts, `${encode(key)}[a][b][c][d][e][f][g]=1`, `${encode(key)}[__proto__][x]=1`].join('&');
    case 'percent junk':
      return [...parts, `${encode(key)}=a${m.junk}b`].join('&');
    case 'bare key':
      return [...parts, encode(key), '&&', '='].join('&');
    case 'oversized':
      // Past what the gateway takes in a request head (15 KiB): a 431 of its own.
      return [...parts, `${encode(key)}=${'z'.repeat(16_000)}`].join('&');
  }
}

/** A path segment that is not a plain id: nasty text, percent junk, or very long. */
export const segmentMutation: fc.Arbitrary<{ what: string; segment: string }> = fc.oneof(
  nastyString.filter((n) => n.value.trim() !== '').map((n) => ({ what: `${n.kind} ${JSON.stringify(n.value.slice(0, 20))}`, segment: encode(n.value) })),
  fc.constantFrom(...PERCENT_JUNK).map((j) => ({ what: `percent junk ${j}`, segment: `a${j}b` })),
  fc.integer({ min: 129, max: 6000 }).map((n) => ({ what: `${n} characters`, segment: 'p'.repeat(n) })),
);
