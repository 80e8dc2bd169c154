// The packed CLI carries the workspace code it runs (@svc/client and the @svc/types schemas)
// inside dist/; its third-party packages (commander, zod) stay ordinary dependencies.
import { defineConfig } from 'tsdown';

export default defineConfig({
  // main: the `svc` binary (bin/svc.js loads it); program: the package's export (runCli).
  entry: ['src/main.ts', 'src/program.ts'],
  format: 'esm',
  platform: 'node',
  // dist/main.js and dist/program.js, as package.json and bin/svc.js name them.
  fixedExtension: false,
  // target: from engines.node (node22.12).
  tsconfig: 'tsconfig.build.json',
  sourcemap: true,
  dts: true,
  deps: {
    // Anything else imported at run time would be missing from an installed tarball.
    onlyImport: ['commander', 'zod'],
    // zod's declarations are inlined by @svc/client's own declaration file (not imported).
    onlyBundle: false,
  },
  // Timing advice is noise on a small shared machine.
  checks: { bundlerTimings: false },
});
