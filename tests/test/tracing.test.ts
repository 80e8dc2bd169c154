// Distributed tracing end to end: the built gateway, auth, sites, the
// sites worker, chat and realtime export spans over OTLP/HTTP (JSON) to a receiver on
// loopback; fakes stand in for the scraped web site and Anthropic. One site submission with a
// caller's `traceparent` must give ONE trace from the gateway through the outbox, the worker's
// scrape and tagging to realtime's fan-out, every span's parent inside it, and log lines
// carrying its trace_id/span_id.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import WebSocket from 'ws';
import { eventually, type ServiceProcess } from '@svc/service-kit/testing';
import { startOtlpReceiver, type ReceivedSpan as Span } from '@svc/tracing/testing';
import { startFakeAnthropic, startFakeWebsite } from './contract-system-fakes.js';
import { createTestSystem } from './system-processes.js';

const SPAN_KIND = { server: 2, client: 3, consumer: 5 } as const;

const system = createTestSystem();
let receiver: Awaited<ReturnType<typeof startOtlpReceiver>>;
let website: Awaited<ReturnType<typeof startFakeWebsite>>;
let gateway: ServiceProcess;
let sites: ServiceProcess;

beforeAll(async () => {
  receiver = await startOtlpReceiver().then(system.track);
  website = await startFakeWebsite().then(system.track);
  const anthropic = await startFakeAnthropic().then(system.track);
  const tracing = {
    OTEL_EXPORTER_OTLP_ENDPOINT: receiver.endpoint,
    OTEL_EXPORTER_OTLP_PROTOCOL: 'http/json',
    OTEL_TRACES_SAMPLER: 'parentbased_always_on',
    // Export within a fraction of a second rather than every 5 s.
    OTEL_BSP_SCHEDULE_DELAY: '100',
    LOG_LEVEL: 'info',
  };
  const sitesDb = await system.database('sites');
  const sitesShared = {
    ...tracing,
    SITES_DATABASE_URL: sitesDb.url,
    OUTBOUND_ALLOW_HOSTS: website.host,
    ANTHROPIC_API_KEY: 'sk-ant-tracing',
    ANTHROPIC_BASE_URL: anthropic.baseURL,
  };
  const options = { healthTimeoutMs: 30_000 };
  const [auth, sitesProc, , chat] = await Promise.all([
    system.service('auth', tracing),
    system.start('services/sites/dist/main.js', withSystem(sitesShared), options),
    system.start('services/sites/dist/worker/main.js', withSystem(sitesShared), options),
    system.service('chat', { ...tracing, INTERNAL_TOKEN: 'tracing-internal-token-0123456789' }),
  ]);
  sites = sitesProc;
  const realtime = await system.service('realtime', {
    ...tracing,
    CHAT_URL: chat.url,
    INTERNAL_TOKEN: 'tracing-internal-token-0123456789',
  });
  gateway = await system.start(
    'gateway/dist/main.js',
    {
      ...tracing,
      AUTH_URL: auth.url,
      SITES_URL: sites.url,
      CHAT_URL: chat.url,
      REALTIME_URL: realtime.url,
    },
    options,
  );
}, 120_000);

afterAll(() => system.stop(), 60_000);

/** The system's Redis prefix and public key, as `system.service` gives them. */
function withSystem(env: Record<string, string>): Record<string, string> {
  return {
    REDIS_PREFIX: system.redisPrefix,
    JWT_PUBLIC_KEY: system.keys.publicKey,
    ...env,
  };
}

describe('one trace per site submission', () => {
  const traceId = '4bf92f3577b34da6a3ce929d0e0e4736';
  const callerSpanId = '00f067aa0ba902b7';

  it('covers gateway, sites, PostgreSQL, Redis, the outbox relay, the worker (scrape fetch, tagging) and the realtime fan-out, parents included', async () => {
    const socket = new WebSocket(`${gateway.url.replace('http', 'ws')}/api/ws`);
    const messages: Array<{ event: string; payload: { id?: string } } & Record<string, unknown>> =
      [];
    socket.on('message', (data) => messages.push(JSON.parse(String(data))));
    await new Promise((resolve, reject) => {
      socket.once('open', resolve);
      socket.once('error', reject);
    });
    try {
      const res = await fetch(`${gateway.url}/api/sites`, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          traceparent: `00-${traceId}-${callerSpanId}-01`,
        },
        body: JSON.stringify({ url: website.url('/traced') }),
      });
      expect(res.status).toBe(201);
      const { site } = (await res.json()) as { site: { id: string } };
      // The scrape's update, then the tagging's: both reach the socket as public messages.
      const update = await eventually(() =>
        messages.find((m) => m.event === 'site_update' && m.payload.id === site.id),
      );
      // The public message shape is unchanged (id, event, payload): realtime strips the trace context.
      expect(Object.keys(update).sort()).toEqual(['event', 'id', 'payload']);
    } finally {
      socket.close();
    }

    const trace = () => receiver.spans.filter((s) => s.traceId === traceId);
    const find = (service: string, test: (s: Span) => boolean) =>
      trace().find((s) => s.service === service && test(s));
    const wanted: Record<string, (s: Span) => boolean> = {
      'gateway server span': (s) => s.service === 'gateway' && s.kind === SPAN_KIND.server,
      'sites server span': (s) => s.service === 'sites' && s.kind === SPAN_KIND.server,
      'a pg query span (sites)': (s) => s.service === 'sites' && s.name.startsWith('pg.query'),
      'a redis span (sites)': (s) =>
        s.service === 'sites' &&
        (s.attributes['db.system.name'] ?? s.attributes['db.system']) === 'redis',
      'the outbox relay span': (s) => s.service === 'sites' && s.name === 'outbox relay job_outbox',
      'the scrape job span (worker)': (s) =>
        s.service === 'sites-worker' && s.name === 'scrape job',
      "the scrape's outbound fetch": (s) =>
        s.service === 'sites-worker' &&
        s.kind === SPAN_KIND.client &&
        String(s.attributes['url.full'] ?? s.attributes['http.url'] ?? '').includes('/traced'),
      'the tag job span (worker)': (s) => s.service === 'sites-worker' && s.name === 'tag job',
      'the tagging call to Anthropic': (s) =>
        s.service === 'sites-worker' &&
        s.kind === SPAN_KIND.client &&
        String(s.attributes['url.full'] ?? '').includes('/v1/messages'),
      "realtime's fan-out span": (s) => s.service === 'realtime' && s.name === 'realtime fan-out',
      "chat's system message job span": (s) =>
        s.service === 'chat' && s.name === 'system message job',
    };
    // Exports are batched every 100 ms: wait until every kind of span has arrived.
    await eventually(() =>
      Object.values(wanted).every((test) => trace().some(test)) ? true : undefined,
    ).catch(() => undefined);
    const missing = Object.entries(wanted)
      .filter(([, test]) => !trace().some(test))
      .map(([what]) => what);
    expect(missing).toEqual([]);

    // Parent links: the gateway's server span is the child of the caller's span; every
    // other span's parent is a span of this same trace.
    const ids = new Set(trace().map((s) => s.spanId));
    const entry = find('gateway', (s) => s.kind === SPAN_KIND.server)!;
    expect(entry.parentSpanId).toBe(callerSpanId);
    const orphans = trace()
      .filter((s) => s !== entry && !ids.has(s.parentSpanId))
      .map((s) => `${s.service} ${s.name} (parent ${s.parentSpanId || 'none'})`);
    expect(orphans).toEqual([]);
    // The sites server span hangs under the gateway's server span (its traceparent upstream).
    const sitesServer = find('sites', (s) => s.kind === SPAN_KIND.server)!;
    const proxyCall = trace().find((s) => s.spanId === sitesServer.parentSpanId)!;
    expect(proxyCall.service).toBe('gateway');
    // Server spans are named after the method and the route pattern (the gateway knows it
    // when the request arrives, sites when its handler matched), as HTTP conventions say.
    for (const server of [entry, sitesServer]) {
      expect(server.attributes['http.route']).toMatch(/^\/api\//);
      expect(server.name).toBe(
        `${String(server.attributes['http.request.method'])} ${String(server.attributes['http.route'])}`,
      );
    }
    // No server span holds the caller's address (as the access log holds none).
    const addresses = trace()
      .filter((s) => s.kind === SPAN_KIND.server)
      .flatMap((s) => Object.entries(s.attributes))
      .filter(([k]) => /client|peer/.test(k))
      .filter(([, v]) => typeof v === 'string' && /^(::ffff:)?127\.0\.0\.1$|^::1$/.test(v));
    expect(addresses).toEqual([]);
  }, 60_000);

  it("log lines carry the trace_id and span_id of the active span (sites' access log)", () => {
    const lines = sites
      .output()
      .split('\n')
      .filter((l) => l.startsWith('{'))
      .map((l) => JSON.parse(l) as Record<string, unknown>);
    const access = lines.find((l) => l.msg === 'request' && l.url === '/api/sites');
    expect(access).toMatchObject({
      trace_id: traceId,
      span_id: expect.stringMatching(/^[0-9a-f]{16}$/),
    });
    // The span it names is one of the trace's sites spans.
    const span = receiver.spans.find((s) => s.spanId === access!.span_id);
    expect(span).toMatchObject({ service: 'sites', traceId });
    // Lines outside any span (start-up) have neither field.
    const listening = lines.find((l) => l.msg === 'sites listening');
    expect(listening).toBeDefined();
    expect(listening).not.toHaveProperty('trace_id');
  });
});
