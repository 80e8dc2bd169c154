// The header on every page: the main navigation, the language switcher and the account
// menu. Both menus are <details> elements: they open without JavaScript.
import { useTranslation } from 'react-i18next';
import { Link, NavLink, useLocation } from 'react-router';
import { LANGUAGE_CODES, LANGUAGE_NAMES } from '../i18n/languages';
import { browserApi } from '../lib/api.client';
import { UserText } from './user-text';
import { useRootData } from '../lib/root-data';

function withLanguage(search: string, lang: string): string {
  const params = new URLSearchParams(search);
  params.set('lang', lang);
  return `?${params.toString()}`;
}

function LanguageSwitcher() {
  const { t } = useTranslation('common');
  const root = useRootData();
  const location = useLocation();
  return (
    <details className="menu language-menu">
      <summary>
        <svg className="icon" aria-hidden="true" viewBox="0 0 24 24" width="16" height="16">
          <circle cx="12" cy="12" r="9" fill="none" stroke="currentColor" strokeWidth="1.8" />
          <path d="M3 12h18M12 3c2.8 3 2.8 15 0 18M12 3c-2.8 3-2.8 15 0 18" fill="none" stroke="currentColor" strokeWidth="1.8" />
        </svg>
        <span className="visually-hidden">{t('nav.language')}: </span>
        {root ? LANGUAGE_NAMES[root.lang] : 'English'}
      </summary>
      <ul>
        {LANGUAGE_CODES.map((code) => (
          <li key={code}>
            <a
              href={`${location.pathname}${withLanguage(location.search, code)}`}
              hrefLang={code}
              lang={code}
              aria-current={root?.lang === code ? 'true' : undefined}
            >
              {LANGUAGE_NAMES[code]}
            </a>
          </li>
        ))}
      </ul>
    </details>
  );
}

function AccountMenu() {
  const { t } = useTranslation('common');
  const root = useRootData();
  const location = useLocation();
  const user = root?.user;
  if (!user) {
    const back = encodeURIComponent(`${location.pathname}${location.search}`);
    return (
      <Link className="button" to={`/login?next=${back}`}>
        {t('nav.login')}
      </Link>
    );
  }
  async function logout() {
    try {
      await browserApi().auth.logout();
    } finally {
      window.location.assign('/');
    }
  }
  return (
    <details className="menu account-menu">
      <summary>
        <span className="visually-hidden">{t('nav.account')}: </span>
        <UserText>{user.username}</UserText>
      </summary>
      <ul>
        <li>
          <Link to="/me">{t('nav.username')}</Link>
        </li>
        <li>
          <Link to="/me/bookmarks">{t('nav.bookmarks')}</Link>
        </li>
        <li>
          <Link to="/me/submissions">{t('nav.submissions')}</Link>
        </li>
        <li>
          <button type="button" className="link-button" onClick={() => void logout()}>
            {t('nav.logout')}
          </button>
        </li>
      </ul>
    </details>
  );
}

export function SiteHeader() {
  const { t } = useTranslation('common');
  const root = useRootData();
  return (
    <header className="site-header">
      <a className="skip-link" href="#main">
        {t('nav.skip')}
      </a>
      <Link to="/" className="brand">
        svc
      </Link>
      <nav aria-label={t('nav.mainNav')}>
        <ul>
          <li>
            <NavLink to="/" end>
              {t('nav.home')}
            </NavLink>
          </li>
          <li>
            <NavLink to="/apps">{t('nav.apps')}</NavLink>
          </li>
          <li>
            {/* A full load: the desktop's CSP (which app origins it may frame) is per document. */}
            <NavLink to="/desktop" reloadDocument>
              {t('nav.desktop')}
            </NavLink>
          </li>
          <li>
            <NavLink to="/developer">{t('nav.developer')}</NavLink>
          </li>
          {root?.isModerator ? (
            <li>
              <NavLink to="/moderation">{t('nav.moderation')}</NavLink>
            </li>
          ) : null}
        </ul>
      </nav>
      <div className="header-tools">
        <LanguageSwitcher />
        <AccountMenu />
      </div>
    </header>
  );
}
