// Share a site: a URL (and the CAPTCHA when configured). Posted to the home route's action
// (works without JavaScript too); the answer — a new or an already known site — is shown at
// once, and its title and tags fill in live as the worker scrapes and tags it.
import type { Site } from '@svc/types';
import { useEffect, useRef } from 'react';
import { useTranslation } from 'react-i18next';
import { Form, useNavigation } from 'react-router';
import { CAPTCHA_SCRIPT } from '../../lib/captcha';
import { useRootData } from '../../lib/root-data';
import { describeError, type PlainError } from './errors';
import { SiteCard } from './site-card';

export type SubmitResult = { intent: 'submit'; site: Site; isNew: boolean } | { intent: 'submit'; error: PlainError };

/** Loads Cloudflare Turnstile once, in the browser, only when a site key is set. */
function useCaptchaScript(siteKey: string | null): void {
  useEffect(() => {
    if (!siteKey) return;
    if (document.querySelector(`script[src="${CAPTCHA_SCRIPT}"]`)) return;
    const s = document.createElement('script');
    s.src = CAPTCHA_SCRIPT;
    s.async = true;
    s.defer = true;
    document.head.appendChild(s);
  }, [siteKey]);
}

export function SubmitForm({ result }: { result: SubmitResult | undefined }) {
  const { t } = useTranslation('sites');
  const root = useRootData();
  const siteKey = root?.captchaSiteKey ?? null;
  const navigation = useNavigation();
  const busy = navigation.state === 'submitting' && navigation.formData?.get('intent') === 'submit';
  const form = useRef<HTMLFormElement>(null);
  useCaptchaScript(siteKey);
  useEffect(() => {
    if (result && 'site' in result) form.current?.reset();
    // A CAPTCHA token is good for one submission: ask the widget for a fresh one.
    if (result) (window as { turnstile?: { reset: () => void } }).turnstile?.reset();
  }, [result]);
  return (
    <section className="submit card" aria-labelledby="submit-heading">
      <h2 id="submit-heading">{t('submit.heading')}</h2>
      <Form method="post" ref={form} className="submit-form">
        <input type="hidden" name="intent" value="submit" />
        <label htmlFor="submit-url">{t('submit.label')}</label>
        <div className="submit-row">
          <input id="submit-url" name="url" type="url" required maxLength={2048} placeholder="https://" aria-describedby="submit-hint" />
          <button type="submit" disabled={busy}>
            {busy ? t('common:ui.loading') : t('submit.button')}
          </button>
        </div>
        <p id="submit-hint" className="hint">
          {t('submit.hint')}
        </p>
        {siteKey ? (
          <div className="cf-turnstile" data-sitekey={siteKey} data-response-field-name="captchaToken" />
        ) : null}
      </Form>
      <div aria-live="polite" className="submit-result">
        {result && 'error' in result ? <p className="error-text">{describeError(result.error, t)}</p> : null}
        {result && 'site' in result ? (
          <>
            <p className="success-text">{result.isNew ? t('submit.added') : t('submit.known')}</p>
            <SiteCard key={result.site.id} site={result.site} />
          </>
        ) : null}
      </div>
    </section>
  );
}
