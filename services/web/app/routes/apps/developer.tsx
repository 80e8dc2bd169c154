// The developer dashboard: the reader's apps in every status, and the form to submit a new
// one. The form is checked in the browser with the contract's own schema (SubmitAppBody from
// @svc/types) before anything is sent; the action checks it again (no JavaScript, or a
// tampered request) and then the API has the last word.
import { ApiError } from '@svc/client';
import { SubmitAppBody, type MyApp } from '@svc/types';
import { APP_CATEGORIES, APP_CHAIN_MAX_LENGTH, APP_DESCRIPTION_MAX_LENGTH, APP_NAME_MAX_LENGTH, APP_OPEN_MODES, APP_TYPES, APP_URL_MAX_LENGTH, APP_WITHDRAWAL_RETENTION_DAYS } from '@svc/types/constants';
import { useState, type FormEvent } from 'react';
import { useTranslation } from 'react-i18next';
import { Form, Link, redirect, useNavigation } from 'react-router';
import type { Route } from './+types/developer';
import { AppIcon } from '../../components/apps/app-icon';
import { userTextField } from '../../components/user-text';
import { BlockLine } from '../../components/apps/app-block';
import { When } from '../../components/when';
import { describeFailure, failureOf, type Failure } from '../../components/apps/errors';
import { Field } from '../../components/apps/field';
import { appsText, loginHref, pageMeta } from '../../components/apps/meta';
import { checkBeforeSubmit, type FieldErrors } from '../../components/apps/validation';
import { hasSession, serverApi } from '../../lib/api.server';
import css from './apps.css?url';

export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: css }];

export function meta({ matches }: Route.MetaArgs) {
  return pageMeta(appsText(matches, 'developer.title'), { noindex: true });
}

export async function loader({ request, context }: Route.LoaderArgs) {
  if (!hasSession(request)) throw redirect(loginHref('/developer'), 302);
  try {
    const { apps } = await serverApi(request, context).me.apps();
    // Set by the app page after "Delete for good": its app is no longer in the list.
    const deleted = new URL(request.url).searchParams.get('deleted') === '1';
    return { apps, deleted };
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) throw redirect(loginHref('/developer'), 302);
    throw err;
  }
}

const FIELDS = ['slug', 'name', 'url', 'description', 'category', 'app_type', 'open_mode', 'chain'] as const;

/** The form's values as the submit body (an empty chain is "none"). */
function bodyOf(form: FormData): Record<string, string> {
  const body: Record<string, string> = {};
  for (const name of FIELDS) {
    const value = form.get(name);
    if (typeof value !== 'string') continue;
    if (name === 'chain' && value.trim() === '') continue;
    body[name] = value;
  }
  return body;
}

export interface SubmitActionResult {
  invalid?: string[];
  failure?: Failure;
  /** What was sent, so a page rendered without JavaScript keeps the reader's input. */
  values: Record<string, string>;
}

export async function action({ request, context }: Route.ActionArgs): Promise<SubmitActionResult | Response> {
  const values = bodyOf(await request.formData());
  const parsed = SubmitAppBody.safeParse(values);
  if (!parsed.success) return { values, invalid: [...new Set(parsed.error.issues.map((i) => String(i.path[0])))] };
  try {
    const created = await serverApi(request, context).apps.submit(parsed.data);
    return redirect(`/developer/apps/${encodeURIComponent(created.slug)}?created=1`);
  } catch (err) {
    return { values, failure: failureOf(err) };
  }
}

function AppRow({ app }: { app: MyApp }) {
  const { t } = useTranslation('apps');
  const blocked = app.status === 'blocked';
  const withdrawn = app.status === 'withdrawn';
  return (
    <li className={`card dev-app${blocked ? ' is-blocked' : ''}${withdrawn ? ' is-withdrawn' : ''}`}>
      <AppIcon name={app.name} gradientFrom={app.icon_gradient_from} gradientTo={app.icon_gradient_to} svg={app.icon_svg} size={48} />
      <div>
        <h3 dir="auto">
          <Link to={`/developer/apps/${encodeURIComponent(app.slug)}`}>{app.name}</Link>
        </h3>
        <p className="hint">
          <code dir="auto">{app.slug}</code> · {t(`categories.${app.category}`, { ns: 'common' })}
        </p>
        <p>
          <span className={`status-badge status-${app.status}`}>{t(`developer.status.${app.status}`)}</span>
          {blocked ? <BlockLine block={app.block} /> : null}
          {withdrawn && app.purge_at ? (
            <span className="hint">
              {' '}
              {t('developer.withdrawnUntil')} <When iso={app.purge_at} />
            </span>
          ) : null}
        </p>
      </div>
    </li>
  );
}

export default function DeveloperPage({ loaderData, actionData }: Route.ComponentProps) {
  const { t } = useTranslation('apps');
  const navigation = useNavigation();
  const [errors, setErrors] = useState<FieldErrors>({});
  const serverInvalid = actionData && 'invalid' in actionData ? actionData.invalid : undefined;
  const failure = actionData && 'failure' in actionData ? actionData.failure : undefined;
  const shown: FieldErrors = { ...errors };
  for (const f of serverInvalid ?? []) shown[f] ??= t(`fields.${f}.invalid`);
  const busy = navigation.state === 'submitting';
  const values = actionData && 'values' in actionData ? actionData.values : {};

  const validate = (e: FormEvent<HTMLFormElement>) => checkBeforeSubmit(e, SubmitAppBody, bodyOf, t, setErrors, FIELDS);

  return (
    <div className="developer-page">
      <h1>{t('developer.title')}</h1>
      <p className="hint">{t('developer.intro')}</p>
      {loaderData.deleted ? (
        <p role="status" className="success-text">
          {t('developer.deleted', { days: APP_WITHDRAWAL_RETENTION_DAYS })}
        </p>
      ) : null}

      <section aria-labelledby="my-apps-title">
        <h2 id="my-apps-title">{t('developer.myApps')}</h2>
        {loaderData.apps.length === 0 ? (
          <p>{t('developer.noApps')}</p>
        ) : (
          <ul className="dev-app-list">
            {loaderData.apps.map((app) => (
              <AppRow key={app.id} app={app} />
            ))}
          </ul>
        )}
      </section>

      <section aria-labelledby="submit-title" className="card dev-form">
        <h2 id="submit-title">{t('developer.submitTitle')}</h2>
        <Form method="post" action="/developer" noValidate onSubmit={validate}>
          <Field form="submit" name="slug" label={t('fields.slug.label')} hint={t('fields.slug.hint')} error={shown.slug}>
            <input type="text" required minLength={3} defaultValue={values.slug} maxLength={64} autoComplete="off" spellCheck={false} />
          </Field>
          <Field form="submit" name="name" label={t('fields.name.label')} hint={t('fields.name.hint')} error={shown.name}>
            <input type="text" required {...userTextField(APP_NAME_MAX_LENGTH)} defaultValue={values.name} />
          </Field>
          <Field form="submit" name="url" label={t('fields.url.label')} hint={t('fields.url.hint')} error={shown.url}>
            <input type="url" defaultValue={values.url} required maxLength={APP_URL_MAX_LENGTH} placeholder="https://" />
          </Field>
          <Field form="submit" name="description" label={t('fields.description.label')} hint={t('fields.description.hint')} error={shown.description}>
            <textarea rows={4} {...userTextField(APP_DESCRIPTION_MAX_LENGTH)} defaultValue={values.description} />
          </Field>
          <div className="field-row">
            <Field form="submit" name="category" label={t('fields.category.label')} error={shown.category}>
              <select defaultValue={values.category ?? 'tools'}>
                {APP_CATEGORIES.map((c) => (
                  <option key={c} value={c}>
                    {t(`categories.${c}`, { ns: 'common' })}
                  </option>
                ))}
              </select>
            </Field>
            <Field form="submit" name="app_type" label={t('fields.app_type.label')} error={shown.app_type}>
              <select defaultValue={values.app_type ?? 'web'}>
                {APP_TYPES.map((c) => (
                  <option key={c} value={c}>
                    {t(`appTypes.${c}`, { ns: 'common' })}
                  </option>
                ))}
              </select>
            </Field>
            <Field form="submit" name="open_mode" label={t('fields.open_mode.label')} hint={t('fields.open_mode.hint')} error={shown.open_mode}>
              <select defaultValue={values.open_mode ?? 'iframe'}>
                {APP_OPEN_MODES.map((c) => (
                  <option key={c} value={c}>
                    {t(`openModes.${c}`)}
                  </option>
                ))}
              </select>
            </Field>
          </div>
          <Field form="submit" name="chain" label={t('fields.chain.label')} hint={t('fields.chain.hint')} error={shown.chain}>
            <input type="text" {...userTextField(APP_CHAIN_MAX_LENGTH)} defaultValue={values.chain} />
          </Field>
          <p role="alert" className="error-text">
            {failure ? describeFailure(failure, t) : ''}
          </p>
          <button type="submit" disabled={busy}>
            {busy ? t('ui.loading', { ns: 'common' }) : t('developer.submit')}
          </button>
        </Form>
      </section>
    </div>
  );
}
