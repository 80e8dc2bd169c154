// A labelled form field with its hint and its error next to it (announced, and tied to the
// control with aria-describedby / aria-invalid).
import { cloneElement, type ReactElement } from 'react';
import { errorId } from './validation';

export function Field({
  form,
  name,
  label,
  hint,
  error,
  children,
}: {
  form: string;
  name: string;
  label: string;
  hint?: string;
  error?: string;
  children: ReactElement<Record<string, unknown>>;
}) {
  const id = `${form}-${name}`;
  const hintId = `${id}-hint`;
  const errId = errorId(form, name);
  const describedBy = [hint ? hintId : null, error ? errId : null].filter(Boolean).join(' ') || undefined;
  return (
    <div className="field">
      <label htmlFor={id}>{label}</label>
      {cloneElement(children, {
        id,
        name,
        'aria-describedby': describedBy,
        'aria-invalid': error ? true : undefined,
      })}
      {hint ? (
        <span id={hintId} className="hint">
          {hint}
        </span>
      ) : null}
      <span id={errId} className="error-text field-error" aria-live="polite">
        {error ?? ''}
      </span>
    </div>
  );
}
