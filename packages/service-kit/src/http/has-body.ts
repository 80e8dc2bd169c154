import type { IncomingMessage } from 'node:http';

/**
 * True when the request announces a body (a non-zero Content-Length, or chunked): the
 * gateway reads only those before proxying, and a traced service app re-enters the
 * request's context only after parsing one.
 */
export function hasBody(req: IncomingMessage): boolean {
  const length = req.headers['content-length'];
  if (length !== undefined) return length !== '0';
  return req.headers['transfer-encoding'] !== undefined;
}
