// The services' own REST API, called the way the gateway calls it: the public port of the
// service that owns the endpoint, the agent's address in X-Forwarded-For (this process is
// one of the proxies the services trust, TRUSTED_PROXIES), so validation, limits, CAPTCHA
// and errors are exactly those of REST and count against the agent, never against us.
// No cookie or Authorization is sent: every tool is public.
import http from 'node:http';
import type { RestAnswer } from '../domain/tool-result.js';
import type { RestRequest } from '../domain/rest-request.js';

export interface Caller {
  /** The agent's address, as the gateway reported it. */
  clientIp: string;
  /** The MCP request's id, so one tool call reads as one request in every log. */
  requestId: string;
}

/** The service could not be asked or did not answer in time: no REST answer to relay. */
export class RestUnreachable extends Error {
  override name = 'RestUnreachable';
}

export interface RestApi {
  call(service: string, request: RestRequest, caller: Caller): Promise<RestAnswer>;
  close(): void;
}

/** Larger answers are not the API's (its largest page is far below). */
const MAX_ANSWER_BYTES = 4 * 1024 * 1024;

export function createRestApi(options: { upstreams: Record<string, string>; timeoutMs: number }): RestApi {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });
  return {
    call(service, request, caller) {
      const base = options.upstreams[service];
      if (!base) return Promise.reject(new Error(`no URL for service ${service}`));
      const url = new URL(base);
      const body = request.body ? Buffer.from(JSON.stringify(request.body), 'utf8') : undefined;
      return new Promise<RestAnswer>((resolve, reject) => {
        const req = http.request({
          agent,
          host: url.hostname,
          port: url.port || 80,
          method: request.method,
          // As built: node:http sends the path as it stands (fetch would resolve dot segments).
          path: request.path,
          headers: {
            accept: 'application/json',
            'x-forwarded-for': caller.clientIp,
            'x-request-id': caller.requestId,
            ...(body ? { 'content-type': 'application/json', 'content-length': String(body.length) } : {}),
          },
          timeout: options.timeoutMs,
        });
        // Bounds the whole call, not only the silences between bytes.
        const deadline = setTimeout(() => req.destroy(new RestUnreachable(`no answer within ${options.timeoutMs} ms`)), options.timeoutMs);
        req.on('timeout', () => req.destroy(new RestUnreachable(`no answer within ${options.timeoutMs} ms`)));
        req.on('error', (err) => {
          clearTimeout(deadline);
          reject(err instanceof RestUnreachable ? err : new RestUnreachable((err as NodeJS.ErrnoException).code ?? err.message));
        });
        req.on('response', (res) => {
          const chunks: Buffer[] = [];
          let size = 0;
          res.on('data', (chunk: Buffer) => {
            size += chunk.length;
            if (size > MAX_ANSWER_BYTES) req.destroy(new RestUnreachable('answer too large'));
            else chunks.push(chunk);
          });
          res.on('error', (err) => {
            clearTimeout(deadline);
            reject(err instanceof RestUnreachable ? err : new RestUnreachable(err.message));
          });
          res.on('end', () => {
            clearTimeout(deadline);
            const text = Buffer.concat(chunks).toString('utf8');
            const retryAfter = res.headers['retry-after'];
            resolve({
              status: res.statusCode ?? 502,
              ...(typeof retryAfter === 'string' ? { retryAfter } : {}),
              json: jsonOf(res.headers['content-type'], text),
            });
          });
        });
        req.end(body);
      });
    },
    close: () => agent.destroy(),
  };
}

function jsonOf(contentType: string | undefined, text: string): unknown {
  if (!/^application\/json\b/i.test(contentType ?? '') || text === '') return undefined;
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return undefined;
  }
}
