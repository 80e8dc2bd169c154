-- Moderators resolve reports (restore, dismiss: docs/decisions.md §9). A resolved report no
-- longer counts toward the block threshold, and its reporter may report the app again: the
-- one-report-per-user rule holds for open reports only (a partial unique index), so each
-- report gets its own opaque id as the primary key (moderators see it, never the reporter).
-- AlterTable
ALTER TABLE "app_reports" ADD COLUMN "id" UUID NOT NULL DEFAULT gen_random_uuid();
ALTER TABLE "app_reports" ADD COLUMN "resolved_at" TIMESTAMP(3);
ALTER TABLE "app_reports" DROP CONSTRAINT "app_reports_pkey";
ALTER TABLE "app_reports" ADD CONSTRAINT "app_reports_pkey" PRIMARY KEY ("id");

-- One open report per user per app (a concurrent duplicate fails on this index).
CREATE UNIQUE INDEX "app_reports_open_user_key" ON "app_reports"("app_id", "user_id") WHERE "resolved_at" IS NULL;
-- The moderators' queue and an app's history read an app's reports newest first.
CREATE INDEX "app_reports_app_created_idx" ON "app_reports"("app_id", "created_at" DESC);
