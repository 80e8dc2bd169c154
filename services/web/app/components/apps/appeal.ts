// An appeal form's post, checked against the contract's own schema (AppealBody from
// @svc/types) before anything is sent: a post without JavaScript, or one that skipped the
// browser's checks, gets the same words as the browser. Pure; test/appeal.test.ts covers it.
import { APPEAL_TEXT_MAX, AppealBody, textLimits } from '@svc/types';

export const APPEAL_MAX = textLimits(AppealBody.shape.text).maxLength ?? APPEAL_TEXT_MAX;

export type AppealProblem = 'required' | 'tooLong';

export function parseAppeal(form: FormData): { ok: true; text: string } | { ok: false; problem: AppealProblem } {
  const raw = form.get('text');
  const parsed = AppealBody.safeParse({ text: typeof raw === 'string' ? raw : '' });
  if (parsed.success) return { ok: true, text: parsed.data.text };
  return { ok: false, problem: typeof raw === 'string' && raw.trim() !== '' ? 'tooLong' : 'required' };
}

/**
 * Which words a refused appeal gets: 409 is either "already appealed" or "no longer blocked"
 * (the API says which in its message); other refusals go through the shared wording.
 */
export function appealFailureKey(status: number, message: string): string | undefined {
  if (status === 404) return 'block.notFound';
  if (status === 409) return /already appealed/i.test(message) ? 'block.alreadyAppealed' : 'block.notBlocked';
  return undefined;
}
