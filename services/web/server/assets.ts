// /assets/*: the hashed files of the build, served with their precompressed twin
// (scripts/precompress.mjs writes <file>.br and <file>.gz at build time) when the browser
// accepts it, and cached for a year (a new build has new names).
import { existsSync, readdirSync } from 'node:fs';
import path from 'node:path';
import express, { type RequestHandler } from 'express';
import { pickEncoding } from './page-cache.js';

const TYPES: Record<string, string> = {
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.json': 'application/json; charset=utf-8',
};

export function assetsHandler(assetsDir: string): RequestHandler {
  const names = existsSync(assetsDir) ? new Set(readdirSync(assetsDir)) : new Set<string>();
  const plain = express.static(assetsDir, { immutable: true, maxAge: '1y', index: false, fallthrough: false });
  return (req, res, next) => {
    const name = req.path.slice(1);
    const type = TYPES[path.extname(name)];
    if ((req.method === 'GET' || req.method === 'HEAD') && type && names.has(name)) {
      const encoding = pickEncoding(req.headers['accept-encoding']);
      const suffix = encoding === 'br' ? '.br' : encoding === 'gzip' ? '.gz' : '';
      if (suffix && names.has(name + suffix)) {
        res.setHeader('content-type', type);
        res.setHeader('content-encoding', encoding);
        res.setHeader('vary', 'Accept-Encoding');
        res.setHeader('cache-control', 'public, max-age=31536000, immutable');
        res.sendFile(path.join(assetsDir, name + suffix), (err) => err && next(err));
        return;
      }
    }
    plain(req, res, next);
  };
}
