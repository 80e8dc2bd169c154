// Requests that carry a NUL character (U+0000) in one place each, generated from the
// endpoint catalogue: every path parameter, every query parameter and every string (or
// list-of-strings) field of every body. Operations without any of those get one in an
// extra query parameter. The kit's services refuse all of them with 400.
import { ENDPOINTS, type Endpoint } from '@svc/types';

export interface NulRequest {
  operationId: string;
  /** Where the NUL is, for failure messages: `path id`, `query search`, `body name`. */
  where: string;
  method: Endpoint['method'];
  path: string;
  body?: Record<string, unknown>;
}

const NUL = 'a\u0000b';

/** A zod schema, as the catalogue holds them. */
type Schema = NonNullable<Endpoint['body']>;

type Def = { type: string; innerType?: Schema; in?: Schema; element?: Schema; shape?: Record<string, Schema> };
const defOf = (schema: Schema) => (schema as unknown as { _zod: { def: Def } })._zod.def;

/** The schema under optional / nullable / default / pipe wrappers. */
function unwrap(schema: Schema): Schema {
  const def = defOf(schema);
  if (def.innerType) return unwrap(def.innerType);
  if (def.type === 'pipe' && def.in) return unwrap(def.in);
  return schema;
}

const shapeOf = (schema: Schema | undefined): Record<string, Schema> => {
  if (!schema) return {};
  const inner = unwrap(schema) as unknown as { shape?: Record<string, Schema> };
  return inner.shape ?? {};
};

/** A NUL-carrying value for a string or list-of-strings field; undefined for other types. */
function nulValueFor(schema: Schema): unknown {
  const def = defOf(unwrap(schema));
  if (def.type === 'string') return NUL;
  if (def.type === 'array' && def.element && defOf(unwrap(def.element)).type === 'string')
    return [NUL];
  return undefined;
}

/** Fills path parameters: `nul` for the one under test, a plain value for the others. */
const fill = (path: string, nulParam?: string) =>
  path.replace(/\{([^}]+)\}/g, (_, name: string) =>
    name === nulParam ? encodeURIComponent(NUL) : 'plain-id',
  );

export function nulRequests(served: (e: Endpoint) => boolean): NulRequest[] {
  const out: NulRequest[] = [];
  for (const e of ENDPOINTS.filter(served)) {
    const base = { operationId: e.operationId, method: e.method };
    const before = out.length;
    for (const name of Object.keys(shapeOf(e.params)))
      out.push({ ...base, where: `path ${name}`, path: fill(e.path, name) });
    for (const name of Object.keys(shapeOf(e.query)))
      out.push({ ...base, where: `query ${name}`, path: `${fill(e.path)}?${name}=${encodeURIComponent(NUL)}` });
    for (const [name, field] of Object.entries(shapeOf(e.body))) {
      const value = nulValueFor(field);
      if (value !== undefined)
        out.push({ ...base, where: `body ${name}`, path: fill(e.path), body: { [name]: value } });
    }
    if (out.length === before)
      out.push({ ...base, where: 'query (undeclared)', path: `${fill(e.path)}?x=${encodeURIComponent(NUL)}` });
  }
  return out;
}
