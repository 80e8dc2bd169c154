// One of the developer's own apps: edit the updatable fields (UpdateAppBody, checked in the
// browser first) with a live icon preview, and manage its API keys (a new key is shown once;
// the list shows prefixes only). A blocked app shows when and why, and its appeal (the form
// while the block has none); every app shows its moderation history (the author's view of
// the audit log, `?history=` pages it). A live app can be withdrawn; a withdrawn one shows
// when it goes for good and can be deleted for good now (both behind a confirmation).
// Not the reader's app, or unknown: the HTML 404 page.
import { ApiError } from '@svc/client';
import { UpdateAppBody, type ApiKeyListItem, type App, type AuthorAuditEntry, type CreateApiKeyResponse, type MyApp } from '@svc/types';
import { APP_CATEGORIES, APP_CHAIN_MAX_LENGTH, APP_DESCRIPTION_MAX_LENGTH, APP_NAME_MAX_LENGTH, SDK_VERSION_MAX_LENGTH } from '@svc/types/constants';
import { useEffect, useRef, useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { data, Link, redirect, useActionData, useFetcher } from 'react-router';
import type { Route } from './+types/developer-app';
import { AppIcon } from '../../components/apps/app-icon';
import { UserText, userTextField, withUserText } from '../../components/user-text';
import { AuthorHistory, BlockPanel, type AppealActionResult } from '../../components/apps/app-block';
import { parseAppeal } from '../../components/apps/appeal';
import { WithdrawPanel, WithdrawnPanel, type WithdrawActionResult } from '../../components/apps/withdrawal';
import { describeFailure, failureOf, type Failure } from '../../components/apps/errors';
import { Field } from '../../components/apps/field';
import { appsText, loginHref, pageMeta } from '../../components/apps/meta';
import { useHydrated } from '../../lib/use-hydrated';
import { checkBeforeSubmit, type FieldErrors } from '../../components/apps/validation';
import { hasSession, serverApi } from '../../lib/api.server';
import { useRootData } from '../../lib/root-data';
import css from './apps.css?url';

export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: css }];

export function meta({ matches, loaderData }: Route.MetaArgs) {
  const name = loaderData?.app.name ?? '';
  return pageMeta(appsText(matches, 'manage.title', { name }), { noindex: true });
}

export async function loader({ request, context, params }: Route.LoaderArgs) {
  const here = `/developer/apps/${encodeURIComponent(params.slug)}`;
  if (!hasSession(request)) throw redirect(loginHref(here), 302);
  const api = serverApi(request, context);
  let app: MyApp | undefined;
  try {
    app = (await api.me.apps()).apps.find((a) => a.slug === params.slug);
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) throw redirect(loginHref(here), 302);
    throw err;
  }
  if (!app) throw data(null, { status: 404 });
  let keys: ApiKeyListItem[] = [];
  try {
    // A withdrawn app has no keys to manage any more (they were revoked with it).
    if (app.status !== 'withdrawn') keys = (await api.apps.keys.list(app.slug)).keys;
  } catch (err) {
    if (err instanceof ApiError && (err.status === 404 || err.status === 403)) throw data(null, { status: 404 });
    throw err;
  }
  const url = new URL(request.url);
  const created = url.searchParams.get('created') === '1';
  const { entries, older } = await readHistory(api, app.slug, url);
  return { app, keys, created, history: entries, olderHistory: older };
}

const HISTORY_PAGE = 20;

/** One page of the app's moderation history; null when it cannot be read (the rest still shows). */
async function readHistory(
  api: ReturnType<typeof serverApi>,
  slug: string,
  url: URL,
): Promise<{ entries: AuthorAuditEntry[] | null; older: string | null }> {
  const raw = url.searchParams.get('history') ?? '';
  const cursor = raw !== '' && raw.length <= 40 ? raw : undefined;
  try {
    const page = await api.me.appAudit(slug, { limit: HISTORY_PAGE, ...(cursor ? { cursor } : {}) });
    const older = page.next_cursor ? `${url.pathname}?history=${encodeURIComponent(page.next_cursor)}#history-title` : null;
    return { entries: page.entries, older };
  } catch (err) {
    if (err instanceof ApiError && err.status === 400 && cursor) return readHistory(api, slug, new URL(url.pathname, url));
    return { entries: null, older: null };
  }
}

const TEXT_FIELDS = ['name', 'description', 'category'] as const;
const NULLABLE_FIELDS = ['icon_gradient_from', 'icon_gradient_to', 'icon_svg', 'chain', 'svc_sdk_version'] as const;

/** The edit form as an update body: an emptied optional field is `null` (cleared). */
function updateBodyOf(form: FormData): Record<string, unknown> {
  const body: Record<string, unknown> = {};
  for (const name of TEXT_FIELDS) {
    const v = form.get(name);
    if (typeof v === 'string') body[name] = v;
  }
  for (const name of NULLABLE_FIELDS) {
    const v = form.get(name);
    if (typeof v === 'string') body[name] = v.trim() === '' ? null : name === 'icon_svg' ? v : v.trim();
  }
  const tags = form.get('tech_tags');
  if (typeof tags === 'string') {
    body.tech_tags = tags
      .split(',')
      .map((s) => s.trim())
      .filter((s) => s !== '');
  }
  return body;
}

export type ManageActionResult =
  | { intent: 'update'; ok: true }
  | { intent: 'update'; ok: false; invalid?: string[]; failure?: Failure }
  | { intent: 'create-key'; ok: true; key: CreateApiKeyResponse }
  | { intent: 'revoke'; ok: true; id: string }
  | { intent: 'create-key' | 'revoke'; ok: false; failure: Failure }
  | AppealActionResult
  | WithdrawActionResult;

export async function action({ request, context, params }: Route.ActionArgs): Promise<ManageActionResult | Response> {
  const form = await request.formData();
  const intent = form.get('intent');
  const api = serverApi(request, context);
  if (intent === 'update') {
    const parsed = UpdateAppBody.safeParse(updateBodyOf(form));
    if (!parsed.success) {
      return { intent: 'update', ok: false, invalid: [...new Set(parsed.error.issues.map((i) => String(i.path[0])))] };
    }
    try {
      await api.apps.update(params.slug, parsed.data);
      return { intent: 'update', ok: true };
    } catch (err) {
      return { intent: 'update', ok: false, failure: failureOf(err) };
    }
  }
  if (intent === 'appeal') {
    // Checked against the contract first: a post without JavaScript gets the same words.
    const parsed = parseAppeal(form);
    if (!parsed.ok) return { intent: 'appeal', ok: false, problem: parsed.problem };
    try {
      await api.me.appeal(params.slug, parsed.text);
      return { intent: 'appeal', ok: true };
    } catch (err) {
      return { intent: 'appeal', ok: false, failure: failureOf(err) };
    }
  }
  if (intent === 'withdraw') {
    try {
      await api.apps.withdraw(params.slug);
      return { intent: 'withdraw', ok: true };
    } catch (err) {
      return { intent: 'withdraw', ok: false, failure: failureOf(err) };
    }
  }
  if (intent === 'delete-for-good') {
    try {
      await api.apps.withdraw(params.slug, { permanent: true });
    } catch (err) {
      return { intent: 'delete-for-good', ok: false, failure: failureOf(err) };
    }
    // The page's app is gone: back to the dashboard, which says so.
    return redirect('/developer?deleted=1');
  }
  if (intent === 'create-key') {
    try {
      return { intent: 'create-key', ok: true, key: await api.apps.keys.create(params.slug) };
    } catch (err) {
      return { intent: 'create-key', ok: false, failure: failureOf(err) };
    }
  }
  if (intent === 'revoke') {
    const id = String(form.get('id') ?? '');
    try {
      await api.apps.keys.revoke(params.slug, id);
      return { intent: 'revoke', ok: true, id };
    } catch (err) {
      return { intent: 'revoke', ok: false, failure: failureOf(err) };
    }
  }
  return { intent: 'revoke', ok: false, failure: { status: 400, message: 'Unknown action' } };
}

function EditForm({ app }: { app: App }) {
  const { t } = useTranslation('apps');
  const fetcher = useFetcher<ManageActionResult>();
  const [errors, setErrors] = useState<FieldErrors>({});
  const [preview, setPreview] = useState({
    name: app.name,
    from: app.icon_gradient_from ?? '',
    to: app.icon_gradient_to ?? '',
    svg: app.icon_svg ?? '',
  });
  const routeResult = useActionData<ManageActionResult>();
  const latest = fetcher.data ?? routeResult;
  const result = latest?.intent === 'update' ? latest : undefined;
  const shown: FieldErrors = { ...errors };
  if (result && !result.ok) for (const f of result.invalid ?? []) shown[f] ??= t(`fields.${f}.invalid`);

  const validate = (e: FormEvent<HTMLFormElement>) => checkBeforeSubmit(e, UpdateAppBody, updateBodyOf, t, setErrors);

  return (
    <section aria-labelledby="edit-title" className="card dev-form">
      <h2 id="edit-title">{t('manage.editTitle')}</h2>
      <div className="icon-preview" aria-live="off">
        <AppIcon name={preview.name} gradientFrom={preview.from} gradientTo={preview.to} svg={preview.svg} size={96} />
        <span className="hint">{t('manage.preview')}</span>
      </div>
      <fetcher.Form method="post" noValidate onSubmit={validate}>
        <input type="hidden" name="intent" value="update" />
        <Field form="edit" name="name" label={t('fields.name.label')} hint={t('fields.name.hint')} error={shown.name}>
          <input type="text" required {...userTextField(APP_NAME_MAX_LENGTH)} defaultValue={app.name} onChange={(e) => setPreview((p) => ({ ...p, name: e.target.value }))} />
        </Field>
        <Field form="edit" name="description" label={t('fields.description.label')} hint={t('fields.description.hint')} error={shown.description}>
          <textarea rows={4} {...userTextField(APP_DESCRIPTION_MAX_LENGTH)} defaultValue={app.description} />
        </Field>
        <div className="field-row">
          <Field form="edit" name="category" label={t('fields.category.label')} error={shown.category}>
            <select defaultValue={app.category}>
              {APP_CATEGORIES.map((c) => (
                <option key={c} value={c}>
                  {t(`categories.${c}`, { ns: 'common' })}
                </option>
              ))}
            </select>
          </Field>
          <Field form="edit" name="chain" label={t('fields.chain.label')} hint={t('fields.chain.hint')} error={shown.chain}>
            <input type="text" {...userTextField(APP_CHAIN_MAX_LENGTH)} defaultValue={app.chain ?? ''} />
          </Field>
          <Field form="edit" name="svc_sdk_version" label={t('fields.svc_sdk_version.label')} hint={t('fields.svc_sdk_version.hint')} error={shown.svc_sdk_version}>
            <input type="text" dir="auto" maxLength={SDK_VERSION_MAX_LENGTH} defaultValue={app.svc_sdk_version ?? ''} />
          </Field>
        </div>
        <Field form="edit" name="tech_tags" label={t('fields.tech_tags.label')} hint={t('fields.tech_tags.hint')} error={shown.tech_tags}>
          <input type="text" {...userTextField()} defaultValue={app.tech_tags.join(', ')} />
        </Field>
        <div className="field-row">
          <Field form="edit" name="icon_gradient_from" label={t('fields.icon_gradient_from.label')} hint={t('fields.icon_gradient_from.hint')} error={shown.icon_gradient_from}>
            <input type="text" maxLength={7} placeholder="#4338ca" defaultValue={app.icon_gradient_from ?? ''} onChange={(e) => setPreview((p) => ({ ...p, from: e.target.value }))} />
          </Field>
          <Field form="edit" name="icon_gradient_to" label={t('fields.icon_gradient_to.label')} hint={t('fields.icon_gradient_to.hint')} error={shown.icon_gradient_to}>
            <input type="text" maxLength={7} placeholder="#7c3aed" defaultValue={app.icon_gradient_to ?? ''} onChange={(e) => setPreview((p) => ({ ...p, to: e.target.value }))} />
          </Field>
        </div>
        <Field form="edit" name="icon_svg" label={t('fields.icon_svg.label')} hint={t('fields.icon_svg.hint')} error={shown.icon_svg}>
          <textarea rows={5} spellCheck={false} className="code" defaultValue={app.icon_svg ?? ''} onChange={(e) => setPreview((p) => ({ ...p, svg: e.target.value }))} />
        </Field>
        <p role="status" aria-live="polite" className={result?.ok ? 'success-text' : 'error-text'}>
          {result?.ok ? t('manage.saved') : result?.failure ? describeFailure(result.failure, t) : ''}
        </p>
        <button type="submit" disabled={fetcher.state !== 'idle'}>
          {fetcher.state !== 'idle' ? t('ui.loading', { ns: 'common' }) : t('ui.save', { ns: 'common' })}
        </button>
      </fetcher.Form>
    </section>
  );
}

function NewKey({ created }: { created: CreateApiKeyResponse }) {
  const { t } = useTranslation('apps');
  const [copied, setCopied] = useState<boolean | null>(null);
  const input = useRef<HTMLInputElement>(null);
  const hydrated = useHydrated();
  async function copy() {
    try {
      await navigator.clipboard.writeText(created.key);
      setCopied(true);
    } catch {
      input.current?.select();
      setCopied(false);
    }
  }
  return (
    <div className="new-key" role="region" aria-labelledby="new-key-title">
      <h3 id="new-key-title">{t('keys.newTitle')}</h3>
      <p className="warning">{t('keys.onceWarning')}</p>
      <div className="field">
        <label htmlFor="new-key-value">{t('keys.secret')}</label>
        <div className="copy-row">
          <input ref={input} id="new-key-value" type="text" readOnly value={created.key} onFocus={(e) => e.currentTarget.select()} spellCheck={false} />
          <button type="button" disabled={!hydrated} onClick={() => void copy()}>
            {copied ? t('ui.copied', { ns: 'common' }) : t('ui.copy', { ns: 'common' })}
          </button>
        </div>
        <span aria-live="polite" className="hint">
          {copied === true ? t('keys.copiedHint') : copied === false ? t('keys.copyFailed') : ''}
        </span>
      </div>
    </div>
  );
}

function RevokeKey({ item }: { item: ApiKeyListItem }) {
  const { t } = useTranslation('apps');
  const fetcher = useFetcher<ManageActionResult>();
  const failure = fetcher.data && !fetcher.data.ok && fetcher.data.intent === 'revoke' ? fetcher.data.failure : undefined;
  return (
    <details className="revoke">
      <summary>
        {t('keys.revoke')}
        <span className="visually-hidden"> {item.prefix}</span>
      </summary>
      <fetcher.Form method="post">
        <p>{t('keys.revokeConfirm', { prefix: item.prefix })}</p>
        <input type="hidden" name="intent" value="revoke" />
        <input type="hidden" name="id" value={item.id} />
        <button type="submit" className="danger" disabled={fetcher.state !== 'idle'}>
          {t('keys.revokeYes', { prefix: item.prefix })}
        </button>
        {failure ? (
          <p role="alert" className="error-text">
            {describeFailure(failure, t)}
          </p>
        ) : null}
      </fetcher.Form>
    </details>
  );
}

function Keys({ keys }: { keys: ApiKeyListItem[] }) {
  const { t } = useTranslation('apps');
  const lang = useRootData()?.lang ?? 'en';
  const fetcher = useFetcher<ManageActionResult>();
  const [created, setCreated] = useState<CreateApiKeyResponse | null>(null);
  // Without JavaScript the form posts the whole page: the answer is the route's action data.
  const routeResult = useActionData<ManageActionResult>();
  const latest = fetcher.data ?? routeResult;
  useEffect(() => {
    if (latest?.intent === 'create-key' && latest.ok) setCreated(latest.key);
  }, [latest]);
  const shownKey = created ?? (latest?.intent === 'create-key' && latest.ok ? latest.key : null);
  const failure = latest && !latest.ok && latest.intent === 'create-key' ? latest.failure : undefined;
  const dates = new Intl.DateTimeFormat(lang, {
    year: 'numeric',
    month: 'short',
    day: 'numeric',
    hour: '2-digit',
    minute: '2-digit',
    timeZone: 'UTC',
    timeZoneName: 'short',
  });
  const when = (iso: string | null) => (iso ? <time dateTime={iso}>{dates.format(new Date(iso))}</time> : <span>{t('keys.never')}</span>);
  return (
    <section aria-labelledby="keys-title" className="card dev-keys">
      <h2 id="keys-title">{t('keys.title')}</h2>
      <p className="hint">{t('keys.intro')}</p>
      <fetcher.Form method="post">
        <input type="hidden" name="intent" value="create-key" />
        <button type="submit" disabled={fetcher.state !== 'idle'}>
          {t('keys.create')}
        </button>
      </fetcher.Form>
      {failure ? (
        <p role="alert" className="error-text">
          {describeFailure(failure, t)}
        </p>
      ) : null}
      {shownKey ? <NewKey created={shownKey} /> : null}
      {keys.length === 0 ? (
        <p>{t('keys.none')}</p>
      ) : (
        <div className="table-scroll">
          <table className="keys-table">
            <caption className="visually-hidden">{t('keys.title')}</caption>
            <thead>
              <tr>
                <th scope="col">{t('keys.prefix')}</th>
                <th scope="col">{t('keys.created')}</th>
                <th scope="col">{t('keys.lastUsed')}</th>
                <th scope="col">{t('keys.status')}</th>
                <th scope="col">
                  <span className="visually-hidden">{t('keys.actions')}</span>
                </th>
              </tr>
            </thead>
            <tbody>
              {keys.map((k) => (
                <tr key={k.id} className={k.revoked_at ? 'is-revoked' : undefined}>
                  <td>
                    <code>{k.prefix}…</code>
                  </td>
                  <td>{when(k.created_at)}</td>
                  <td>{when(k.last_used_at)}</td>
                  <td>{k.revoked_at ? <>{t('keys.revokedAt')} {when(k.revoked_at)}</> : t('keys.active')}</td>
                  <td>{k.revoked_at ? null : <RevokeKey item={k} />}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      )}
    </section>
  );
}

export default function DeveloperAppPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation('apps');
  const { app, keys, created, history, olderHistory } = loaderData;
  const blocked = app.status === 'blocked';
  const withdrawn = app.status === 'withdrawn';
  return (
    <div className="developer-app-page">
      <p>
        <Link to="/developer">← {t('manage.back')}</Link>
      </p>
      <h1>{withUserText(t, 'manage.title', { name: app.name })}</h1>
      {created ? (
        <p role="status" className="success-text">
          {t('manage.created')}
        </p>
      ) : null}
      <p>
        <span className={`status-badge status-${app.status}`}>{t(`developer.status.${app.status}`)}</span>{' '}
        {withdrawn ? (
          <span className="hint">{t('developer.withdrawnHint')}</span>
        ) : blocked ? (
          <span className="hint">{t(app.block?.by === 'moderator' ? 'developer.blockedByModerator' : 'developer.blockedHint')}</span>
        ) : (
          <a href={`/apps/${encodeURIComponent(app.slug)}`}>{t('manage.viewPublic')}</a>
        )}
      </p>
      <p className="hint">
        <code dir="auto">{app.slug}</code> · <UserText>{app.url}</UserText>
      </p>
      {withdrawn ? (
        <WithdrawnPanel app={app} />
      ) : (
        <>
          {app.block ? <BlockPanel block={app.block} /> : null}
          <EditForm key={app.id} app={app} />
          <Keys keys={keys} />
          <WithdrawPanel app={app} />
        </>
      )}
      <AuthorHistory entries={history} older={olderHistory} />
    </div>
  );
}
