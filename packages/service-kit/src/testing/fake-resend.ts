// A loopback stand-in for the Resend API (POST /emails), called through the real SDK.
import http from 'node:http';

export interface SentEmail {
  from: string;
  to: string | string[];
  subject: string;
  text: string;
  html: string;
  authorization?: string;
  /** the Idempotency-Key header, when the sender gave one */
  idempotencyKey?: string;
}

export async function startFakeResend() {
  const sent: SentEmail[] = [];
  const byKey = new Map<string, string>();
  let failNext = false;
  let stallNext = false;
  const stalled = new Set<http.ServerResponse>();
  const server = http.createServer((req, res) => {
    let body = '';
    req.on('data', (c) => (body += c));
    req.on('end', () => {
      res.setHeader('content-type', 'application/json');
      if (req.method !== 'POST' || req.url !== '/emails') {
        res
          .writeHead(404)
          .end(JSON.stringify({ name: 'not_found', message: 'Not found', statusCode: 404 }));
        return;
      }
      if (stallNext) {
        // Accepted and never answered (until close), like an API that hangs.
        stallNext = false;
        stalled.add(res);
        return;
      }
      if (failNext) {
        failNext = false;
        res
          .writeHead(422)
          .end(
            JSON.stringify({
              name: 'validation_error',
              message: 'Invalid `to` field',
              statusCode: 422,
            }),
          );
        return;
      }
      // Like Resend: a repeated Idempotency-Key answers the first email's id, sends nothing.
      const idempotencyKey = req.headers['idempotency-key'] as string | undefined;
      const earlier = idempotencyKey ? byKey.get(idempotencyKey) : undefined;
      if (earlier) {
        res.writeHead(200).end(JSON.stringify({ id: earlier }));
        return;
      }
      sent.push({ ...JSON.parse(body), authorization: req.headers.authorization, idempotencyKey });
      const id = `email_${sent.length}`;
      if (idempotencyKey) byKey.set(idempotencyKey, id);
      res.writeHead(200).end(JSON.stringify({ id }));
    });
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as { port: number }).port;
  return {
    baseUrl: `http://127.0.0.1:${port}`,
    sent,
    failNextRequest: () => void (failNext = true),
    /** The next request is read and never answered (a hung API). */
    stallNextRequest: () => void (stallNext = true),
    /** The 6-digit code in the newest email to `to` that carries one (notices do not). */
    lastCodeFor(to: string): string {
      const code = [...sent]
        .reverse()
        .filter((m) => [m.to].flat().includes(to))
        .map((m) => m.text.match(/\b(\d{6})\b/)?.[1])
        .find((c) => c !== undefined);
      if (!code) throw new Error(`no code sent to ${to}`);
      return code;
    },
    close: () =>
      new Promise<void>((r) => {
        for (const res of stalled) res.destroy();
        server.close(() => r());
      }),
  };
}
