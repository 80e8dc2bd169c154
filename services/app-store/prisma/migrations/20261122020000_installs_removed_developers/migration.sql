-- Uninstall keeps the row: a re-install by the same user is not a new download.
-- AlterTable
ALTER TABLE "installs" ADD COLUMN "removed_at" TIMESTAMP(3);

-- Identity snapshot of developers, read when an API key (no JWT) asks GET /me.
-- CreateTable
CREATE TABLE "developers" (
    "user_id" TEXT NOT NULL,
    "email" TEXT NOT NULL,
    "username" TEXT NOT NULL,
    "updated_at" TIMESTAMP(3) NOT NULL,

    CONSTRAINT "developers_pkey" PRIMARY KEY ("user_id")
);
