#!/usr/bin/env node
// The `svc` command. pnpm links this file at install time, before dist/ is built, so it is
// a plain file that loads the built CLI and says what to do when there is none yet.
try {
  await import('../dist/main.js');
} catch (err) {
  if (err?.code !== 'ERR_MODULE_NOT_FOUND' || !String(err.message).includes('dist/main.js')) throw err;
  console.error('svc is not built yet: run `pnpm --filter @svc/cli build` (or `npm start`).');
  process.exitCode = 1;
}
