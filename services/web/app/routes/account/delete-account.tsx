// "Delete my account" on /me (docs/decisions/035-account-deletion.md). The session alone is
// not enough: the API wants a login code just mailed to the account's address, so the page
// asks in two steps. First "Delete my account…" shows what deletion does and sends the code;
// then the code and one danger button. Deleted, the reader lands on the home page, logged
// out; a refusal is said in words, focused, and the reader stays to try again.
import { ApiError } from '@svc/client';
import { DELETED_USER_NAME } from '@svc/types/constants';
import type { TFunction } from 'i18next';
import { useEffect, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { useTranslation } from 'react-i18next';
import { withUserText } from '../../components/user-text';
import { describeApiError } from '../../lib/api-error';
import { browserApi } from '../../lib/api.client';
import { useHydrated } from '../../lib/use-hydrated';
import { LoginCodeField, NoScriptNotice } from './components';

type Step = 'closed' | 'explain' | 'code';
type T = TFunction<'account'>;

/** What deletion does, in the order the page lists it (keys under deleteAccount.what). */
const CONSEQUENCES = ['sessions', 'apps', 'personal', 'sites', 'chat', 'reports', 'again'] as const;

/** A failed send-code: the mail provider failing (502) has its own words. */
function sendError(err: unknown, t: T): string {
  if (err instanceof ApiError && err.status === 502) return t('login.mailFailed');
  return describeApiError(err, t);
}

/** A refused deletion: a 400 is a wrong, spent or expired code. */
function deleteError(err: unknown, t: T): string {
  if (err instanceof ApiError && err.status === 400) return t('deleteAccount.codeWrong');
  return describeApiError(err, t);
}

export function DeleteAccount({ email }: { email: string }) {
  const { t } = useTranslation('account');
  const hydrated = useHydrated();
  const [step, setStep] = useState<Step>('closed');
  const [code, setCode] = useState('');
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<string | null>(null);
  const [notice, setNotice] = useState<ReactNode>(null);
  const openRef = useRef<HTMLButtonElement>(null);
  const panelRef = useRef<HTMLHeadingElement>(null);
  const codeRef = useRef<HTMLInputElement>(null);
  const errorRef = useRef<HTMLParagraphElement>(null);
  // What gets the focus after the next render: each step moves it where the reader goes on.
  const [focusTarget, setFocusTarget] = useState<'open' | 'panel' | 'code' | 'error' | null>(null);

  useEffect(() => {
    if (focusTarget === 'open') openRef.current?.focus();
    else if (focusTarget === 'panel') panelRef.current?.focus();
    else if (focusTarget === 'code') codeRef.current?.focus();
    else if (focusTarget === 'error') errorRef.current?.focus();
    if (focusTarget) setFocusTarget(null);
  }, [focusTarget]);

  function fail(message: string) {
    setNotice(null);
    setError(message);
    setFocusTarget('error');
  }

  function open() {
    setStep('explain');
    setFocusTarget('panel');
  }

  function keep() {
    setStep('closed');
    setCode('');
    setError(null);
    setNotice(null);
    setFocusTarget('open');
  }

  async function sendCode(again: boolean) {
    setBusy(true);
    setError(null);
    try {
      await browserApi().auth.sendCode(email);
      setStep('code');
      setCode('');
      setNotice(withUserText(t, again ? 'deleteAccount.resent' : 'deleteAccount.codeSent', { email }));
      setFocusTarget('code');
    } catch (err) {
      fail(sendError(err, t));
    } finally {
      setBusy(false);
    }
  }

  async function deleteAccount(event: FormEvent<HTMLFormElement>) {
    event.preventDefault();
    if (busy) return;
    setBusy(true);
    setError(null);
    try {
      await browserApi().auth.deleteAccount(code.trim());
      setNotice(t('deleteAccount.deleted'));
      // A full load: every part of the page sees that nobody is logged in any more.
      window.location.assign('/');
    } catch (err) {
      setBusy(false);
      fail(deleteError(err, t));
    }
  }

  const disabled = !hydrated || busy;

  return (
    <section aria-labelledby="delete-heading">
      <h2 id="delete-heading">{t('deleteAccount.title')}</h2>
      <p id="delete-intro">{t('deleteAccount.intro')}</p>
      <NoScriptNotice text={t('deleteAccount.noScript')} />

      {step === 'closed' ? (
        <p>
          <button
            ref={openRef}
            type="button"
            className="secondary"
            aria-describedby="delete-intro"
            disabled={!hydrated}
            onClick={open}
          >
            {t('deleteAccount.open')}
          </button>
        </p>
      ) : (
        <div className="card account-danger">
          <h3 id="delete-what" ref={panelRef} tabIndex={-1}>
            {t('deleteAccount.whatTitle')}
          </h3>
          <ul aria-labelledby="delete-what">
            {CONSEQUENCES.map((key) => (
              <li key={key}>{t(`deleteAccount.what.${key}`, { name: DELETED_USER_NAME })}</li>
            ))}
          </ul>
          <p>
            {t('deleteAccount.exportFirst')} <a href="#data-export-heading">{t('deleteAccount.exportLink')}</a>
          </p>
          <p id="delete-code-to">{withUserText(t, 'deleteAccount.codeTo', { email })}</p>

          <div aria-live="assertive" className="account-messages">
            {error && (
              <p ref={errorRef} id="delete-error" tabIndex={-1} className="error-text account-error">
                {error}
              </p>
            )}
          </div>
          <div aria-live="polite" className="account-messages">
            {notice && <p className="success-text">{notice}</p>}
          </div>

          {step === 'explain' ? (
            <div className="account-actions">
              <button
                type="button"
                aria-describedby="delete-code-to"
                disabled={disabled}
                onClick={() => void sendCode(false)}
              >
                {busy ? t('login.sending') : t('deleteAccount.sendCode')}
              </button>
              <button type="button" className="secondary" disabled={busy} onClick={keep}>
                {t('deleteAccount.keep')}
              </button>
            </div>
          ) : (
            <form className="account-form" aria-labelledby="delete-heading" onSubmit={(e) => void deleteAccount(e)}>
              <p id="delete-code-hint" className="hint">
                {t('login.codeHint')}
              </p>
              <LoginCodeField
                id="delete-code"
                label={t('login.code')}
                inputRef={codeRef}
                value={code}
                onChange={setCode}
                describedBy={error ? 'delete-code-hint delete-error' : 'delete-code-hint'}
                invalid={Boolean(error)}
              />
              <div className="account-actions">
                <button type="submit" className="danger" disabled={disabled}>
                  {busy ? t('deleteAccount.deleting') : t('deleteAccount.confirm')}
                </button>
                <button type="button" className="secondary" disabled={disabled} onClick={() => void sendCode(true)}>
                  {t('login.resend')}
                </button>
                <button type="button" className="secondary" disabled={busy} onClick={keep}>
                  {t('deleteAccount.keep')}
                </button>
              </div>
            </form>
          )}
        </div>
      )}
    </section>
  );
}
