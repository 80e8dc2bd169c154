// `node scripts/node.mjs <script.mjs> [args]`: runs a script on the project's Node (see
// toolchain.mjs), e.g. the benchmarks behind `npm run bench:*`.
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { useProjectNode } from './toolchain.mjs';

await useProjectNode();
const [script, ...args] = process.argv.slice(2);
if (!script) {
  console.error('usage: node scripts/node.mjs <script.mjs> [args]');
  process.exit(2);
}
process.argv = [process.argv[0], path.resolve(script), ...args];
await import(pathToFileURL(path.resolve(script)).href);
