// The discovery documents (/openapi.json, /llms.txt, /llms-full.txt, /.well-known/*),
// rendered once at gateway start by @svc/discovery and served from memory: a strong ETag
// (hash of the bytes, so 304 on If-None-Match), a short public cache lifetime, HEAD for free,
// and a gzip copy made once at start for clients that accept it (/openapi.json is ~200 KB).
import { gzipSync } from 'node:zlib';
import express from 'express';
import { DISCOVERY_PATHS, type DiscoveryDocument } from '@svc/discovery';

/** Five minutes: a new deployment's documents reach clients soon; ETags make revalidation cheap. */
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=300';

/** Smaller documents are not worth a compressed copy. */
export const DISCOVERY_GZIP_MIN_BYTES = 1024;

/** A strong ETag names one representation: the gzip bytes get their own. */
const gzipEtag = (etag: string) => etag.replace(/"$/, '-gzip"');

export function createDiscoveryRoutes(documents: readonly DiscoveryDocument[]): express.Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  for (const doc of documents) {
    const gzipped =
      doc.body.length >= DISCOVERY_GZIP_MIN_BYTES ? gzipSync(doc.body, { level: 9 }) : undefined;
    router.get(doc.path, (req, res) => {
      const useGzip = gzipped !== undefined && req.acceptsEncodings('gzip', 'identity') === 'gzip';
      if (gzipped) res.vary('Accept-Encoding');
      if (useGzip) res.set('content-encoding', 'gzip');
      res.set({
        'content-type': doc.contentType,
        etag: useGzip ? gzipEtag(doc.etag) : doc.etag,
        'cache-control': DISCOVERY_CACHE_CONTROL,
        // Public, credential-free documents: browser tools on other origins may read them.
        'access-control-allow-origin': '*',
        'x-content-type-options': 'nosniff',
      });
      // req.fresh compares If-None-Match with the ETag above; express sends no body for HEAD.
      if (req.fresh) res.status(304).end();
      else res.send(useGzip ? gzipped : doc.body);
    });
  }
  // Documents that could not be generated at start (logged then): a JSON 500, not a 404/405.
  for (const path of DISCOVERY_PATHS.filter((p) => !documents.some((d) => d.path === p))) {
    router.get(path, (_req, res) => {
      res.status(500).json({ error: 'Internal server error' });
    });
  }
  return router;
}
