// The document every page shares: <html lang dir>, the reader's language and messages, the
// logged-in user (or null), the header, and the HTML 404/500 pages (ErrorBoundary). Pages
// read its data through lib/root-data.ts, never by importing this module.
import { ApiError, type SvcClient } from '@svc/client';
import type { AuthUser } from '@svc/types';
import { useMemo } from 'react';
import { I18nextProvider, useTranslation } from 'react-i18next';
import {
  data,
  isRouteErrorResponse,
  Links,
  Meta,
  Outlet,
  Scripts,
  ScrollRestoration,
  useRouteError,
  type ShouldRevalidateFunctionArgs,
} from 'react-router';
import type { Route } from './+types/root';
import { SiteFooter } from './components/site-footer';
import { SiteHeader } from './components/site-header';
import { createI18n } from './i18n/instance';
import {
  DEFAULT_LANGUAGE,
  LANGUAGE_COOKIE,
  LANGUAGE_COOKIE_MAX_AGE_S,
  directionOf,
  pickLanguage,
} from './i18n/languages';
import type { LanguageMessages } from './i18n/namespaces';
import { messagesFor } from './i18n/resources.server';
import { hasSession, serverApi } from './lib/api.server';
import { readCookie } from './lib/cookies';
import { useNonce } from './lib/nonce';
import { webRequest } from './lib/request-context';
import { useRootData, type RootData } from './lib/root-data';
import stylesheet from './styles.css?url';

export const links: Route.LinksFunction = () => [
  { rel: 'stylesheet', href: stylesheet },
  { rel: 'icon', href: '/favicon.svg', type: 'image/svg+xml' },
];

interface CurrentUser {
  user: AuthUser | null;
  isModerator: boolean;
}

async function currentUser(api: SvcClient, request: Request): Promise<CurrentUser> {
  if (!hasSession(request)) return { user: null, isModerator: false };
  try {
    const me = await api.auth.me();
    return { user: me.user, isModerator: me.is_moderator };
  } catch (err) {
    // An expired or revoked session is simply "logged out"; other failures are too
    // (the page still renders, the account menu offers to log in again).
    if (err instanceof ApiError && err.status === 401) return { user: null, isModerator: false };
    return { user: null, isModerator: false };
  }
}

export async function loader({ request, context }: Route.LoaderArgs) {
  const url = new URL(request.url);
  const { lang, fromQuery } = pickLanguage({
    query: url.searchParams.get('lang'),
    cookie: readCookie(request.headers.get('cookie'), LANGUAGE_COOKIE),
    acceptLanguage: request.headers.get('accept-language'),
  });
  const ctx = context.get(webRequest);
  const { user, isModerator } = await currentUser(serverApi(request, context), request);
  const body: RootData = {
    lang,
    dir: directionOf(lang),
    messages: messagesFor(lang),
    user,
    isModerator,
    captchaSiteKey: ctx.captchaSiteKey ?? null,
    publicBaseUrl: ctx.publicBaseUrl,
  };
  const headers = new Headers({ vary: 'Cookie, Accept-Language' });
  if (fromQuery) {
    headers.append(
      'set-cookie',
      `${LANGUAGE_COOKIE}=${lang}; Path=/; Max-Age=${LANGUAGE_COOKIE_MAX_AGE_S}; SameSite=Lax; HttpOnly`,
    );
  }
  return data(body, { headers });
}

/** The root's data (language, user…) changes only with `?lang=` or after a form action. */
export function shouldRevalidate({ currentUrl, nextUrl, formMethod, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  if (formMethod !== undefined) return defaultShouldRevalidate;
  return currentUrl.searchParams.get('lang') !== nextUrl.searchParams.get('lang');
}

export function headers({ loaderHeaders }: Route.HeadersArgs) {
  return loaderHeaders;
}

export function Layout({ children }: { children: React.ReactNode }) {
  const root = useRootData();
  const nonce = useNonce();
  const lang = root?.lang ?? DEFAULT_LANGUAGE;
  return (
    <html lang={lang} dir={root?.dir ?? 'ltr'}>
      <head>
        <meta charSet="utf-8" />
        <meta name="viewport" content="width=device-width, initial-scale=1" />
        <meta name="color-scheme" content="light dark" />
        <Meta />
        <Links />
      </head>
      <body>
        {children}
        <ScrollRestoration nonce={nonce} />
        <Scripts nonce={nonce} />
      </body>
    </html>
  );
}

function WithI18n({ children }: { children: React.ReactNode }) {
  const root = useRootData();
  const lang = root?.lang ?? DEFAULT_LANGUAGE;
  const messages = root?.messages;
  const i18n = useMemo(() => createI18n(lang, messages ?? ({} as LanguageMessages)), [lang, messages]);
  return <I18nextProvider i18n={i18n}>{children}</I18nextProvider>;
}

export default function App() {
  return (
    <WithI18n>
      <SiteHeader />
      <main id="main" tabIndex={-1}>
        <Outlet />
      </main>
      <SiteFooter />
    </WithI18n>
  );
}

function ErrorPage({ status }: { status: number }) {
  const { t } = useTranslation('common');
  const kind = status === 404 ? 'notFound' : status === 403 ? 'forbidden' : 'error';
  return (
    <section className="error-page">
      <title>{`${t(`pages.${kind}Title`)} · svc`}</title>
      <meta name="robots" content="noindex" />
      <p className="error-status">{status}</p>
      <h1>{t(`pages.${kind}Title`)}</h1>
      <p>{t(`pages.${kind}Text`)}</p>
      <p>
        <a href="/">{t('pages.backHome')}</a>
      </p>
    </section>
  );
}

export function ErrorBoundary() {
  const error = useRouteError();
  const status = isRouteErrorResponse(error) ? error.status : 500;
  if (!isRouteErrorResponse(error)) console.error(error);
  return (
    <WithI18n>
      <SiteHeader />
      <main id="main" tabIndex={-1}>
        <ErrorPage status={status === 404 ? 404 : status >= 500 ? 500 : status} />
      </main>
      <SiteFooter />
    </WithI18n>
  );
}
