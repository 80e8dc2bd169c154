// /me/bookmarks: the reader's bookmarked sites, newest first, each linking to its page on
// svc and to the site itself, with a remove button. Rendered on the server: the bookmark
// list, then each site (a few at a time); a site that has gone since is listed as such.
import { ApiError } from '@svc/client';
import type { Site } from '@svc/types';
import { useEffect, useRef, useState, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { Link } from 'react-router';
import type { Route } from './+types/bookmarks';
import { describeApiError } from '../../lib/api-error';
import { browserApi } from '../../lib/api.client';
import { useRootData } from '../../lib/root-data';
import { accountMeta } from './account-meta';
import { loaderFailure, mapLimited, requireUser } from './account.server';
import { useHydrated } from '../../lib/use-hydrated';
import { UserText, withUserText } from '../../components/user-text';
import { AccountNav, NoScriptNotice, formatDate, isWebUrl } from './components';
import css from './account.css?url';

export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: css }];

export function meta({ matches }: Route.MetaArgs) {
  return accountMeta(matches, 'bookmarks.title');
}

export interface BookmarkItem {
  siteId: string;
  createdAt: string;
  site: Site | null;
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const { api } = await requireUser(request, context);
  let items: BookmarkItem[];
  try {
    const { bookmarks } = await api.bookmarks.list();
    const sorted = [...bookmarks].sort((a, b) => b.created_at.localeCompare(a.created_at));
    items = await mapLimited(sorted, 8, async (b) => {
      try {
        return { siteId: b.site_id, createdAt: b.created_at, site: (await api.sites.get(b.site_id)).site };
      } catch (err) {
        if (err instanceof ApiError && err.status === 404) return { siteId: b.site_id, createdAt: b.created_at, site: null };
        throw err;
      }
    });
  } catch (err) {
    return loaderFailure(request, err);
  }
  return { items };
}

export default function BookmarksPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation('account');
  const lang = useRootData()?.lang ?? 'en';
  const hydrated = useHydrated();
  const [items, setItems] = useState(loaderData.items);
  const [busyId, setBusyId] = useState<string | null>(null);
  const [status, setStatus] = useState<{ text: ReactNode; error: boolean } | null>(null);
  const statusRef = useRef<HTMLParagraphElement>(null);
  const [focusStatus, setFocusStatus] = useState(false);

  useEffect(() => setItems(loaderData.items), [loaderData.items]);
  useEffect(() => {
    if (focusStatus) {
      statusRef.current?.focus();
      setFocusStatus(false);
    }
  }, [focusStatus]);

  async function remove(item: BookmarkItem) {
    const title = item.site?.title || item.site?.domain || t('bookmarks.gone');
    setBusyId(item.siteId);
    setStatus(null);
    try {
      await browserApi().bookmarks.remove(item.siteId);
      setItems((list) => list.filter((i) => i.siteId !== item.siteId));
      setStatus({ text: withUserText(t, 'bookmarks.removed', { title }), error: false });
    } catch (err) {
      if (err instanceof ApiError && err.status === 404) {
        // Already gone (another tab): the list simply catches up.
        setItems((list) => list.filter((i) => i.siteId !== item.siteId));
        setStatus({ text: withUserText(t, 'bookmarks.removed', { title }), error: false });
      } else {
        setStatus({ text: describeApiError(err, t), error: true });
      }
    } finally {
      setBusyId(null);
      setFocusStatus(true);
    }
  }

  return (
    <section className="account-page">
      <AccountNav />
      <h1>{t('bookmarks.title')}</h1>
      <NoScriptNotice text={t('bookmarks.noScript')} />
      <div aria-live="polite" className="account-messages">
        {status && (
          <p ref={statusRef} tabIndex={-1} className={status.error ? 'error-text' : 'success-text'}>
            {status.text}
          </p>
        )}
      </div>
      {items.length === 0 ? (
        <div className="card account-empty">
          <p>{t('bookmarks.empty')}</p>
          <p>
            <Link to="/">{t('bookmarks.browse')}</Link>
          </p>
        </div>
      ) : (
        <ul className="account-list">
          {items.map((item) => {
            const site = item.site;
            const title = site ? site.title || site.domain : t('bookmarks.gone');
            const headingId = `bookmark-${item.siteId}`;
            return (
              <li key={item.siteId} className="card account-item">
                <div className="account-item-main">
                  {site?.favicon_url && isWebUrl(site.favicon_url) && (
                    <img className="account-favicon" src={site.favicon_url} alt="" width={24} height={24} loading="lazy" />
                  )}
                  <div>
                    <h2 id={headingId} className="account-item-title" dir="auto">
                      {site ? <Link to={`/site/${encodeURIComponent(site.id)}`}>{title}</Link> : title}
                    </h2>
                    {site && isWebUrl(site.url) && (
                      <p className="account-item-url">
                        <a href={site.url} rel="noopener noreferrer nofollow" target="_blank">
                          <UserText>{site.domain}</UserText>
                          <span className="visually-hidden"> {t('opensInNewTab')}</span>
                        </a>
                      </p>
                    )}
                    <p className="hint">{t('bookmarks.savedOn', { date: formatDate(item.createdAt, lang) })}</p>
                  </div>
                </div>
                <button
                  type="button"
                  className="secondary"
                  disabled={!hydrated || busyId === item.siteId}
                  aria-describedby={headingId}
                  onClick={() => void remove(item)}
                >
                  {t('bookmarks.remove')}
                </button>
              </li>
            );
          })}
        </ul>
      )}
    </section>
  );
}
