// One app: its icon and facts, "install to my desktop", "open", and a report dialog. Install
// and report are this route's actions (the API through the client, with the reader's
// session): plain forms, so they work without JavaScript too. A blocked or unknown app is
// the HTML 404 page.
import { ApiError } from '@svc/client';
import type { AppDetail, ReportReason } from '@svc/types';
import { truncateText } from '@svc/types/text';
import { REPORT_BLOCK_THRESHOLD, REPORT_DETAIL_MAX_LENGTH, REPORT_REASONS } from '@svc/types/constants';
import { useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { data, redirectDocument, useFetcher, type ShouldRevalidateFunctionArgs } from 'react-router';
import type { Route } from './+types/app';
import { AppIcon } from '../../components/apps/app-icon';
import { characterCount, userTextField, withUserText } from '../../components/user-text';
import { describeFailure, failureOf, type AnyT, type Failure } from '../../components/apps/errors';
import { loginHref, rootOf } from '../../components/apps/meta';
import { useHydrated } from '../../lib/use-hydrated';
import { hasSession, serverApi } from '../../lib/api.server';
import { useRootData } from '../../lib/root-data';
import css from './apps.css?url';
import { dateFormat, numberFormat } from '../../lib/intl';

export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: css }];

export function meta({ loaderData, matches }: Route.MetaArgs) {
  const app = loaderData?.app;
  if (!app) return [];
  const base = rootOf(matches)?.publicBaseUrl ?? '';
  const url = `${base}/apps/${encodeURIComponent(app.slug)}`;
  const description = truncateText(app.description, 300, '…') || app.name;
  return [
    { title: `${app.name} · svc` },
    { name: 'description', content: description },
    { tagName: 'link', rel: 'canonical', href: url },
    { property: 'og:title', content: app.name },
    { property: 'og:description', content: description },
    { property: 'og:url', content: url },
    { property: 'og:type', content: 'website' },
    { property: 'og:site_name', content: 'svc' },
  ];
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const api = serverApi(request, context);
  let app: AppDetail;
  try {
    app = (await api.apps.get(params.slug)).app;
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 400)) throw data(null, { status: 404 });
    throw err;
  }
  if (app.status === 'blocked') throw data(null, { status: 404 });
  let installed = false;
  if (hasSession(request)) {
    try {
      installed = (await api.me.installed()).apps.some((a) => a.slug === app.slug);
    } catch {
      installed = false;
    }
  }
  return { app, installed };
}

export type AppActionResult =
  | { intent: 'install'; ok: true }
  | { intent: 'report'; ok: true; blocked: boolean; remaining: number }
  | { intent: 'install' | 'report'; ok: false; failure: Failure };

export async function action({ request, context, params }: Route.ActionArgs): Promise<AppActionResult | Response> {
  const form = await request.formData();
  const intent = form.get('intent');
  const api = serverApi(request, context);
  const slug = params.slug;
  if (intent === 'install' || intent === 'install-open') {
    if (!hasSession(request)) return redirectDocument(loginHref(`/apps/${encodeURIComponent(slug)}`));
    try {
      await api.me.install(slug);
    } catch (err) {
      return { intent: 'install', ok: false, failure: failureOf(err) };
    }
    if (intent === 'install-open') {
      // A whole document load: the desktop's own CSP (frame-src) must allow the app's origin.
      return redirectDocument(`/desktop?open=${encodeURIComponent(slug)}`);
    }
    return { intent: 'install', ok: true };
  }
  if (intent === 'report') {
    const reason = String(form.get('reason') ?? 'other');
    const detail = truncateText(String(form.get('detail') ?? ''), REPORT_DETAIL_MAX_LENGTH);
    try {
      const res = await api.apps.report(slug, {
        reason: (REPORT_REASONS as readonly string[]).includes(reason) ? (reason as ReportReason) : 'other',
        ...(detail.trim() ? { detail } : {}),
      });
      return {
        intent: 'report',
        ok: true,
        blocked: res.blocked,
        remaining: Math.max(0, REPORT_BLOCK_THRESHOLD - res.report_count),
      };
    } catch (err) {
      return { intent: 'report', ok: false, failure: failureOf(err) };
    }
  }
  return { intent: 'report', ok: false, failure: { status: 400, message: 'Unknown action' } };
}

/** After a report the page stays as it is (a report that blocks the app would make it a 404). */
export function shouldRevalidate({ formData, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  if (formData?.get('intent') === 'report') return false;
  return defaultShouldRevalidate;
}

function reportOutcome(result: AppActionResult, t: AnyT): { text: string; ok: boolean } {
  if (result.ok && result.intent === 'report') {
    return result.blocked
      ? { text: t('report.blocked'), ok: true }
      : { text: t('report.recorded', { remaining: result.remaining }), ok: true };
  }
  if (!result.ok) {
    const f = result.failure;
    if (f.status === 409 && /blocked/i.test(f.message)) return { text: t('report.alreadyBlocked'), ok: false };
    if (f.status === 409) return { text: t('report.alreadyReported'), ok: false };
    if (f.status === 403) return { text: t('report.ownApp'), ok: false };
    if (f.status === 404) return { text: t('report.gone'), ok: false };
    return { text: describeFailure(f, t), ok: false };
  }
  return { text: '', ok: true };
}

function ReportDialog({ slug, name }: { slug: string; name: string }) {
  const { t } = useTranslation('apps');
  const fetcher = useFetcher<AppActionResult>();
  const dialog = useRef<HTMLDialogElement>(null);
  const [detail, setDetail] = useState('');
  const result = fetcher.data?.intent === 'report' ? fetcher.data : undefined;
  const outcome = result ? reportOutcome(result, t) : undefined;
  const done = result !== undefined && (result.ok || result.failure.status === 409 || result.failure.status === 403);
  const hydrated = useHydrated();
  return (
    <>
      <button type="button" className="secondary" disabled={!hydrated} onClick={() => dialog.current?.showModal()}>
        {t('report.open')}
      </button>
      <dialog ref={dialog} className="report-dialog" aria-labelledby="report-title">
        <h2 id="report-title">{withUserText(t, 'report.title', { name })}</h2>
        <fetcher.Form method="post" action={`/apps/${encodeURIComponent(slug)}`}>
          <input type="hidden" name="intent" value="report" />
          <div className="field">
            <label htmlFor="report-reason">{t('report.reason')}</label>
            <select id="report-reason" name="reason" defaultValue="spam" disabled={done}>
              {REPORT_REASONS.map((r) => (
                <option key={r} value={r}>
                  {t(`report.reasons.${r}`)}
                </option>
              ))}
            </select>
          </div>
          <div className="field">
            <label htmlFor="report-detail">{t('report.detail')}</label>
            <textarea
              id="report-detail"
              name="detail"
              {...userTextField(REPORT_DETAIL_MAX_LENGTH)}
              rows={4}
              value={detail}
              onChange={(e) => setDetail(e.target.value)}
              aria-describedby="report-detail-count"
              disabled={done}
            />
            <span id="report-detail-count" className="hint">
              {t('report.counter', { used: characterCount(detail), max: REPORT_DETAIL_MAX_LENGTH })}
            </span>
          </div>
          <p role="status" aria-live="polite" className={outcome ? (outcome.ok ? 'success-text' : 'error-text') : undefined}>
            {outcome?.text}
          </p>
          <div className="dialog-actions">
            <button type="button" className="secondary" onClick={() => dialog.current?.close()}>
              {t('ui.close', { ns: 'common' })}
            </button>
            {done ? null : (
              <button type="submit" disabled={fetcher.state !== 'idle'}>
                {fetcher.state !== 'idle' ? t('ui.loading', { ns: 'common' }) : t('report.submit')}
              </button>
            )}
          </div>
        </fetcher.Form>
      </dialog>
    </>
  );
}

export default function AppPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation('apps');
  const root = useRootData();
  const lang = root?.lang ?? 'en';
  const numbers = numberFormat(lang);
  const { app, installed } = loaderData;
  const fetcher = useFetcher<AppActionResult>();
  const here = `/apps/${encodeURIComponent(app.slug)}`;
  const installResult =
    (fetcher.data?.intent === 'install' ? fetcher.data : undefined) ??
    (actionData && 'intent' in actionData && actionData.intent === 'install' ? actionData : undefined);
  const [isInstalled, setInstalled] = useState(installed);
  useEffect(() => setInstalled(installed), [installed]);
  useEffect(() => {
    if (installResult?.ok) setInstalled(true);
  }, [installResult]);
  const loggedIn = Boolean(root?.user);
  const desktopHref = `/desktop?open=${encodeURIComponent(app.slug)}`;

  return (
    <article className="app-detail">
      <header className="app-detail-head">
        <AppIcon name={app.name} gradientFrom={app.icon_gradient_from} gradientTo={app.icon_gradient_to} svg={app.icon_svg} size={96} />
        <div>
          <h1 dir="auto">{app.name}</h1>
          <p className="hint">{withUserText(t, 'app.by', { author: app.author_name })}</p>
        </div>
      </header>

      <div className="app-actions">
        {!loggedIn ? (
          <a className="button" href={loginHref(here)}>
            {t('app.loginToInstall')}
          </a>
        ) : isInstalled ? (
          <p className="success-text">{t('app.installed')}</p>
        ) : (
          <fetcher.Form method="post" action={here}>
            <input type="hidden" name="intent" value="install" />
            <button type="submit" disabled={fetcher.state !== 'idle'}>
              {t('app.install')}
            </button>
          </fetcher.Form>
        )}
        {app.open_mode === 'external' ? (
          <a className="button secondary" href={app.url} target="_blank" rel="noopener noreferrer">
            {t('app.openExternal')}
          </a>
        ) : !loggedIn ? null : isInstalled ? (
          <a className="button secondary" href={desktopHref}>
            {t('app.openDesktop')}
          </a>
        ) : (
          <form method="post" action={here}>
            <input type="hidden" name="intent" value="install-open" />
            <button type="submit" className="secondary">
              {t('app.installOpen')}
            </button>
          </form>
        )}
        {loggedIn ? (
          <ReportDialog slug={app.slug} name={app.name} />
        ) : (
          <a className="button secondary" href={loginHref(here)}>
            {t('report.loginToReport')}
          </a>
        )}
      </div>
      <p aria-live="polite" className={installResult && !installResult.ok ? 'error-text' : 'success-text'}>
        {installResult && !installResult.ok ? describeFailure(installResult.failure, t) : installResult?.ok ? t('app.installDone') : ''}
      </p>

      <section aria-labelledby="about-title">
        <h2 id="about-title">{t('app.about')}</h2>
        {app.description ? (
          <p className="app-description" dir="auto">
            {app.description}
          </p>
        ) : (
          <p className="hint">{t('app.noDescription')}</p>
        )}
        <dl className="app-facts">
          <dt>{t('app.category')}</dt>
          <dd>{t(`categories.${app.category}`, { ns: 'common' })}</dd>
          <dt>{t('app.type')}</dt>
          <dd>{t(`appTypes.${app.app_type}`, { ns: 'common' })}</dd>
          <dt>{t('app.opens')}</dt>
          <dd>{app.open_mode === 'iframe' ? t('app.opensDesktop') : t('app.opensTab')}</dd>
          <dt>{t('app.author')}</dt>
          <dd dir="auto">{app.author_name}</dd>
          {app.chain ? (
            <>
              <dt>{t('app.chain')}</dt>
              <dd dir="auto">{app.chain}</dd>
            </>
          ) : null}
          <dt>{t('app.downloadsLabel')}</dt>
          <dd>{numbers.format(app.downloads)}</dd>
          {app.svc_sdk_version ? (
            <>
              <dt>{t('app.version')}</dt>
              <dd dir="auto">{app.svc_sdk_version}</dd>
            </>
          ) : null}
          <dt>{t('app.updated')}</dt>
          <dd>
            <time dateTime={app.updated_at}>{dateFormat(lang).format(new Date(app.updated_at))}</time>
          </dd>
          <dt>{t('app.address')}</dt>
          <dd className="app-url" dir="auto">
            {app.url}
          </dd>
        </dl>
        {app.tech_tags.length > 0 ? (
          <>
            <h3>{t('app.techTags')}</h3>
            <ul className="tag-list">
              {app.tech_tags.map((tag) => (
                <li key={tag} dir="auto">
                  {tag}
                </li>
              ))}
            </ul>
          </>
        ) : null}
      </section>
    </article>
  );
}
