-- Hand-written (Prisma cannot express functions or generated columns) -------------------
-- Search over Latin-script and CJK text with stock PostgreSQL (no pg_bigm/PGroonga):
-- a `simple` tsvector of the words of the non-CJK text (punctuation splits words, so
-- `example.com` gives `example` and `com`) plus every character and character bigram of
-- each Chinese/Japanese/Korean run. Queries are tokenised the same way by
-- svc_search_query(): Latin words become prefix terms, CJK runs their bigrams (a single
-- character stays a unigram), all ANDed, NULL when the query has no tokens.
-- SQL-standard bodies (RETURN ...) are bound at creation time, so the functions work
-- from any search_path (the service's client does not put its schema on the path).
-- No semicolon may appear inside a statement of this file: the pg driver adapter that
-- runs `prisma migrate deploy` splits the script on every semicolon.
CREATE FUNCTION svc_search_vector(parts text[]) RETURNS tsvector
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN to_tsvector('simple'::regconfig,
           regexp_replace(lower(array_to_string(parts, ' ')),
             '[[:punct:]\u1100-\u11ff\u3000-\u303f\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0002ebef]+', ' ', 'g'))
      || array_to_tsvector(coalesce((
           SELECT array_agg(DISTINCT t.tok)
           FROM regexp_matches(array_to_string(parts, ' '),
                  '[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002ebef]+', 'g') AS m(run),
                generate_series(1, char_length(m.run[1])) AS i,
                LATERAL (VALUES (substr(m.run[1], i, 1)), (substr(m.run[1], i, 2))) AS t(tok)
         ), '{}'::text[]));

CREATE FUNCTION svc_search_query(q text) RETURNS tsquery
LANGUAGE sql IMMUTABLE PARALLEL SAFE
RETURN (
  SELECT NULLIF(array_to_string(array_agg(terms.term), ' & '), '')::tsquery
  FROM (
    SELECT '''' || replace(replace(l.lex, '\', '\\'), '''', '''''') || ''':*' AS term
    FROM unnest(tsvector_to_array(to_tsvector('simple'::regconfig,
           regexp_replace(lower(q),
             '[[:punct:]\u1100-\u11ff\u3000-\u303f\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff00-\uffef\U00020000-\U0002ebef]+', ' ', 'g')))) AS l(lex)
    UNION ALL
    SELECT DISTINCT '''' || substr(m.run[1], i, 2) || '''' AS term
    FROM regexp_matches(q,
           '[\u1100-\u11ff\u3040-\u30ff\u3130-\u318f\u3400-\u4dbf\u4e00-\u9fff\uac00-\ud7af\uf900-\ufaff\uff66-\uff9f\U00020000-\U0002ebef]+', 'g') AS m(run),
         generate_series(1, greatest(char_length(m.run[1]) - 1, 1)) AS i
  ) AS terms
);
-- End of hand-written functions: the rest up to the next hand-written block is Prisma's.
-- CreateEnum
CREATE TYPE "site_type" AS ENUM ('website', 'profile');

-- CreateEnum
CREATE TYPE "social_platform" AS ENUM ('x', 'github', 'instagram', 'linkedin', 'youtube', 'tiktok', 'reddit', 'medium', 'threads', 'bilibili', 'weibo');

-- CreateEnum
CREATE TYPE "scrape_status" AS ENUM ('pending', 'done', 'failed');

-- CreateTable
CREATE TABLE "sites" (
    "id" TEXT NOT NULL,
    "url" TEXT NOT NULL,
    "title" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "favicon_url" TEXT,
    "og_image_url" TEXT,
    "domain" TEXT NOT NULL,
    "tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "submit_count" INTEGER NOT NULL DEFAULT 1,
    "click_count" INTEGER NOT NULL DEFAULT 0,
    "boost_count" INTEGER NOT NULL DEFAULT 0,
    -- hand-written: generated, see the formula in schema.prisma (Site.hotScore)
    "hot_score" DOUBLE PRECISION NOT NULL GENERATED ALWAYS AS (
        log(greatest(2::bigint * "submit_count" + "click_count" + 5::bigint * "boost_count", 1)::double precision)
        + extract(epoch from ("first_submitted_at" - TIMESTAMP '2026-01-01 00:00:00'))::double precision / 45000
    ) STORED,
    "site_type" "site_type" NOT NULL DEFAULT 'website',
    "social_platform" "social_platform",
    "social_username" TEXT,
    "is_claimed" BOOLEAN NOT NULL DEFAULT false,
    "claimed_at" TIMESTAMP(3),
    "is_promoted" BOOLEAN NOT NULL DEFAULT false,
    "owner_id" TEXT,
    "submitted_by" TEXT,
    "first_submitted_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_activity_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "scrape_status" "scrape_status" NOT NULL DEFAULT 'pending',
    -- hand-written: generated from the searchable fields
    "search_document" tsvector GENERATED ALWAYS AS (svc_search_vector(ARRAY["title", "description", "url", "domain"] || "tags")) STORED,

    CONSTRAINT "sites_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "site_submissions" (
    "site_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "site_submissions_pkey" PRIMARY KEY ("user_id","site_id")
);

-- CreateTable
CREATE TABLE "bookmarks" (
    "user_id" TEXT NOT NULL,
    "site_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "bookmarks_pkey" PRIMARY KEY ("user_id","site_id")
);

-- CreateTable
CREATE TABLE "boosts" (
    "id" TEXT NOT NULL,
    "site_id" TEXT NOT NULL,
    "user_id" TEXT,
    "ip_hash" TEXT,
    "day" DATE NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "boosts_pkey" PRIMARY KEY ("id")
);

-- CreateIndex
CREATE UNIQUE INDEX "sites_url_key" ON "sites"("url");

-- CreateIndex
CREATE INDEX "sites_hot_idx" ON "sites"("hot_score" DESC, "id");

-- CreateIndex
CREATE INDEX "sites_recent_idx" ON "sites"("first_submitted_at" DESC, "id");

-- CreateIndex
CREATE INDEX "sites_tags_idx" ON "sites" USING GIN ("tags");

-- CreateIndex
CREATE INDEX "sites_search_idx" ON "sites" USING GIN ("search_document");

-- CreateIndex
CREATE INDEX "site_submissions_user_idx" ON "site_submissions"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "site_submissions_site_idx" ON "site_submissions"("site_id");

-- CreateIndex
CREATE INDEX "bookmarks_user_idx" ON "bookmarks"("user_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "bookmarks_site_idx" ON "bookmarks"("site_id");

-- CreateIndex
CREATE INDEX "boosts_user_day_idx" ON "boosts"("user_id", "day");

-- CreateIndex
CREATE INDEX "boosts_ip_day_idx" ON "boosts"("ip_hash", "day");

-- CreateIndex
CREATE INDEX "boosts_site_idx" ON "boosts"("site_id");

-- AddForeignKey
ALTER TABLE "site_submissions" ADD CONSTRAINT "site_submissions_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "bookmarks" ADD CONSTRAINT "bookmarks_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "boosts" ADD CONSTRAINT "boosts_site_id_fkey" FOREIGN KEY ("site_id") REFERENCES "sites"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written (Prisma cannot express these) ------------------------------------------
-- Prisma lists are nullable columns, but a site always has a (possibly empty) tag list.
ALTER TABLE "sites" ALTER COLUMN "tags" SET NOT NULL;

ALTER TABLE "sites"
  ADD CONSTRAINT "sites_counts_check" CHECK ("submit_count" >= 0 AND "click_count" >= 0 AND "boost_count" >= 0),
  ADD CONSTRAINT "sites_tags_check" CHECK (
    cardinality("tags") <= 3
    AND "tags" <@ ARRAY['工具', '技术', '设计', '新闻', '社区', '学习', '娱乐', '资源', '商业', '生活', '社交']::text[]
  ),
  ADD CONSTRAINT "sites_profile_check" CHECK (
    ("site_type" = 'profile') = ("social_platform" IS NOT NULL AND "social_username" IS NOT NULL)
  ),
  ADD CONSTRAINT "sites_claim_check" CHECK ("owner_id" IS NULL OR "is_claimed");

-- A boost is counted per user (logged in) or per IP (visitor): one of them is known.
ALTER TABLE "boosts" ADD CONSTRAINT "boosts_caller_check" CHECK ("user_id" IS NOT NULL OR "ip_hash" IS NOT NULL);

-- Sites still waiting for (or stuck before) their scrape, for re-queueing sweeps.
CREATE INDEX "sites_scrape_pending_idx" ON "sites" ("first_submitted_at") WHERE "scrape_status" = 'pending';
