// `text()`: the string schema of every user-written field, its limits in code points.
import { z } from 'zod';
import { codePointLength, INVALID_UNICODE, isWellFormedText } from './text.js';

interface TextOptions {
  /** Fewest characters (code points); after trimming when `trim` is set. */
  min?: number;
  /** Trim white space at both ends before the limits are checked. */
  trim?: boolean;
}

/**
 * A string of at most `max` characters counted in code points (zod's own `.max` counts
 * UTF-16 units). The JSON Schema keeps `minLength`/`maxLength`, which count code points too.
 */
export function text(max: number, options: TextOptions = {}) {
  const { min, trim = false } = options;
  return limitText(trim ? z.string().trim() : z.string(), max, min);
}

/** `text()`'s checks on another string schema (`z.url()`, say). */
export function limitText<T extends z.ZodString | z.ZodStringFormat>(schema: T, max: number, min?: number): T {
  const checked = schema.check((ctx) => {
    if (!isWellFormedText(ctx.value)) {
      ctx.issues.push({ code: 'custom', message: INVALID_UNICODE, input: ctx.value });
      return;
    }
    const length = codePointLength(ctx.value);
    if (min !== undefined && length < min)
      ctx.issues.push({ code: 'too_small', minimum: min, origin: 'string', inclusive: true, input: ctx.value });
    else if (length > max)
      ctx.issues.push({ code: 'too_big', maximum: max, origin: 'string', inclusive: true, input: ctx.value });
  });
  // check and meta return the same kind of schema they are called on.
  return checked.meta(min === undefined ? { maxLength: max } : { minLength: min, maxLength: max }) as T;
}

/** The `{ minLength, maxLength }` a `text()` schema declares (for forms and messages). */
export function textLimits(schema: z.ZodType): { minLength?: number; maxLength?: number } {
  const meta = schema.meta() as { minLength?: number; maxLength?: number } | undefined;
  return { minLength: meta?.minLength, maxLength: meta?.maxLength };
}
