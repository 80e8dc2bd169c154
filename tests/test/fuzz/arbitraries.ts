// JSON Schema (what zod 4's `toJSONSchema({ io: 'input' })` writes for the catalogue's
// request schemas) to fast-check arbitraries of values the schema accepts. zod-fast-check
// knows zod 3 only; the JSON Schema is zod's public output, so this reads nothing private.
// Refinements JSON Schema cannot say (`.trim()` before `.min(1)`, `z.url()`) are left to
// the caller, which filters with the zod schema itself.
import fc from 'fast-check';

export interface JsonSchema {
  type?: string | string[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  additionalProperties?: boolean | JsonSchema;
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
}

/** A zod schema as the catalogue holds it: only its JSON Schema is read. */
export interface ToJsonSchema {
  toJSONSchema(params?: { io?: 'input' | 'output'; unrepresentable?: 'any' | 'throw' }): unknown;
}

export const jsonSchemaOf = (schema: ToJsonSchema): JsonSchema =>
  schema.toJSONSchema({ io: 'input', unrepresentable: 'any' }) as JsonSchema;

/** Replaces the arbitrary of one location (a property path from the root), e.g. real ids. */
export type Override = (path: readonly string[]) => fc.Arbitrary<unknown> | undefined;

/**
 * Characters valid text is made of, beyond ASCII: other scripts, combining marks, astral
 * characters (two UTF-16 units each), bidirectional marks and zero-width characters are
 * all accepted input, and each has broken a length check, a search or a page somewhere.
 */
const TEXT_UNIT = fc.oneof(
  { weight: 6, arbitrary: fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }) },
  { weight: 2, arbitrary: fc.constantFrom('字', '漢', 'é', 'ß', 'Ж', 'ع', 'ש', 'अ', 'ก', '한', 'ｱ') },
  { weight: 1, arbitrary: fc.constantFrom('😀', '𝄞', '👩‍💻', '🇫🇷', '\u{10FFFD}') },
  { weight: 1, arbitrary: fc.constantFrom('e\u0301', '\u200f', '\u202e', '\u2066', '\u200b', '\u200d', '\ufeff', '\u00a0') },
  { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 1, maxLength: 1 }) },
);

/** Text of `min..max` units (a unit may be two code points, so lengths are approximate). */
export function text(min: number, max: number): fc.Arbitrary<string> {
  return fc.array(TEXT_UNIT, { minLength: min, maxLength: Math.max(min, max) }).map((units) => units.join(''));
}

/** A string exactly at a length bound, of one repeated character (the boundary cases). */
function atLength(length: number): fc.Arbitrary<string> {
  return fc.constantFrom('x', '字', 'é').map((c) => c.repeat(length));
}

function patternOf(source: string): RegExp {
  try {
    return new RegExp(source, 'u');
  } catch {
    return new RegExp(source);
  }
}

function stringArbitrary(schema: JsonSchema): fc.Arbitrary<string> {
  const min = schema.minLength ?? 0;
  const max = schema.maxLength ?? Math.max(min, 48);
  const fits = (s: string) => s.length >= min && s.length <= max;
  if (schema.pattern) return fc.stringMatching(patternOf(schema.pattern), { maxLength: max }).filter(fits);
  if (schema.format === 'date-time')
    return fc.date({ min: new Date(0), max: new Date(4_102_444_800_000), noInvalidDate: true }).map((d) => d.toISOString());
  const short = text(min, Math.min(max, 24)).filter(fits);
  const bounds = [min, max].filter((n) => n > 0 && n <= 4096);
  return bounds.length > 0
    ? fc.oneof({ weight: 5, arbitrary: short }, { weight: 1, arbitrary: fc.constantFrom(...bounds).chain(atLength) })
    : short;
}

const INT32 = 2 ** 31 - 1;

function numberArbitrary(schema: JsonSchema, integer: boolean): fc.Arbitrary<number> {
  const min = schema.minimum ?? (schema.exclusiveMinimum !== undefined ? schema.exclusiveMinimum + 1 : -1_000_000);
  const max = schema.maximum ?? (schema.exclusiveMaximum !== undefined ? schema.exclusiveMaximum - 1 : 1_000_000);
  const edges = [min, max].filter(Number.isSafeInteger);
  if (!integer) return fc.double({ min, max, noNaN: true, noDefaultInfinity: true });
  // fast-check's integers are 32-bit: larger bounds (offset up to 2^53 - 1) are kept as edges.
  const body = fc.integer({ min: Math.max(min, -INT32), max: Math.min(max, INT32) });
  return edges.length > 0
    ? fc.oneof({ weight: 6, arbitrary: body }, { weight: 1, arbitrary: fc.constantFrom(...edges) })
    : body;
}

/** Values `schema` accepts; `override` supplies the arbitrary of chosen locations. */
export function arbitraryOf(
  schema: JsonSchema,
  override: Override = () => undefined,
  path: readonly string[] = [],
): fc.Arbitrary<unknown> {
  const replaced = override(path);
  if (replaced) return replaced;
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) return fc.oneof(...alternatives.map((s) => arbitraryOf(s, override, path)));
  if (Array.isArray(schema.type))
    return fc.oneof(...schema.type.map((type) => arbitraryOf({ ...schema, type }, override, path)));
  switch (schema.type) {
    case 'string':
      return stringArbitrary(schema);
    case 'integer':
      return numberArbitrary(schema, true);
    case 'number':
      return numberArbitrary(schema, false);
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array':
      return fc.array(arbitraryOf(schema.items ?? {}, override, [...path, '0']), {
        minLength: schema.minItems ?? 0,
        maxLength: Math.min(schema.maxItems ?? 4, 4),
      });
    case 'object': {
      const properties = schema.properties ?? {};
      const model = Object.fromEntries(
        Object.entries(properties).map(([name, s]) => [name, arbitraryOf(s, override, [...path, name])]),
      );
      return fc.record(model, { requiredKeys: (schema.required ?? []).filter((k) => k in properties) });
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}
