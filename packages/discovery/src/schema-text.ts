// Renders the JSON Schemas of the OpenAPI document as short English for llms-full.txt:
// `string, 1–200 characters`, `integer 1–100, default 50`, `Site[]`, `"hot" | "recent"`.
type Schema = Record<string, unknown>;

const REF_PREFIX = '#/components/schemas/';
const SAFE = Number.MAX_SAFE_INTEGER;

const quote = (v: unknown) => JSON.stringify(v);

function range(min: unknown, max: unknown, unit: string): string | undefined {
  const lo = typeof min === 'number' && min > -SAFE ? min : undefined;
  const hi = typeof max === 'number' && max < SAFE ? max : undefined;
  const of = (n: number) => (unit && n !== 1 ? `${n} ${unit}s` : unit ? `${n} ${unit}` : `${n}`);
  if (lo !== undefined && hi !== undefined)
    return lo === hi ? `exactly ${of(lo)}` : `${lo}–${of(hi)}`;
  if (hi !== undefined) return `at most ${of(hi)}`;
  if (lo !== undefined && lo > 0) return `at least ${of(lo)}`;
  return undefined;
}

/** The constraints of a schema, e.g. `1–200 characters, format email`. */
function constraints(s: Schema): string[] {
  const out: string[] = [];
  if (s.type === 'string') {
    const length = range(s.minLength, s.maxLength, 'character');
    if (length) out.push(length);
    if (typeof s.format === 'string') out.push(`format ${s.format}`);
    else if (typeof s.pattern === 'string') out.push(`pattern ${s.pattern}`);
  }
  if (s.type === 'integer' || s.type === 'number') {
    const values = range(s.minimum, s.maximum, '');
    if (values) out.push(values);
    else if (s.minimum === 0) out.push('≥ 0');
  }
  if (s.type === 'array') {
    const items = range(s.minItems, s.maxItems, 'item');
    if (items) out.push(items);
  }
  if (s.default !== undefined) out.push(`default ${quote(s.default)}`);
  return out;
}

/** A compact type: `Site`, `string`, `"a" | "b"`, `Site[]`, `string or null`. */
export function typeText(s: Schema): string {
  if (typeof s.$ref === 'string')
    return s.$ref.startsWith(REF_PREFIX) ? s.$ref.slice(REF_PREFIX.length) : s.$ref;
  if ('const' in s) return quote(s.const);
  if (Array.isArray(s.enum)) return s.enum.map(quote).join(' | ');
  const union = (s.anyOf ?? s.oneOf) as Schema[] | undefined;
  if (union) return union.map((u) => typeText(u)).join(' or ');
  if (s.type === 'array') {
    const item = typeText((s.items as Schema) ?? {});
    return /\s/.test(item) ? `array of (${item})` : `${item}[]`;
  }
  if (s.type === 'object') {
    const props = Object.keys((s.properties as Schema) ?? {});
    return props.length ? `{ ${props.join(', ')} }` : 'object';
  }
  if (typeof s.type === 'string') return s.type;
  return 'any';
}

/** `type, constraints` of one value. */
export function valueText(s: Schema): string {
  return [typeText(s), ...constraints(s)].join(', ');
}

/** One line per property: `- name (type, required, limits): description`. */
export function fieldLines(s: Schema, indent = ''): string[] {
  const props = (s.properties as Record<string, Schema>) ?? {};
  const required = new Set((s.required as string[]) ?? []);
  return Object.entries(props).map(([name, prop]) => {
    const details = [
      typeText(prop),
      required.has(name) ? 'required' : 'optional',
      ...constraints(prop),
    ];
    const description = typeof prop.description === 'string' ? `: ${prop.description}` : '';
    return `${indent}- \`${name}\` (${details.join(', ')})${description}`;
  });
}
