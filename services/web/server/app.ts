// The web process's HTTP handling: health (metrics are on the ops listener, main.ts), static assets (hashed files cached
// for a year), compression, the API reference (/docs), then every other path rendered by React Router.
import { randomBytes } from 'node:crypto';
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import { createRequestHandler } from '@react-router/express';
import {
  requestIdFrom,
  TEXT_PROBLEM_MESSAGES,
  textProblemOfUrl,
  withServerSpan,
  type Logger,
  type Metrics,
} from '@svc/service-kit';
import compression from 'compression';
import express, { type Express } from 'express';
import { RouterContextProvider, type RouterContext, type ServerBuild } from 'react-router';
import type { Config } from './config.js';
import { anonymousPageCache } from './anonymous-pages.js';
import { API_REFERENCE_PATH, apiReferenceHandler } from './api-reference.js';
import { assetsHandler } from './assets.js';

export interface WebAppDeps {
  config: Pick<
    Config,
    'API_BASE_URL' | 'PUBLIC_BASE_URL' | 'CAPTCHA_SITE_KEY' | 'WEB_BUILD_DIR' | 'TRUSTED_PROXIES' | 'NODE_ENV' | 'WEB_PAGE_CACHE_MS'
  >;
  build: ServerBuild;
  /** The request context key of the server build (the instance its loaders read). */
  webRequest: RouterContext<WebRequestShape>;
  logger: Logger;
  metrics: Metrics;
}

/** As app/lib/request-context.ts (the server build's own type). */
export interface WebRequestShape {
  apiBaseUrl: string;
  publicBaseUrl: string;
  captchaSiteKey: string | undefined;
  clientIp: string;
  nonce: string;
  requestId: string;
}

export function robotsTxt(publicBaseUrl: string): string {
  return [
    'User-agent: *',
    'Allow: /',
    'Disallow: /me',
    'Disallow: /desktop',
    'Disallow: /developer',
    'Disallow: /login',
    `Sitemap: ${publicBaseUrl}/sitemap.xml`,
    '',
  ].join('\n');
}

export function buildApp(deps: WebAppDeps): Express {
  const { config, metrics } = deps;
  const app = express();
  app.disable('x-powered-by');
  app.set('trust proxy', config.TRUSTED_PROXIES);
  // Tracing on: a server span per page request, begun in the same middleware (service-kit,
  // server-spans.ts).
  app.use(withServerSpan(metrics.middleware));

  app.get('/healthz', (_req, res) => {
    res.json({ status: 'ok' });
  });
  // Ready once the build is loaded (it is, or the process would not have started). The API
  // being down does not make pages unready: they answer with their own error state.
  app.get('/readyz', (_req, res) => {
    res.json({ status: 'ready' });
  });
  const robots = robotsTxt(config.PUBLIC_BASE_URL);
  app.get('/robots.txt', (_req, res) => {
    res.type('text/plain').set('cache-control', 'public, max-age=3600').send(robots);
  });

  // A NUL or a path or query that is not UTF-8: the HTML 400 page, before React Router's URL
  // parsing would quietly turn the bytes into U+FFFD (the services' rule, service-kit
  // refuse-invalid-text.ts).
  app.use((req, _res, next) => {
    const problem = textProblemOfUrl(req.originalUrl);
    next(problem ? Object.assign(new Error(TEXT_PROBLEM_MESSAGES[problem]), { status: 400, expose: true }) : undefined);
  });

  app.use(compression());
  const client = path.join(config.WEB_BUILD_DIR, 'client');
  // Hashed file names: a new build has new names, so a year is safe.
  app.use('/assets', assetsHandler(path.join(client, 'assets')));
  // The few files at the build's top level (favicon…): looked up in a set, so page paths
  // cost no file-system call.
  const topFiles = existsSync(client) ? new Set(readdirSync(client)) : new Set<string>();
  const staticFiles = express.static(client, { maxAge: '1h', index: false, redirect: false });
  app.use((req, res, next) => (topFiles.has(req.path.slice(1)) ? staticFiles(req, res, next) : next()));
  // The interactive API reference: its own document and policy, outside React Router.
  app.get(API_REFERENCE_PATH, apiReferenceHandler(config.WEB_BUILD_DIR));

  const mode = config.NODE_ENV === 'production' ? 'production' : 'development';
  const contextFor = (req: express.Request): RouterContextProvider => {
    const context = new RouterContextProvider();
    context.set(deps.webRequest, {
      apiBaseUrl: config.API_BASE_URL,
      publicBaseUrl: config.PUBLIC_BASE_URL,
      captchaSiteKey: config.CAPTCHA_SITE_KEY,
      clientIp: req.ip ?? req.socket.remoteAddress ?? '127.0.0.1',
      nonce: randomBytes(16).toString('base64'),
      requestId: requestIdFrom(req.headers['x-request-id']),
    });
    return context;
  };

  if (config.WEB_PAGE_CACHE_MS > 0) {
    app.use(anonymousPageCache(deps.build, mode, contextFor, config.WEB_PAGE_CACHE_MS));
  }
  app.use(createRequestHandler({ build: deps.build, mode, getLoadContext: contextFor }));

  // A missing asset, or a failure before React Router: a small HTML page, never a stack.
  type HttpFailure = Error & { status?: number; statusCode?: number; expose?: boolean };
  app.use((err: HttpFailure, _req: express.Request, res: express.Response, _next: express.NextFunction) => {
    const status = err.status ?? err.statusCode ?? 500;
    if (status >= 500) deps.logger.error({ err }, 'request failed');
    const reason = err.expose === true ? `<p>${escapeHtml(err.message)}</p>` : '';
    res
      .status(status)
      .type('html')
      .send(`<!doctype html><html lang="en"><meta charset="utf-8"><title>${status}</title><h1>${status}</h1>${reason}<p><a href="/">Home</a></p></html>`);
  });
  return app;
}

const HTML_ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };
const escapeHtml = (text: string) => text.replace(/[&<>"']/g, (c) => HTML_ESCAPES[c]!);
