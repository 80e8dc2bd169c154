-- Past SITEMAP_MAX_SITES visible sites, /sitemap.xml is an index of /sitemap-<n>.xml files,
-- file k holding the sites whose hashtext(id) falls in the k-th of n equal int4 ranges
-- (src/domain/sitemap.ts, docs/decisions/038-growth.md). This index serves each file from
-- its own range, index-only: id and last_activity_at are all a file needs.
CREATE INDEX "sites_sitemap_idx" ON "sites"(hashtext("id"), "id") INCLUDE ("last_activity_at") WHERE "hidden_at" IS NULL;
