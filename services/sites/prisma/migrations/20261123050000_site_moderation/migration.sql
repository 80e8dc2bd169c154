-- Moderation (issue 13): a moderator may hide a site (POST /api/moderation/sites/{id}/hide)
-- and restore it. A hidden site keeps its row, counters and bookmarks, but leaves every
-- public read: the listing, search, tag filters, the sitemap and GET /api/sites/{id}.
-- hidden_reason is set exactly when hidden_at is (CHECK). The public reads filter on
-- hidden_at IS NULL, which the existing indexes serve (hidden sites are few).
-- AlterTable
ALTER TABLE "sites" ADD COLUMN "hidden_at" TIMESTAMP(3),
ADD COLUMN "hidden_reason" TEXT;

ALTER TABLE "sites" ADD CONSTRAINT "sites_hidden_reason_check"
  CHECK ((hidden_at IS NULL) = (hidden_reason IS NULL));
