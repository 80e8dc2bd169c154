// After `react-router build`: writes `<file>.br` (quality 11) and `<file>.gz` (level 9) next
// to every script, style sheet and SVG of build/client/assets, once, so the server never
// compresses an asset per request and browsers get the smallest files (server/assets.ts).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import zlib from 'node:zlib';

const dir = fileURLToPath(new URL('../build/client/assets', import.meta.url));
let before = 0;
let after = 0;
for (const name of readdirSync(dir)) {
  if (!/\.(js|css|svg|json)$/.test(name)) continue;
  const file = path.join(dir, name);
  const body = readFileSync(file);
  const br = zlib.brotliCompressSync(body, {
    params: { [zlib.constants.BROTLI_PARAM_QUALITY]: 11, [zlib.constants.BROTLI_PARAM_SIZE_HINT]: body.length },
  });
  writeFileSync(`${file}.br`, br);
  writeFileSync(`${file}.gz`, zlib.gzipSync(body, { level: 9 }));
  before += body.length;
  after += br.length;
}
console.log(`precompressed build/client/assets: ${before} bytes -> ${after} bytes (brotli)`);
