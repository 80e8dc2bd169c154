// The reader's desktop: their installed apps as a grid of icons. `iframe` apps open in a
// window on the desktop (a movable, closable panel holding a sandboxed frame); `external`
// apps open in a new tab. The page's CSP frames exactly the https origins of the reader's
// iframe apps (the loader's `frameSources`, which entry.server.tsx turns into frame-src).
import { ApiError } from '@svc/client';
import type { AppListItem } from '@svc/types';
import { useCallback, useEffect, useRef, useState } from 'react';
import { useTranslation } from 'react-i18next';
import { redirect, useFetcher, type ShouldRevalidateFunctionArgs } from 'react-router';
import type { Route } from './+types/desktop';
import { ListedAppIcon } from '../../components/apps/app-icon';
import { UserText, withUserText } from '../../components/user-text';
import { describeFailure, failureOf, type Failure } from '../../components/apps/errors';
import { appsText, loginHref, pageMeta } from '../../components/apps/meta';
import { hasSession, serverApi } from '../../lib/api.server';
import { webRequest } from '../../lib/request-context';
import { frameOriginOf } from '../../lib/security-headers';
import css from './apps.css?url';

export const links: Route.LinksFunction = () => [{ rel: 'stylesheet', href: css }];

export function meta({ matches }: Route.MetaArgs) {
  return pageMeta(appsText(matches, 'desktop.title'), { noindex: true });
}

/**
 * The origin an app may be framed from: https only, and never this site's own origin (a
 * same-origin frame with allow-scripts + allow-same-origin could lift its own sandbox).
 */
function frameableOrigin(url: string, ownOrigins: readonly string[]): string | undefined {
  const origin = frameOriginOf(url);
  if (!origin || !origin.startsWith('https://')) return undefined;
  return ownOrigins.includes(origin) ? undefined : origin;
}

export interface DesktopApp extends AppListItem {
  /** Set for iframe apps that may be framed here; otherwise the app opens in a new tab. */
  frameOrigin: string | null;
}

export async function loader({ request, context }: Route.LoaderArgs) {
  if (!hasSession(request)) throw redirect(loginHref('/desktop'), 302);
  let apps: AppListItem[];
  try {
    apps = (await serverApi(request, context).me.installed()).apps;
  } catch (err) {
    if (err instanceof ApiError && err.status === 401) throw redirect(loginHref('/desktop'), 302);
    throw err;
  }
  const ctx = context.get(webRequest);
  const own = [new URL(request.url).origin, frameOriginOf(ctx.publicBaseUrl)].filter((o): o is string => Boolean(o));
  const desktop: DesktopApp[] = apps.map((app) => ({
    ...app,
    frameOrigin: app.open_mode === 'iframe' ? (frameableOrigin(app.url, own) ?? null) : null,
  }));
  const frameSources = [...new Set(desktop.map((a) => a.frameOrigin).filter((o): o is string => o !== null))];
  const open = new URL(request.url).searchParams.get('open');
  return { apps: desktop, frameSources, open };
}

export type DesktopActionResult = { ok: true; slug: string } | { ok: false; slug: string; failure: Failure };

export async function action({ request, context }: Route.ActionArgs): Promise<DesktopActionResult> {
  const form = await request.formData();
  const slug = String(form.get('slug') ?? '');
  if (form.get('intent') !== 'uninstall' || slug === '') {
    return { ok: false, slug, failure: { status: 400, message: 'Unknown action' } };
  }
  try {
    await serverApi(request, context).me.uninstall(slug);
    return { ok: true, slug };
  } catch (err) {
    return { ok: false, slug, failure: failureOf(err) };
  }
}

/** Opening or closing a window only rewrites ?open=; the list reloads after an uninstall. */
export function shouldRevalidate({ formMethod, defaultShouldRevalidate }: ShouldRevalidateFunctionArgs) {
  return formMethod ? defaultShouldRevalidate : false;
}

/**
 * True when this document was loaded at /desktop: only then does its CSP (fixed when the
 * document arrived) allow the apps' frames. After a client-side navigation from another
 * page the CSP is that page's, so opening a frame needs a fresh load of /desktop.
 */
function documentIsDesktop(): boolean {
  if (typeof window === 'undefined') return true;
  const nav = performance.getEntriesByType('navigation')[0] as PerformanceNavigationTiming | undefined;
  try {
    return nav ? new URL(nav.name).pathname === '/desktop' : false;
  } catch {
    return false;
  }
}

interface OpenWindow {
  slug: string;
  x: number;
  y: number;
  z: number;
}

function AppWindow({
  app,
  win,
  onClose,
  onFocus,
  onMove,
}: {
  app: DesktopApp;
  win: OpenWindow;
  onClose: () => void;
  onFocus: () => void;
  onMove: (x: number, y: number) => void;
}) {
  const { t } = useTranslation('apps');
  const drag = useRef<{ dx: number; dy: number } | null>(null);
  return (
    <section
      className="desktop-window"
      aria-labelledby={`window-title-${app.slug}`}
      style={{ insetInlineStart: win.x, top: win.y, zIndex: 10 + win.z }}
      onPointerDown={onFocus}
    >
      <header
        className="desktop-window-bar"
        onPointerDown={(e) => {
          if ((e.target as HTMLElement).closest('a,button')) return;
          const rtl = document.documentElement.dir === 'rtl';
          drag.current = { dx: (rtl ? -e.clientX : e.clientX) - win.x, dy: e.clientY - win.y };
          e.currentTarget.setPointerCapture(e.pointerId);
        }}
        onPointerMove={(e) => {
          if (!drag.current) return;
          const rtl = document.documentElement.dir === 'rtl';
          onMove(Math.max(0, (rtl ? -e.clientX : e.clientX) - drag.current.dx), Math.max(0, e.clientY - drag.current.dy));
        }}
        onPointerUp={() => {
          drag.current = null;
        }}
      >
        <ListedAppIcon app={app} size={24} />
        <h2 id={`window-title-${app.slug}`} dir="auto">
          {app.name}
        </h2>
        <a
          className="button secondary window-close"
          href="/desktop"
          aria-label={t('desktop.closeWindow', { name: app.name })}
          onClick={(e) => {
            e.preventDefault();
            onClose();
          }}
        >
          ×
        </a>
      </header>
      {/*
        The sandbox grants the least a typical web app needs: allow-scripts (apps are
        JavaScript), allow-forms (they submit forms), allow-popups (links that open a tab,
        OAuth windows), and allow-same-origin so the app keeps ITS OWN origin (its
        cookies/storage, fetch to its API). That last pair would let a frame of THIS site
        remove its own sandbox, so an app on this origin is never framed (frameableOrigin);
        for another https origin it only restores what the app has anyway. Not granted:
        top-navigation (the app cannot navigate this page away), modals, downloads,
        pointer-lock, popups-to-escape-sandbox (a popup stays sandboxed).
      */}
      <iframe
        src={app.url}
        title={app.name}
        sandbox="allow-scripts allow-forms allow-popups allow-same-origin"
        referrerPolicy="no-referrer"
        loading="lazy"
        allow=""
      />
    </section>
  );
}

function UninstallButton({ app }: { app: DesktopApp }) {
  const { t } = useTranslation('apps');
  const fetcher = useFetcher<DesktopActionResult>();
  const result = fetcher.data;
  return (
    <details className="uninstall">
      <summary>{t('desktop.uninstall')}</summary>
      <fetcher.Form method="post" action="/desktop">
        <p>{withUserText(t, 'desktop.uninstallConfirm', { name: app.name })}</p>
        <input type="hidden" name="intent" value="uninstall" />
        <input type="hidden" name="slug" value={app.slug} />
        <button type="submit" className="danger" disabled={fetcher.state !== 'idle'}>
          {withUserText(t, 'desktop.uninstallYes', { name: app.name })}
        </button>
        {result && !result.ok ? (
          <p role="alert" className="error-text">
            {describeFailure(result.failure, t)}
          </p>
        ) : null}
      </fetcher.Form>
    </details>
  );
}

export default function DesktopPage({ loaderData }: Route.ComponentProps) {
  const { t } = useTranslation('apps');
  const { apps, open } = loaderData;
  const initial = (): OpenWindow[] => {
    const app = apps.find((a) => a.slug === open && a.frameOrigin !== null);
    return app && documentIsDesktop() ? [{ slug: app.slug, x: 0, y: 0, z: 1 }] : [];
  };
  const [windows, setWindows] = useState<OpenWindow[]>(initial);

  // Keep ?open= in the address so the view stays a shareable link (no navigation).
  useEffect(() => {
    const url = new URL(window.location.href);
    const top = [...windows].sort((a, b) => b.z - a.z)[0];
    if (top) url.searchParams.set('open', top.slug);
    else url.searchParams.delete('open');
    if (url.href !== window.location.href) window.history.replaceState(window.history.state, '', url);
  }, [windows]);

  // Uninstalled apps lose their window.
  useEffect(() => {
    setWindows((ws) => ws.filter((w) => apps.some((a) => a.slug === w.slug)));
  }, [apps]);

  const openApp = useCallback(
    (app: DesktopApp) => {
      if (!documentIsDesktop()) {
        window.location.assign(`/desktop?open=${encodeURIComponent(app.slug)}`);
        return;
      }
      setWindows((ws) => {
        const z = Math.max(0, ...ws.map((w) => w.z)) + 1;
        const existing = ws.find((w) => w.slug === app.slug);
        if (existing) return ws.map((w) => (w.slug === app.slug ? { ...w, z } : w));
        const offset = (ws.length % 6) * 28;
        return [...ws, { slug: app.slug, x: offset, y: offset, z }];
      });
    },
    [],
  );

  const focus = (slug: string) =>
    setWindows((ws) => {
      const z = Math.max(0, ...ws.map((w) => w.z));
      const w = ws.find((x) => x.slug === slug);
      return w && w.z === z ? ws : ws.map((x) => (x.slug === slug ? { ...x, z: z + 1 } : x));
    });

  return (
    <div className="desktop-page">
      <h1>{t('desktop.title')}</h1>
      {apps.length === 0 ? (
        <p>
          {t('desktop.empty')} <a href="/apps">{t('desktop.browse')}</a>
        </p>
      ) : (
        <>
          <p className="hint">{t('desktop.hint')}</p>
          <ul className="desktop-grid">
            {apps.map((app) => (
              <li key={app.id} className="desktop-item">
                {app.frameOrigin !== null ? (
                  <a
                    className="desktop-launch"
                    href={`/desktop?open=${encodeURIComponent(app.slug)}`}
                    onClick={(e) => {
                      e.preventDefault();
                      openApp(app);
                    }}
                  >
                    <ListedAppIcon app={app} size={64} />
                    <span className="desktop-name" dir="auto">
                      {app.name}
                    </span>
                  </a>
                ) : (
                  <a className="desktop-launch" href={app.url} target="_blank" rel="noopener noreferrer">
                    <ListedAppIcon app={app} size={64} />
                    <span className="desktop-name">
                      <UserText>{app.name}</UserText>
                      <span className="visually-hidden"> {t('desktop.newTab')}</span>
                    </span>
                  </a>
                )}
                <a className="desktop-details" href={`/apps/${encodeURIComponent(app.slug)}`}>
                  {t('desktop.details')}
                  <span className="visually-hidden">
                    : <UserText>{app.name}</UserText>
                  </span>
                </a>
                <UninstallButton app={app} />
              </li>
            ))}
          </ul>
        </>
      )}
      <div className="desktop-windows">
        {windows.map((w) => {
          const app = apps.find((a) => a.slug === w.slug);
          if (!app) return null;
          return (
            <AppWindow
              key={w.slug}
              app={app}
              win={w}
              onFocus={() => focus(w.slug)}
              onClose={() => setWindows((ws) => ws.filter((x) => x.slug !== w.slug))}
              onMove={(x, y) => setWindows((ws) => ws.map((v) => (v.slug === w.slug ? { ...v, x, y } : v)))}
            />
          );
        })}
      </div>
    </div>
  );
}
