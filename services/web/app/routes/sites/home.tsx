// The site-sharing home: the daily background, the shared sites (sorted, filtered by tag,
// searched, paged — all in the query string, as plain links and GET forms), sharing a site,
// and the public chat. Live updates come over the page's one WebSocket (app/lib/live.ts).
import type { ChatMessage, DailyBgResponse, SiteListResponse, SiteTag } from '@svc/types';
import { truncateText } from '@svc/types/text';
import { SEARCH_MAX_LENGTH, SITES_MAX_PAGE, SITE_TAGS } from '@svc/types/constants';
import { useTranslation } from 'react-i18next';
import { data, useRevalidator, useSearchParams } from 'react-router';
import { ChatPanel } from '../../components/sites/chat-panel';
import { toPlainError, type PlainError } from '../../components/sites/errors';
import { tagLabel, withParams } from '../../components/sites/format';
import { LiveIndicator } from '../../components/sites/live-indicator';
import { SiteCard } from '../../components/sites/site-card';
import { SubmitForm, type SubmitResult } from '../../components/sites/submit-form';
import { userTextField, withUserText } from '../../components/user-text';
import { LANGUAGE_CODES } from '../../i18n/languages';
import { hasSession, serverApi } from '../../lib/api.server';
import { useLiveConnection } from '../../lib/live';
import { useRootData } from '../../lib/root-data';
import type { Route } from './+types/home';
import css from './sites.css?url';
import { numberFormat } from '../../lib/intl';

export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: css }];

const SORTS = ['hot', 'recent'] as const;
type Sort = (typeof SORTS)[number];

export interface HomeFilters {
  sort: Sort;
  tag: SiteTag | undefined;
  search: string;
  page: number;
}

export function readFilters(params: URLSearchParams): HomeFilters {
  const sort = params.get('sort');
  const tag = params.get('tag');
  const page = Number(params.get('page') ?? '1');
  return {
    sort: sort === 'recent' ? 'recent' : 'hot',
    tag: (SITE_TAGS as readonly string[]).includes(tag ?? '') ? (tag as SiteTag) : undefined,
    search: truncateText((params.get('search') ?? '').trim(), SEARCH_MAX_LENGTH),
    page: Number.isInteger(page) && page >= 1 && page <= SITES_MAX_PAGE ? page : 1,
  };
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const api = serverApi(request, context);
  const filters = readFilters(new URL(request.url).searchParams);
  const [sites, background, messages, bookmarks] = await Promise.all([
    api.sites
      .list({ sort: filters.sort, tag: filters.tag, search: filters.search || undefined, page: filters.page })
      .then((r): SiteListResponse | PlainError => r)
      .catch(toPlainError),
    api.dailyBackground().catch((): DailyBgResponse | null => null),
    api.chat
      .list({ limit: 50 })
      .then((r) => r.messages)
      .catch((): ChatMessage[] => []),
    // Logged-in readers get a bookmark button on each card.
    hasSession(request)
      ? api.bookmarks
          .list()
          .then((r) => r.bookmarks.map((b) => b.site_id))
          .catch((): string[] | null => null)
      : Promise.resolve(null),
  ]);
  // The page still renders (chat, the form) but without its sites it is not the page: 503
  // when the API is down, so crawlers and the page cache do not keep it.
  const unavailable = 'name' in sites && (sites.name === 'NetworkError' || (sites.status ?? 0) >= 502);
  return data({ filters, sites, background, messages, bookmarks }, unavailable ? { status: 503 } : undefined);
}

type ActionResult = SubmitResult | { intent: 'chat'; error?: PlainError; sent?: boolean };

/** The forms' answers (also without JavaScript): share a site, post to the chat. */
export async function action({ request, context }: Route.ActionArgs): Promise<ActionResult> {
  const form = await request.formData();
  const api = serverApi(request, context);
  const intent = form.get('intent');
  if (intent === 'chat') {
    try {
      await api.chat.send(String(form.get('content') ?? ''));
      return { intent: 'chat', sent: true };
    } catch (err) {
      return { intent: 'chat', error: toPlainError(err) };
    }
  }
  if (intent !== 'submit') throw data(null, { status: 400 });
  const url = String(form.get('url') ?? '').trim();
  const token = form.get('captchaToken');
  try {
    const res = await api.sites.submit({ url, captchaToken: typeof token === 'string' && token ? token : undefined });
    return { intent: 'submit', site: res.site, isNew: res.isNew };
  } catch (err) {
    return { intent: 'submit', error: toPlainError(err) };
  }
}

export function meta({ matches, location }: Route.MetaArgs): Route.MetaDescriptors {
  const root = matches.find((m) => m?.id === 'root')?.loaderData as
    | { publicBaseUrl?: string; messages?: { sites?: { home?: { title?: string; description?: string } } } }
    | undefined;
  const home = root?.messages?.sites?.home;
  const title = home?.title ?? 'svc';
  const description = home?.description ?? '';
  const tags: Route.MetaDescriptors = [
    { title },
    { name: 'description', content: description },
    { property: 'og:type', content: 'website' },
    { property: 'og:title', content: title },
    { property: 'og:description', content: description },
  ];
  // The plain home page is in /sitemap.xml: the same canonical URL and language variants.
  const params = new URLSearchParams(location.search);
  params.delete('lang');
  if (root?.publicBaseUrl && params.size === 0) {
    const loc = `${root.publicBaseUrl.replace(/\/+$/, '')}/`;
    tags.push(
      { property: 'og:url', content: loc },
      { tagName: 'link', rel: 'canonical', href: loc },
      ...LANGUAGE_CODES.map((lang) => ({ tagName: 'link', rel: 'alternate', hrefLang: lang, href: `${loc}?lang=${lang}` })),
      { tagName: 'link', rel: 'alternate', hrefLang: 'x-default', href: loc },
    );
  }
  return tags;
}

function Background({ bg }: { bg: DailyBgResponse | null }) {
  const { t } = useTranslation('sites');
  return (
    <section className="hero" style={bg ? { backgroundImage: `url("${bg.imageUrl}")` } : undefined}>
      <div className="hero-text">
        <h1>{t('home.heading')}</h1>
        <p>{t('home.tagline')}</p>
      </div>
      {bg ? (
        <figure className="daily-bg">
          <img src={bg.imageUrl} alt={bg.title} className="daily-bg-thumb" width={96} height={54} />
          <figcaption>
            <span className="daily-bg-label">{t('home.imageOfTheDay')}: </span>
            <span className="daily-bg-title">{bg.title}</span>
            {bg.copyright ? <span className="daily-bg-credit"> · {bg.copyright}</span> : null}
          </figcaption>
        </figure>
      ) : null}
    </section>
  );
}

function Filters({ filters }: { filters: HomeFilters }) {
  const { t } = useTranslation('sites');
  const [params] = useSearchParams();
  return (
    <div className="filters">
      <form method="get" action="/" role="search" className="search-form">
        <label htmlFor="site-search">{t('filters.searchLabel')}</label>
        <div className="submit-row">
          <input id="site-search" type="search" name="search" defaultValue={filters.search} {...userTextField(SEARCH_MAX_LENGTH)} />
          {filters.sort !== 'hot' ? <input type="hidden" name="sort" value={filters.sort} /> : null}
          {filters.tag ? <input type="hidden" name="tag" value={filters.tag} /> : null}
          {params.get('lang') ? <input type="hidden" name="lang" value={params.get('lang') ?? ''} /> : null}
          <button type="submit">{t('common:ui.search')}</button>
        </div>
      </form>
      <nav aria-label={t('filters.sortLabel')} className="sort-nav">
        <span className="filter-label">{t('filters.sortLabel')}:</span>
        <ul>
          {SORTS.map((s) => (
            <li key={s}>
              <a href={withParams(params, { sort: s === 'hot' ? undefined : s })} aria-current={filters.sort === s ? 'page' : undefined}>
                {t(`filters.${s}`)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
      <nav aria-label={t('filters.tagLabel')} className="tag-nav">
        <span className="filter-label">{t('filters.tagLabel')}:</span>
        <ul>
          <li>
            <a href={withParams(params, { tag: undefined })} aria-current={filters.tag === undefined ? 'page' : undefined}>
              {t('filters.allTags')}
            </a>
          </li>
          {SITE_TAGS.map((tag) => (
            <li key={tag}>
              <a href={withParams(params, { tag })} aria-current={filters.tag === tag ? 'page' : undefined}>
                {tagLabel(tag, t)}
              </a>
            </li>
          ))}
        </ul>
      </nav>
    </div>
  );
}

function Pager({ page, hasMore }: { page: number; hasMore: boolean }) {
  const { t } = useTranslation('sites');
  const [params] = useSearchParams();
  if (page === 1 && !hasMore) return null;
  return (
    <nav className="pager" aria-label={t('filters.pages')}>
      {page > 1 ? (
        <a href={withParams(params, { page: page === 2 ? undefined : String(page - 1) })} rel="prev">
          {t('common:ui.previous')}
        </a>
      ) : null}
      <span aria-current="page">{t('common:ui.page', { page })}</span>
      {/* Numbered pages stop at the API's cap; deeper reading is the API's cursor. */}
      {hasMore && page < SITES_MAX_PAGE ? (
        <a href={withParams(params, { page: String(page + 1) })} rel="next">
          {t('common:ui.next')}
        </a>
      ) : null}
    </nav>
  );
}

export default function HomePage({ loaderData, actionData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation('sites');
  const { filters, sites, background, messages, bookmarks } = loaderData;
  const root = useRootData();
  const marked = root?.user && bookmarks ? new Set(bookmarks) : undefined;
  const revalidator = useRevalidator();
  // Events missed while disconnected come as events when the reconnection resumes; when it
  // cannot, re-read the chat and the visible sites.
  useLiveConnection(() => void revalidator.revalidate());
  const submitResult = actionData?.intent === 'submit' ? (actionData as SubmitResult) : undefined;
  const list = 'sites' in sites ? sites : null;
  return (
    <div className="sites-home">
      <Background bg={background} />
      <LiveIndicator />
      <SubmitForm result={submitResult} />
      <div className="home-grid">
        <section className="site-list-section" aria-labelledby="sites-heading">
          <h2 id="sites-heading">{t('home.sitesHeading')}</h2>
          <Filters filters={filters} />
          {list ? (
            <>
              <p className="hint" aria-live="polite">
                {filters.search
                  ? withUserText(t, 'home.resultsFor', { search: filters.search }, { n: numberFormat(i18n.language).format(list.total) })
                  : t('home.total', { n: numberFormat(i18n.language).format(list.total) })}
              </p>
              {list.sites.length === 0 ? <p>{t('home.none')}</p> : null}
              <ul className="site-grid">
                {list.sites.map((site) => (
                  <li key={site.id}>
                    <SiteCard site={site} bookmarked={marked ? marked.has(site.id) : undefined} />
                  </li>
                ))}
              </ul>
              <Pager page={list.page} hasMore={list.hasMore} />
            </>
          ) : (
            <p className="error-text">{t('home.loadFailed')}</p>
          )}
        </section>
        <div className="home-side">
          <ChatPanel initial={messages} />
        </div>
      </div>
    </div>
  );
}
