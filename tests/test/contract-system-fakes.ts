// Loopback stand-ins for the third-party services the whole system calls, speaking their real
// protocols: Anthropic's Messages API (translate and the sites worker's tagging, through the
// real SDK), a Bing-shaped image-of-the-day provider, a Turnstile-shaped CAPTCHA verifier and
// a small web site (scraped by the sites worker, fetched by the claim check).
import http from 'node:http';
import type { AddressInfo } from 'node:net';
import type { TestSystem } from './system-processes.js';

type Handler = (req: http.IncomingMessage, res: http.ServerResponse, body: string) => void;

async function listen(handler: Handler) {
  const server = http.createServer((req, res) => {
    let body = '';
    req.setEncoding('utf8');
    req.on('data', (c: string) => (body += c));
    req.on('end', () => handler(req, res, body));
  });
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r));
  const port = (server.address() as AddressInfo).port;
  return {
    port,
    origin: `http://127.0.0.1:${port}`,
    close: () =>
      new Promise<void>((r) => {
        server.closeAllConnections();
        server.close(() => r());
      }),
  };
}

const sendJson = (res: http.ServerResponse, status: number, body: unknown) => {
  res.writeHead(status, { 'content-type': 'application/json', 'request-id': 'req_fake' });
  res.end(JSON.stringify(body));
};

/**
 * POST /v1/messages. A system prompt that asks for a translation ("... into <Language>.")
 * gets "[<Language>] <text>"; anything else (the tagging prompt) gets a JSON array of one
 * known site tag. `failWith(status)` makes every call fail with the API's error shape.
 */
export async function startFakeAnthropic() {
  let failure: number | undefined;
  const calls: Array<{ system?: string }> = [];
  const server = await listen((req, res, raw) => {
    if (req.method !== 'POST' || req.url?.split('?')[0] !== '/v1/messages')
      return sendJson(res, 404, {
        type: 'error',
        error: { type: 'not_found_error', message: 'Not found' },
      });
    const body = JSON.parse(raw) as {
      model: string;
      system?: string | Array<{ text: string }>;
      messages: Array<{ content: unknown }>;
    };
    const system = Array.isArray(body.system)
      ? body.system.map((b) => b.text).join('\n')
      : body.system;
    calls.push({ system });
    if (failure !== undefined)
      return sendJson(res, failure, {
        type: 'error',
        error: { type: 'api_error', message: 'Internal server error' },
      });
    const target = /into (.+?)\.\n/.exec(system ?? '')?.[1];
    const user = typeof body.messages[0]?.content === 'string' ? body.messages[0].content : '';
    const source = /<source_text>\n([\s\S]*)\n<\/source_text>$/.exec(user)?.[1] ?? user;
    const text = target ? `[${target}] ${source}` : '["工具"]';
    sendJson(res, 200, {
      id: `msg_fake_${calls.length}`,
      type: 'message',
      role: 'assistant',
      model: body.model,
      content: [{ type: 'text', text }],
      stop_reason: 'end_turn',
      stop_sequence: null,
      usage: { input_tokens: 10, output_tokens: 10 },
    });
  });
  return {
    baseURL: server.origin,
    calls,
    failWith: (status: number | undefined) => void (failure = status),
    close: server.close,
  };
}

/**
 * A real JPEG (160×90, a gradient with hills; the provider's images are JPEG, the bundled
 * default is PNG), so pages and screenshots show a picture.
 */
const JPEG = Buffer.from(
  [
    '/9j/4AAQSkZJRgABAQAAAQABAAD/4gHYSUNDX1BST0ZJTEUAAQEAAAHIAAAAAAQwAABtbnRyUkdCIFhZWiAH4AABAAEAAAAA',
    'AABhY3NwAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAQAA9tYAAQAAAADTLQAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA',
    'AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAlkZXNjAAAA8AAAACRyWFlaAAABFAAAABRnWFlaAAABKAAAABRiWFlaAAABPAAA',
    'ABR3dHB0AAABUAAAABRyVFJDAAABZAAAAChnVFJDAAABZAAAAChiVFJDAAABZAAAAChjcHJ0AAABjAAAADxtbHVjAAAAAAAA',
    'AAEAAAAMZW5VUwAAAAgAAAAcAHMAUgBHAEJYWVogAAAAAAAAb6IAADj1AAADkFhZWiAAAAAAAABimQAAt4UAABjaWFlaIAAA',
    'AAAAACSgAAAPhAAAts9YWVogAAAAAAAA9tYAAQAAAADTLXBhcmEAAAAAAAQAAAACZmYAAPKnAAANWQAAE9AAAApbAAAAAAAA',
    'AABtbHVjAAAAAAAAAAEAAAAMZW5VUwAAACAAAAAcAEcAbwBvAGcAbABlACAASQBuAGMALgAgADIAMAAxADb/2wBDAAoHBwgH',
    'BgoICAgLCgoLDhgQDg0NDh0VFhEYIx8lJCIfIiEmKzcvJik0KSEiMEExNDk7Pj4+JS5ESUM8SDc9Pjv/2wBDAQoLCw4NDhwQ',
    'EBw7KCIoOzs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozs7Ozv/wAARCABaAKADASIAAhEB',
    'AxEB/8QAGwABAQEAAwEBAAAAAAAAAAAAAgEDAAQFBgf/xAAlEAEBAQABAwQCAgMAAAAAAAABAAIDBBFBEiExUSKxBXEyYaH/',
    'xAAbAQEAAwEBAQEAAAAAAAAAAAADAgQFBgEHAP/EABwRAQEBAQEBAQEBAAAAAAAAAAEAAgMRMSESUf/aAAwDAQACEQMRAD8A',
    '+JCYUCQXThUgqEwoSCQJQqEigTCQJQqEgoEwkCUKhIKBIJAkCoTCgSCUJQqFpkjktMlDprwlCWS0yRyWmSzOu5AlktMlMlpk',
    'svruUJZLTJHJaZLL67kC+GCYUCQXVhcwFQkFAmEgShUJBQJBIEgSCQUCQShKFQmFAkEgShUJhEJ5KfwlCWS0yUyWmSo9dyBL',
    'JaZI5LTJZfXcoSyWmSOS1yWX13IFclrkjktMll9dyhfCBIKEwu5C5gKkgoEgkCQKhMKBPIqAd18SBKFwJha8nSc3Dk1vHs+T',
    'xZlPPj8lCoSKBMJQlCoWmSOS0yR9NeSBLJaZI5LTJZfXcoSyW/Dxa5dmcHd/Vzp+DfNrtn2PL9XrcPDjhx6cn9v3ZXXdL3y6',
    'u+g1nI4fU+SxM9nsl64R5OmxzHd9tfZZnXVPOv8Abzslpklvg3xPbR7eHxXJZXXdYzfBBIKBIL6OFzAVCYUC04uLfLsxg7rI',
    'ShcxjW9Gcir8Bez0fRZ4A3vs8n6r0nR46bPf52/OrtEet+/hIV7dzs3U5/47O++uHtnX14buEi8yuflMvC1x74teneXL/u4F',
    '7nJw45s+neRP1dDm/j98X5Y/PP8A0rR1PP2bN1slpkpktMlV67mCWS7XS9Lrne/xg+WvSdG8vbe/bH7vVxkyBk7B8BZPbpS9',
    '8ucXHnjyZydgtQoEwsvpq/FQtAiEwqHTVMK+k0dk7lhydH2/Lj9z6u0Ews7qj9lypflYTCgXY6Xpd9Tv059g+dfV9N+WAFOD',
    'g3z8hjB3+3wXt9N02Omx6c+6/OvuvBwY4OMxg/t8tsEWt/1IXCRQkXhIFSRQkFMphUJhQJhF01IWHN0XHzfkfjv7PMem6Bzr',
    '1c3Z7fAebuBMKl06PnkgtckwoEws7pqkSCYRC0CodNSFQmFAmFn9NUwqEwoEwqHTVMvzPo+j31Ou/wDjg+dXt8XFjiwYxnsE',
    'eADhwAB6T4tS+m60rYRUkRJF+JCpIoSKZIVJBQkXr+FMkEwoTKn0aZIJhEmWf0ZCQTCJMqHRpkgmES0Kh0aZIJhEmVDoyEgm',
    'ESZUOjTL/9k=',
  ].join(''),
  'base64',
);

/** HPImageArchive-shaped JSON and the image it names; `up` switches the provider on/off. */
export async function startFakeImageProvider() {
  let up = false;
  const server = await listen((req, res) => {
    if (!up) {
      res.writeHead(503).end();
      return;
    }
    if (req.url?.startsWith('/HPImageArchive.aspx'))
      return sendJson(res, 200, {
        images: [{ url: '/th?id=contract.jpg', copyright: 'Contract © Test', title: 'Hills' }],
      });
    if (req.url?.startsWith('/th')) {
      res.writeHead(200, { 'content-type': 'image/jpeg' }).end(JPEG);
      return;
    }
    res.writeHead(404).end();
  });
  return {
    sourceUrl: `${server.origin}/HPImageArchive.aspx?format=js&idx=0&n=1&mkt=en-US`,
    setUp: (value: boolean) => void (up = value),
    close: server.close,
  };
}

/** Turnstile `siteverify`: accepts exactly `token` with `secret`. */
export async function startFakeCaptcha(secret: string, token: string) {
  const server = await listen((_req, res, body) => {
    const form = new URLSearchParams(body);
    const ok = form.get('secret') === secret && form.get('response') === token;
    sendJson(res, 200, { success: ok, 'error-codes': ok ? [] : ['invalid-input-response'] });
  });
  return { verifyUrl: `${server.origin}/siteverify`, close: server.close };
}

/**
 * A web site with pages the sites worker scrapes (a title and a description on every path).
 * Pages under `/claimable/` also carry the verification meta tag of every site id passed to
 * `verify(siteId)` (before that call, the page has none).
 */
export async function startFakeWebsite() {
  const verified = new Set<string>();
  /** Pages given their own title and description (`page()`); others get the defaults. */
  const pages = new Map<string, { title: string; description: string }>();
  const escape = (text: string) =>
    text.replace(/[&<>"]/g, (c) => ({ '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' })[c]!);
  const server = await listen((req, res) => {
    const path = (req.url ?? '/').split('?')[0]!;
    const meta = path.startsWith('/claimable/')
      ? [...verified].map((id) => `<meta name="svc-verify" content="${id}">`).join('')
      : '';
    const own = pages.get(path);
    const title = own ? escape(own.title) : `Contract page ${path}`;
    const description = own ? escape(own.description) : 'A page for the contract test';
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' });
    res.end(
      `<!doctype html><html><head><title>${title}</title>` +
        `<meta name="description" content="${description}">${meta}</head>` +
        `<body><h1>Developer tools</h1></body></html>`,
    );
  });
  return {
    host: `127.0.0.1:${server.port}`,
    url: (path: string) => `${server.origin}${path}`,
    verify: (siteId: string) => void verified.add(siteId),
    /** Serve `path` with this title and description (what a scrape of it finds). */
    page: (path: string, content: { title: string; description: string }) => void pages.set(path, content),
    close: server.close,
  };
}

/**
 * The third-party fakes of a whole system: Resend, Anthropic, the image of the day, the
 * CAPTCHA verifier (accepting `captcha.token` with `captcha.secret`) and a website to submit,
 * each closed with `system`.
 */
export async function startFakes(
  system: Pick<TestSystem, 'resend' | 'track'>,
  captcha: { secret: string; token: string },
) {
  const [resend, anthropic, imageProvider, verifier, website] = await Promise.all([
    system.resend(),
    startFakeAnthropic().then(system.track),
    startFakeImageProvider().then(system.track),
    startFakeCaptcha(captcha.secret, captcha.token).then(system.track),
    startFakeWebsite().then(system.track),
  ]);
  return { resend, anthropic, imageProvider, captcha: verifier, website };
}
