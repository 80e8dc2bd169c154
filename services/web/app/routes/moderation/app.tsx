// /moderation/apps/{slug}: one app's reports, open and resolved (by opaque id, never the
// reporter), its author's appeals (text, time, open until a restore closes them), and what a moderator can do about them: restore a blocked app or block it by
// hand (a reason is required and kept in the audit log), or dismiss the open reports.
// Each form is a plain POST to this route's action — it works without JavaScript — and,
// with it, a fetcher that revalidates the page in place.
import type { AppAppealEntry, AppReportEntry } from '@svc/types';
import { useTranslation } from 'react-i18next';
import { Link, useActionData, useFetcher } from 'react-router';
import type { Route } from './+types/app';
import { Outcome, ModerationNav, moderationMeta, StatusBadge, useFieldError } from './components';
import { When } from '../../components/when';
import { userTextField, withUserText } from '../../components/user-text';
import { LIMITS } from './commands';
import { loaderFailure, moderationAction, requireModerator, type ActionResult } from './moderation.server';
import css from './moderation.css?url';

export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: css }];

export function meta({ matches, loaderData }: Route.MetaArgs) {
  return moderationMeta(matches, 'app.title', { name: loaderData?.app.name ?? '' });
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = await requireModerator(request, context);
  try {
    const history = await api.appModeration.reports(params.slug);
    return { ...history, reasonMax: LIMITS.appReason };
  } catch (err) {
    return loaderFailure(request, err);
  }
}

export async function action({ request, context, params }: Route.ActionArgs): Promise<ActionResult> {
  return moderationAction(request, context, params.slug);
}

type Decision = 'restore' | 'block' | 'dismiss';
const APP_ACTIONS: readonly Decision[] = ['restore', 'block', 'dismiss'];
/** One fetcher for the three forms: the outcome outlives the form (restore leaves with the block). */
const FETCHER_KEY = 'moderation-app-decision';

function useDecisionResult() {
  const fetcher = useFetcher<ActionResult>({ key: FETCHER_KEY });
  // Without JavaScript the form posts the whole page: the answer is the route's action data.
  const routeResult = useActionData<ActionResult>();
  return { fetcher, result: fetcher.data ?? routeResult };
}

/** One decision's form: a reason (required but for dismiss) and its button. */
function DecisionForm({ intent, reasonMax }: { intent: Decision; reasonMax: number }) {
  const { t } = useTranslation('moderation');
  const { fetcher, result } = useDecisionResult();
  const mine = result && result.intent === intent ? result : undefined;
  const error = useFieldError(mine, 'reason');
  const id = `${intent}-reason`;
  const required = intent !== 'dismiss';
  return (
    <fetcher.Form method="post" className={`card decision decision-${intent}`} aria-labelledby={`${intent}-title`}>
      <h3 id={`${intent}-title`}>{t(`app.${intent}.title`)}</h3>
      <p className="hint" id={`${intent}-hint`}>
        {t(`app.${intent}.hint`)}
      </p>
      <input type="hidden" name="intent" value={intent} />
      <div className="field">
        <label htmlFor={id}>{required ? t('app.reason') : t('app.reasonOptional')}</label>
        <textarea
          id={id}
          name="reason"
          rows={3}
          {...userTextField(reasonMax)}
          required={required}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${intent}-hint ${id}-error` : `${intent}-hint`}
        />
        {error ? (
          <p id={`${id}-error`} className="error-text">
            {error}
          </p>
        ) : null}
      </div>
      <button type="submit" className={intent === 'block' ? 'danger' : undefined} disabled={fetcher.state !== 'idle'}>
        {fetcher.state !== 'idle' ? t('ui.loading', { ns: 'common' }) : t(`app.${intent}.submit`)}
      </button>
    </fetcher.Form>
  );
}

function Reports({ reports }: { reports: AppReportEntry[] }) {
  const { t } = useTranslation('moderation');
  if (reports.length === 0) return <p className="moderation-empty">{t('app.noReports')}</p>;
  return (
    <div className="table-scroll">
      <table className="moderation-table" data-testid="report-history">
        <caption className="visually-hidden">{t('app.reportsTitle')}</caption>
        <thead>
          <tr>
            <th scope="col">{t('app.reported')}</th>
            <th scope="col">{t('app.reason')}</th>
            <th scope="col">{t('app.detail')}</th>
            <th scope="col">{t('app.state')}</th>
          </tr>
        </thead>
        <tbody>
          {reports.map((r) => (
            <tr key={r.id} className={r.open ? undefined : 'is-resolved'}>
              <td>
                <When iso={r.created_at} />
              </td>
              <td>{t(`report.reasons.${r.reason}`, { ns: 'apps' })}</td>
              <td className="detail" dir="auto">
                {r.detail ?? '—'}
              </td>
              <td>
                {r.open ? (
                  t('app.open')
                ) : (
                  <>
                    {t('app.resolved')} {r.resolved_at ? <When iso={r.resolved_at} /> : null}
                  </>
                )}
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function Appeals({ appeals }: { appeals: AppAppealEntry[] }) {
  const { t } = useTranslation('moderation');
  if (appeals.length === 0) return <p className="moderation-empty">{t('app.noAppeals')}</p>;
  return (
    <ul className="appeal-list" data-testid="appeal-history">
      {appeals.map((a) => (
        <li key={a.id} className={`card appeal${a.open ? ' is-open' : ' is-resolved'}`}>
          <p className="appeal-meta">
            <strong>{a.open ? t('app.appealOpen') : t('app.appealClosed')}</strong> · {t('app.appealed')} <When iso={a.created_at} />
            {a.closed_at ? (
              <>
                {' '}
                · {t('app.appealClosedAt')} <When iso={a.closed_at} />
              </>
            ) : null}
          </p>
          <blockquote className="appeal-text" dir="auto">
            {a.text}
          </blockquote>
        </li>
      ))}
    </ul>
  );
}

export default function ModerationAppPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation('moderation');
  const { app, reports, appeals, reasonMax } = loaderData;
  const openAppeal = appeals.some((a) => a.open);
  const { result } = useDecisionResult();
  const open = reports.filter((r) => r.open).length;
  const decisions: Decision[] = [app.status === 'blocked' ? 'restore' : 'block'];
  if (open > 0) decisions.push('dismiss');
  return (
    <div className="moderation-page">
      <ModerationNav />
      <p>
        <Link to="/moderation">← {t('app.back')}</Link>
      </p>
      <h1>{withUserText(t, 'app.title', { name: app.name })}</h1>
      <p className="app-status-line">
        <span>{t('app.status')}</span> <StatusBadge status={app.status} /> · <code dir="auto">{app.slug}</code>
        {app.status === 'approved' ? (
          <>
            {' '}
            · <a href={`/apps/${encodeURIComponent(app.slug)}`}>{t('app.public')}</a>
          </>
        ) : null}
      </p>
      <p className="hint">{t('app.openCount', { open })}</p>
      {openAppeal ? (
        <p className="appeal-marker-line">
          <span className="appeal-marker">{t('queue.appealed')}</span> {t('app.appealPending')}
        </p>
      ) : null}
      <section aria-labelledby="decide-title">
        <h2 id="decide-title">{t('app.decideTitle')}</h2>
        <Outcome result={result} intents={APP_ACTIONS} />
        <div className="decisions">
          {decisions.map((d) => (
            <DecisionForm key={`${d}-${app.status}`} intent={d} reasonMax={reasonMax} />
          ))}
        </div>
      </section>
      <section aria-labelledby="reports-title">
        <h2 id="reports-title">{t('app.reportsTitle')}</h2>
        <Reports reports={reports} />
      </section>
      <section aria-labelledby="appeals-title">
        <h2 id="appeals-title">{t('app.appealsTitle')}</h2>
        <Appeals appeals={appeals} />
      </section>
    </div>
  );
}
