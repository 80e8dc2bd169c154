// The OTLP/HTTP JSON span processor tracing exports with (otlp-json-export.ts): what it
// encodes (checked against the OTLP/JSON shape a collector parses), when it sends (batch
// size, delay, flush), what it does when the collector is slow, failing or refusing, against
// a receiver on loopback.
import { afterEach, describe, expect, it } from '@jest/globals';
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { ReadableSpan } from '@opentelemetry/sdk-trace';
import { OtlpJsonSpanProcessor, attributesJson, nanos, spanJson } from '../src/otlp-json-export.js';

const RESOURCE = { attributes: { 'service.name': 'kit-test', 'process.pid': 42 } };
const KIT_SCOPE = { name: '@svc/service-kit' };
const PG_SCOPE = { name: '@opentelemetry/instrumentation-pg', version: '0.77.0' };

let counter = 0;
function fakeSpan(overrides: Partial<Record<keyof ReadableSpan, unknown>> = {}): ReadableSpan {
  counter++;
  const spanId = counter.toString(16).padStart(16, '0');
  return {
    name: 'GET /api/v1/apps',
    kind: 1,
    spanContext: () => ({ traceId: '4bf92f3577b34da6a3ce929d0e0e4736', spanId, traceFlags: 1 }),
    parentSpanContext: {
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: '00f067aa0ba902b7',
      traceFlags: 1,
      isRemote: true,
    },
    startTime: [1_795_421_008, 435_000_000],
    endTime: [1_795_421_008, 436_964_842],
    status: { code: 0 },
    attributes: { 'http.request.method': 'GET', 'http.response.status_code': 200 },
    links: [],
    events: [],
    duration: [0, 1_964_842],
    ended: true,
    resource: RESOURCE,
    instrumentationScope: KIT_SCOPE,
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
    ...overrides,
  } as unknown as ReadableSpan;
}

describe('encoding (OTLP/JSON)', () => {
  it('writes a span with hex ids, the OTLP kind, times in nanoseconds as strings, typed attributes', () => {
    const span = JSON.parse(spanJson(fakeSpan())) as Record<string, unknown>;
    expect(span).toEqual({
      traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
      spanId: expect.stringMatching(/^[0-9a-f]{16}$/),
      parentSpanId: '00f067aa0ba902b7',
      // sampled, "is remote" known (0x100) and true (0x200)
      flags: 0x301,
      name: 'GET /api/v1/apps',
      kind: 2, // SERVER: the API's 1, plus one
      startTimeUnixNano: '1795421008435000000',
      endTimeUnixNano: '1795421008436964842',
      attributes: [
        { key: 'http.request.method', value: { stringValue: 'GET' } },
        { key: 'http.response.status_code', value: { intValue: '200' } },
      ],
    });
  });

  it('keeps status, events, links and trace state; escapes what JSON must escape', () => {
    const span = JSON.parse(
      spanJson(
        fakeSpan({
          name: 'say "hi"\n\u2028',
          parentSpanContext: undefined,
          status: { code: 2, message: 'boom' },
          events: [{ name: 'exception', time: [1, 5], attributes: { 'exception.message': 'é' } }],
          links: [{ context: { traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), traceFlags: 1 } }],
          spanContext: () => ({
            traceId: '4bf92f3577b34da6a3ce929d0e0e4736',
            spanId: 'c'.repeat(16),
            traceFlags: 1,
            traceState: { serialize: () => 'vendor=x' },
          }),
          droppedAttributesCount: 3,
        }),
      ),
    ) as Record<string, unknown>;
    expect(span).toMatchObject({
      name: 'say "hi"\n\u2028',
      traceState: 'vendor=x',
      flags: 0x101,
      status: { code: 2, message: 'boom' },
      events: [
        {
          timeUnixNano: '1000000005',
          name: 'exception',
          attributes: [{ key: 'exception.message', value: { stringValue: 'é' } }],
        },
      ],
      links: [{ traceId: 'a'.repeat(32), spanId: 'b'.repeat(16), attributes: [] }],
      droppedAttributesCount: 3,
    });
    expect(span).not.toHaveProperty('parentSpanId');
  });

  it('types every attribute value as the OTLP AnyValue, leaving out missing ones', () => {
    const encoded = JSON.parse(
      `[${attributesJson({
        s: 'x',
        i: -7,
        d: 1.5,
        big: 2 ** 60,
        nan: Number.NaN,
        b: false,
        list: ['a', 1, true, null],
        none: undefined,
      })}]`,
    ) as Array<{ key: string; value: unknown }>;
    expect(Object.fromEntries(encoded.map((a) => [a.key, a.value]))).toEqual({
      s: { stringValue: 'x' },
      i: { intValue: '-7' },
      d: { doubleValue: 1.5 },
      big: { doubleValue: 2 ** 60 },
      nan: { doubleValue: 'NaN' },
      b: { boolValue: false },
      list: {
        arrayValue: { values: [{ stringValue: 'a' }, { intValue: '1' }, { boolValue: true }, {}] },
      },
    });
    expect(nanos([0, 12])).toBe('12');
    expect(nanos([3, 12])).toBe('3000000012');
    // The seconds' text is kept between calls: a new second, then the old one again.
    expect(nanos([4, 999_999_999])).toBe('4999999999');
    expect(nanos([3, 0])).toBe('3000000000');
  });

  it('reuses the text of frequent attributes without mixing up values or their types', () => {
    const decode = (attributes: Record<string, string | number | boolean>) =>
      JSON.parse(`[${attributesJson(attributes)}]`) as Array<{ key: string; value: unknown }>;
    // The same key with values of other types, and the same values again (now cached).
    for (let round = 0; round < 2; round++) {
      expect(decode({ code: 200 })[0]!.value).toEqual({ intValue: '200' });
      expect(decode({ code: '200' })[0]!.value).toEqual({ stringValue: '200' });
      expect(decode({ code: true })[0]!.value).toEqual({ boolValue: true });
      expect(decode({ code: 'true' })[0]!.value).toEqual({ stringValue: 'true' });
    }
    // More values than a key keeps, and values too long to keep: each still its own.
    for (let i = 0; i < 100; i++) {
      const long = `/api/v1/apps/${'x'.repeat(200)}${i}`;
      expect(decode({ 'url.path': `/api/v1/apps/${i}`, long })).toEqual([
        { key: 'url.path', value: { stringValue: `/api/v1/apps/${i}` } },
        { key: 'long', value: { stringValue: long } },
      ]);
    }
    // A span name is kept too, escaped as JSON.
    const named = (name: string) => JSON.parse(spanJson(fakeSpan({ name }))) as { name: string };
    expect(named('GET "quoted"').name).toBe('GET "quoted"');
    expect(named('GET "quoted"').name).toBe('GET "quoted"');
  });
});

interface Export {
  status: number;
  /** The body as sent. */
  bytes: Buffer;
  headers: { type?: string; authorization?: string };
  body: {
    resourceSpans: Array<{
      resource: { attributes: Array<{ key: string }> };
      scopeSpans: Array<{ scope: { name: string }; spans: Array<{ spanId: string }> }>;
    }>;
  };
}

/** A loopback collector answering each POST with the next status of `statuses` (then 200). */
async function startReceiver(statuses: number[] = []) {
  const exports: Export[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const status = statuses.shift() ?? 200;
      const bytes = Buffer.concat(chunks);
      const text = bytes.toString('utf8');
      exports.push({
        status,
        bytes,
        body: JSON.parse(text) as Export['body'],
        headers: { type: req.headers['content-type'], authorization: req.headers.authorization },
      });
      res.writeHead(status).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1/traces`,
    exports,
    spanCount: () =>
      exports
        .filter((e) => e.status === 200)
        .flatMap((e) => e.body.resourceSpans.flatMap((r) => r.scopeSpans.flatMap((s) => s.spans)))
        .length,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const cleanups: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const c of cleanups.splice(0)) await c();
});

async function setUp(
  statuses: number[] = [],
  options: { batchSize?: number; delayMs?: number; maxQueue?: number } = {},
) {
  const warnings: string[] = [];
  const untraced = { calls: 0 };
  const receiver = await startReceiver(statuses);
  const processor = new OtlpJsonSpanProcessor({
    url: receiver.url,
    headers: { authorization: 'Bearer t' },
    batchSize: 4,
    delayMs: 60_000,
    warn: (message) => warnings.push(message),
    untraced: (fn) => {
      untraced.calls++;
      return fn();
    },
    ...options,
  });
  cleanups.push(async () => {
    await processor.shutdown();
    await receiver.close();
  });
  return { receiver, processor, warnings, untraced };
}

async function until(check: () => boolean, ms = 5_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error('condition not met');
    await new Promise((r) => setTimeout(r, 10));
  }
}

describe('the span processor', () => {
  it('sends once a batch is full, grouped by resource and scope, unsampled spans left out', async () => {
    const { receiver, processor } = await setUp();
    processor.onEnd(fakeSpan());
    processor.onEnd(fakeSpan({ instrumentationScope: PG_SCOPE, name: 'pg.query:SELECT' }));
    processor.onEnd(
      fakeSpan({
        spanContext: () => ({ traceId: '1'.repeat(32), spanId: '2'.repeat(16), traceFlags: 0 }),
      }),
    );
    processor.onEnd(fakeSpan());
    expect(receiver.exports).toHaveLength(0); // 3 sampled spans: the batch (4) is not full
    processor.onEnd(fakeSpan());
    await until(() => receiver.exports.length === 1);
    const { body, headers } = receiver.exports[0]!;
    expect(headers).toEqual({ type: 'application/json', authorization: 'Bearer t' });
    expect(body.resourceSpans).toHaveLength(1);
    expect(body.resourceSpans[0]!.resource.attributes.map((a) => a.key)).toEqual([
      'service.name',
      'process.pid',
    ]);
    const scopes = body.resourceSpans[0]!.scopeSpans.map((s) => [s.scope.name, s.spans.length]);
    expect(scopes).toEqual([
      ['@svc/service-kit', 3],
      ['@opentelemetry/instrumentation-pg', 1],
    ]);
  });

  it('sends ASCII only: other characters escaped, their values intact', async () => {
    const { receiver, processor } = await setUp([], { batchSize: 2 });
    const name = 'GET /café/日本';
    const value = 'emoji 😀, lone \ud800, é';
    processor.onEnd(fakeSpan({ name, attributes: { 'url.path': value, 'ключ': 'значение' } }));
    processor.onEnd(fakeSpan({ status: { code: 2, message: 'échec' } }));
    await until(() => receiver.exports.length === 1);
    const { bytes, body } = receiver.exports[0]!;
    expect(bytes.every((b) => b < 0x80)).toBe(true);
    const [first, second] = body.resourceSpans[0]!.scopeSpans[0]!.spans as unknown as Array<
      Record<string, unknown>
    >;
    expect(first!.name).toBe(name);
    expect(first!.attributes).toEqual([
      { key: 'url.path', value: { stringValue: value } },
      { key: 'ключ', value: { stringValue: 'значение' } },
    ]);
    expect(second!.status).toEqual({ code: 2, message: 'échec' });
  });

  it('sends what waits after the delay, and on forceFlush', async () => {
    const { receiver, processor, untraced } = await setUp([], { delayMs: 50 });
    processor.onEnd(fakeSpan());
    await until(() => receiver.exports.length === 1);
    processor.onEnd(fakeSpan());
    processor.onEnd(fakeSpan());
    await processor.forceFlush();
    expect(receiver.spanCount()).toBe(3);
    // Each export ran with tracing suppressed (its POST must not become a span to export).
    expect(untraced.calls).toBe(2);
  });

  it('retries what the collector says to retry (503), and gives up on a refusal (400) with a warning', async () => {
    const { receiver, processor, warnings } = await setUp([503, 200, 400]);
    for (let i = 0; i < 4; i++) processor.onEnd(fakeSpan());
    await processor.forceFlush();
    expect(receiver.exports.map((e) => e.status)).toEqual([503, 200]);
    expect(receiver.spanCount()).toBe(4);

    expect(warnings).toEqual([]);
    for (let i = 0; i < 4; i++) processor.onEnd(fakeSpan());
    await processor.forceFlush();
    expect(receiver.exports.map((e) => e.status)).toEqual([503, 200, 400]);
    expect(warnings).toEqual(['OTLP span export failed: OTLP export answered 400']);
  });

  it('drops (and counts) spans beyond the queue while an export is under way, never blocks', async () => {
    const { receiver, processor, warnings } = await setUp([], { batchSize: 2, maxQueue: 4 });
    for (let i = 0; i < 10; i++) processor.onEnd(fakeSpan());
    // The first 2 went out at once; 4 more wait while they are in flight; 4 were dropped.
    expect(processor.dropped).toBe(4);
    await processor.forceFlush();
    expect(receiver.spanCount()).toBe(6);
    expect(warnings).toEqual(['4 spans dropped: the export queue was full']);
  });

  it('exports nothing after shutdown', async () => {
    const { receiver, processor } = await setUp();
    processor.onEnd(fakeSpan());
    await processor.shutdown();
    processor.onEnd(fakeSpan());
    await processor.forceFlush();
    expect(receiver.spanCount()).toBe(1);
  });
});
