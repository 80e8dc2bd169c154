// An event on the bus may carry its publisher's W3C trace context beside `event` and
// `payload` (service-kit's event bus, tracing on). Clients never see it: the public WebSocket
// message stays `{ event, payload }`, and an envelope without it is relayed byte for byte.

export interface RelayedEvent {
  /** What the clients receive. */
  message: string;
  /** `traceparent`/`tracestate` of the envelope, when it had them. */
  trace?: { traceparent?: unknown; tracestate?: unknown };
}

export function stripTraceContext(raw: string): RelayedEvent {
  if (!raw.includes('"traceparent"')) return { message: raw };
  const { event, payload, traceparent, tracestate } = JSON.parse(raw) as Record<string, unknown>;
  return { message: JSON.stringify({ event, payload }), trace: { traceparent, tracestate } };
}
