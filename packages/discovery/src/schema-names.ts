// Names for the OpenAPI components: every zod record or enum of @svc/types that an endpoint
// uses gets the name it is exported under, so `Site`, `App`, `ChatMessage`... appear once
// in `components.schemas` and are referenced everywhere else.
import * as contract from '@svc/types';
import type { Endpoint } from '@svc/types';
import { z } from 'zod';

type AnyZod = z.core.$ZodType;

const isZod = (value: unknown): value is AnyZod =>
  typeof value === 'object' && value !== null && '_zod' in value;

/** The zod schemas among `values` (drops the undefined of optional catalogue fields). */
const zods = (values: unknown[]): AnyZod[] => values.filter(isZod);

/**
 * Export name of each zod schema of @svc/types. A schema exported under two names
 * (`UpdateAppResponse = AppDetailResponse`) keeps the first in alphabetical order, which
 * keeps the document stable from one build to the next.
 */
function exportNames(): Map<AnyZod, string> {
  const names = new Map<AnyZod, string>();
  for (const name of Object.keys(contract).sort()) {
    const value = (contract as Record<string, unknown>)[name];
    if (isZod(value) && !names.has(value)) names.set(value, name);
  }
  return names;
}

/** The zod schemas directly inside `schema` (object fields, array items, wrapped types...). */
function children(schema: AnyZod): AnyZod[] {
  const def = schema._zod.def as unknown as Record<string, unknown>;
  const out: unknown[] = [];
  switch (def.type) {
    case 'object':
      out.push(...Object.values(def.shape as Record<string, unknown>));
      if (def.catchall) out.push(def.catchall);
      break;
    case 'array':
      out.push(def.element);
      break;
    case 'record':
      out.push(def.keyType, def.valueType);
      break;
    case 'union':
      out.push(...(def.options as unknown[]));
      break;
    case 'intersection':
      out.push(def.left, def.right);
      break;
    case 'tuple':
      out.push(...(def.items as unknown[]), def.rest);
      break;
    case 'pipe':
      out.push(def.in, def.out);
      break;
    case 'lazy':
      out.push((def.getter as () => unknown)());
      break;
    default:
      if ('innerType' in def) out.push(def.innerType);
  }
  return zods(out);
}

/**
 * The named records and enums the endpoints use, in a deterministic order (catalogue order,
 * depth first): records and enums inside bodies and responses (a body or response that is
 * itself a named record too), and enums inside path and query objects. The path and query
 * objects themselves are not components: they become parameters.
 */
export function componentSchemas(endpoints: readonly Endpoint[]): Record<string, AnyZod> {
  const names = exportNames();
  const found = new Map<string, AnyZod>();
  const walk = (roots: AnyZod[], kinds: ReadonlySet<string>, skipRoots: boolean) => {
    const seen = new Set<AnyZod>();
    const visit = (schema: AnyZod, root: boolean) => {
      if (seen.has(schema)) return;
      seen.add(schema);
      const name = names.get(schema);
      if (!(root && skipRoots) && name !== undefined && kinds.has(schema._zod.def.type))
        if (!found.has(name)) found.set(name, schema);
      for (const child of children(schema)) visit(child, false);
    };
    for (const root of roots) visit(root, true);
  };
  walk(
    endpoints.flatMap((e) => zods([e.body, ...Object.values(e.responses).map((r) => r.schema)])),
    new Set(['object', 'enum']),
    false,
  );
  walk(
    endpoints.flatMap((e) => zods([e.params, e.query])),
    new Set(['enum']),
    true,
  );
  return Object.fromEntries(found);
}
