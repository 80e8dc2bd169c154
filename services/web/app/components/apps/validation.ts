// Field errors from the contract's own zod schemas (@svc/types), in the reader's words:
// one translated message per field (`fields.<name>.invalid`). Imported only by the
// developer pages, the one place zod may load in the browser.
import type { AnyT } from './errors';
import type { z } from 'zod';

export type FieldErrors = Partial<Record<string, string>>;

export function fieldErrors(error: z.ZodError, t: AnyT): FieldErrors {
  const out: FieldErrors = {};
  for (const issue of error.issues) {
    const field = String(issue.path[0] ?? 'form');
    out[field] ??= t(`fields.${field}.invalid`, { defaultValue: issue.message });
  }
  return out;
}

/** The error's element id for aria-describedby / aria-errormessage. */
export const errorId = (form: string, field: string) => `${form}-${field}-error`;
