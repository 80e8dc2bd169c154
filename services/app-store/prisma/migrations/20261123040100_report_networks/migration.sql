-- The reporter's client network (IPv4 /24, IPv6 /56) as a keyed hash (HMAC with
-- IP_HASH_SECRET), kept with every report. REPORT_DISTINCT_NETWORKS counts these once
-- toward the block threshold (docs/decisions.md §4). Older reports have none.
-- AlterTable
ALTER TABLE "app_reports" ADD COLUMN "reporter_network" TEXT;
