// The whole system as a person meets it, for browser tests: every built service, the sites
// worker, the gateway in front and the web client behind it, with loopback fakes for the
// third parties (Resend, Anthropic, the image of the day, the websites people submit).
import { freePort, type ServiceProcess, type TestDatabase } from '@svc/service-kit/testing';
import {
  startFakeAnthropic,
  startFakeCaptcha,
  startFakeImageProvider,
  startFakeWebsite,
} from '../contract-system-fakes.js';
import { createTestSystem, type FakeResend, type TestSystem } from '../system-processes.js';

export const WEB_INTERNAL_TOKEN = 'web-internal-token-0123456789';
const IP_HASH_SECRET = 'web-ip-hash-secret-0123456789';

export interface WebSystemOptions {
  /** Turn the CAPTCHA on: the widget gets this site key, the verifier accepts `token`. */
  captcha?: { siteKey: string; secret: string; token: string };
  /** Extra settings per process, added last. */
  env?: Partial<Record<'auth' | 'app-store' | 'sites' | 'sites-worker' | 'chat' | 'translate' | 'realtime' | 'gateway' | 'web', Record<string, string>>>;
}

export interface WebSystem {
  /** The origin a person opens (the gateway). */
  baseUrl: string;
  system: TestSystem;
  resend: FakeResend;
  anthropic: Awaited<ReturnType<typeof startFakeAnthropic>>;
  website: Awaited<ReturnType<typeof startFakeWebsite>>;
  imageProvider: Awaited<ReturnType<typeof startFakeImageProvider>>;
  processes: Record<'gateway' | 'web' | 'sites' | 'chat' | 'app-store' | 'auth' | 'realtime' | 'translate', ServiceProcess>;
  /** chat's schema, for what only time does to it (a retention sweep's deletions). */
  chatDatabase: TestDatabase;
  stop(): Promise<void>;
}

export async function startWebSystem(options: WebSystemOptions = {}): Promise<WebSystem> {
  const system = createTestSystem();
  const env = options.env ?? {};
  const start = (entry: string, settings: Record<string, string>, port?: number) =>
    system.start(entry, settings, { healthTimeoutMs: 30_000, port });
  try {
    const [resend, anthropic, imageProvider, website, captcha] = await Promise.all([
      system.resend(),
      startFakeAnthropic().then(system.track),
      startFakeImageProvider().then(system.track),
      startFakeWebsite().then(system.track),
      options.captcha
        ? startFakeCaptcha(options.captcha.secret, options.captcha.token).then(system.track)
        : Promise.resolve(undefined),
    ]);
    imageProvider.setUp(true);
    const ai = { ANTHROPIC_API_KEY: 'sk-ant-web', ANTHROPIC_BASE_URL: anthropic.baseURL };
    // The gateway, web and sites (the sitemap) must agree on the public origin, and the
    // gateway and web on each other's address: both ports are chosen first.
    const gatewayPort = await freePort();
    let webPort = await freePort();
    while (webPort === gatewayPort) webPort = await freePort();
    const publicBaseUrl = `http://127.0.0.1:${gatewayPort}`;
    const [sitesDb, chatDb] = await Promise.all([system.database('sites'), system.database('chat')]);
    const sitesShared = {
      REDIS_PREFIX: system.redisPrefix,
      JWT_PUBLIC_KEY: system.keys.publicKey,
      ...ai,
      SITES_DATABASE_URL: sitesDb.url,
      OUTBOUND_ALLOW_HOSTS: website.host,
    };
    const internal = { INTERNAL_TOKEN: WEB_INTERNAL_TOKEN };
    const [appStore, sites, , chat, translate] = await Promise.all([
      system.service('app-store', { APP_STORE_LISTING_CACHE_MS: '0', ...internal, ...env['app-store'] }),
      start('services/sites/dist/main.js', {
        ...sitesShared,
        IP_HASH_SECRET,
        PUBLIC_BASE_URL: publicBaseUrl,
        SITES_LIST_CACHE_MS: '0',
        SITES_COUNT_CACHE_MS: '0',
        DAILY_BG_SOURCE_URL: imageProvider.sourceUrl,
        ...internal,
        ...(captcha && options.captcha
          ? { CAPTCHA_SECRET_KEY: options.captcha.secret, CAPTCHA_VERIFY_URL: captcha.verifyUrl }
          : {}),
        ...env.sites,
      }),
      start('services/sites/dist/worker/main.js', { ...sitesShared, ...env['sites-worker'] }),
      start('services/chat/dist/main.js', {
        REDIS_PREFIX: system.redisPrefix,
        JWT_PUBLIC_KEY: system.keys.publicKey,
        CHAT_DATABASE_URL: chatDb.url,
        IP_HASH_SECRET,
        ...internal,
        ...env.chat,
      }),
      system.service('translate', { ...ai, TRANSLATE_AI_MAX_RETRIES: '0', ...env.translate }),
    ]);
    // auth asks app-store, sites and chat for their part of a data export: it starts once
    // their addresses are known, beside realtime, which waits for chat too.
    const [auth, realtime] = await Promise.all([
      system.service('auth', {
        APP_STORE_URL: appStore!.url,
        SITES_URL: sites!.url,
        CHAT_URL: chat!.url,
        ...internal,
        ...env.auth,
      }),
      system.service('realtime', { CHAT_URL: chat!.url, ...internal, ...env.realtime }),
    ]);
    const gateway = await start('gateway/dist/main.js', {
      AUTH_URL: auth!.url,
      APP_STORE_URL: appStore!.url,
      SITES_URL: sites!.url,
      CHAT_URL: chat!.url,
      TRANSLATE_URL: translate!.url,
      REALTIME_URL: realtime.url,
      WEB_URL: `http://127.0.0.1:${webPort}`,
      PUBLIC_BASE_URL: publicBaseUrl,
      // web passes each reader's address on (X-Forwarded-For) from loopback.
      TRUST_PROXY: 'loopback',
      ...env.gateway,
    }, gatewayPort);
    const web = await start(
      'services/web/dist/main.js',
      {
        API_BASE_URL: gateway.url,
        PUBLIC_BASE_URL: publicBaseUrl,
        // Tests act and look again at once; the anonymous page cache is tested on its own
        // (pages.test.ts turns it on).
        WEB_PAGE_CACHE_MS: '0',
        ...(options.captcha ? { CAPTCHA_SITE_KEY: options.captcha.siteKey } : {}),
        ...env.web,
      },
      webPort,
    );
    return {
      baseUrl: gateway.url,
      system,
      resend,
      anthropic,
      website,
      imageProvider,
      processes: {
        gateway,
        web,
        sites: sites!,
        chat: chat!,
        'app-store': appStore!,
        auth: auth!,
        realtime,
        translate: translate!,
      },
      chatDatabase: chatDb,
      stop: () => system.stop(),
    };
  } catch (err) {
    await system.stop().catch(() => undefined);
    throw err;
  }
}
