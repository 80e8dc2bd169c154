// /me: the account — email, username and a form to change it, logging out, deleting it.
// The rename goes from the browser (the API answers with a fresh HttpOnly sn_token the
// browser keeps), then a no-op POST to this route's action makes React Router revalidate
// every loader, the root's included, so the header shows the new name without a reload.
import { ApiError } from '@svc/client';
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { useFetcher } from 'react-router';
import type { Route } from './+types/me';
import { describeApiError } from '../../lib/api-error';
import type { TFunction } from 'i18next';
import { browserApi } from '../../lib/api.client';
import { accountMeta } from './account-meta';
import { DataExportSection } from './data-export-section';
import { DeleteAccount } from './delete-account';
import { requireUser } from './account.server';
import { useHydrated } from '../../lib/use-hydrated';
import { userTextField, withUserText } from '../../components/user-text';
import { AccountNav, LogoutButton, NoScriptNotice } from './components';
import { SignOutEverywhere } from './sign-out-everywhere';
import css from './account.css?url';

export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: css }];

export function meta({ matches }: Route.MetaArgs) {
  return accountMeta(matches, 'me.title');
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const { user } = await requireUser(request, context);
  return { user };
}

/** Nothing to do on the server: the POST only makes every loader (the header's) run again. */
export function action() {
  return { revalidated: true };
}

type T = TFunction<'account'>;

function renameError(err: unknown, t: T): string {
  if (err instanceof ApiError && err.status === 400) return t('me.usernameInvalid');
  if (err instanceof ApiError && err.status === 409) return t('me.usernameTaken');
  return describeApiError(err, t);
}

export default function MePage({ loaderData }: Route.ComponentProps) {
  const { user } = loaderData;
  const { t } = useTranslation('account');
  const hydrated = useHydrated();
  const revalidate = useFetcher();
  const [username, setUsername] = useState(user.username);
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [saved, setSaved] = useState<ReactNode>(null);
  const errorRef = useRef<HTMLParagraphElement>(null);
  const [focusError, setFocusError] = useState(false);

  useEffect(() => {
    if (focusError) {
      errorRef.current?.focus();
      setFocusError(false);
    }
  }, [focusError]);

  async function onSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    const wanted = username.trim().normalize('NFC');
    setSaved(null);
    setError(null);
    if (wanted === user.username) {
      setError(t('me.unchanged'));
      setFocusError(true);
      return;
    }
    setBusy(true);
    try {
      const res = await browserApi().auth.setUsername(wanted);
      setUsername(res.user.username);
      setSaved(withUserText(t, 'me.saved', { username: res.user.username }));
      await revalidate.submit(null, { method: 'post', action: '/me' });
    } catch (err) {
      setError(renameError(err, t));
      setFocusError(true);
    } finally {
      setBusy(false);
    }
  }

  return (
    <section className="account-page">
      <AccountNav />
      <h1>{t('me.title')}</h1>
      <dl className="card account-facts">
        <div>
          <dt>{t('me.email')}</dt>
          <dd dir="auto">{user.email}</dd>
        </div>
        <div>
          <dt>{t('me.username')}</dt>
          <dd data-testid="current-username" dir="auto">
            {user.username}
          </dd>
        </div>
      </dl>

      <h2 id="rename-heading">{t('me.changeTitle')}</h2>
      <NoScriptNotice text={t('me.noScript')} />
      <form className="card account-form" aria-labelledby="rename-heading" onSubmit={(e) => void onSubmit(e)}>
        <div className="field">
          <label htmlFor="me-username">{t('me.newUsername')}</label>
          <input
            id="me-username"
            name="username"
            type="text"
            autoComplete="username"
            autoCapitalize="none"
            spellCheck={false}
            required
            minLength={3}
            {...userTextField()}
            value={username}
            onChange={(e) => setUsername(e.target.value)}
            aria-describedby={error ? 'me-username-hint me-error' : 'me-username-hint'}
            aria-invalid={error ? true : undefined}
          />
          <p id="me-username-hint" className="hint">
            {t('me.usernameHint')}
          </p>
        </div>
        <div aria-live="assertive" className="account-messages">
          {error && (
            <p ref={errorRef} id="me-error" tabIndex={-1} className="error-text account-error">
              {error}
            </p>
          )}
        </div>
        <div aria-live="polite" className="account-messages">
          {saved && <p className="success-text">{saved}</p>}
        </div>
        <button type="submit" disabled={!hydrated || busy}>
          {busy ? t('me.saving') : t('me.save')}
        </button>
      </form>

      <DataExportSection />

      <h2>{t('me.sessionTitle')}</h2>
      <p>
        <LogoutButton />
      </p>

      <SignOutEverywhere />

      <DeleteAccount email={user.email} />
    </section>
  );
}
