// A JSON body serialised and gzipped once, then sent many times: cached listing pages are
// ~32 KB of JSON and ~5 KB gzipped, and every browser asks for gzip. Compressing once per
// cached page (not per response) keeps the saving free of per-request CPU.
import { gzipSync } from 'node:zlib';

export interface EncodedJson {
  json: Buffer;
  /** Absent when the body is sent once only (compressing it would cost more than it saves). */
  gzip?: Buffer;
}

/** From JSON text already serialised (the listing's is built by PostgreSQL). */
export function encodedJsonText(json: string, opts: { gzip: boolean }): EncodedJson {
  const bytes = Buffer.from(json);
  return { json: bytes, gzip: opts.gzip ? gzipSync(bytes, { level: 6 }) : undefined };
}
