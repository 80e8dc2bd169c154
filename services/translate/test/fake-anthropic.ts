// A loopback stand-in for Anthropic's Messages API (POST /v1/messages), called through the
// real SDK with `baseURL`. It records every request and answers like the real API: a
// message whose text is a recognisable "translation", or the API's error shape.
import http from 'node:http';

export interface MessagesRequest {
  model: string;
  max_tokens: number;
  system?: string;
  messages: Array<{ role: string; content: string }>;
  headers: http.IncomingHttpHeaders;
}

export type FakeMode =
  | { kind: 'translate' }
  | { kind: 'error'; status: number }
  | { kind: 'slow'; ms: number }
  | { kind: 'empty' }
  | { kind: 'cut-off' };

/** What the fake "translates" to: the target named in the system prompt plus the text. */
export function fakeTranslation(req: Pick<MessagesRequest, 'system' | 'messages'>): string {
  const target = /into (.+?)\.\n/.exec(req.system ?? '')?.[1] ?? '?';
  const user = req.messages[0]?.content ?? '';
  const text = /<source_text>\n([\s\S]*)\n<\/source_text>$/.exec(user)?.[1] ?? '';
  return `[${target}] ${text}`;
}

export async function startFakeAnthropic() {
  const requests: MessagesRequest[] = [];
  let mode: FakeMode = { kind: 'translate' };
  const timers = new Set<NodeJS.Timeout>();

  const message = (model: string, text: string, stop = 'end_turn') => ({
    id: `msg_fake_${requests.length}`,
    type: 'message',
    role: 'assistant',
    model,
    content: text === '' ? [] : [{ type: 'text', text }],
    stop_reason: stop,
    stop_sequence: null,
    usage: { input_tokens: 10, output_tokens: 10 },
  });

  const server = http.createServer((req, res) => {
    let raw = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (raw += c));
    req.on('end', () => {
      const send = (status: number, body: unknown) => {
        if (res.destroyed) return;
        res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_fake' });
        res.end(JSON.stringify(body));
      };
      if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/messages') {
        send(404, { type: 'error', error: { type: 'not_found_error', message: 'Not found' } });
        return;
      }
      const body = JSON.parse(raw) as Omit<MessagesRequest, 'headers'>;
      requests.push({ ...body, headers: req.headers });
      switch (mode.kind) {
        case 'translate':
          send(200, message(body.model, fakeTranslation(body)));
          return;
        case 'error':
          send(mode.status, {
            type: 'error',
            error: { type: 'api_error', message: 'Internal server error' },
          });
          return;
        case 'empty':
          send(200, message(body.model, ''));
          return;
        case 'cut-off':
          send(200, message(body.model, 'Half a transl', 'max_tokens'));
          return;
        case 'slow': {
          const timer = setTimeout(() => {
            timers.delete(timer);
            send(200, message(body.model, fakeTranslation(body)));
          }, mode.ms);
          timers.add(timer);
          return;
        }
      }
    });
  });
  server.keepAliveTimeout = 65_000;
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    baseURL: `http://127.0.0.1:${port}`,
    requests,
    setMode: (m: FakeMode) => void (mode = m),
    reset: () => {
      requests.length = 0;
      mode = { kind: 'translate' };
    },
    close: () =>
      new Promise<void>((r) => {
        for (const t of timers) clearTimeout(t);
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

export type FakeAnthropic = Awaited<ReturnType<typeof startFakeAnthropic>>;
