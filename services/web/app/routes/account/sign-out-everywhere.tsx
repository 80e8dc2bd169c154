// "Sign out everywhere" on /me: every session of the account ends, on every device, this one
// included (docs/decisions/032-sign-out-everywhere.md); then the home page, logged out. A
// refusal (the hourly limit, an outage) is said in words and the reader stays.
import { ApiError } from '@svc/client';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { describeApiError } from '../../lib/api-error';
import { browserApi } from '../../lib/api.client';
import { useHydrated } from '../../lib/use-hydrated';
import { NoScriptNotice } from './components';

export function SignOutEverywhere() {
  const { t } = useTranslation('account');
  const hydrated = useHydrated();
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const errorRef = useRef<HTMLParagraphElement>(null);

  useEffect(() => {
    if (error) errorRef.current?.focus();
  }, [error]);

  async function signOutEverywhere() {
    setBusy(true);
    setError(null);
    try {
      await browserApi().auth.logoutAll();
    } catch (err) {
      // 401: this session had ended already (signed out elsewhere): logged out all the same.
      if (!(err instanceof ApiError && err.status === 401)) {
        setError(describeApiError(err, t));
        setBusy(false);
        return;
      }
    }
    window.location.assign('/');
  }

  return (
    <section aria-labelledby="everywhere-heading">
      <h2 id="everywhere-heading">{t('everywhere.title')}</h2>
      <p id="everywhere-intro">{t('everywhere.intro')}</p>
      <NoScriptNotice text={t('everywhere.noScript')} />
      <div aria-live="assertive" className="account-messages">
        {error && (
          <p
            ref={errorRef}
            id="everywhere-error"
            tabIndex={-1}
            className="error-text account-error"
          >
            {error}
          </p>
        )}
      </div>
      <p>
        <button
          type="button"
          className="secondary"
          aria-describedby="everywhere-intro"
          disabled={!hydrated || busy}
          onClick={() => void signOutEverywhere()}
        >
          {busy ? t('everywhere.signingOut') : t('everywhere.button')}
        </button>
      </p>
    </section>
  );
}
