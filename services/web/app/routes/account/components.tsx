// Pieces the account pages share: the section navigation, the no-JavaScript notice,
// the login code field, dates in the reader's language, safe outbound links.
import { useState, type RefObject } from 'react';
import { useTranslation } from 'react-i18next';
import { NavLink } from 'react-router';
import { browserApi } from '../../lib/api.client';
import { dateFormat } from '../../lib/intl';
import { useHydrated } from '../../lib/use-hydrated';

export function NoScriptNotice({ text }: { text: string }) {
  return (
    <noscript>
      <p className="card account-noscript">{text}</p>
    </noscript>
  );
}

/** A login code's field (log in, delete my account): six digits, filled from the e-mail. */
export function LoginCodeField(props: {
  id: string;
  label: string;
  inputRef: RefObject<HTMLInputElement | null>;
  value: string;
  onChange(code: string): void;
  describedBy: string | undefined;
  invalid: boolean;
}) {
  return (
    <div className="field">
      <label htmlFor={props.id}>{props.label}</label>
      <input
        ref={props.inputRef}
        id={props.id}
        name="code"
        type="text"
        autoComplete="one-time-code"
        inputMode="numeric"
        pattern="[0-9]{6}"
        minLength={6}
        maxLength={6}
        required
        value={props.value}
        onChange={(e) => props.onChange(e.target.value.replace(/\D/g, '').slice(0, 6))}
        aria-describedby={props.describedBy}
        aria-invalid={props.invalid ? true : undefined}
      />
    </div>
  );
}

export function AccountNav() {
  const { t } = useTranslation('common');
  const { t: ta } = useTranslation('account');
  return (
    <nav className="account-nav" aria-label={ta('nav.label')}>
      <ul>
        <li>
          <NavLink to="/me" end>
            {t('nav.account')}
          </NavLink>
        </li>
        <li>
          <NavLink to="/me/bookmarks">{t('nav.bookmarks')}</NavLink>
        </li>
        <li>
          <NavLink to="/me/submissions">{t('nav.submissions')}</NavLink>
        </li>
      </ul>
    </nav>
  );
}

/** A date (ISO string) as the reader writes it; UTC so server and browser agree. */
export function formatDate(iso: string, lang: string): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  return dateFormat(lang).format(date);
}

/** Only http(s) addresses become links to the outside. */
export function isWebUrl(url: string): boolean {
  return /^https?:\/\//i.test(url);
}

/** Logs out (the API clears the cookie) and loads the home page. */
export function LogoutButton() {
  const { t } = useTranslation('account');
  const hydrated = useHydrated();
  const [busy, setBusy] = useState(false);
  async function logout() {
    setBusy(true);
    try {
      await browserApi().auth.logout();
    } catch {
      // Logged out or not, the home page shows which.
    }
    window.location.assign('/');
  }
  return (
    <button type="button" className="secondary" disabled={!hydrated || busy} onClick={() => void logout()}>
      {busy ? t('me.loggingOut') : t('me.logout')}
    </button>
  );
}
