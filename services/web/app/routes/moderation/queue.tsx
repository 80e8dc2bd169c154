// /moderation: the report queue — apps with open reports and blocked apps whose author
// appealed, newest report or appeal first, paged (`?offset=`): name and slug (to the app's
// reports), status, distinct open reporters, the reasons counted, the latest report, the
// open appeal (marker, excerpt, time). Reporters are never named (the API does not know them
// to the page either).
import type { ModerationQueueItem } from '@svc/types';
import { truncateText } from '@svc/types/text';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Route } from './+types/queue';
import { numberFormat } from '../../lib/intl';
import { useRootData } from '../../lib/root-data';
import { ModerationNav, moderationMeta, StatusBadge } from './components';
import { When } from '../../components/when';
import { loaderFailure, requireModerator } from './moderation.server';
import css from './moderation.css?url';

export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: css }];

export function meta({ matches }: Route.MetaArgs) {
  return moderationMeta(matches, 'queue.title');
}

const PAGE_SIZE = 20;

function offsetOf(url: URL): number {
  const raw = url.searchParams.get('offset') ?? '';
  return /^\d{1,7}$/.test(raw) ? Number(raw) : 0;
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = await requireModerator(request, context);
  const offset = offsetOf(new URL(request.url));
  try {
    const page = await api.appModeration.queue({ limit: PAGE_SIZE, offset });
    return { apps: page.apps, meta: page.meta, limit: PAGE_SIZE };
  } catch (err) {
    return loaderFailure(request, err);
  }
}

function Reasons({ item }: { item: ModerationQueueItem }) {
  const { t } = useTranslation('apps');
  const lang = useRootData()?.lang ?? 'en';
  const entries = Object.entries(item.reasons).sort((a, b) => (b[1] ?? 0) - (a[1] ?? 0));
  return (
    <ul className="reason-counts">
      {entries.map(([reason, n]) => (
        <li key={reason}>
          {t(`report.reasons.${reason}`)} <span className="count">×{numberFormat(lang).format(n ?? 0)}</span>
        </li>
      ))}
    </ul>
  );
}

/** Longest excerpt of an appeal in the queue (the app's page shows the whole text). */
const EXCERPT_MAX = 140;

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim();
  return truncateText(flat, EXCERPT_MAX, '…');
}

function AppealCell({ item }: { item: ModerationQueueItem }) {
  const { t } = useTranslation('moderation');
  if (!item.appeal) return <span className="hint">—</span>;
  return (
    <div className="queue-appeal">
      <span className="appeal-marker">{t('queue.appealed')}</span> <When iso={item.appeal.created_at} />
      <q className="appeal-excerpt" dir="auto">
        {excerpt(item.appeal.text)}
      </q>
    </div>
  );
}

export default function QueuePage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation('moderation');
  const lang = useRootData()?.lang ?? 'en';
  const numbers = numberFormat(lang);
  const { apps, meta, limit } = loaderData;
  const page = Math.floor(meta.offset / limit) + 1;
  const pages = Math.max(1, Math.ceil(meta.total / limit));
  return (
    <div className="moderation-page">
      <ModerationNav />
      <h1>{t('queue.title')}</h1>
      <p className="hint">{t('queue.intro', { total: numbers.format(meta.total) })}</p>
      {apps.length === 0 ? (
        <p className="moderation-empty">{t('queue.empty')}</p>
      ) : (
        <div className="table-scroll">
          <table className="moderation-table" data-testid="report-queue">
            <caption className="visually-hidden">{t('queue.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('queue.app')}</th>
                <th scope="col">{t('queue.status')}</th>
                <th scope="col">{t('queue.reporters')}</th>
                <th scope="col">{t('queue.reasons')}</th>
                <th scope="col">{t('queue.latest')}</th>
                <th scope="col">{t('queue.appeal')}</th>
              </tr>
            </thead>
            <tbody>
              {apps.map((item) => (
                <tr key={item.slug} data-slug={item.slug}>
                  <td>
                    <Link to={`/moderation/apps/${encodeURIComponent(item.slug)}`} dir="auto">
                      {item.name}
                    </Link>
                    <br />
                    <code className="hint" dir="auto">
                      {item.slug}
                    </code>
                  </td>
                  <td>
                    <StatusBadge status={item.status} />
                  </td>
                  <td>{numbers.format(item.open_reporters)}</td>
                  <td>
                    <Reasons item={item} />
                  </td>
                  <td>{item.latest_report_at ? <When iso={item.latest_report_at} /> : <span className="hint">{t('queue.noReports')}</span>}</td>
                  <td>
                    <AppealCell item={item} />
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
      {pages > 1 ? (
        <nav className="pager" aria-label={t('queue.pagination')}>
          {meta.offset > 0 ? (
            <Link rel="prev" to={`/moderation?offset=${Math.max(0, meta.offset - limit)}`}>
              {t('ui.previous', { ns: 'common' })}
            </Link>
          ) : null}
          <span aria-current="page">{t('queue.pageOf', { page: numbers.format(page), pages: numbers.format(pages) })}</span>
          {meta.offset + limit < meta.total ? (
            <Link rel="next" to={`/moderation?offset=${meta.offset + limit}`}>
              {t('ui.next', { ns: 'common' })}
            </Link>
          ) : null}
        </nav>
      ) : null}
    </div>
  );
}
