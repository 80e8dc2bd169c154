// Applies every service's Prisma migrations (each to its own PostgreSQL schema).
import { ensureDependencies, migrate } from './lib.mjs';

await ensureDependencies();
migrate();
