-- A user's data export and account deletion (docs/decisions/034-data-export.md,
-- 035-account-deletion.md) find every row of one user. Apps and installs already lead an
-- index with the user, these tables did not, so each lookup scanned the table: reports grow
-- with the community, keys with the apps.
CREATE INDEX "app_reports_user_idx" ON "app_reports"("user_id", "created_at");
CREATE INDEX "api_keys_author_idx" ON "api_keys"("author_id");
CREATE INDEX "app_appeals_author_idx" ON "app_appeals"("author_id");
