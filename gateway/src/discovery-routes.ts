// The discovery documents (/openapi.json, /llms.txt, /llms-full.txt, /.well-known/*),
// rendered once at gateway start by @svc/discovery and served from memory: a strong ETag
// (hash of the bytes, so 304 on If-None-Match), a short public cache lifetime, HEAD for free.
import express from 'express';
import { DISCOVERY_PATHS, type DiscoveryDocument } from '@svc/discovery';

/** Five minutes: a new deployment's documents reach clients soon; ETags make revalidation cheap. */
export const DISCOVERY_CACHE_CONTROL = 'public, max-age=300';

export function createDiscoveryRoutes(documents: readonly DiscoveryDocument[]): express.Router {
  const router = express.Router({ caseSensitive: true, strict: true });
  for (const doc of documents) {
    router.get(doc.path, (req, res) => {
      res.set({
        'content-type': doc.contentType,
        etag: doc.etag,
        'cache-control': DISCOVERY_CACHE_CONTROL,
        // Public, credential-free documents: browser tools on other origins may read them.
        'access-control-allow-origin': '*',
        'x-content-type-options': 'nosniff',
      });
      // req.fresh compares If-None-Match with the ETag above; express sends no body for HEAD.
      if (req.fresh) res.status(304).end();
      else res.send(doc.body);
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
