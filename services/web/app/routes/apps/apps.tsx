// The app store: approved apps, searchable (q) and filtered by category and app_type, paged
// with the API's own offset/limit. Every view is a plain GET form or link: shareable, and it
// works without JavaScript.
import type { AppListQuery } from '@svc/types';
import { truncateText } from '@svc/types/text';
import { APP_CATEGORIES, APP_TYPES, SEARCH_MAX_LENGTH } from '@svc/types/constants';
import { useTranslation } from 'react-i18next';
import { data, Form, Link, useNavigate } from 'react-router';
import { ApiError } from '@svc/client';
import type { Route } from './+types/apps';
import { ListedAppIcon } from '../../components/apps/app-icon';
import { userTextField, withUserText } from '../../components/user-text';
import { appsText, pageMeta } from '../../components/apps/meta';
import { serverApi } from '../../lib/api.server';
import { useRootData } from '../../lib/root-data';
import css from './apps.css?url';
import { numberFormat } from '../../lib/intl';

export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: css }];

export function meta({ matches }: Route.MetaArgs) {
  return pageMeta(appsText(matches, 'store.title'), { description: appsText(matches, 'store.description') });
}

function oneOf<T extends string>(values: readonly T[], value: string | null): T | undefined {
  return value !== null && (values as readonly string[]).includes(value) ? (value as T) : undefined;
}

function nonNegativeInt(value: string | null, max: number): number | undefined {
  if (value === null || !/^\d{1,6}$/.test(value)) return undefined;
  return Math.min(Number(value), max);
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const q = truncateText((url.searchParams.get('q') ?? '').trim(), SEARCH_MAX_LENGTH);
  const query: Partial<AppListQuery> = {
    q: q === '' ? undefined : q,
    category: oneOf(APP_CATEGORIES, url.searchParams.get('category')),
    app_type: oneOf(APP_TYPES, url.searchParams.get('app_type')),
    offset: nonNegativeInt(url.searchParams.get('offset'), 100_000),
    limit: (() => {
      const l = nonNegativeInt(url.searchParams.get('limit'), 100);
      return l === undefined || l < 1 ? undefined : l;
    })(),
  };
  try {
    const page = await serverApi(request, context).apps.list(query);
    return { apps: page.apps, meta: page.meta, query: { ...query, q }, failed: null };
  } catch (err) {
    const status = err instanceof ApiError ? err.status : 503;
    return data(
      { apps: [], meta: null, query: { ...query, q }, failed: status },
      { status: status === 429 ? 429 : 503 },
    );
  }
}

function pageHref(query: Partial<AppListQuery>, offset: number): string {
  const params = new URLSearchParams();
  if (query.q) params.set('q', query.q);
  if (query.category) params.set('category', query.category);
  if (query.app_type) params.set('app_type', query.app_type);
  if (query.limit) params.set('limit', String(query.limit));
  if (offset > 0) params.set('offset', String(offset));
  const s = params.toString();
  return s ? `/apps?${s}` : '/apps';
}

export default function AppsPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation('apps');
  const lang = useRootData()?.lang ?? 'en';
  const numbers = numberFormat(lang);
  const { apps, meta, query, failed } = loaderData;
  const navigate = useNavigate();
  // With JavaScript, empty fields stay out of the address (without it the browser sends them).
  function search(e: React.FormEvent<HTMLFormElement>) {
    e.preventDefault();
    const params = new URLSearchParams();
    for (const [name, value] of new FormData(e.currentTarget)) {
      if (typeof value === 'string' && value.trim() !== '') params.set(name, value.trim());
    }
    const s = params.toString();
    void navigate(s ? `/apps?${s}` : '/apps');
  }
  const filtered = Boolean(query.q || query.category || query.app_type);
  const limit = meta?.limit ?? 20;
  const page = meta ? Math.floor(meta.offset / limit) + 1 : 1;
  const pages = meta ? Math.max(1, Math.ceil(meta.total / limit)) : 1;
  return (
    <div className="apps-page">
      <h1>{t('store.title')}</h1>
      <p className="hint">{t('store.description')}</p>
      <Form method="get" action="/apps" className="apps-filters" role="search" onSubmit={search}>
        <div className="field">
          <label htmlFor="apps-q">{t('store.searchLabel')}</label>
          <input id="apps-q" type="search" name="q" defaultValue={query.q} {...userTextField(SEARCH_MAX_LENGTH)} placeholder={t('store.searchPlaceholder')} />
        </div>
        <div className="field">
          <label htmlFor="apps-category">{t('store.categoryLabel')}</label>
          <select id="apps-category" name="category" defaultValue={query.category ?? ''}>
            <option value="">{t('store.allCategories')}</option>
            {APP_CATEGORIES.map((c) => (
              <option key={c} value={c}>
                {t(`categories.${c}`, { ns: 'common' })}
              </option>
            ))}
          </select>
        </div>
        <div className="field">
          <label htmlFor="apps-type">{t('store.typeLabel')}</label>
          <select id="apps-type" name="app_type" defaultValue={query.app_type ?? ''}>
            <option value="">{t('store.allTypes')}</option>
            {APP_TYPES.map((type) => (
              <option key={type} value={type}>
                {t(`appTypes.${type}`, { ns: 'common' })}
              </option>
            ))}
          </select>
        </div>
        {query.limit ? <input type="hidden" name="limit" value={query.limit} /> : null}
        <div className="apps-filter-actions">
          <button type="submit">{t('ui.search', { ns: 'common' })}</button>
          {filtered ? (
            <Link className="button secondary" to="/apps">
              {t('store.clear')}
            </Link>
          ) : null}
        </div>
      </Form>

      {failed !== null ? (
        <p className="error-text" role="alert">
          {failed === 429 ? t('store.rateLimited') : t('store.unavailable')}
        </p>
      ) : null}

      {meta ? (
        <p className="hint" aria-live="polite">
          {t('store.results', { total: numbers.format(meta.total) })}
        </p>
      ) : null}

      {apps.length === 0 && failed === null ? (
        <p className="apps-empty">{filtered ? t('store.noMatches') : t('store.empty')}</p>
      ) : (
        <ul className="app-grid">
          {apps.map((app) => (
            <li key={app.id} className="card app-card">
              <ListedAppIcon app={app} />
              <div className="app-card-body">
                <h2 dir="auto">
                  <Link to={`/apps/${encodeURIComponent(app.slug)}`}>{app.name}</Link>
                </h2>
                <p className="app-card-meta">
                  <span>{t(`categories.${app.category}`, { ns: 'common' })}</span>
                  <span>{t(`appTypes.${app.app_type}`, { ns: 'common' })}</span>
                  <span>{withUserText(t, 'app.by', { author: app.author_name })}</span>
                </p>
                {app.description ? (
                  <p className="app-card-description" dir="auto">
                    {app.description}
                  </p>
                ) : null}
                <p className="app-card-downloads">
                  {t('app.downloads', { downloads: numbers.format(app.downloads) })}
                </p>
              </div>
            </li>
          ))}
        </ul>
      )}

      {meta && pages > 1 ? (
        <nav className="pager" aria-label={t('store.pagination')}>
          {meta.offset > 0 ? (
            <Link rel="prev" to={pageHref(query, Math.max(0, meta.offset - limit))}>
              {t('ui.previous', { ns: 'common' })}
            </Link>
          ) : null}
          <span aria-current="page">{t('store.pageOf', { page: numbers.format(page), pages: numbers.format(pages) })}</span>
          {meta.has_more ? (
            <Link rel="next" to={pageHref(query, meta.offset + limit)}>
              {t('ui.next', { ns: 'common' })}
            </Link>
          ) : null}
        </nav>
      ) : null}
    </div>
  );
}
