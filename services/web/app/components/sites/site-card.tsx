// One site as a card: favicon, title (opens the site in a new tab and records the click),
// domain, description, profile details, tags in the reader's language, boost.
import type { Site } from '@svc/types';
import { useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import { browserApi } from '../../lib/api.client';
import { useLiveSite } from '../../lib/live';
import { BookmarkButton } from '../account/bookmark-button';
import { BOOSTS_PER_DAY_USER, BOOSTS_PER_DAY_VISITOR } from '@svc/types/constants';
import { useRootData } from '../../lib/root-data';
import { describeError } from './errors';
import { platformName, siteTitle, tagLabel } from './format';
import { useHydrated } from '../../lib/use-hydrated';
import { UserText, withUserText } from '../user-text';
import { numberFormat } from '../../lib/intl';

/** Daily boosts (visitors per IP, logged-in users per user). */
const BOOSTS_VISITOR = BOOSTS_PER_DAY_VISITOR;
const BOOSTS_USER = BOOSTS_PER_DAY_USER;

/** Records a click without holding up the navigation (the site opens in a new tab). */
export function recordClick(id: string): void {
  browserApi()
    .sites.click(id)
    .catch(() => undefined);
}

export function SiteTags({ tags }: { tags: readonly string[] }) {
  const { t } = useTranslation('sites');
  if (tags.length === 0) return <p className="hint site-tags-pending">{t('card.tagsPending')}</p>;
  return (
    <ul className="site-tags" aria-label={t('card.tags')}>
      {tags.map((tag) => (
        <li key={tag}>
          <a href={`/?tag=${encodeURIComponent(tag)}`}>{tagLabel(tag, t)}</a>
        </li>
      ))}
    </ul>
  );
}

export function ProfileLine({ site }: { site: Site }) {
  const { t } = useTranslation('sites');
  if (site.site_type !== 'profile' || !site.social_platform) return null;
  return (
    <p className="site-profile">
      {withUserText(t, 'card.profile', { username: site.social_username ?? '' }, { platform: platformName(site.social_platform) })}
    </p>
  );
}

export function BoostButton({ site }: { site: Site }) {
  const { t } = useTranslation('sites');
  const root = useRootData();
  const [count, setCount] = useState<number | undefined>(undefined);
  const [note, setNote] = useState<{ text: string; error: boolean } | null>(null);
  const [busy, setBusy] = useState(false);
  const hydrated = useHydrated();
  const boosts = count ?? site.boost_count;
  async function boost() {
    setBusy(true);
    try {
      const res = await browserApi().sites.boost(site.id);
      setCount(res.site.boost_count);
      setNote({ text: t('boost.left', { n: res.credits }), error: false });
    } catch (err) {
      const status = (err as { status?: number }).status;
      setNote({
        text:
          status === 429
            ? t(root?.user ? 'boost.limitUser' : 'boost.limitVisitor', { n: root?.user ? BOOSTS_USER : BOOSTS_VISITOR })
            : describeError(err, t),
        error: true,
      });
    } finally {
      setBusy(false);
    }
  }
  return (
    <div className="boost">
      <button type="button" className="secondary" onClick={() => void boost()} disabled={busy || !hydrated}>
        {t('boost.button', { n: boosts })}
      </button>
      <p className={note?.error ? 'error-text boost-note' : 'boost-note'} aria-live="polite">
        {note?.text}
      </p>
    </div>
  );
}

export function SiteCard({
  site: initial,
  headingLevel = 3,
  bookmarked,
}: {
  site: Site;
  headingLevel?: 2 | 3;
  /** Logged-in readers: whether the site is among their bookmarks (undefined: no button). */
  bookmarked?: boolean;
}) {
  const { t, i18n } = useTranslation('sites');
  const site = useLiveSite(initial);
  const H = headingLevel === 2 ? 'h2' : 'h3';
  const nf = numberFormat(i18n.language);
  return (
    <article className="card site-card" data-site-id={site.id}>
      <div className="site-card-head">
        {site.favicon_url ? (
          <img className="favicon" src={site.favicon_url} alt="" width={20} height={20} loading="lazy" />
        ) : (
          <span className="favicon favicon-none" aria-hidden="true" />
        )}
        <H className="site-title" dir="auto">
          <a
            href={site.url}
            target="_blank"
            rel="noopener noreferrer"
            onClick={() => recordClick(site.id)}
            onAuxClick={(e) => e.button === 1 && recordClick(site.id)}
          >
            {siteTitle(site)}
            <span className="visually-hidden"> {t('card.newTab')}</span>
          </a>
        </H>
      </div>
      <p className="site-domain" dir="auto">
        {site.domain}
      </p>
      <ProfileLine site={site} />
      {site.description ? (
        <p className="site-description" dir="auto">
          {site.description}
        </p>
      ) : null}
      <SiteTags tags={site.tags} />
      <p className="site-stats hint">
        {t('card.clicks', { n: nf.format(site.click_count) })}
        {site.is_promoted ? <span className="badge"> · {t('card.promoted')}</span> : null}
      </p>
      <div className="site-card-actions">
        <BoostButton site={site} />
        {bookmarked !== undefined ? (
          <BookmarkButton siteId={site.id} initiallyBookmarked={bookmarked} siteTitle={siteTitle(site)} />
        ) : null}
        <Link to={`/site/${encodeURIComponent(site.id)}`} className="details-link">
          {t('card.details')}
          <span className="visually-hidden">
            : <UserText>{siteTitle(site)}</UserText>
          </span>
        </Link>
      </div>
    </article>
  );
}
