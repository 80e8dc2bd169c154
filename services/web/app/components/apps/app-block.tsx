// A blocked app as its author sees it (docs/decisions/025-block-appeals-and-notices.md, docs/decisions/011-moderation-web-pages.md): when and why it was
// blocked (by reports, summarised, never who reported; or by a moderator, in their words),
// the appeal (sent, or the form: once per block, a plain POST that works without
// JavaScript), and the app's moderation history with actors as roles.
import type { AppBlockInfo, AuthorAuditEntry } from '@svc/types';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useActionData, useFetcher } from 'react-router';
import { When } from '../when';
import { characterCount, userTextField } from '../user-text';
import { APPEAL_MAX, appealFailureKey, type AppealProblem } from './appeal';
import { describeFailure, type Failure } from './errors';

/** What the appeal form's post left for the page (serialisable action data). */
export type AppealActionResult =
  | { intent: 'appeal'; ok: true }
  | { intent: 'appeal'; ok: false; problem?: AppealProblem; failure?: Failure };

/** The one-line state of a blocked app in the dashboard's list. */
export function BlockLine({ block }: { block: AppBlockInfo | null }) {
  const { t } = useTranslation('apps');
  if (!block) return <span className="hint"> {t('developer.blockedHint')}</span>;
  return (
    <span className="hint">
      {' '}
      {block.by === 'reports' ? t('developer.blockedHint') : t('developer.blockedByModerator')}{' '}
      {block.appeal ? t('developer.appealSent') : block.can_appeal ? t('developer.canAppeal') : null}
    </span>
  );
}

/** One fetcher for the form and the panel: a refusal outlives the form (409: the appeal is there). */
const APPEAL_FETCHER = 'developer-appeal';

/** The last appeal post's result: the fetcher's (JavaScript) or the route's (a plain post). */
function useAppealResult() {
  const fetcher = useFetcher<AppealActionResult>({ key: APPEAL_FETCHER });
  const routeResult = useActionData<{ intent?: string }>();
  const latest = fetcher.data ?? routeResult;
  return { fetcher, result: latest?.intent === 'appeal' ? (latest as AppealActionResult) : undefined };
}

function AppealForm() {
  const { t } = useTranslation('apps');
  const { fetcher, result } = useAppealResult();
  const [length, setLength] = useState(0);
  const problem = result && !result.ok ? result.problem : undefined;
  const fieldError = problem ? t(`block.${problem}`, { max: APPEAL_MAX }) : undefined;
  return (
    <fetcher.Form method="post" className="appeal-form" aria-labelledby="appeal-title">
      <h3 id="appeal-title">{t('block.appealTitle')}</h3>
      <p className="hint" id="appeal-hint">
        {t('block.appealHint', { max: APPEAL_MAX })}
      </p>
      <input type="hidden" name="intent" value="appeal" />
      <div className="field">
        <label htmlFor="appeal-text">{t('block.appealLabel')}</label>
        <textarea
          id="appeal-text"
          name="text"
          rows={5}
          required
          {...userTextField(APPEAL_MAX)}
          onChange={(e) => setLength(characterCount(e.currentTarget.value))}
          aria-invalid={fieldError ? true : undefined}
          aria-describedby={fieldError ? 'appeal-hint appeal-counter appeal-error' : 'appeal-hint appeal-counter'}
        />
        <span id="appeal-counter" className="hint appeal-counter">
          {t('block.counter', { length, max: APPEAL_MAX })}
        </span>
        {fieldError ? (
          <span id="appeal-error" className="error-text">
            {fieldError}
          </span>
        ) : null}
      </div>
      <button type="submit" disabled={fetcher.state !== 'idle'}>
        {fetcher.state !== 'idle' ? t('ui.loading', { ns: 'common' }) : t('block.appealSubmit')}
      </button>
    </fetcher.Form>
  );
}

/** Why the app is blocked, and its appeal (sent, or the form while this block has none). */
export function BlockPanel({ block }: { block: AppBlockInfo }) {
  const { t } = useTranslation('apps');
  const { result } = useAppealResult();
  const failure = result && !result.ok ? result.failure : undefined;
  const key = failure ? appealFailureKey(failure.status, failure.message) : undefined;
  const failureText = failure ? (key ? t(key) : describeFailure(failure, t)) : '';
  return (
    <section aria-labelledby="block-title" className="card block-panel" data-testid="block-panel">
      <h2 id="block-title">{t('block.title')}</h2>
      <dl className="block-facts">
        <dt>{t('block.when')}</dt>
        <dd>
          <When iso={block.blocked_at} />
        </dd>
        <dt>{t('block.by')}</dt>
        <dd>{block.by === 'reports' ? t('block.byReports') : t('block.byModerator')}</dd>
        <dt>{t('block.reason')}</dt>
        <dd className="block-reason" dir="auto">
          {block.reason_summary.trim() !== '' ? block.reason_summary : t('block.noReason')}
        </dd>
      </dl>
      <p role="alert" className="error-text appeal-failure" data-testid="appeal-failure">
        {failureText}
      </p>
      {block.appeal ? (
        <div className="appeal-sent" data-testid="appeal-sent">
          <h3>{t('block.appealTitle')}</h3>
          <p role="status">
            {t('block.appealed')} <When iso={block.appeal.created_at} />. {t('block.appealPending')}
          </p>
          <blockquote className="appeal-text" dir="auto">
            {block.appeal.text}
          </blockquote>
        </div>
      ) : block.can_appeal ? (
        <AppealForm />
      ) : (
        <p>{t('block.cannotAppeal')}</p>
      )}
    </section>
  );
}

/** The app's moderation history, newest first; `older`: the next page's URL, if any. */
export function AuthorHistory({ entries, older }: { entries: AuthorAuditEntry[] | null; older: string | null }) {
  const { t } = useTranslation('apps');
  return (
    <section aria-labelledby="history-title" className="card dev-history">
      <h2 id="history-title">{t('history.title')}</h2>
      <p className="hint">{t('history.intro')}</p>
      {entries === null ? (
        <p className="error-text">{t('history.unavailable')}</p>
      ) : entries.length === 0 ? (
        <p>{t('history.empty')}</p>
      ) : (
        <div className="table-scroll">
          <table className="keys-table" data-testid="author-audit">
            <caption className="visually-hidden">{t('history.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('history.at')}</th>
                <th scope="col">{t('history.actor')}</th>
                <th scope="col">{t('history.action')}</th>
                <th scope="col">{t('history.reason')}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id} data-action={e.action}>
                  <td>
                    <When iso={e.at} />
                  </td>
                  <td>{t(`history.actors.${e.actor}`)}</td>
                  <td>{t(`history.actions.${e.action.replace('.', '_')}`, { defaultValue: e.action })}</td>
                  <td className="history-reason" dir="auto">
                    {e.reason.trim() !== '' ? e.reason : '—'}
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {older ? (
        <p>
          <Link to={older}>{t('history.older')}</Link>
        </p>
      ) : null}
    </section>
  );
}
