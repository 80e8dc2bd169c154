// Prisma CLI configuration (see prismaCliConfig in the kit). The kit's source is imported
// directly so the CLI works before anything is built.
import { defineConfig } from 'prisma/config';
import { prismaCliConfig } from '../../packages/service-kit/src/data/migrations.js';

export default defineConfig(prismaCliConfig('APP_STORE_DATABASE_URL', 'app_store'));
