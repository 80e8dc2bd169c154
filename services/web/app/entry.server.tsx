// Renders a page to complete HTML (every loader has finished: crawlers, link previews and
// readers without JavaScript get the whole page) and sets its security headers.
import { PassThrough } from 'node:stream';
import { createReadableStreamFromReadable } from '@react-router/node';
import { ApiError, NetworkError } from '@svc/client';
import { renderToPipeableStream } from 'react-dom/server';
import { ServerRouter, type EntryContext, type RouterContextProvider } from 'react-router';
import { NonceProvider } from './lib/nonce';
import { webRequest } from './lib/request-context';
import { pageSecurityHeaders } from './lib/security-headers';
import { CAPTCHA_ORIGIN } from './lib/captcha';

/** The context key server/app.ts fills for every request (one instance: this bundle's). */
export { webRequest };

/** A render still running after this is aborted (its loaders have their own timeouts). */
export const streamTimeout = 10_000;

/**
 * A page whose data could not be loaded because the API is down or unreachable (its 502,
 * 503 or 504, or no answer at all) is a 503, not a 500: the reader, a crawler and a cache
 * should come back, and nothing on our side is broken. The page shown is the same.
 */
function statusOf(context: EntryContext, status: number): number {
  if (status !== 500) return status;
  const errors = Object.values(context.staticHandlerContext.errors ?? {});
  const unavailable = (e: unknown) =>
    e instanceof NetworkError || (e instanceof ApiError && (e.status === 502 || e.status === 503 || e.status === 504));
  return errors.length > 0 && errors.every(unavailable) ? 503 : status;
}

/** Frame origins a route asks for: loader data with a `frameSources` array (the desktop). */
function frameSourcesOf(context: EntryContext): string[] {
  const out: string[] = [];
  for (const data of Object.values(context.staticHandlerContext.loaderData ?? {})) {
    const sources = (data as { frameSources?: unknown } | null)?.frameSources;
    if (Array.isArray(sources)) out.push(...sources.filter((s): s is string => typeof s === 'string'));
  }
  return out;
}

export default function handleRequest(
  request: Request,
  responseStatusCode: number,
  responseHeaders: Headers,
  routerContext: EntryContext,
  loadContext: RouterContextProvider,
): Promise<Response> {
  const { nonce, captchaSiteKey } = loadContext.get(webRequest);
  return new Promise((resolve, reject) => {
    let status = statusOf(routerContext, responseStatusCode);
    const { pipe, abort } = renderToPipeableStream(
      <NonceProvider value={nonce}>
        <ServerRouter context={routerContext} url={request.url} nonce={nonce} />
      </NonceProvider>,
      {
        nonce,
        onAllReady() {
          const body = new PassThrough();
          responseHeaders.set('content-type', 'text/html; charset=utf-8');
          if (!responseHeaders.has('cache-control')) responseHeaders.set('cache-control', 'no-store');
          if (status === 503) responseHeaders.set('retry-after', '5');
          const headers = pageSecurityHeaders({
            nonce,
            frameSources: frameSourcesOf(routerContext),
            captchaOrigin: captchaSiteKey ? CAPTCHA_ORIGIN : undefined,
          });
          for (const [name, value] of Object.entries(headers)) responseHeaders.set(name, value);
          resolve(
            new Response(createReadableStreamFromReadable(body), { headers: responseHeaders, status }),
          );
          pipe(body);
        },
        onShellError(error: unknown) {
          reject(error);
        },
        onError(error: unknown) {
          status = 500;
          console.error(error);
        },
      },
    );
    setTimeout(abort, streamTimeout + 1_000);
  });
}
