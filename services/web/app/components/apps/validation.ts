// Field errors from the contract's own zod schemas (@svc/types), in the reader's words:
// one translated message per field (`fields.<name>.invalid`). Imported only by the
// developer pages, the one place zod may load in the browser.
import type { FormEvent } from 'react';
import type { z } from 'zod';
import type { AnyT } from './errors';

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

/**
 * A form's submit handler checking its fields with a contract schema before anything is
 * sent: valid → the submit goes on; invalid → it is stopped, the field errors are shown and
 * the first field in error (in `order`, else the schema's) gets the focus.
 */
export function checkBeforeSubmit<T>(
  e: FormEvent<HTMLFormElement>,
  schema: z.ZodType<T>,
  bodyOf: (form: FormData) => unknown,
  t: AnyT,
  setErrors: (errors: FieldErrors) => void,
  order?: readonly string[],
): void {
  const parsed = schema.safeParse(bodyOf(new FormData(e.currentTarget)));
  if (parsed.success) {
    setErrors({});
    return;
  }
  e.preventDefault();
  const found = fieldErrors(parsed.error, t);
  setErrors(found);
  const first = order ? order.find((f) => found[f]) : Object.keys(found)[0];
  if (first) e.currentTarget.querySelector<HTMLElement>(`[name="${first}"]`)?.focus();
}
