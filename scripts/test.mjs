// `npm test`: installs what is needed (pnpm included, and Debian's Chromium for the browser
// tests), checks PostgreSQL and Redis,
// then runs lint, typecheck and every test suite (unit, service, end-to-end) with turbo,
// and prints one summary line.
import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import path from 'node:path';
import { ROOT, ensureChromium, ensureDependencies, installDependencies, log, run } from './lib.mjs';
import { useProjectNode } from './toolchain.mjs';

await useProjectNode();

const RESULTS = path.join(ROOT, '.test-results');

log(`running on Node ${process.version} (.tools/, scripts/toolchain.mjs)`);
installDependencies();
await ensureDependencies();
ensureChromium();
rmSync(RESULTS, { recursive: true, force: true });
mkdirSync(RESULTS, { recursive: true });

let failure;
try {
  log('lint, typecheck and tests (turbo)');
  // Two at a time: the suites share this machine's PostgreSQL, Redis and cores.
  run('pnpm', ['turbo', 'run', 'lint', 'typecheck', 'test', '--concurrency=2', '--continue'], {
    env: { TURBO_TELEMETRY_DISABLED: '1', FORCE_COLOR: '1' },
  });
} catch (err) {
  failure = err;
}

let passed = 0;
let failed = 0;
const failures = [];
for (const file of readdirSync(RESULTS)) {
  const r = JSON.parse(readFileSync(path.join(RESULTS, file), 'utf8'));
  passed += r.passed;
  failed += r.failed;
  failures.push(...(r.failures ?? []));
}
// Repeated at the end because CI keeps only the tail of the output.
for (const f of failures) {
  console.log(`\nFAILED ${f.pkg} ${f.file} › ${f.test}\n${f.message}`);
}
console.log(`\nTests: ${passed} passed, ${failed} failed`);
if (failure || failed > 0 || passed === 0) process.exit(1);
