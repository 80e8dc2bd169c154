// The packed client is self-contained: its JavaScript imports nothing (a test of the build
// checks that), and its one declaration file carries the @svc/types shapes it uses, with
// the zod type machinery they are written in, so a TypeScript user installs nothing else.
import { defineConfig } from 'tsdown';

export default defineConfig({
  entry: ['src/index.ts'],
  format: 'esm',
  // Browsers and Node ≥ 22.12 alike: no Node built-ins, no shims.
  platform: 'neutral',
  target: 'es2022',
  tsconfig: 'tsconfig.build.json',
  sourcemap: true,
  dts: true,
  deps: {
    // The built JavaScript may import nothing at all.
    onlyImport: [],
    // Only zod's declarations come from node_modules (into index.d.ts; @svc/types is a
    // workspace package, not a node_modules one).
    onlyBundle: ['zod'],
  },
  // zod's `locales` namespace is re-exported by its core declarations but unused by the
  // client's types; its CommonJS .d.cts files cannot be bundled and are dropped.
  // Timing advice is noise on a small shared machine.
  checks: { bundlerTimings: false },
  suppressWarnings: [/zod\/v4\/locales\/[\w-]+\.d\.cts uses CommonJS dts syntax/],
});
