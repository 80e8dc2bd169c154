// /docs: the interactive API reference of both interfaces. Scalar's browser bundle, copied
// into this build (scripts/copy-api-reference.mjs), renders /openapi.json and sends try-it
// requests to this origin only; nothing is loaded from or sent to another host. The page is
// not a React Router route: Scalar owns its whole document (a Vue app with its own styles),
// and its policy differs from the other pages' (it injects <style> elements).
import { randomBytes } from 'node:crypto';
import { readFileSync } from 'node:fs';
import path from 'node:path';
import type { RequestHandler } from 'express';

export const API_REFERENCE_PATH = '/docs';

/** What scripts/copy-api-reference.mjs writes to build/api-reference.json. */
export interface ApiReferenceManifest {
  /** The bundle's public path (`/assets/scalar-api-reference-<hash>.js`). */
  script: string;
  scalarVersion: string;
}

export function readApiReferenceManifest(buildDir: string): ApiReferenceManifest {
  const file = path.join(buildDir, 'api-reference.json');
  let manifest: Partial<ApiReferenceManifest>;
  try {
    manifest = JSON.parse(readFileSync(file, 'utf8')) as Partial<ApiReferenceManifest>;
  } catch (err) {
    throw new Error(`${file} is missing or unreadable: run \`pnpm --filter @svc/web build\``, { cause: err });
  }
  if (typeof manifest.script !== 'string' || !manifest.script.startsWith('/assets/') || typeof manifest.scalarVersion !== 'string') {
    throw new Error(`${file} does not name the API reference bundle: run \`pnpm --filter @svc/web build\``);
  }
  return { script: manifest.script, scalarVersion: manifest.scalarVersion };
}

/**
 * Scalar's settings (the `createApiReference` configuration). Everything that would reach
 * Scalar's own services is off: no request proxy (`proxyUrl` unset, so try-it calls go
 * straight to this origin), no web fonts, no telemetry, no AI agent, no MCP or "generate
 * SDK" offers, no developer toolbar (those appear on local hosts and upload the document),
 * no link handing the document to Scalar's hosted client.
 */
export const SCALAR_CONFIGURATION = {
  url: '/openapi.json',
  withDefaultFonts: false,
  telemetry: false,
  showDeveloperTools: 'never',
  agent: { disabled: true },
  mcp: { disabled: true },
  // "Open API Client" links client.scalar.com with this document's URL; the in-page client
  // ("Test Request") stays.
  hideClientButton: true,
  // The download button links /openapi.json itself.
  documentDownloadType: 'direct',
  // The names @svc/client and the llms files use.
  showOperationId: true,
  // Fields in the order of the contract's schemas (id first), not alphabetical.
  orderSchemaPropertiesBy: 'preserve',
  defaultHttpClient: { targetKey: 'shell', clientKey: 'curl' },
  // The theme's grey and method colours, moved to a contrast of at least 4.5:1 on its
  // backgrounds, light and dark (the dark one also colours the code cards of the light page):
  // axe's serious colour-contrast findings, checked as on the other pages.
  customCss: [
    '.light-mode {',
    '  --scalar-color-3: #6b6b6b;',
    '  --scalar-color-green: #00704a;',
    '  --scalar-color-red: #c4000a;',
    '  --scalar-color-yellow: #8a6500;',
    '  --scalar-color-orange: #b83d00;',
    '  --scalar-color-blue: #005f9e;',
    '}',
    '.dark-mode {',
    '  --scalar-color-3: #8c8c8c;',
    '  --scalar-color-red: #ff5c5c;',
    '}',
  ].join('\n'),
} as const;

/** The page's own policy: only this response's scripts, styles Scalar injects, this origin. */
export function apiReferencePolicy(nonce: string): string {
  const directives: Record<string, string[]> = {
    'default-src': ["'none'"],
    // The bundle and the call that starts it, both carrying this response's nonce; nothing else.
    'script-src': [`'nonce-${nonce}'`],
    // Scalar (Vue) writes its theme, toasts and code editor styles as <style> elements and
    // style attributes at run time, none with a nonce.
    'style-src': ["'self'", "'unsafe-inline'"],
    // Icons in its style sheets are data: URLs.
    'img-src': ["'self'", 'data:'],
    'font-src': ["'self'"],
    // /openapi.json and the try-it requests.
    'connect-src': ["'self'"],
    'frame-src': ["'none'"],
    'frame-ancestors': ["'none'"],
    'form-action': ["'none'"],
    'base-uri': ["'none'"],
    'object-src': ["'none'"],
    'worker-src': ["'none'"],
    'manifest-src': ["'none'"],
  };
  return Object.entries(directives)
    .map(([name, values]) => `${name} ${values.join(' ')}`)
    .join('; ');
}

export function apiReferenceHeaders(nonce: string): Record<string, string> {
  return {
    'content-type': 'text/html; charset=utf-8',
    // A nonce is for one response only.
    'cache-control': 'no-store',
    'content-security-policy': apiReferencePolicy(nonce),
    'x-content-type-options': 'nosniff',
    'x-frame-options': 'DENY',
    'referrer-policy': 'strict-origin-when-cross-origin',
    'permissions-policy': 'camera=(), microphone=(), geolocation=(), payment=(), usb=()',
    'cross-origin-opener-policy': 'same-origin',
  };
}

// The header above Scalar's layout; Scalar shifts its sticky parts down by
// --scalar-custom-header-height.
const PAGE_STYLE = `
:root { --scalar-custom-header-height: 48px; }
body { margin: 0; }
.docs-header { position: sticky; top: 0; z-index: 2; box-sizing: border-box; height: 48px;
  display: flex; align-items: center; gap: 16px; padding: 0 16px;
  font: 14px/1.4 system-ui, sans-serif; background: #111827; color: #f9fafb; }
.docs-header a { color: inherit; }
.docs-header .brand { font-weight: 700; font-size: 18px; text-decoration: none; }
.docs-header nav { display: flex; gap: 16px; }
`;

/**
 * The bundle validates with zod 4, which first probes whether it may compile validators
 * with `Function`; under this policy the probe is refused and reported as a violation.
 * zod's documented `jitless` setting (read from this global) skips the probe.
 */
const ZOD_WITHOUT_EVAL = 'globalThis.__zod_globalConfig = { jitless: true };';

/**
 * The whole document: a header, the mount point, the bundle and the call that starts it.
 * The mount point stays empty (Scalar would take children for server-rendered markup to
 * hydrate) and is not `#api-reference`, where the bundle mounts an unconfigured reference of
 * its own.
 */
export function apiReferenceHtml(input: { nonce: string; script: string }): string {
  const { nonce, script } = input;
  // The try-it console talks to the origin the reader is on (the one connect-src allows),
  // whatever address the document's `servers` entry names.
  const start = `Scalar.createApiReference('#reference', Object.assign(${JSON.stringify(SCALAR_CONFIGURATION)}, { servers: [{ url: window.location.origin, description: 'This origin' }] }));`;
  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>API reference · svc</title>
<meta name="description" content="Every endpoint of the site-sharing API (/api) and the app store (/api/v1): parameters, limits, errors, and a console to try them.">
<link rel="icon" href="/favicon.svg" type="image/svg+xml">
<style>${PAGE_STYLE}</style>
</head>
<body>
<header class="docs-header">
<a class="brand" href="/">svc</a>
<span>API reference</span>
<nav aria-label="Machine-readable documents">
<a href="/openapi.json">OpenAPI</a>
<a href="/llms-full.txt">llms-full.txt</a>
</nav>
</header>
<noscript><p>The interactive reference needs JavaScript. The same content: <a href="/openapi.json">/openapi.json</a> and <a href="/llms-full.txt">/llms-full.txt</a>.</p></noscript>
<div id="reference"></div>
<script nonce="${nonce}">${ZOD_WITHOUT_EVAL}</script>
<script nonce="${nonce}" src="${script}"></script>
<script nonce="${nonce}">${start}</script>
</body>
</html>
`;
}

/** GET and HEAD /docs (and `/docs/`, express's default). */
export function apiReferenceHandler(buildDir: string): RequestHandler {
  const { script } = readApiReferenceManifest(buildDir);
  return (_req, res) => {
    const nonce = randomBytes(16).toString('base64');
    res.set(apiReferenceHeaders(nonce)).send(apiReferenceHtml({ nonce, script }));
  };
}
