// Requests of one catalogue operation as a fast-check arbitrary, and the runner that sends
// them through the gateway and judges each answer.
//
// A request is valid (every part from the operation's zod schemas, real ids mixed with
// random ones), targeted (valid, with the caller and the resource that make it succeed:
// the author of the app, a moderator, a blocked app to appeal) or mutated (one part broken:
// see mutations.ts). Every variant goes with or without a session, an API key, a forged
// cookie or key, and its own client address.
import http from 'node:http';
import { randomBytes } from 'node:crypto';
import zlib from 'node:zlib';
import fc from 'fast-check';
import { ENDPOINTS, type Endpoint } from '@svc/types';
import type { Contract } from '../contract-harness.js';
import type { FakeResend } from '../system-processes.js';
import { arbitraryOf, jsonSchemaOf, text, type JsonSchema, type Override } from './arbitraries.js';
import {
  INVALID_UTF8_HEX,
  NASTY_STRINGS,
  RAW_BODIES,
  applyBodyMutation,
  bodyMutation,
  encode,
  mutateQuery,
  queryMutation,
  segmentMutation,
  toJsonText,
} from './mutations.js';
import { FUZZ_DOMAIN, KEYS, SESSIONS, type KeyName, type Who, type World } from './world.js';

export type Auth =
  | { kind: 'none' }
  | { kind: 'session'; who: Who }
  /** A user logged in just for this request (logout and logout-all end its sessions). */
  | { kind: 'fresh session' }
  | { kind: 'key'; key: KeyName }
  | { kind: 'session and key'; who: Who; key: KeyName }
  | { kind: 'cookie'; raw: string }
  | { kind: 'authorization'; raw: string };

export interface FuzzRequest {
  operationId: string;
  /** `valid`, `targeted`, or `mutated: <what was broken>`. */
  variant: string;
  method: string;
  /** Path and query string, percent-encoded as sent. */
  path: string;
  auth: Auth;
  /** X-Forwarded-For (the gateway trusts loopback): a client address of the request's own. */
  forwardedFor?: string;
  headers: Record<string, string>;
  /** The body as text, or as hex for bytes that are not UTF-8. */
  body?: { contentType?: string; text?: string; hex?: string };
  /** A WebSocket handshake (GET /api/ws answers 101 to one, 426 to anything else). */
  upgrade?: boolean;
}

/** Stands for the code the fake mailbox received; the runner asks for one first. */
export const LOGIN_CODE = '<<login code>>';

const FORGED_COOKIES = [
  'sn_token=',
  'sn_token=not-a-jwt',
  // alg "none", and an HS256 token: the ES256 pin must refuse both.
  'sn_token=eyJhbGciOiJub25lIiwidHlwIjoiSldUIn0.eyJzdWIiOiJ4IiwiZXhwIjo0MTAyNDQ0ODAwfQ.',
  'sn_token=eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJ4In0.c2lnbmF0dXJl',
  'sn_token=a.b.c; sn_token=d.e.f',
  `sn_token=${'A'.repeat(6000)}`,
  'sn_token=%ff%00',
  'other=1',
];
const FORGED_AUTHORIZATION = [
  'Bearer ',
  'Bearer svc_live_',
  'Bearer svc_live_AAAAAAAAAAAAAAAAAAAAAAAAAAAA',
  'bearer svc_live_lowercase-scheme',
  'Basic Zm9vOmJhcg==',
  `Bearer svc_live_${'k'.repeat(5000)}`,
  'Bearer \u00ff\u00fe',
];
/** Headers that should change nothing, or be refused cleanly. */
const ODD_HEADERS: readonly [string, string][] = [
  ['idempotency-key', '"quoted key"'],
  ['idempotency-key', 'x'.repeat(300)],
  ['idempotency-key', '\u00e9t\u00e9'],
  ['accept', 'application/xml'],
  ['accept-encoding', 'gzip, deflate, br, zstd'],
  ['if-none-match', '*'],
  ['if-none-match', 'W/"x", "y"'],
  ['range', 'bytes=0-1'],
  ['origin', 'https://evil.example'],
  ['x-http-method-override', 'DELETE'],
  ['x-request-id', 'x'.repeat(400)],
  ['cookie', `a=${'b'.repeat(200)}; ; ;=`],
];
const ODD_FORWARDED_FOR = ['unknown', '1.2.3.4, 5.6.7.8', '::ffff:1.2.3.4', '300.1.1.1', '', 'fe80::1%eth0'];

/** A header value Node can send (no control characters, nothing above U+00FF). */
const sendable = (value: string) => /^[\t\x20-\x7e\x80-\xff]*$/.test(value);

const forwardedFor: fc.Arbitrary<string | undefined> = fc.oneof(
  { weight: 8, arbitrary: fc.ipV4() },
  { weight: 2, arbitrary: fc.ipV6() },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.constantFrom(...ODD_FORWARDED_FOR) },
);

/** Every kind of caller, for any operation. */
function callerArbitrary(e: Endpoint): fc.Arbitrary<Auth> {
  const session = fc.constantFrom(...SESSIONS).map((who): Auth => ({ kind: 'session', who }));
  const auth: fc.Arbitrary<Auth> = fc.oneof(
    { weight: 3, arbitrary: fc.constant<Auth>({ kind: 'none' }) },
    { weight: 5, arbitrary: session },
    { weight: 2, arbitrary: fc.constantFrom(...KEYS).map((key): Auth => ({ kind: 'key', key })) },
    {
      weight: 1,
      arbitrary: fc.record({ who: fc.constantFrom(...SESSIONS), key: fc.constantFrom(...KEYS) }).map((c): Auth => ({ kind: 'session and key', ...c })),
    },
    { weight: 1, arbitrary: fc.constantFrom(...FORGED_COOKIES).map((raw): Auth => ({ kind: 'cookie', raw })) },
    { weight: 1, arbitrary: fc.constantFrom(...FORGED_AUTHORIZATION).map((raw): Auth => ({ kind: 'authorization', raw })) },
  );
  // Logging out ends the session it is sent, signing out everywhere every session of its
  // user, deleting the account the user: never one another request relies on.
  return ['logout', 'logoutAll', 'deleteAccount'].includes(e.operationId)
    ? auth.map((a): Auth => (a.kind === 'session' || a.kind === 'session and key' ? { kind: 'fresh session' } : a))
    : auth;
}

/** Real values of a field that names something (so valid requests find it), if any. */
function realValues(e: Endpoint, world: World, where: 'params' | 'query' | 'body', name: string): string[] | undefined {
  if (where === 'params') {
    // Withdrawing takes an app away: only the apps seeded for it, never the others' targets.
    if (name === 'slug') return e.operationId === 'withdrawApp' ? world.withdrawable : world.allSlugs;
    if (name === 'email') return world.allEmails;
    if (name === 'site_id') return world.allSiteIds;
    // The first files of the sitemap index (the fuzz runs sites with one site a file).
    if (name === 'n' && e.operationId === 'getSitemapFile') return ['1', '2'];
    if (name === 'id') {
      if (e.path.includes('/keys/')) return world.revocableKeys.map((k) => k.id);
      return e.service === 'chat' ? world.allMessageIds : world.allSiteIds;
    }
  }
  if (where === 'body') {
    if (name === 'site_id') return world.allSiteIds;
    if (name === 'sender') return world.allMessageIds;
    if (name === 'email') return world.allEmails;
    if (name === 'captchaToken') return [world.captchaToken];
  }
  if (where === 'query') {
    if (name === 'cursor') return world.cursors;
    if (name === 'target_id') return [...world.allSlugs, ...world.allSiteIds, ...world.allMessageIds];
  }
  return undefined;
}

const SVG = '<svg xmlns="http://www.w3.org/2000/svg"><circle r="4" fill="red"/></svg>';

/** Likelier valid values for fields whose rules JSON Schema cannot say (a URL, an SVG). */
function hint(e: Endpoint, world: World, name: string): fc.Arbitrary<unknown> | undefined {
  if (name === 'url' && e.operationId === 'submitApp') return fc.webUrl({ validSchemes: ['https'] });
  if (name === 'url' && e.operationId === 'submitSite')
    return fc.oneof(
      fc.nat(1_000_000).map((n) => world.websiteUrl(`/fuzz/${n}`)),
      fc.webUrl({ withQueryParameters: true, withFragments: true }),
      fc.constantFrom(`example.${FUZZ_DOMAIN}/bare`, 'http://10.0.0.1/', 'https://[::1]/', 'javascript:alert(1)'),
    );
  if (name === 'icon_svg') return fc.oneof(fc.constant(SVG), text(0, 30));
  if (name === 'email') return fc.nat(1_000_000).map((n) => `fuzz-${n}@${FUZZ_DOMAIN}`);
  return undefined;
}

/** Arbitrary of the valid values of one part (params, query, body, headers) of `e`. */
function partArbitrary(e: Endpoint, world: World, where: 'params' | 'query' | 'body' | 'headers'): fc.Arbitrary<unknown> {
  const zod = e[where];
  if (!zod) return fc.constant(undefined);
  const schema = jsonSchemaOf(zod);
  const override: Override = (path) => {
    if (path.length !== 1 || where === 'headers') return undefined;
    const name = path[0]!;
    const field = schema.properties?.[name] as JsonSchema;
    const random = hint(e, world, name) ?? arbitraryOf(field);
    const real = realValues(e, world, where, name);
    return real && real.length > 0
      ? fc.oneof({ weight: 3, arbitrary: fc.constantFrom(...real) }, { weight: 1, arbitrary: random })
      : random;
  };
  const values = arbitraryOf(schema, override);
  // Query values arrive as strings; the schema coerces them as the service does.
  const asSent = (v: unknown) => (where === 'query' ? Object.fromEntries(Object.entries(v as object).map(([k, x]) => [k, String(x)])) : v);
  return values.filter((v) => zod.safeParse(asSent(v)).success);
}

/** What a targeted request sets beside its valid parts. */
interface Target {
  auth?: Auth;
  params?: Record<string, string>;
  body?: Record<string, unknown>;
  upgrade?: boolean;
}

const session = (who: Who): Auth => ({ kind: 'session', who });
const moderator = session('moderator');
const members = ['member1', 'member2', 'member3', 'member4', 'member5'] as const;
const anyMember = fc.constantFrom(...members).map(session);

/**
 * The caller and resource that make an operation succeed, where random valid requests
 * rarely meet them (the author of the app with its key, a moderator on a blocked app, the
 * code the mailbox received). Operations missing here succeed with any valid request.
 */
function targetOf(e: Endpoint, world: World): fc.Arbitrary<Target> | undefined {
  const slugOf = (slugs: string[]) => fc.constantFrom(...slugs).map((slug) => ({ slug }));
  const owner = fc.constantFrom(...world.owners);
  const ownerCaller = owner.chain((o) =>
    fc.constantFrom<Auth>(session(o.who), ...(o.key ? [{ kind: 'key', key: o.key } as Auth] : [])).map((auth) => ({ auth, params: { slug: o.slug } })),
  );
  const ownerSession = owner.map((o) => ({ auth: session(o.who), params: { slug: o.slug } }));
  const asModerator = (slugs?: string[]) => (slugs ? slugOf(slugs).map((params) => ({ auth: moderator, params })) : fc.constant({ auth: moderator }));
  const siteAsModerator = (ids: string[]) => fc.constantFrom(...ids).map((id) => ({ auth: moderator, params: { id } }));
  switch (e.operationId) {
    case 'verifyLoginCode':
      return fc.constantFrom(...world.allEmails.filter((m) => !m.startsWith('moderator')), `fresh@${FUZZ_DOMAIN}`).map((email) => ({ auth: { kind: 'none' }, body: { email, code: LOGIN_CODE } }));
    case 'deleteAccount':
      // The code mailed to the fresh session's own address.
      return fc.constant({ auth: { kind: 'fresh session' }, body: { code: LOGIN_CODE } });
    case 'setUsername':
      return fc.constantFrom<Who>('renamer', ...members).map((who) => ({ auth: session(who) }));
    case 'listModerators':
    case 'listAppReportQueue':
    case 'listAppAudit':
    case 'listSiteAudit':
    case 'listChatAudit':
      return asModerator();
    case 'grantModerator':
    case 'revokeModerator':
      return fc.constantFrom(...members).map((who) => ({ auth: moderator, params: { email: world.sessions[who].email } }));
    case 'submitApp':
      return fc.oneof(anyMember, fc.constantFrom<Auth>({ kind: 'key', key: 'keyA1' })).map((auth) => ({ auth }));
    case 'getApp':
    case 'getAppIcon':
      return slugOf([world.apps.stable[0]!]).map((params) => ({ params }));
    case 'updateApp':
    case 'listMyAppAudit':
      return ownerCaller;
    case 'listApiKeys':
    case 'createApiKey':
      return ownerSession;
    case 'revokeApiKey':
      return fc.constantFrom(...world.revocableKeys).map((k) => ({ auth: session('authorA'), params: { slug: k.slug, id: k.id } }));
    case 'withdrawApp':
      return slugOf(world.withdrawable).map((params) => ({ auth: session('authorA'), params }));
    case 'reportApp':
      return fc.tuple(anyMember, slugOf(world.apps.reportable)).map(([auth, params]) => ({ auth, params }));
    case 'appealAppBlock':
      return slugOf(world.apps.appealable).map((params) => ({ auth: session('authorA'), params }));
    case 'installApp':
    case 'uninstallApp':
      return fc.tuple(anyMember, slugOf(world.apps.stable)).map(([auth, params]) => ({ auth, params }));
    case 'listAppReportHistory':
    case 'dismissAppReports':
      return asModerator(world.allSlugs);
    case 'restoreApp':
      return asModerator(world.apps.restorable);
    case 'blockApp':
      return asModerator(world.apps.blockable);
    case 'getSite':
    case 'boostSite':
    case 'recordClick':
      return fc.constantFrom(...world.sites.stable).map((id) => ({ auth: { kind: 'none' }, params: { id } }));
    case 'claimSite':
      return fc.constantFrom(...world.sites.claimable).map((id) => ({ params: { id } }));
    case 'createBookmark':
      return fc.tuple(anyMember, fc.constantFrom(...world.sites.stable)).map(([auth, site_id]) => ({ auth, body: { site_id } }));
    case 'deleteBookmark':
      return fc.constantFrom(...world.bookmarks).map((b) => ({ auth: session(b.who), params: { site_id: b.siteId } }));
    case 'likeChatMessage':
      return fc.constantFrom(...world.messages.stable).map((id) => ({ auth: { kind: 'none' }, params: { id } }));
    case 'hideSite':
      return siteAsModerator(world.sites.hideable);
    case 'restoreSite':
      return siteAsModerator([...world.sites.restorable, ...world.sites.hideable]);
    case 'deleteChatMessage':
      return fc.constantFrom(...world.messages.deletable).map((id) => ({ auth: moderator, params: { id } }));
    case 'muteChatSender':
      return fc.constantFrom(...world.messages.mutable).map((sender) => ({ auth: moderator, body: { sender } }));
    case 'openRealtimeChannel':
      return fc.constant({ upgrade: true });
    default:
      return undefined;
  }
}

/** One broken part; applied to a request's valid parts by `assemble`. */
type Mutation =
  | { part: 'body'; what: string; text?: string; hex?: string; contentType?: string; json?: unknown; omit?: boolean }
  | { part: 'query'; what: string; query: string }
  | { part: 'segment'; what: string; index: number; segment: string }
  | { part: 'header'; what: string; name: string; value: string };

function mutationArbitrary(e: Endpoint, valid: { body: fc.Arbitrary<unknown>; query: fc.Arbitrary<unknown> }): fc.Arbitrary<Mutation> {
  const choices: fc.WeightedArbitrary<Mutation>[] = [];
  if (e.body) {
    choices.push({
      weight: 6,
      arbitrary: fc.tuple(valid.body, bodyMutation).map(([body, m]): Mutation => {
        const applied = applyBodyMutation(body, m);
        if ('text' in applied) return { part: 'body', what: applied.what, text: applied.text };
        return applied.json === undefined
          ? { part: 'body', what: 'no body', omit: true }
          : { part: 'body', what: `${m.kind} (${m.value.kind})`, json: applied.json };
      }),
    });
    choices.push({
      weight: 2,
      arbitrary: fc.constantFrom(...RAW_BODIES).map((r): Mutation => ({ part: 'body', what: r.what, text: r.bytes, contentType: r.contentType })),
    });
    choices.push({
      weight: 1,
      arbitrary: fc.tuple(valid.body, fc.constantFrom(...INVALID_UTF8_HEX)).map(([body, bytes]): Mutation => {
        // The bytes go inside the first string value (or the first key) of the body.
        const textOf = toJsonText(body ?? {});
        const at = textOf.indexOf('"') + 1;
        const hex = Buffer.concat([Buffer.from(textOf.slice(0, at)), Buffer.from(bytes, 'hex'), Buffer.from(textOf.slice(at))]).toString('hex');
        return { part: 'body', what: `bytes ${bytes} (not UTF-8)`, hex };
      }),
    });
  } else if (e.method !== 'GET') {
    choices.push({ weight: 1, arbitrary: fc.constant<Mutation>({ part: 'body', what: 'a body where none is read', json: { unexpected: true } }) });
  }
  const known = Object.keys(e.query ? (jsonSchemaOf(e.query).properties ?? {}) : {});
  choices.push({
    weight: e.query ? 5 : 2,
    arbitrary: fc.tuple(valid.query, queryMutation).map(([query, m]): Mutation => ({
      part: 'query',
      what: `query ${m.kind}`,
      query: mutateQuery(Object.entries((query ?? {}) as object).map(([k, v]) => [k, String(v)]), known, m),
    })),
  });
  const params = (e.path.match(/\{[^}]+\}/g) ?? []).length;
  if (params > 0)
    choices.push({
      weight: 4,
      arbitrary: fc.tuple(fc.nat(params - 1), segmentMutation).map(([index, s]): Mutation => ({ part: 'segment', what: `path ${s.what}`, index, segment: s.segment })),
    });
  choices.push({
    weight: 1,
    arbitrary: fc.oneof(
      fc.constantFrom(...ODD_HEADERS),
      fc.constantFrom(...NASTY_STRINGS.filter(sendable).filter((s) => s.length < 1000)).map((v): [string, string] => ['idempotency-key', v]),
    ).map(([name, value]): Mutation => ({ part: 'header', what: `header ${name}`, name, value })),
  });
  return fc.oneof(...choices);
}

interface Parts {
  params: Record<string, string> | undefined;
  query: unknown;
  body: unknown;
  headers: unknown;
  auth: Auth;
  forwardedFor: string | undefined;
}

function assemble(e: Endpoint, parts: Parts, variant: string, target?: Target, mutation?: Mutation): FuzzRequest {
  const params = { ...parts.params, ...target?.params };
  let index = 0;
  const path = e.path.replace(/\{([^}]+)\}/g, (_, name: string) => {
    const segment = mutation?.part === 'segment' && mutation.index === index ? mutation.segment : encode(params[name] ?? 'x');
    index++;
    // A segment of dots is a path step, not a value: clients and the harness resolve it away.
    return /^(\.|%2e){1,2}$/i.test(segment) ? `${segment}_` : segment;
  });
  const pairs = Object.entries((parts.query ?? {}) as object).map(([k, v]) => `${encode(k)}=${encode(String(v))}`);
  const query = mutation?.part === 'query' ? mutation.query : pairs.join('&');
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries((parts.headers ?? {}) as Record<string, string>))
    if (sendable(value)) headers[name.toLowerCase()] = value;
  if (mutation?.part === 'header') headers[mutation.name] = mutation.value;
  let body: FuzzRequest['body'];
  const validBody = e.body ? { ...(parts.body as object), ...target?.body } : undefined;
  if (mutation?.part === 'body') {
    if (!mutation.omit)
      body = {
        contentType: mutation.text !== undefined ? mutation.contentType : 'application/json',
        ...(mutation.hex !== undefined ? { hex: mutation.hex } : { text: mutation.text ?? toJsonText(mutation.json) }),
      };
  } else if (validBody !== undefined) body = { contentType: 'application/json', text: JSON.stringify(validBody) };
  return {
    operationId: e.operationId,
    variant: mutation ? `mutated: ${mutation.what}` : variant,
    method: e.method,
    path: query ? `${path}?${query}` : path,
    auth: target?.auth ?? parts.auth,
    ...(parts.forwardedFor !== undefined ? { forwardedFor: parts.forwardedFor } : {}),
    headers,
    ...(body ? { body } : {}),
    ...(target?.upgrade ? { upgrade: true } : {}),
  };
}

/** Requests of operation `e`: valid, targeted (where it has a target) and mutated ones. */
export function requestArbitrary(e: Endpoint, world: World): fc.Arbitrary<FuzzRequest> {
  const part = {
    params: partArbitrary(e, world, 'params') as fc.Arbitrary<Record<string, string> | undefined>,
    query: partArbitrary(e, world, 'query'),
    body: partArbitrary(e, world, 'body'),
    headers: partArbitrary(e, world, 'headers'),
  };
  const parts: fc.Arbitrary<Parts> = fc.record({ ...part, auth: callerArbitrary(e), forwardedFor });
  const target = targetOf(e, world);
  const variants: fc.WeightedArbitrary<FuzzRequest>[] = [
    { weight: 4, arbitrary: parts.map((p) => assemble(e, p, 'valid')) },
    { weight: 5, arbitrary: fc.tuple(parts, mutationArbitrary(e, part)).map(([p, m]) => assemble(e, p, 'mutated', undefined, m)) },
  ];
  if (target) variants.push({ weight: 3, arbitrary: fc.tuple(parts, target).map(([p, t]) => assemble(e, p, 'targeted', t)) });
  return fc.oneof(...variants);
}

// ---- sending and judging -----------------------------------------------------------------

export interface Answer {
  status: number;
  headers: Headers;
  text: string;
}

export interface Outcome {
  /** The catalogue operation the harness matched the answer to. */
  operationId: string | undefined;
  status: number | undefined;
  problems: string[];
  /** The request as sent (method, URL, headers, body), to replay it by hand. */
  replay: string;
}

const agent = new http.Agent({ keepAlive: true, maxSockets: 8 });

function send(base: URL, method: string, path: string, headers: Record<string, string>, body: Buffer | undefined, upgrade: boolean, timeoutMs: number): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: base.hostname,
      port: base.port,
      method,
      path,
      headers: body ? { ...headers, 'content-length': String(body.length) } : headers,
      agent: upgrade ? false : agent,
      timeout: timeoutMs,
    });
    const answered = (res: http.IncomingMessage, text: string) => {
      const h = new Headers();
      for (const [name, value] of Object.entries(res.headers))
        for (const v of [value].flat()) if (typeof v === 'string') h.append(name, v);
      resolve({ status: res.statusCode ?? 0, headers: h, text });
    };
    req.on('upgrade', (res, socket) => {
      socket.destroy();
      answered(res, '');
    });
    req.on('response', (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (c: Buffer) => chunks.push(c));
      res.on('end', () => {
        try {
          answered(res, decoded(Buffer.concat(chunks), res.headers['content-encoding']).toString('utf8'));
        } catch (error) {
          reject(new Error(`a ${res.statusCode} body not decodable as its Content-Encoding ${res.headers['content-encoding']}: ${(error as Error).message}`));
        }
      });
      res.on('error', reject);
    });
    req.on('timeout', () => req.destroy(new Error(`no answer within ${timeoutMs} ms`)));
    req.on('error', reject);
    req.end(body);
  });
}

/** A body as sent, undone from its Content-Encoding (requests may accept any of these). */
function decoded(body: Buffer, encoding: string | undefined): Buffer {
  switch (encoding?.trim().toLowerCase()) {
    case undefined:
    case '':
    case 'identity':
      return body;
    case 'gzip':
      return zlib.gunzipSync(body);
    case 'deflate':
      return zlib.inflateSync(body);
    case 'br':
      return zlib.brotliDecompressSync(body);
    case 'zstd':
      return zlib.zstdDecompressSync(body);
    default:
      throw new Error(`unknown content-encoding ${encoding}`);
  }
}

const mediaType = (headers: Headers) => (headers.get('content-type') ?? '').split(';')[0]!.trim().toLowerCase();

export interface RunnerOptions {
  baseUrl: string;
  contract: Contract;
  world: World;
  resend: FakeResend;
  timeoutMs?: number;
}

export function createRunner(options: RunnerOptions) {
  const base = new URL(options.baseUrl);
  const timeoutMs = options.timeoutMs ?? 15_000;
  const { contract, world } = options;
  let sent = 0;
  let freshUsers = 0;
  /** Statuses of answers per matched operation, and the successes among them. */
  const statuses = new Map<string, number[]>();

  const judge = (method: string, path: string, answer: Answer): { operationId?: string; problems: string[] } => {
    const problems: string[] = [];
    const operationId = contract.operationFor(method, path)?.operation.operationId;
    const { status } = answer;
    if (status >= 500) problems.push(`${status}: a server error`);
    problems.push(...contract.check({ method, url: path, status, headers: answer.headers, text: answer.text }));
    let json: unknown;
    if (mediaType(answer.headers) === 'application/json' && answer.text)
      try {
        json = JSON.parse(answer.text);
      } catch {
        /* the harness reports a body that is not JSON */
      }
    if (status >= 400 && status < 500) {
      const error = (json as { error?: unknown } | undefined)?.error;
      if (typeof error !== 'string' || error === '') problems.push(`${status} without a JSON { "error": string } body`);
    }
    if (status >= 200 && status < 300 && json !== undefined) {
      const schema = ENDPOINTS.find((e) => e.operationId === operationId)?.responses[status]?.schema;
      const parsed = schema?.safeParse(json);
      if (parsed && !parsed.success)
        problems.push(...parsed.error.issues.map((i) => `${status} body at ${i.path.join('.') || '(root)'} does not parse: ${i.message}`));
    }
    if (operationId) statuses.set(operationId, [...(statuses.get(operationId) ?? []), status]);
    return { operationId, problems };
  };

  /** A plain JSON request of the runner's own (a login, a code), judged like the others. */
  const step = async (path: string, body: unknown, headers: Record<string, string> = {}) => {
    sent++;
    const answer = await send(base, 'POST', path, { 'content-type': 'application/json', 'x-forwarded-for': `198.19.${freshUsers % 250}.${(sent % 250) + 1}`, ...headers }, Buffer.from(JSON.stringify(body)), false, timeoutMs);
    const { problems } = judge('POST', path, answer);
    if (problems.length > 0 || answer.status !== 200) throw new Error(`POST ${path} ${JSON.stringify(body)} → ${answer.status}: ${problems.join('; ')} ${answer.text.slice(0, 200)}`);
    return answer;
  };
  /** The address of the newest fresh session (a code for its account goes there). */
  let freshEmail = '';
  const freshCookie = async () => {
    const email = `fresh-${++freshUsers}@${FUZZ_DOMAIN}`;
    freshEmail = email;
    await step('/api/auth/send-code', { email });
    const verified = await step('/api/auth/verify', { email, code: options.resend.lastCodeFor(email) });
    return verified.headers.get('set-cookie')!.split(';')[0]!;
  };

  async function headersOf(req: FuzzRequest): Promise<Record<string, string>> {
    const headers: Record<string, string> = { ...req.headers };
    if (req.forwardedFor !== undefined) headers['x-forwarded-for'] = req.forwardedFor;
    if (req.body?.contentType) headers['content-type'] = req.body.contentType;
    const { auth } = req;
    if (auth.kind === 'session' || auth.kind === 'session and key') headers.cookie = world.sessions[auth.who].cookie;
    if (auth.kind === 'key' || auth.kind === 'session and key') headers.authorization = `Bearer ${world.keys[auth.key]}`;
    if (auth.kind === 'fresh session') headers.cookie = await freshCookie();
    if (auth.kind === 'cookie') headers.cookie = auth.raw;
    if (auth.kind === 'authorization') headers.authorization = auth.raw;
    if (req.upgrade)
      Object.assign(headers, {
        connection: 'Upgrade',
        upgrade: 'websocket',
        'sec-websocket-version': '13',
        'sec-websocket-key': randomBytes(16).toString('base64'),
      });
    return headers;
  }

  async function bodyOf(req: FuzzRequest): Promise<Buffer | undefined> {
    if (!req.body) return undefined;
    if (req.body.hex !== undefined) return Buffer.from(req.body.hex, 'hex');
    let text = req.body.text ?? '';
    if (text.includes(LOGIN_CODE)) {
      // A login names its address; a deletion's code goes to the fresh session's.
      const named = (JSON.parse(text) as { email?: string }).email;
      const email = named === undefined ? freshEmail : String(named).toLowerCase();
      await step('/api/auth/send-code', { email });
      text = text.replace(LOGIN_CODE, options.resend.lastCodeFor(email));
    }
    return Buffer.from(text, 'utf8');
  }

  async function run(req: FuzzRequest): Promise<Outcome> {
    const headers = await headersOf(req);
    const body = await bodyOf(req);
    const replay = JSON.stringify(
      {
        method: req.method,
        url: `${options.baseUrl}${req.path}`,
        headers,
        ...(body ? (req.body?.hex !== undefined ? { bodyHex: body.toString('hex') } : { body: body.toString('utf8') }) : {}),
      },
      null,
      2,
    );
    sent++;
    let answer: Answer;
    try {
      answer = await send(base, req.method, req.path, headers, body, req.upgrade ?? false, timeoutMs);
    } catch (error) {
      return { operationId: req.operationId, status: undefined, problems: [`no answer: ${(error as Error).message}`], replay };
    }
    const { operationId, problems } = judge(req.method, req.path, answer);
    // An answer that sets a fresh session (set-username retires the old one) replaces it.
    const fresh = answer.headers.get('set-cookie')?.match(/^sn_token=([^;]+)/)?.[0];
    if (fresh && (req.auth.kind === 'session' || req.auth.kind === 'session and key') && answer.status < 300)
      world.sessions[req.auth.who].cookie = fresh;
    if (problems.length > 0) problems.push(`answer: ${answer.status} ${answer.text.slice(0, 300)}`);
    return { operationId, status: answer.status, problems, replay };
  }

  return {
    run,
    /** Requests sent so far, the runner's own logins included. */
    sent: () => sent,
    /** Statuses answered per operation. */
    statuses: () => statuses,
  };
}
export type Runner = ReturnType<typeof createRunner>;
