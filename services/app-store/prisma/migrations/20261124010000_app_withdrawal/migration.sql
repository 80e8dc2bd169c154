-- An author withdraws their app (docs/decisions/033-withdraw-an-app.md):
--   - status withdrawn: gone from every public read, kept in the author's list until it is
--     deleted for good at purge_at (30 days after withdrawn_at) or sooner by the author.
--   - slug_reservations: the slug of a withdrawn app stays taken until reserved_until, also
--     after the app itself is deleted. It holds no user id.
-- The new enum value is not used in this file: PostgreSQL refuses a value added in the same
-- transaction (the purge index below is on purge_at alone for that reason).
-- AlterEnum
ALTER TYPE "app_status" ADD VALUE 'withdrawn';

-- AlterTable
ALTER TABLE "apps" ADD COLUMN "withdrawn_at" TIMESTAMPTZ(3),
ADD COLUMN "purge_at" TIMESTAMPTZ(3);

-- The purge sweep reads the withdrawn apps that are due, oldest first.
CREATE INDEX "apps_purge_idx" ON "apps"("purge_at") WHERE "purge_at" IS NOT NULL;

-- CreateTable
CREATE TABLE "slug_reservations" (
    "slug" TEXT NOT NULL,
    "reserved_until" TIMESTAMPTZ(3) NOT NULL,

    CONSTRAINT "slug_reservations_pkey" PRIMARY KEY ("slug")
);

-- The purge sweep deletes the reservations that ended.
CREATE INDEX "slug_reservations_until_idx" ON "slug_reservations"("reserved_until");
