-- Authors' side of moderation (issue 13 item 4, docs/decisions.md §9):
--   - apps.block_audit_id names the current block by its audit entry (app.blocked), so the
--     author sees when, by whom (reports or a moderator) and why, and one appeal per block is
--     a unique key. Set with the block, cleared by a restore (same transaction).
--   - app_appeals: one appeal per block (unique app_id, block_audit_id), closed by a restore.
--   - job_outbox: the kit's job outbox, here for the notify-email jobs (the author's e-mail
--     about a block or restore) committed with the block or restore they announce.
-- AlterTable
ALTER TABLE "apps" ADD COLUMN "block_audit_id" BIGINT;

-- Apps blocked before this migration: their latest app.blocked entry, when there is one.
UPDATE "apps" SET "block_audit_id" = (
  SELECT max(l."id") FROM "audit_log" l
  WHERE l."target_type" = 'app' AND l."target_id" = "apps"."id" AND l."action" = 'app.blocked'
) WHERE "status" = 'blocked';

-- CreateTable
CREATE TABLE "app_appeals" (
    "id" UUID NOT NULL DEFAULT gen_random_uuid(),
    "app_id" TEXT NOT NULL,
    "author_id" TEXT NOT NULL,
    "block_audit_id" BIGINT NOT NULL,
    "text" TEXT NOT NULL,
    "created_at" TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "closed_at" TIMESTAMPTZ,

    CONSTRAINT "app_appeals_pkey" PRIMARY KEY ("id")
);

-- One appeal per block: a concurrent second appeal fails here.
CREATE UNIQUE INDEX "app_appeals_block_key" ON "app_appeals"("app_id", "block_audit_id");
-- The moderators' queue reads open appeals.
CREATE INDEX "app_appeals_open_idx" ON "app_appeals"("created_at" DESC) WHERE "closed_at" IS NULL;

-- AddForeignKey
ALTER TABLE "app_appeals" ADD CONSTRAINT "app_appeals_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- CreateTable
CREATE TABLE "job_outbox" (
    "id" BIGSERIAL NOT NULL,
    "queue" TEXT NOT NULL,
    "job_name" TEXT NOT NULL,
    "job_id" TEXT,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "job_outbox_pkey" PRIMARY KEY ("id")
);
