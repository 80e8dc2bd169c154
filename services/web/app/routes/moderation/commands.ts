// The moderation forms' posts as commands: which action (`intent`) on what, checked against
// the contract's schemas (@svc/types) before anything is sent, so a form without JavaScript
// gets the same field messages as one with it. Pure; the actions (moderation.server.ts) run
// the commands, test/moderation-commands.test.ts covers the parsing.
import { codePointLength, DismissReportsBody, HideSiteBody, Id, ModerationReasonBody, MuteChatSenderBody, textLimits } from '@svc/types';

export const INTENTS = ['restore', 'block', 'dismiss', 'hide-site', 'restore-site', 'delete-message', 'mute-sender'] as const;
export type Intent = (typeof INTENTS)[number];

export type Command =
  | { intent: 'restore' | 'block'; reason: string }
  | { intent: 'dismiss'; reason?: string }
  | { intent: 'hide-site'; siteId: string; reason: string }
  | { intent: 'restore-site'; siteId: string }
  | { intent: 'delete-message'; messageId: string }
  | { intent: 'mute-sender'; messageId: string; minutes: number };

export type Field = 'reason' | 'site_id' | 'message_id' | 'minutes';
export type ProblemCode = 'required' | 'tooLong' | 'invalid';
/** One field's problem; the page words it (`form.<code>`) next to the field. */
export type Problems = Partial<Record<Field, ProblemCode>>;

export type Parsed =
  | { ok: true; command: Command }
  | { ok: false; intent: Intent | null; problems: Problems };

/** The limits the forms show (maxlength, max), read from the same schemas. */
export const LIMITS = {
  appReason: textLimits(ModerationReasonBody.shape.reason).maxLength ?? 1000,
  siteReason: textLimits(HideSiteBody.shape.reason).maxLength ?? 500,
  muteMinutes: MuteChatSenderBody.shape.minutes.maxValue ?? 43_200,
  id: textLimits(Id).maxLength ?? 128,
} as const;

function text(form: FormData, name: string): string {
  const v = form.get(name);
  return typeof v === 'string' ? v : '';
}

/** A required, trimmed text within `max` characters (code points, as the contract counts them). */
function requiredText(value: string, max: number): { value: string } | { problem: ProblemCode } {
  const trimmed = value.trim();
  if (trimmed === '') return { problem: 'required' };
  if (codePointLength(trimmed) > max) return { problem: 'tooLong' };
  return { value: trimmed };
}

function isIntent(value: string): value is Intent {
  return (INTENTS as readonly string[]).includes(value);
}

export function parseCommand(form: FormData): Parsed {
  const intent = text(form, 'intent');
  if (!isIntent(intent)) return { ok: false, intent: null, problems: {} };
  const problems: Problems = {};
  const fail = (): Parsed => ({ ok: false, intent, problems });

  switch (intent) {
    case 'restore':
    case 'block': {
      const reason = requiredText(text(form, 'reason'), LIMITS.appReason);
      if ('problem' in reason) {
        problems.reason = reason.problem;
        return fail();
      }
      return { ok: true, command: { intent, reason: reason.value } };
    }
    case 'dismiss': {
      const reason = text(form, 'reason').trim();
      if (!DismissReportsBody.safeParse({ reason }).success) {
        problems.reason = 'tooLong';
        return fail();
      }
      return { ok: true, command: reason === '' ? { intent } : { intent, reason } };
    }
    case 'hide-site':
    case 'restore-site': {
      const siteId = requiredText(text(form, 'site_id'), LIMITS.id);
      if ('problem' in siteId) problems.site_id = siteId.problem;
      if (intent === 'restore-site') {
        return 'value' in siteId ? { ok: true, command: { intent, siteId: siteId.value } } : fail();
      }
      const reason = requiredText(text(form, 'reason'), LIMITS.siteReason);
      if ('problem' in reason) problems.reason = reason.problem;
      if ('problem' in siteId || 'problem' in reason) return fail();
      return { ok: true, command: { intent, siteId: siteId.value, reason: reason.value } };
    }
    case 'delete-message':
    case 'mute-sender': {
      const messageId = requiredText(text(form, 'message_id'), LIMITS.id);
      if ('problem' in messageId) problems.message_id = messageId.problem;
      if (intent === 'delete-message') {
        return 'value' in messageId ? { ok: true, command: { intent, messageId: messageId.value } } : fail();
      }
      const rawMinutes = text(form, 'minutes').trim();
      const minutes = /^\d{1,6}$/.test(rawMinutes) ? Number(rawMinutes) : Number.NaN;
      if (rawMinutes === '') problems.minutes = 'required';
      else if (!MuteChatSenderBody.shape.minutes.safeParse(minutes).success) problems.minutes = 'invalid';
      if ('problem' in messageId || problems.minutes) return fail();
      return { ok: true, command: { intent, messageId: messageId.value, minutes } };
    }
  }
}
