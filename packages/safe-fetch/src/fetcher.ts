// An outbound page fetcher that cannot be pointed at the inside of our network (SSRF).
//
// Every hop (the first URL and each redirect, followed here by hand) must be http(s) and
// name a public destination: an IP literal is judged before connecting, a host name is
// judged on the addresses DNS returns, inside the `lookup` the socket itself uses to
// connect, so a name that resolves (or re-resolves) to 10.0.0.1 is refused before any
// packet leaves. Pooled sockets would skip that lookup, so each fetcher has its own
// non-keep-alive agents. Connect and total timeouts, a body cap (the page is truncated
// there: metadata lives in <head>) and a redirect cap bound every fetch.
import dns from 'node:dns';
import http from 'node:http';
import https from 'node:https';
import got, { type Headers } from 'got';
import { isPublicAddress } from './address-policy.js';
import { checkPublicUrl, hostPortOf, type UrlPolicyResult } from './url-policy.js';
import { decodeHtml } from './charset.js';
import { OutboundBlockedError, OutboundFetchError } from './errors.js';

type LookupAddress = { address: string; family: number };
type LookupCallback = (
  err: NodeJS.ErrnoException | null,
  address: string | LookupAddress[],
  family?: number,
) => void;
/** The resolver behind the guard: `dns.lookup` with `all: true` (tests may inject their own). */
export type Resolver = (hostname: string, family: number) => Promise<LookupAddress[]>;

export interface SafeFetcherOptions {
  /** `host:port` pairs that may be fetched although private (tests only). */
  allowHosts?: string[];
  /** DNS lookup + TCP (+ TLS) connect, per hop. Default 5 s. */
  connectTimeoutMs?: number;
  /** The whole fetch, redirects and body included. Default 15 s. */
  totalTimeoutMs?: number;
  /** Body bytes read (after decompression); the rest is dropped. Default 2 MiB. */
  maxBytes?: number;
  /** Default 5. */
  maxRedirects?: number;
  userAgent?: string;
  /** Replaces DNS (tests: a public-looking name that resolves into private space). */
  resolver?: Resolver;
}

export interface FetchedPage {
  /** The final URL, after redirects. */
  url: string;
  status: number;
  contentType?: string;
  /** The body decoded with its declared (BOM, header or meta) charset; '' for non-text bodies. */
  html: string;
  /** The encoding used to decode `html`. */
  charset?: string;
  /** True when reading stopped at `maxBytes` (the rest of the body was not read). */
  truncated: boolean;
}

export interface SafeFetcher {
  fetchPage(url: string): Promise<FetchedPage>;
  /**
   * The URL policy (`checkPublicUrl`) with this fetcher's `allowHosts`: what a caller may
   * store or show of what it fetched (e.g. a page's icon URL), judged without DNS.
   */
  checkUrl(url: string): UrlPolicyResult;
}

const DEFAULTS = {
  connectTimeoutMs: 5000,
  totalTimeoutMs: 15000,
  maxBytes: 2 * 1024 * 1024,
  maxRedirects: 5,
  userAgent: 'SvcSitesBot/1.0 (+site metadata)',
};
const TEXT_TYPES = /^(text\/|application\/(xhtml\+)?xml|application\/[\w.+-]*\+xml)/i;

const systemResolver: Resolver = async (hostname, family) =>
  dns.promises.lookup(hostname, { all: true, family: family as 0 | 4 | 6, verbatim: true });

export function createSafeFetcher(options: SafeFetcherOptions = {}): SafeFetcher {
  const cfg = { ...DEFAULTS, ...stripUndefined(options) };
  const allowHosts = new Set((options.allowHosts ?? []).map((h) => h.toLowerCase()));
  const resolver = options.resolver ?? systemResolver;
  // keepAlive off: a pooled socket would skip the guarded lookup of the next request.
  const agent = {
    http: new http.Agent({ keepAlive: false }),
    https: new https.Agent({ keepAlive: false }),
  };

  async function fetchPage(input: string): Promise<FetchedPage> {
    const deadline = Date.now() + cfg.totalTimeoutMs;
    let url = parseTarget(input, input);
    for (let redirects = 0; ; redirects++) {
      const hop = await fetchHop(url, deadline);
      if ('location' in hop) {
        if (redirects >= cfg.maxRedirects) {
          throw new OutboundFetchError(
            `more than ${cfg.maxRedirects} redirects`,
            input,
            'too_many_redirects',
          );
        }
        url = parseTarget(hop.location, input, url);
        continue;
      }
      return hop;
    }
  }

  /** Throws OutboundBlockedError unless `url` passes the URL policy (url-policy.ts). */
  function parseTarget(raw: string, original: string, base?: URL): URL {
    let url: URL;
    try {
      url = new URL(raw, base);
    } catch {
      throw new OutboundBlockedError('not a valid URL', original);
    }
    // Scheme, IP literals in every spelling (Node connects to a literal without calling
    // `lookup`, so it is judged here) and local names; a name's addresses are judged in
    // guardedLookup.
    const verdict = checkPublicUrl(url, { allowHosts });
    if (!verdict.ok) throw new OutboundBlockedError(verdict.reason, url.href);
    return url;
  }

  function isAllowedHost(url: URL): boolean {
    return allowHosts.has(hostPortOf(url));
  }

  /** `lookup` for the socket: resolve, refuse if ANY address is not public, answer as asked. */
  function guardedLookup(blocked: { error?: OutboundBlockedError }, href: string) {
    return (hostname: string, opts: dns.LookupOptions | number, callback: LookupCallback): void => {
      const o: dns.LookupOptions = typeof opts === 'number' ? { family: opts } : (opts ?? {});
      resolver(hostname, Number(o.family ?? 0)).then(
        (addresses) => {
          const bad = addresses.find((a) => !isPublicAddress(a.address));
          if (bad || addresses.length === 0) {
            blocked.error = new OutboundBlockedError(
              `${hostname} resolves to ${bad ? bad.address : 'nothing'}, not a public address`,
              href,
            );
            const err = Object.assign(new Error(blocked.error.message), {
              code: 'EOUTBOUNDBLOCKED',
            });
            return callback(err, '');
          }
          if (o.all) return callback(null, addresses);
          const first = addresses[0] as LookupAddress;
          callback(null, first.address, first.family);
        },
        (err: NodeJS.ErrnoException) => callback(err, ''),
      );
    };
  }

  async function fetchHop(url: URL, deadline: number): Promise<FetchedPage | { location: string }> {
    const remaining = deadline - Date.now();
    if (remaining <= 0) throw new OutboundFetchError('timed out', url.href, 'timeout');
    const blocked: { error?: OutboundBlockedError } = {};
    const stream = got.stream(url, {
      agent,
      dnsLookup: isAllowedHost(url) ? undefined : (guardedLookup(blocked, url.href) as never),
      followRedirect: false,
      throwHttpErrors: false,
      retry: { limit: 0 },
      decompress: true,
      headers: {
        'user-agent': cfg.userAgent,
        accept: 'text/html,application/xhtml+xml;q=0.9,*/*;q=0.1',
      },
      timeout: {
        lookup: cfg.connectTimeoutMs,
        connect: cfg.connectTimeoutMs,
        secureConnect: cfg.connectTimeoutMs,
        request: remaining,
      },
    });
    const fail = (err: unknown): never => {
      stream.destroy();
      if (blocked.error) throw blocked.error;
      if (err instanceof OutboundFetchError || err instanceof OutboundBlockedError) throw err;
      const e = err as { code?: string; name?: string; message?: string };
      const timeout = e.name === 'TimeoutError' || e.code === 'ETIMEDOUT';
      throw new OutboundFetchError(
        timeout ? 'timed out' : `fetch failed: ${e.code ?? e.message ?? 'error'}`,
        url.href,
        timeout ? 'timeout' : 'network',
      );
    };

    let response: { statusCode: number; headers: Headers };
    try {
      response = await new Promise((resolve, reject) => {
        stream.once('response', resolve);
        stream.once('error', reject);
      });
    } catch (err) {
      return fail(err);
    }
    const status = response.statusCode;
    const location = response.headers.location;
    if (status >= 300 && status < 400 && typeof location === 'string') {
      stream.destroy();
      return { location };
    }
    const contentType = headerValue(response.headers['content-type']);
    if (contentType && !TEXT_TYPES.test(contentType)) {
      stream.destroy(); // an image or a download: nothing to read
      return { url: url.href, status, contentType, html: '', truncated: false };
    }
    let body: { bytes: Buffer; truncated: boolean };
    try {
      body = await readCapped(stream, cfg.maxBytes);
    } catch (err) {
      return fail(err);
    }
    const { html, charset } = decodeHtml(body.bytes, contentType);
    return { url: url.href, status, contentType, html, charset, truncated: body.truncated };
  }

  return { fetchPage, checkUrl: (url) => checkPublicUrl(url, { allowHosts }) };
}

/** Read at most `maxBytes`, then stop the download. */
function readCapped(
  stream: NodeJS.ReadableStream & { destroy(): void },
  maxBytes: number,
): Promise<{ bytes: Buffer; truncated: boolean }> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    const onData = (chunk: Buffer): void => {
      const room = maxBytes - size;
      if (chunk.length >= room) {
        chunks.push(chunk.subarray(0, room));
        cleanup();
        stream.destroy();
        resolve({ bytes: Buffer.concat(chunks), truncated: true });
        return;
      }
      chunks.push(chunk);
      size += chunk.length;
    };
    const onEnd = (): void => {
      cleanup();
      resolve({ bytes: Buffer.concat(chunks), truncated: false });
    };
    const onError = (err: Error): void => {
      cleanup();
      reject(err);
    };
    function cleanup(): void {
      stream.off('data', onData);
      stream.off('end', onEnd);
      stream.off('error', onError);
      stream.on('error', () => {}); // late errors after we stopped reading are expected
    }
    stream.on('data', onData);
    stream.once('end', onEnd);
    stream.once('error', onError);
  });
}

function headerValue(v: string | string[] | undefined): string | undefined {
  return Array.isArray(v) ? v[0] : v;
}

function stripUndefined<T extends object>(o: T): Partial<T> {
  return Object.fromEntries(Object.entries(o).filter(([, v]) => v !== undefined)) as Partial<T>;
}
