// What the moderation pages share: their navigation, titles (from route `meta`, no hooks),
// status badges, the words for a form's outcome and the field messages.
import { useTranslation } from 'react-i18next';
import { NavLink, type MetaDescriptor } from 'react-router';
import { describeFailure, type AnyT } from '../../components/apps/errors';
import { pageMeta, rootOf } from '../../components/apps/meta';
import { utcText } from '../../components/when';
import { useRootData } from '../../lib/root-data';
import type { Field, Problems } from './commands';
import type { ActionResult } from './moderation.server';

interface MatchLike {
  id: string;
  loaderData?: unknown;
}

/** `moderation` message `key` with {{name}} placeholders filled (route `meta` has no hooks). */
export function moderationText(matches: readonly (MatchLike | undefined)[], key: string, vars: Record<string, string> = {}): string {
  let node: unknown = rootOf(matches)?.messages?.moderation;
  for (const part of key.split('.')) {
    node = node && typeof node === 'object' ? (node as Record<string, unknown>)[part] : undefined;
  }
  const text = typeof node === 'string' ? node : key;
  return text.replace(/\{\{\s*(\w+)\s*\}\}/g, (_, name: string) => vars[name] ?? '');
}

/** Moderation pages are private: never indexed. */
export function moderationMeta(matches: readonly (MatchLike | undefined)[], key: string, vars: Record<string, string> = {}): MetaDescriptor[] {
  return pageMeta(moderationText(matches, key, vars), { noindex: true });
}

export function ModerationNav() {
  const { t } = useTranslation('moderation');
  return (
    <nav className="moderation-nav" aria-label={t('nav.label')}>
      <ul>
        <li>
          <NavLink to="/moderation" end>
            {t('nav.queue')}
          </NavLink>
        </li>
        <li>
          <NavLink to="/moderation/audit">{t('nav.audit')}</NavLink>
        </li>
        <li>
          <NavLink to="/moderation/tools">{t('nav.tools')}</NavLink>
        </li>
      </ul>
    </nav>
  );
}

export function StatusBadge({ status }: { status: string }) {
  const { t } = useTranslation('apps');
  return <span className={`status-badge status-${status}`}>{t(`developer.status.${status}`, { defaultValue: status })}</span>;
}

/** The message of one field's problem, if the last post of this form had one. */
export function useFieldError(result: ActionResult | undefined, field: Field): string | undefined {
  const { t } = useTranslation('moderation');
  const problems: Problems | undefined = result && !result.ok ? result.problems : undefined;
  const code = problems?.[field];
  return code ? t(`form.${code}`) : undefined;
}

/** 404 and 409 in words that name the thing; other refusals through the shared wording. */
function failureText(result: Extract<ActionResult, { ok: false }>, t: AnyT): string {
  const f = result.failure;
  if (!f) return t('form.fix');
  if (f.status === 404 || f.status === 409) {
    const text: string = t(`outcome.${result.intent}.${f.status}`, { defaultValue: '' });
    if (text) return text;
  }
  return describeFailure(f, t);
}

/** The outcome of a form's last post, spoken politely (success) or as an alert (failure). */
export function Outcome({ result, intents }: { result: ActionResult | undefined; intents: readonly string[] }) {
  const { t } = useTranslation('moderation');
  const lang = useRootData()?.lang ?? 'en';
  // Only crafted posts have no known intent: no form claims them.
  const mine = result && result.intent !== null && intents.includes(result.intent) ? result : undefined;
  let text = '';
  let ok = false;
  if (mine?.ok) {
    ok = true;
    switch (mine.intent) {
      case 'restore':
      case 'block':
      case 'dismiss':
        text = t(`outcome.${mine.intent}.done`, { resolved: mine.resolved });
        break;
      case 'hide-site':
      case 'restore-site':
        text = t(`outcome.${mine.intent}.done`, { id: mine.siteId });
        break;
      case 'delete-message':
        text = t('outcome.delete-message.done', { id: mine.messageId });
        break;
      case 'mute-sender':
        text = t(`outcome.mute-sender.${mine.senderKind}`, { id: mine.messageId, until: utcText(lang, mine.until) });
        break;
    }
  } else if (mine) {
    text = failureText(mine, t);
  }
  return (
    <p role="status" aria-live="polite" className={ok ? 'success-text outcome' : 'error-text outcome'}>
      {text}
    </p>
  );
}
