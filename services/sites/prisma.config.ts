// Prisma CLI configuration: the WebAssembly schema engine through the pg driver adapter,
// so `prisma generate` and migrations work without downloading engine binaries.
// The kit's source is imported directly so the CLI works before anything is built.
import { defineConfig } from 'prisma/config';
import { migrationAdapter } from '../../packages/service-kit/src/migrations.js';

// The CLI parses `url = env("DATABASE_URL")` although the adapter does the connecting.
process.env.DATABASE_URL ||= 'postgresql://postgres@127.0.0.1:5432/svc';

export default defineConfig({
  experimental: { adapter: true },
  engine: 'js',
  schema: 'prisma/schema.prisma',
  adapter: () => migrationAdapter('SITES_DATABASE_URL', 'sites'),
});
