-- A user's data export and account deletion (docs/decisions/034-data-export.md,
-- 035-account-deletion.md) find the sites a user owns or first submitted. Without these, each
-- was a scan of the whole table (bench/growth.md, "One user's rows"). Partial: most sites
-- have neither, and `= $1` implies IS NOT NULL, so the planner uses them for any user.
CREATE INDEX "sites_owner_idx" ON "sites"("owner_id") WHERE "owner_id" IS NOT NULL;
CREATE INDEX "sites_submitted_by_idx" ON "sites"("submitted_by") WHERE "submitted_by" IS NOT NULL;
