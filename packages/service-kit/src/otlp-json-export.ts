// What tracing exports spans with by default: OTLP/HTTP with the JSON encoding (a standard
// OTLP transport every collector accepts on :4318/v1/traces), as a span processor that
// encodes each span the moment it ends, into a byte buffer. The SDK's batch processor keeps
// the span objects until a batch is full (hundreds of milliseconds at a few thousand
// requests per second): they outlive the young generation, and the garbage collector's
// copying and marking of them cost as much as everything else tracing does (bench/README.md,
// "Tracing"). Here a span is garbage as soon as it has ended, and a batch is bytes.
// OTEL_EXPORTER_OTLP_PROTOCOL=http/protobuf or grpc, compression or client certificates
// select the SDK's exporter and batch processor instead (tracing.ts).
import http from 'node:http';
import https from 'node:https';
import type { Attributes, AttributeValue, Context, HrTime } from '@opentelemetry/api';
import type { ReadableSpan, Span, SpanProcessor } from '@opentelemetry/sdk-trace';

export interface OtlpJsonOptions {
  /** The full URL spans are POSTed to (…/v1/traces). */
  url: string;
  /** Extra request headers (OTEL_EXPORTER_OTLP_HEADERS). */
  headers?: Record<string, string>;
  /** One export's deadline, retries included (OTEL_EXPORTER_OTLP_TIMEOUT, 10 s). */
  timeoutMs?: number;
  /** An export starts once this many spans wait (OTEL_BSP_MAX_EXPORT_BATCH_SIZE, 512)... */
  batchSize?: number;
  /** ...or this long after the first one ended (OTEL_BSP_SCHEDULE_DELAY, 5 s). */
  delayMs?: number;
  /** Spans beyond this many waiting are dropped, and counted (OTEL_BSP_MAX_QUEUE_SIZE, 2048). */
  maxQueue?: number;
  /** Where failed exports and dropped spans are told (default: a process warning). */
  warn?: (message: string) => void;
  /**
   * Runs an export with tracing suppressed: its POST must not become a span (the http
   * instrumentation would trace it, and that span's export would be traced in turn).
   */
  untraced?: <T>(fn: () => T) => T;
}

/** Statuses the OTLP specification says to retry (with back-off), besides network errors. */
const RETRYABLE = new Set([429, 502, 503, 504]);
const MAX_ATTEMPTS = 3;
/** The W3C "sampled" trace flag: only sampled spans are exported. */
const SAMPLED = 1;

/** The encoded spans of one instrumentation scope, waiting for the next export. */
interface ScopeBatch {
  scope: string;
  bytes: Buffer;
  length: number;
}

export class OtlpJsonSpanProcessor implements SpanProcessor {
  private readonly url: URL;
  private readonly headers: Record<string, string>;
  private readonly timeoutMs: number;
  private readonly batchSize: number;
  private readonly delayMs: number;
  private readonly maxQueue: number;
  private readonly agent: http.Agent;
  /** Per resource, per scope (the SDK shares those objects between a tracer's spans). */
  private readonly waiting = new Map<object, Map<object, ScopeBatch>>();
  private readonly resources = new WeakMap<object, string>();
  private queued = 0;
  private timer: NodeJS.Timeout | undefined;
  private inFlight: Promise<void> | undefined;
  private closed = false;
  private readonly warn: (message: string) => void;
  private readonly untraced: <T>(fn: () => T) => T;
  /** Spans dropped because the queue was full, since the last warning. */
  dropped = 0;

  constructor(options: OtlpJsonOptions) {
    this.url = new URL(options.url);
    this.headers = { ...options.headers, 'content-type': 'application/json' };
    this.timeoutMs = options.timeoutMs ?? 10_000;
    this.batchSize = options.batchSize ?? 512;
    this.delayMs = options.delayMs ?? 5_000;
    this.maxQueue = Math.max(options.maxQueue ?? 2048, this.batchSize);
    this.warn = options.warn ?? ((message) => process.emitWarning(message, 'TracingWarning'));
    this.untraced = options.untraced ?? ((fn) => fn());
    const Agent = this.url.protocol === 'https:' ? https.Agent : http.Agent;
    this.agent = new Agent({ keepAlive: true, maxSockets: 1 });
  }

  onStart(_span: Span, _parentContext: Context): void {}

  onEnd(span: ReadableSpan): void {
    if (this.closed || (span.spanContext().traceFlags & SAMPLED) === 0) return;
    if (this.queued >= this.maxQueue) {
      this.dropped++;
      return;
    }
    let scopes = this.waiting.get(span.resource);
    if (!scopes) this.waiting.set(span.resource, (scopes = new Map()));
    let batch = scopes.get(span.instrumentationScope);
    if (!batch) {
      batch = {
        scope: scopeJson(span.instrumentationScope),
        bytes: Buffer.allocUnsafe(16_384),
        length: 0,
      };
      scopes.set(span.instrumentationScope, batch);
    }
    const text = batch.length === 0 ? spanJson(span) : `,${spanJson(span)}`;
    // ASCII (`json` escapes the rest): one byte per character, copied as latin1, which
    // skips UTF-8's measuring and encoding.
    if (batch.length + text.length > batch.bytes.length) {
      const grown = Buffer.allocUnsafe(Math.max(batch.bytes.length * 2, batch.length + text.length));
      batch.bytes.copy(grown, 0, 0, batch.length);
      batch.bytes = grown;
    }
    batch.length += batch.bytes.write(text, batch.length, 'latin1');
    this.queued++;
    if (this.queued >= this.batchSize) this.exportWaiting();
    else this.timer ??= setTimeout(() => this.exportWaiting(), this.delayMs).unref();
  }

  async forceFlush(): Promise<void> {
    while (this.inFlight || this.queued > 0) {
      if (this.inFlight) await this.inFlight;
      else this.exportWaiting();
    }
  }

  async shutdown(): Promise<void> {
    await this.forceFlush();
    this.closed = true;
    this.agent.destroy();
  }

  /** Sends what waits, unless an export is under way (it sends the rest when it is done). */
  private exportWaiting(): void {
    if (this.timer) clearTimeout(this.timer);
    this.timer = undefined;
    if (this.inFlight || this.queued === 0) return;
    const body = this.takeBody();
    this.inFlight = this.untraced(() => this.send(body))
      .catch((err: unknown) => {
        this.warn(`OTLP span export failed: ${(err as Error).message}`);
      })
      .finally(() => {
        this.inFlight = undefined;
        if (this.dropped > 0) {
          this.warn(`${this.dropped} spans dropped: the export queue was full`);
          this.dropped = 0;
        }
        if (this.queued >= this.batchSize) this.exportWaiting();
        else if (this.queued > 0)
          this.timer ??= setTimeout(() => this.exportWaiting(), this.delayMs).unref();
      });
  }

  /** The waiting spans as one ExportTraceServiceRequest; the buffers are emptied for reuse. */
  private takeBody(): Buffer {
    const parts: Buffer[] = [Buffer.from('{"resourceSpans":[')];
    let firstResource = true;
    for (const [resource, scopes] of this.waiting) {
      let attributes = this.resources.get(resource);
      if (attributes === undefined) {
        attributes = attributesJson((resource as { attributes: Attributes }).attributes);
        this.resources.set(resource, attributes);
      }
      let head = `${firstResource ? '' : ','}{"resource":{"attributes":[${attributes}]},"scopeSpans":[`;
      firstResource = false;
      for (const batch of scopes.values()) {
        if (batch.length === 0) continue;
        parts.push(Buffer.from(`${head}{"scope":${batch.scope},"spans":[`));
        parts.push(batch.bytes.subarray(0, batch.length)); // copied by the concat below
        parts.push(Buffer.from(']}'));
        head = ',';
        batch.length = 0;
      }
      parts.push(Buffer.from(head === ',' ? ']}' : `${head}]}`));
    }
    parts.push(Buffer.from(']}'));
    this.queued = 0;
    return Buffer.concat(parts);
  }

  /** POSTs `body`; retries network errors and the retryable statuses, within the deadline. */
  private async send(body: Buffer): Promise<void> {
    const deadline = Date.now() + this.timeoutMs;
    for (let attempt = 1; ; attempt++) {
      const outcome = await this.post(body, deadline - Date.now());
      if (outcome === 'ok') return;
      const wait = 100 * 2 ** attempt;
      const last = attempt === MAX_ATTEMPTS || Date.now() + wait >= deadline;
      if (typeof outcome === 'number' && !RETRYABLE.has(outcome))
        throw new Error(`OTLP export answered ${outcome}`);
      if (last)
        throw outcome instanceof Error ? outcome : new Error(`OTLP export answered ${outcome}`);
      await new Promise((resolve) => setTimeout(resolve, wait).unref());
    }
  }

  /** One POST: 'ok' on a 2xx, else the status or the network error; always settles. */
  private post(body: Buffer, timeoutMs: number): Promise<'ok' | number | Error> {
    const client = this.url.protocol === 'https:' ? https : http;
    return new Promise((resolve) => {
      let status = 0;
      const req = client.request(
        this.url,
        {
          method: 'POST',
          agent: this.agent,
          headers: { ...this.headers, 'content-length': String(body.length) },
          timeout: Math.max(1, timeoutMs),
        },
        (res) => {
          status = res.statusCode ?? 0;
          res.resume();
          res.on('end', () => resolve(status >= 200 && status < 300 ? 'ok' : status));
          res.on('error', resolve);
        },
      );
      req.on('timeout', () => req.destroy(new Error('OTLP export timed out')));
      req.on('error', resolve);
      // A connection cut mid-answer may end neither the request nor the answer with an error.
      req.on('close', () => resolve(new Error(`OTLP export connection closed (status ${status})`)));
      req.end(body);
    });
  }
}

const NON_ASCII = /[\u0080-\uffff]/;
const NON_ASCII_ALL = /[\u0080-\uffff]/g;
const unicodeEscape = (c: string) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`;

/** A JSON string literal in ASCII: anything beyond it as `\uXXXX` (same value, parsed). */
function json(value: string): string {
  const text = JSON.stringify(value);
  return NON_ASCII.test(text) ? text.replace(NON_ASCII_ALL, unicodeEscape) : text;
}

function scopeJson(scope: { name: string; version?: string }): string {
  return scope.version
    ? `{"name":${json(scope.name)},"version":${json(scope.version)}}`
    : `{"name":${json(scope.name)}}`;
}

/** One span (OTLP/JSON: hex ids, kind and status as numbers, 64-bit times as strings). */
export function spanJson(span: ReadableSpan): string {
  const context = span.spanContext();
  const parent = span.parentSpanContext;
  let out = `{"traceId":"${context.traceId}","spanId":"${context.spanId}"`;
  const traceState = context.traceState?.serialize();
  if (traceState) out += `,"traceState":${json(traceState)}`;
  if (parent) out += `,"parentSpanId":"${parent.spanId}"`;
  // OTLP's flags: the W3C trace flags, then "whether the parent is remote" is known (0x100)
  // and its value (0x200).
  const flags = (context.traceFlags & 0xff) | 0x100 | (parent?.isRemote ? 0x200 : 0);
  out +=
    `,"flags":${flags},"name":${nameJson(span.name)},"kind":${span.kind + 1}` +
    `,"startTimeUnixNano":"${nanos(span.startTime)}","endTimeUnixNano":"${nanos(span.endTime)}"` +
    `,"attributes":[${attributesJson(span.attributes)}]`;
  if (span.droppedAttributesCount > 0)
    out += `,"droppedAttributesCount":${span.droppedAttributesCount}`;
  if (span.events.length > 0) {
    const events = span.events.map(
      (e) =>
        `{"timeUnixNano":"${nanos(e.time)}","name":${json(e.name)},"attributes":[${attributesJson(e.attributes ?? {})}]}`,
    );
    out += `,"events":[${events.join(',')}]`;
  }
  if (span.droppedEventsCount > 0) out += `,"droppedEventsCount":${span.droppedEventsCount}`;
  if (span.links.length > 0) {
    const links = span.links.map(
      (l) =>
        `{"traceId":"${l.context.traceId}","spanId":"${l.context.spanId}","attributes":[${attributesJson(l.attributes ?? {})}]}`,
    );
    out += `,"links":[${links.join(',')}]`;
  }
  if (span.droppedLinksCount > 0) out += `,"droppedLinksCount":${span.droppedLinksCount}`;
  const { code, message } = span.status;
  if (code !== 0 || message)
    out += `,"status":{"code":${code}${message ? `,"message":${json(message)}` : ''}}`;
  return `${out}}`;
}

// Spans of one process come in runs of the same second and the same few attributes (a
// method, a route, a status, a Redis command and its server): their text is made once.
// Caching whole `{"key":…,"value":…}` pieces halves a span's encoding and the string
// pieces its bytes are copied from (bench/README.md "Tracing").
let lastSeconds = -1;
let lastSecondsText = '';
/** Per key: its `{"key":"<key>","value":` head and the whole pieces of its frequent values. */
interface KeyCache {
  head: string;
  pieces: Map<AttributeValue, string>;
}
const keys = new Map<string, KeyCache>();
const KEYS_MAX = 1024;
/** Values kept per key: enough for methods, routes, statuses and commands, not for ids or paths with ids in them. */
const PIECES_PER_KEY = 64;
/** Longer values are not kept (a query text, a URL with a query). */
const PIECE_VALUE_MAX = 128;

/** [seconds, nanoseconds] as the decimal string of nanoseconds since the epoch. */
export function nanos([seconds, ns]: HrTime): string {
  if (seconds === 0) return String(ns);
  if (seconds !== lastSeconds) {
    lastSeconds = seconds;
    lastSecondsText = String(seconds);
  }
  // 1e9 + ns has ten digits: the last nine are ns, zero-padded.
  return lastSecondsText + String(1e9 + ns).slice(1);
}

/** Span names come from route patterns and commands: a few hundred at most. */
const names = new Map<string, string>();

function nameJson(name: string): string {
  let text = names.get(name);
  if (text === undefined) {
    text = json(name);
    if (names.size < KEYS_MAX) names.set(name, text);
  }
  return text;
}

function keyCache(key: string): KeyCache {
  let cache = keys.get(key);
  if (cache === undefined) {
    cache = { head: `{"key":${json(key)},"value":`, pieces: new Map() };
    if (keys.size < KEYS_MAX) keys.set(key, cache);
  }
  return cache;
}

/** `{"key":…,"value":…}` for one attribute; undefined for a missing value. */
function attributeJson(key: string, value: AttributeValue | undefined): string | undefined {
  const cache = keyCache(key);
  const cacheable =
    typeof value === 'number' ||
    typeof value === 'boolean' ||
    (typeof value === 'string' && value.length <= PIECE_VALUE_MAX);
  if (cacheable) {
    const piece = cache.pieces.get(value);
    if (piece !== undefined) return piece;
  }
  const valueJson = anyValueJson(value);
  if (valueJson === undefined) return undefined;
  const piece = `${cache.head}${valueJson}}`;
  if (cacheable && cache.pieces.size < PIECES_PER_KEY) cache.pieces.set(value, piece);
  return piece;
}

export function attributesJson(attributes: Attributes): string {
  let out = '';
  for (const key in attributes) {
    const piece = attributeJson(key, attributes[key]);
    if (piece === undefined) continue;
    out = out === '' ? piece : `${out},${piece}`;
  }
  return out;
}

/** An AnyValue; undefined for a missing value (the attribute is left out). */
function anyValueJson(value: AttributeValue | undefined | null): string | undefined {
  switch (typeof value) {
    case 'string':
      return `{"stringValue":${json(value)}}`;
    case 'boolean':
      return `{"boolValue":${value}}`;
    case 'number':
      if (Number.isSafeInteger(value)) return `{"intValue":"${value}"}`;
      // proto3's JSON mapping spells the non-finite doubles as strings.
      return Number.isFinite(value) ? `{"doubleValue":${value}}` : `{"doubleValue":"${value}"}`;
    case 'object':
      if (Array.isArray(value)) {
        const values = (value as Array<string | number | boolean | null | undefined>).map(
          (v) => anyValueJson(v) ?? '{}',
        );
        return `{"arrayValue":{"values":[${values.join(',')}]}}`;
      }
      return undefined;
    default:
      return undefined;
  }
}
