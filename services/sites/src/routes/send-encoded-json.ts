// Sends an encoded JSON body (domain/encoded-json.ts): gzipped when the client accepts it.
import type { Request, Response } from 'express';
import type { EncodedJson } from '../domain/encoded-json.js';

export function sendEncodedJson(req: Request, res: Response, body: EncodedJson): void {
  res.type('application/json');
  if (!body.gzip) {
    res.send(body.json);
    return;
  }
  res.setHeader('Vary', 'Accept-Encoding');
  if (body.gzip && req.acceptsEncodings('gzip') === 'gzip') {
    res.setHeader('Content-Encoding', 'gzip');
    res.send(body.gzip);
    return;
  }
  res.send(body.json);
}
