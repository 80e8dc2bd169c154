// Requests that carry text no store can hold in one place each, generated from the
// endpoint catalogue: every path parameter, every query parameter and every string (or
// list-of-strings) field of every body. Operations without any of those get it in an
// extra query parameter. The kit's services refuse all of them with 400 and the text's error.
import { ENDPOINTS, ERROR_MESSAGES, type Endpoint } from '@svc/types';

/** One kind of text no field may hold: as it is written in a URL and in a JSON body. */
export interface InvalidText {
  name: string;
  /** Already percent-encoded. */
  inUrl: string;
  inBody: string;
  error: string;
}

export const INVALID_TEXTS: readonly InvalidText[] = [
  { name: 'a NUL', inUrl: 'a%00b', inBody: 'a\u0000b', error: ERROR_MESSAGES.nulCharacter },
  // An encoded surrogate in the URL; its JSON escape in the body (JSON.stringify keeps "\ud800").
  { name: 'a lone surrogate', inUrl: 'a%ED%A0%80b', inBody: 'a\ud800b', error: ERROR_MESSAGES.invalidUnicode },
  // A byte that starts no UTF-8 sequence; a low surrogate before a high one in the body.
  { name: 'invalid UTF-8 / a reversed pair', inUrl: '%FF', inBody: '\udc00\ud800', error: ERROR_MESSAGES.invalidUnicode },
];

export interface InvalidTextRequest {
  operationId: string;
  /** Where the text is, for failure messages: `path id`, `query search`, `body name`. */
  where: string;
  method: Endpoint['method'];
  path: string;
  body?: Record<string, unknown>;
}

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

/** `text` as the value of a string or list-of-strings field; undefined for other types. */
function valueFor(schema: Schema, text: string): unknown {
  const def = defOf(unwrap(schema));
  if (def.type === 'string') return text;
  if (def.type === 'array' && def.element && defOf(unwrap(def.element)).type === 'string')
    return [text];
  return undefined;
}

/** Fills path parameters: `inUrl` for the one under test, a plain value for the others. */
const fill = (path: string, inUrl?: string, param?: string) =>
  path.replace(/\{([^}]+)\}/g, (_, name: string) => (name === param && inUrl ? inUrl : 'plain-id'));

export function invalidTextRequests(served: (e: Endpoint) => boolean, text: InvalidText): InvalidTextRequest[] {
  const out: InvalidTextRequest[] = [];
  for (const e of ENDPOINTS.filter(served)) {
    const base = { operationId: e.operationId, method: e.method };
    const before = out.length;
    for (const name of Object.keys(shapeOf(e.params)))
      out.push({ ...base, where: `path ${name}`, path: fill(e.path, text.inUrl, name) });
    for (const name of Object.keys(shapeOf(e.query)))
      out.push({ ...base, where: `query ${name}`, path: `${fill(e.path)}?${name}=${text.inUrl}` });
    for (const [name, field] of Object.entries(shapeOf(e.body))) {
      const value = valueFor(field, text.inBody);
      if (value !== undefined)
        out.push({ ...base, where: `body ${name}`, path: fill(e.path), body: { [name]: value } });
    }
    if (out.length === before)
      out.push({ ...base, where: 'query (undeclared)', path: `${fill(e.path)}?x=${text.inUrl}` });
  }
  return out;
}
