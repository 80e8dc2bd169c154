// <BookmarkButton siteId initiallyBookmarked siteTitle? />: a toggle (aria-pressed) that adds or removes
// the reader's bookmark of a site. Logged out, it is a link to the login page that comes
// back here. Errors are said in words next to it (aria-live). Styles: .bookmark-button in
// the base stylesheet's button rules; nothing else needed.
import { ApiError } from '@svc/client';
import { useEffect, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { Link, useLocation } from 'react-router';
import { describeApiError } from '../../lib/api-error';
import { browserApi } from '../../lib/api.client';
import { useHydrated } from '../../lib/use-hydrated';
import { useRootData } from '../../lib/root-data';
import { UserText } from '../user-text';
import { loginHref } from '../../lib/safe-next';

export interface BookmarkButtonProps {
  siteId: string;
  initiallyBookmarked: boolean;
  /** The site's title, so that the button's name says which site (lists of cards). */
  siteTitle?: string;
  className?: string;
  /** Told after each change that the API accepted. */
  onChange?: (bookmarked: boolean) => void;
}

export function BookmarkButton({ siteId, initiallyBookmarked, siteTitle, className, onChange }: BookmarkButtonProps) {
  const { t } = useTranslation('account');
  const root = useRootData();
  const location = useLocation();
  const [bookmarked, setBookmarked] = useState(initiallyBookmarked);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const hydrated = useHydrated();
  useEffect(() => setBookmarked(initiallyBookmarked), [initiallyBookmarked]);

  const classes = ['bookmark-button', className].filter(Boolean).join(' ');

  if (!root?.user) {
    return (
      <Link className={`${classes} button secondary`} to={loginHref(`${location.pathname}${location.search}`)}>
        {t('bookmarkButton.login')}
        {siteTitle && (
          <span className="visually-hidden">
            : <UserText>{siteTitle}</UserText>
          </span>
        )}
      </Link>
    );
  }

  async function toggle() {
    const want = !bookmarked;
    setBusy(true);
    setError(null);
    try {
      if (want) await browserApi().bookmarks.add(siteId);
      else await browserApi().bookmarks.remove(siteId);
      setBookmarked(want);
      onChange?.(want);
    } catch (err) {
      if (!want && err instanceof ApiError && err.status === 404) {
        setBookmarked(false);
        onChange?.(false);
      } else {
        setError(describeApiError(err, t));
      }
    } finally {
      setBusy(false);
    }
  }

  return (
    <span className="bookmark-control">
      <button
        type="button"
        className={`${classes}${bookmarked ? '' : ' secondary'}`}
        aria-pressed={bookmarked}
        disabled={!hydrated || busy}
        onClick={() => void toggle()}
      >
        <span aria-hidden="true">{bookmarked ? '★' : '☆'}</span> {t('bookmarkButton.add')}
        {siteTitle && (
          <span className="visually-hidden">
            : <UserText>{siteTitle}</UserText>
          </span>
        )}
      </button>
      <span aria-live="polite" className="error-text bookmark-error">
        {error}
      </span>
    </span>
  );
}
