// The trace context of a request as a chain of one-value links. The API's own context
// (`BaseContext`) copies its whole Map on every `setValue` and makes three closures per
// context; a traced request makes three or four of them (the caller's span, the server
// span, each client span), and they live as long as the request, so every scavenge that
// meets one copies it (bench/README.md, "Tracing"). A link is one small object. Values and
// their lookup are the same as the API's: the nearest link with the key wins, and anything
// not in the chain is asked of the context it started from.
import type { Context } from '@opentelemetry/api';

/** What `deleteValue` leaves in a link: the key reads as missing from there down. */
const DELETED = Symbol('deleted context value');
/**
 * Longer chains are rebuilt as one context of the base's kind (lookups walk the chain; a
 * request makes a handful of links, a loop deriving context from context could make more).
 */
export const MAX_LINKS = 16;

export class LinkedContext implements Context {
  private readonly links: number;

  constructor(
    private readonly parent: Context,
    private readonly key: symbol,
    private readonly value: unknown,
  ) {
    this.links = parent instanceof LinkedContext ? parent.links + 1 : 1;
  }

  getValue(key: symbol): unknown {
    if (this.key === key) return this.value === DELETED ? undefined : this.value;
    let context = this.parent;
    while (context instanceof LinkedContext) {
      if (context.key === key) return context.value === DELETED ? undefined : context.value;
      context = context.parent;
    }
    return context.getValue(key);
  }

  setValue(key: symbol, value: unknown): Context {
    return this.links < MAX_LINKS
      ? new LinkedContext(this, key, value)
      : this.flattened().setValue(key, value);
  }

  deleteValue(key: symbol): Context {
    return this.links < MAX_LINKS
      ? new LinkedContext(this, key, DELETED)
      : this.flattened().deleteValue(key);
  }

  /** The same values as one context of the base's kind: each key's nearest link, applied. */
  private flattened(): Context {
    const nearest = new Map<symbol, unknown>([[this.key, this.value]]);
    let context = this.parent;
    while (context instanceof LinkedContext) {
      if (!nearest.has(context.key)) nearest.set(context.key, context.value);
      context = context.parent;
    }
    for (const [key, value] of nearest)
      context = value === DELETED ? context.deleteValue(key) : context.setValue(key, value);
    return context;
  }
}
