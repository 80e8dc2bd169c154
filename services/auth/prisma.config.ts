// Prisma CLI configuration: the WebAssembly schema engine through the pg driver adapter,
// so migrations work without downloading engine binaries (see ../../README.md).
import { defineConfig } from 'prisma/config';
import { migrationAdapter } from '../../scripts/prisma-adapter.js';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: 'prisma/schema.prisma',
  adapter: () => migrationAdapter('AUTH_DATABASE_URL', 'auth'),
});
