-- The re-queue sweep's second question: sites scraped (or given up on) whose tagging never
-- finished. Every tagging gives at least one tag, so empty tags after the scrape mean the
-- tag job was lost or failed for good. Partial: normally this index is empty.
CREATE INDEX "sites_untagged_idx" ON "sites" ("first_submitted_at") WHERE "tags" = '{}' AND "scrape_status" <> 'pending';
