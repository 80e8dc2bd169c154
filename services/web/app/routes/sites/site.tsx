// One site: everything the home page shows about it, its claim status and how to claim it,
// with the search-engine head (title, description, Open Graph, canonical and the hreflang
// alternates — the same URLs /sitemap.xml lists for it).
import { ApiError } from '@svc/client';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { data, Link, useRevalidator } from 'react-router';
import { describeError } from '../../components/sites/errors';
import { siteTitle } from '../../components/sites/format';
import { BookmarkButton } from '../../components/account/bookmark-button';
import { LiveIndicator } from '../../components/sites/live-indicator';
import { useHydrated } from '../../lib/use-hydrated';
import { withUserText } from '../../components/user-text';
import { BoostButton, ProfileLine, recordClick, SiteTags } from '../../components/sites/site-card';
import { LANGUAGE_CODES } from '../../i18n/languages';
import { browserApi } from '../../lib/api.client';
import { hasSession, serverApi } from '../../lib/api.server';
import { useLiveConnection, useLiveSite } from '../../lib/live';
import { webRequest } from '../../lib/request-context';
import { useRootData } from '../../lib/root-data';
import type { Route } from './+types/site';
import css from './sites.css?url';
import { CLAIM_META_NAME } from '@svc/types/constants';
import { dateFormat, numberFormat } from '../../lib/intl';

export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: css }];

const ID = /^[A-Za-z0-9_-]{1,128}$/;

export async function loader({ request, params, context }: Route.LoaderArgs) {
  if (!ID.test(params.id)) throw data(null, { status: 404 });
  try {
    const api = serverApi(request, context);
    const [{ site }, bookmarked] = await Promise.all([
      api.sites.get(params.id),
      hasSession(request)
        ? api.bookmarks
            .list()
            .then((r) => r.bookmarks.some((b) => b.site_id === params.id))
            .catch(() => false)
        : Promise.resolve(false),
    ]);
    return { site, bookmarked, publicBaseUrl: context.get(webRequest).publicBaseUrl.replace(/\/+$/, '') };
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 400)) throw data(null, { status: 404 });
    throw err;
  }
}

/** The site page's URL as /sitemap.xml writes it (and its `?lang=` variants). */
export function sitePageUrl(origin: string, id: string, lang?: string): string {
  const loc = `${origin}/site/${encodeURIComponent(id)}`;
  return lang ? `${loc}?lang=${encodeURIComponent(lang)}` : loc;
}

export function meta({ loaderData }: Route.MetaArgs) {
  if (!loaderData) return [];
  const { site, publicBaseUrl } = loaderData;
  const title = siteTitle(site);
  const url = sitePageUrl(publicBaseUrl, site.id);
  const description = site.description || site.domain;
  return [
    { title: `${title} · svc` },
    { name: 'description', content: description },
    { property: 'og:type', content: 'website' },
    { property: 'og:title', content: title },
    { property: 'og:description', content: description },
    { property: 'og:url', content: url },
    ...(site.og_image_url ? [{ property: 'og:image', content: site.og_image_url }] : []),
    { tagName: 'link', rel: 'canonical', href: url },
    ...LANGUAGE_CODES.map((lang) => ({
      tagName: 'link',
      rel: 'alternate',
      hrefLang: lang,
      href: sitePageUrl(publicBaseUrl, site.id, lang),
    })),
    { tagName: 'link', rel: 'alternate', hrefLang: 'x-default', href: url },
  ];
}

function Claim({ id, claimed }: { id: string; claimed: boolean }) {
  const { t } = useTranslation('sites');
  const root = useRootData();
  const revalidator = useRevalidator();
  const [copied, setCopied] = useState(false);
  const [answer, setAnswer] = useState<{ text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const hydrated = useHydrated();
  const tag = `<meta name="${CLAIM_META_NAME}" content="${id}">`;
  if (claimed) return <p className="claim-status claimed">{t('claim.claimed')}</p>;
  async function copy() {
    try {
      await navigator.clipboard.writeText(tag);
      setCopied(true);
    } catch {
      setCopied(false);
    }
  }
  async function verify() {
    setBusy(true);
    try {
      await browserApi().sites.claim(id);
      setAnswer({ text: t('claim.verified'), error: false });
      void revalidator.revalidate();
    } catch (err) {
      const status = (err as { status?: number }).status;
      setAnswer({ text: status === 400 ? t('claim.notFound') : describeError(err, t), error: true });
    } finally {
      setBusy(false);
    }
  }
  return (
    <section className="claim card" aria-labelledby="claim-heading">
      <h2 id="claim-heading">{t('claim.heading')}</h2>
      <p className="claim-status">{t('claim.unclaimed')}</p>
      <p>{t('claim.howTo')}</p>
      <div className="code-row">
        <pre>
          <code id="claim-meta">{tag}</code>
        </pre>
        <button type="button" className="secondary" onClick={() => void copy()} aria-describedby="claim-meta" disabled={!hydrated}>
          {copied ? t('common:ui.copied') : t('common:ui.copy')}
        </button>
      </div>
      {root?.user ? (
        <button type="button" onClick={() => void verify()} disabled={busy || !hydrated}>
          {t('claim.verify')}
        </button>
      ) : (
        <p>
          <Link to={`/login?next=${encodeURIComponent(`/site/${id}`)}`}>{t('claim.loginToVerify')}</Link>
        </p>
      )}
      <p className={answer?.error ? 'error-text' : 'success-text'} aria-live="polite">
        {answer?.text}
      </p>
    </section>
  );
}

export default function SitePage({ loaderData }: Route.ComponentProps) {
  const { t, i18n } = useTranslation('sites');
  const revalidator = useRevalidator();
  useLiveConnection(() => void revalidator.revalidate());
  const site = useLiveSite(loaderData.site);
  const nf = numberFormat(i18n.language);
  const df = dateFormat(i18n.language);
  return (
    <article className="site-page">
      <p className="breadcrumbs">
        <Link to="/">{t('site.back')}</Link>
      </p>
      <LiveIndicator />
      <div className="site-page-head">
        {site.favicon_url ? <img className="favicon" src={site.favicon_url} alt="" width={32} height={32} /> : null}
        <h1 dir="auto">{siteTitle(site)}</h1>
      </div>
      {site.og_image_url ? <img className="og-image" src={site.og_image_url} alt="" /> : null}
      <p>
        <a href={site.url} target="_blank" rel="noopener noreferrer" onClick={() => recordClick(site.id)} className="button">
          {withUserText(t, 'site.open', { domain: site.domain })}
          <span className="visually-hidden"> {t('card.newTab')}</span>
        </a>
      </p>
      <ProfileLine site={site} />
      {site.description ? (
        <p className="site-description" dir="auto">
          {site.description}
        </p>
      ) : null}
      <SiteTags tags={site.tags} />
      <dl className="site-facts">
        <dt>{t('site.domain')}</dt>
        <dd dir="auto">{site.domain}</dd>
        <dt>{t('site.clicks')}</dt>
        <dd>{nf.format(site.click_count)}</dd>
        <dt>{t('site.submits')}</dt>
        <dd>{nf.format(site.submit_count)}</dd>
        <dt>{t('site.firstShared')}</dt>
        <dd>
          <time dateTime={site.first_submitted_at}>{df.format(new Date(site.first_submitted_at))}</time>
        </dd>
      </dl>
      <div className="site-card-actions">
        <BoostButton site={site} />
        <BookmarkButton siteId={site.id} initiallyBookmarked={loaderData.bookmarked} />
      </div>
      <Claim id={site.id} claimed={site.is_claimed} />
    </article>
  );
}
