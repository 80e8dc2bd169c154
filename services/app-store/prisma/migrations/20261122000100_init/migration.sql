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
CREATE TYPE "app_category" AS ENUM ('tools', 'games', 'social', 'finance', 'productivity', 'education', 'entertainment', 'developer', 'news', 'lifestyle', 'defi', 'nft');

-- CreateEnum
CREATE TYPE "app_type" AS ENUM ('web', 'pwa', 'dapp');

-- CreateEnum
CREATE TYPE "app_open_mode" AS ENUM ('iframe', 'external');

-- CreateEnum
CREATE TYPE "app_status" AS ENUM ('approved', 'blocked');

-- CreateEnum
CREATE TYPE "report_reason" AS ENUM ('spam', 'malware', 'phishing', 'illegal', 'inappropriate', 'other');

-- CreateTable
CREATE TABLE "apps" (
    "id" TEXT NOT NULL,
    "slug" TEXT NOT NULL,
    "name" TEXT NOT NULL,
    "description" TEXT NOT NULL DEFAULT '',
    "url" TEXT NOT NULL,
    "category" "app_category" NOT NULL DEFAULT 'tools',
    "app_type" "app_type" NOT NULL DEFAULT 'web',
    "open_mode" "app_open_mode" NOT NULL DEFAULT 'iframe',
    "status" "app_status" NOT NULL DEFAULT 'approved',
    "downloads" INTEGER NOT NULL DEFAULT 0,
    "author_id" TEXT NOT NULL,
    "author_name" TEXT NOT NULL,
    "chain" TEXT,
    "icon_gradient_from" TEXT,
    "icon_gradient_to" TEXT,
    "icon_svg" TEXT,
    "tech_tags" TEXT[] DEFAULT ARRAY[]::TEXT[],
    "svc_sdk_version" TEXT,
    "report_count" INTEGER NOT NULL DEFAULT 0,
    -- hand-written: generated from the searchable fields
    "search_document" tsvector GENERATED ALWAYS AS (svc_search_vector(ARRAY["name", "description"] || "tech_tags")) STORED,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "apps_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "app_reports" (
    "app_id" TEXT NOT NULL,
    "user_id" TEXT NOT NULL,
    "reason" "report_reason" NOT NULL DEFAULT 'other',
    "detail" TEXT,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "app_reports_pkey" PRIMARY KEY ("app_id","user_id")
);

-- CreateTable
CREATE TABLE "api_keys" (
    "id" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "author_id" TEXT NOT NULL,
    "key_hash" TEXT NOT NULL,
    "prefix" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,
    "last_used_at" TIMESTAMP(3),
    "revoked_at" TIMESTAMP(3),

    CONSTRAINT "api_keys_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "installs" (
    "user_id" TEXT NOT NULL,
    "app_id" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "installs_pkey" PRIMARY KEY ("user_id","app_id")
);

-- CreateIndex
CREATE UNIQUE INDEX "apps_slug_key" ON "apps"("slug");

-- CreateIndex
CREATE INDEX "apps_listing_idx" ON "apps"("status", "downloads" DESC, "created_at" DESC, "id");

-- CreateIndex
CREATE INDEX "apps_listing_category_idx" ON "apps"("status", "category", "downloads" DESC, "created_at" DESC, "id");

-- CreateIndex
CREATE INDEX "apps_listing_app_type_idx" ON "apps"("status", "app_type", "downloads" DESC, "created_at" DESC, "id");

-- CreateIndex
CREATE INDEX "apps_author_idx" ON "apps"("author_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "apps_search_idx" ON "apps" USING GIN ("search_document");

-- CreateIndex
CREATE UNIQUE INDEX "api_keys_key_hash_key" ON "api_keys"("key_hash");

-- CreateIndex
CREATE INDEX "api_keys_app_idx" ON "api_keys"("app_id", "created_at" DESC);

-- CreateIndex
CREATE INDEX "installs_user_idx" ON "installs"("user_id", "created_at" DESC);

-- AddForeignKey
ALTER TABLE "app_reports" ADD CONSTRAINT "app_reports_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;

-- AddForeignKey
ALTER TABLE "installs" ADD CONSTRAINT "installs_app_id_fkey" FOREIGN KEY ("app_id") REFERENCES "apps"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written (Prisma cannot express these) ------------------------------------------
-- Prisma lists are nullable columns, but an app always has a (possibly empty) tag list.
ALTER TABLE "apps" ALTER COLUMN "tech_tags" SET NOT NULL;

ALTER TABLE "apps"
  ADD CONSTRAINT "apps_downloads_check" CHECK ("downloads" >= 0),
  ADD CONSTRAINT "apps_report_count_check" CHECK ("report_count" >= 0),
  ADD CONSTRAINT "apps_tech_tags_check" CHECK (cardinality("tech_tags") <= 10),
  ADD CONSTRAINT "apps_slug_check" CHECK ("slug" ~ '^[a-z0-9]+(-[a-z0-9]+)*$' AND char_length("slug") BETWEEN 3 AND 64);

ALTER TABLE "api_keys" ADD CONSTRAINT "api_keys_key_hash_check" CHECK ("key_hash" ~ '^[0-9a-f]{64}$');
