// Test support (`@svc/tracing/testing`): a loopback OTLP/HTTP receiver, a collector's
// stand-in, that keeps the spans of `http/json` exports and the raw bodies of
// `http/protobuf` ones. Used by this package's tests and the system's end-to-end trace test.
import http from 'node:http';
import type { AddressInfo } from 'node:net';

/** One received span, attributes flattened to their values. */
export interface ReceivedSpan {
  service: string;
  scope: string;
  name: string;
  kind: number;
  traceId: string;
  spanId: string;
  parentSpanId: string;
  status: number;
  attributes: Record<string, unknown>;
}

interface OtlpJson {
  resourceSpans: Array<{
    resource: { attributes: Array<{ key: string; value: { stringValue?: string } }> };
    scopeSpans: Array<{
      scope: { name: string };
      spans: Array<{
        traceId: string;
        spanId: string;
        parentSpanId?: string;
        name: string;
        kind: number;
        status?: { code?: number };
        attributes?: Array<{ key: string; value: Record<string, unknown> }>;
      }>;
    }>;
  }>;
}

export async function startOtlpReceiver() {
  const spans: ReceivedSpan[] = [];
  const protobufBodies: Buffer[] = [];
  const server = http.createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (c: Buffer) => chunks.push(c));
    req.on('end', () => {
      const body = Buffer.concat(chunks);
      if (req.headers['content-type'] === 'application/x-protobuf') protobufBodies.push(body);
      else
        for (const rs of (JSON.parse(body.toString()) as OtlpJson).resourceSpans) {
          const service = rs.resource.attributes.find((a) => a.key === 'service.name')?.value
            .stringValue as string;
          for (const ss of rs.scopeSpans)
            for (const s of ss.spans)
              spans.push({
                service,
                scope: ss.scope.name,
                name: s.name,
                kind: s.kind,
                traceId: s.traceId,
                spanId: s.spanId,
                parentSpanId: s.parentSpanId ?? '',
                status: s.status?.code ?? 0,
                attributes: Object.fromEntries(
                  (s.attributes ?? []).map((a) => [a.key, Object.values(a.value)[0]]),
                ),
              });
        }
      res.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  return {
    endpoint: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    spans,
    protobufBodies,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}
