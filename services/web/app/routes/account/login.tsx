// /login: the email, then the 6-digit code mailed to it. The calls go from the browser
// (browserApi: the API sets the HttpOnly sn_token cookie on verify itself); afterwards a full
// page load of `?next=` (same-origin paths only) so every part of the page sees the user.
// Without JavaScript the page renders with a notice and disabled buttons.
import { ApiError } from '@svc/client';
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { redirect } from 'react-router';
import type { Route } from './+types/login';
import { describeApiError } from '../../lib/api-error';
import type { TFunction } from 'i18next';
import { hasSession, serverApi } from '../../lib/api.server';
import { browserApi } from '../../lib/api.client';
import { accountMeta } from './account-meta';
import { useHydrated } from '../../lib/use-hydrated';
import { withUserText } from '../../components/user-text';
import { LoginCodeField, NoScriptNotice } from './components';
import { safeNext } from '../../lib/safe-next';
import css from './account.css?url';

export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: css }];

export function meta({ matches }: Route.MetaArgs) {
  return accountMeta(matches, 'login.title');
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const next = safeNext(new URL(request.url).searchParams.get('next'));
  if (hasSession(request)) {
    let loggedIn = false;
    try {
      await serverApi(request, context).auth.me();
      loggedIn = true;
    } catch {
      // An expired session (or an API hiccup): show the login form.
    }
    if (loggedIn) throw redirect(next, 302);
  }
  return { next };
}

type Step = 'email' | 'code';
type T = TFunction<'account'>;

/** A failed send-code in words: bad address, the mail provider failing (502), limits… */
function sendError(err: unknown, t: T): string {
  if (err instanceof ApiError && err.status === 400) return t('login.invalidEmail');
  if (err instanceof ApiError && err.status === 502) return t('login.mailFailed');
  return describeApiError(err, t);
}

/** A failed verify: a wrong or expired code is a 400. */
function verifyError(err: unknown, t: T): string {
  if (err instanceof ApiError && err.status === 400) return t('login.codeWrong');
  return describeApiError(err, t);
}

export default function LoginPage({ loaderData }: Route.ComponentProps) {
  const { next } = loaderData;
  const { t } = useTranslation('account');
  const hydrated = useHydrated();
  const [step, setStep] = useState<Step>('email');
  const [email, setEmail] = useState('');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<ReactNode>(null);
  const errorRef = useRef<HTMLParagraphElement>(null);
  const emailRef = useRef<HTMLInputElement>(null);
  const codeRef = useRef<HTMLInputElement>(null);
  // What gets the focus after the next render: the error, or the field of the new step.
  const [focusTarget, setFocusTarget] = useState<'error' | 'email' | 'code' | null>(null);

  useEffect(() => {
    if (focusTarget === 'error') errorRef.current?.focus();
    else if (focusTarget === 'email') emailRef.current?.focus();
    else if (focusTarget === 'code') codeRef.current?.focus();
    if (focusTarget) setFocusTarget(null);
  }, [focusTarget]);

  function fail(message: string) {
    setNotice(null);
    setError(message);
    setFocusTarget('error');
  }

  async function sendCode(again: boolean) {
    setBusy(true);
    setError(null);
    try {
      await browserApi().auth.sendCode(email.trim());
      setStep('code');
      setCode('');
      setNotice(withUserText(t, again ? 'login.resent' : 'login.codeSent', { email: email.trim() }));
      setFocusTarget('code');
    } catch (err) {
      fail(sendError(err, t));
    } finally {
      setBusy(false);
    }
  }

  async function verify() {
    setBusy(true);
    setError(null);
    try {
      await browserApi().auth.verify(email.trim(), code.trim());
      setNotice(t('login.success'));
      // A full load: the header, the root data and every loader see the new session.
      window.location.assign(next);
    } catch (err) {
      setBusy(false);
      fail(verifyError(err, t));
    }
  }

  function onEmailSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!busy) void sendCode(false);
  }

  function onCodeSubmit(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (!busy) void verify();
  }

  function otherEmail() {
    setStep('email');
    setCode('');
    setError(null);
    setNotice(null);
    setFocusTarget('email');
  }

  const disabled = !hydrated || busy;

  return (
    <section className="account-page login-page">
      <h1>{t('login.title')}</h1>
      <p>{t('login.intro')}</p>
      <NoScriptNotice text={t('login.noScript')} />

      <div aria-live="assertive" className="account-messages">
        {error && (
          <p ref={errorRef} tabIndex={-1} className="error-text account-error" id="login-error">
            {error}
          </p>
        )}
      </div>
      <div aria-live="polite" className="account-messages">
        {notice && <p className="success-text">{notice}</p>}
      </div>

      {step === 'email' ? (
        <form className="card account-form" onSubmit={onEmailSubmit} noValidate={false}>
          <div className="field">
            <label htmlFor="login-email">{t('login.email')}</label>
            <input
              ref={emailRef}
              id="login-email"
              name="email"
              type="email"
              autoComplete="email"
              inputMode="email"
              required
              maxLength={254}
              value={email}
              onChange={(e) => setEmail(e.target.value)}
              aria-describedby={error ? 'login-error' : undefined}
              aria-invalid={error ? true : undefined}
            />
          </div>
          <button type="submit" disabled={disabled}>
            {busy ? t('login.sending') : t('login.sendCode')}
          </button>
        </form>
      ) : (
        <form className="card account-form" onSubmit={onCodeSubmit}>
          <p className="hint">{t('login.codeHint')}</p>
          <LoginCodeField
            id="login-code"
            label={t('login.code')}
            inputRef={codeRef}
            value={code}
            onChange={setCode}
            describedBy={error ? 'login-error' : undefined}
            invalid={Boolean(error)}
          />
          <div className="account-actions">
            <button type="submit" disabled={disabled}>
              {busy ? t('login.verifying') : t('login.verify')}
            </button>
            <button type="button" className="secondary" disabled={disabled} onClick={() => void sendCode(true)}>
              {t('login.resend')}
            </button>
            <button type="button" className="secondary" disabled={busy} onClick={otherEmail}>
              {t('login.otherEmail')}
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
