// /moderation/audit: the append-only audit log, newest first, one source at a time
// (`?source=`, audit-sources.ts), filtered by target (`target_type`, `target_id`) and paged
// with the API's cursor (`?cursor=`: older entries). Who acted (a user id or `system`), what,
// on which target (marked when the target is gone, e.g. removed by chat's retention), why, and
// the state before and after.
import type { AuditEntryView } from '@svc/types';
import { useTranslation } from 'react-i18next';
import { Form, Link } from 'react-router';
import type { Route } from './+types/audit';
import { ApiError } from '@svc/client';
import { AUDIT_PAGE_SIZE, AUDIT_SOURCES, AUDIT_TARGET_TYPES, auditFilterOf, auditHref } from './audit-sources';
import { ModerationNav, moderationMeta } from './components';
import { When } from '../../components/when';
import { loaderFailure, readAudit, requireModerator } from './moderation.server';
import css from './moderation.css?url';

export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: css }];

export function meta({ matches }: Route.MetaArgs) {
  return moderationMeta(matches, 'audit.title');
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = await requireModerator(request, context);
  const filter = auditFilterOf(new URL(request.url).searchParams);
  try {
    const page = await readAudit(api, filter.source, {
      target_type: filter.targetType,
      target_id: filter.targetId,
      cursor: filter.cursor,
      limit: AUDIT_PAGE_SIZE,
    });
    return { filter, entries: page.entries, nextCursor: page.next_cursor, badCursor: false };
  } catch (err) {
    // A cursor from an old link the API no longer reads: say so, offer the newest page.
    if (err instanceof ApiError && err.status === 400 && filter.cursor) {
      return { filter, entries: [] as AuditEntryView[], nextCursor: null, badCursor: true };
    }
    return loaderFailure(request, err);
  }
}

function State({ state }: { state: AuditEntryView['before'] }) {
  if (!state) return <span>—</span>;
  return (
    <dl className="audit-state">
      {Object.entries(state).map(([k, v]) => (
        <div key={k}>
          <dt>{k}</dt>
          {/* A state may hold what people typed (a hidden site's reason). */}
          <dd dir="auto">{v === null ? '—' : String(v)}</dd>
        </div>
      ))}
    </dl>
  );
}

function Filter({ filter }: { filter: ReturnType<typeof auditFilterOf> }) {
  const { t } = useTranslation('moderation');
  const types = AUDIT_TARGET_TYPES[filter.source];
  return (
    <Form method="get" className="card audit-filter" aria-labelledby="audit-filter-title">
      <h2 id="audit-filter-title" className="visually-hidden">
        {t('audit.filterTitle')}
      </h2>
      <div className="field">
        <label htmlFor="audit-source">{t('audit.source')}</label>
        <select id="audit-source" name="source" defaultValue={filter.source}>
          {AUDIT_SOURCES.map((s) => (
            <option key={s} value={s}>
              {t(`audit.sources.${s}`)}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="audit-target-type">{t('audit.targetType')}</label>
        <select id="audit-target-type" name="target_type" defaultValue={filter.targetType ?? ''}>
          <option value="">{t('audit.anyTarget')}</option>
          {types.map((type) => (
            <option key={type} value={type}>
              {t(`audit.targetTypes.${type}`, { defaultValue: type })}
            </option>
          ))}
        </select>
      </div>
      <div className="field">
        <label htmlFor="audit-target-id">{t('audit.targetId')}</label>
        <input id="audit-target-id" name="target_id" type="text" maxLength={200} defaultValue={filter.targetId ?? ''} spellCheck={false} />
      </div>
      <div className="audit-filter-actions">
        <button type="submit">{t('audit.apply')}</button>
        <Link className="button secondary" to="/moderation/audit">
          {t('audit.clear')}
        </Link>
      </div>
    </Form>
  );
}

export default function AuditPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation('moderation');
  const { filter, entries, nextCursor, badCursor } = loaderData;
  return (
    <div className="moderation-page">
      <ModerationNav />
      <h1>{t('audit.title')}</h1>
      <p className="hint">{t('audit.intro')}</p>
      <Filter key={auditHref(filter)} filter={filter} />
      {badCursor ? (
        <p role="alert" className="error-text">
          {t('audit.badCursor')}
        </p>
      ) : null}
      {entries.length === 0 ? (
        <p className="moderation-empty">{t('audit.empty')}</p>
      ) : (
        <div className="table-scroll">
          <table className="moderation-table" data-testid="audit-log">
            <caption className="visually-hidden">{t('audit.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('audit.at')}</th>
                <th scope="col">{t('audit.actor')}</th>
                <th scope="col">{t('audit.action')}</th>
                <th scope="col">{t('audit.target')}</th>
                <th scope="col">{t('audit.reason')}</th>
                <th scope="col">{t('audit.before')}</th>
                <th scope="col">{t('audit.after')}</th>
              </tr>
            </thead>
            <tbody>
              {entries.map((e) => (
                <tr key={e.id} data-action={e.action}>
                  <td>
                    <When iso={e.at} />
                  </td>
                  <td>{e.actor === 'system' ? <em>{t('audit.system')}</em> : <code>{e.actor}</code>}</td>
                  <td>{t(`audit.actions.${e.action.replace('.', '_')}`, { defaultValue: e.action })}</td>
                  <td>
                    <Link to={auditHref({ source: filter.source, targetType: e.target_type, targetId: e.target_id })}>
                      {t(`audit.targetTypes.${e.target_type}`, { defaultValue: e.target_type })} <code>{e.target_id}</code>
                    </Link>
                    {/* The entry stays when its target goes (chat messages past their retention). */}
                    {e.target_removed ? (
                      <span className="audit-removed" data-testid="target-removed">
                        {t(`audit.targetRemoved.${e.target_removed}`)}
                      </span>
                    ) : null}
                  </td>
                  <td className="detail" dir="auto">
                    {e.reason}
                  </td>
                  <td>
                    <State state={e.before} />
                  </td>
                  <td>
                    <State state={e.after} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {filter.cursor || nextCursor ? (
        <nav className="pager" aria-label={t('audit.pagination')}>
          {filter.cursor ? <Link to={auditHref(filter)}>{t('audit.newest')}</Link> : null}
          {nextCursor ? (
            <Link rel="next" to={auditHref(filter, nextCursor)}>
              {t('audit.older')}
            </Link>
          ) : null}
        </nav>
      ) : null}
    </div>
  );
}
