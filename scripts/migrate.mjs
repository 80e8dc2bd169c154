// Applies every service's Prisma migrations (each to its own PostgreSQL schema).
import { ensureDependencies, log, migrate } from './lib.mjs';
import { useProjectNode } from './toolchain.mjs';

await useProjectNode();
log(`running on Node ${process.version}`);

await ensureDependencies();
migrate();
