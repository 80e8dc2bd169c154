-- Moderators granted by a moderator (docs/decisions.md §2). Those listed in MODERATOR_EMAILS
-- need no row: the configuration decides for them.
-- CreateTable
CREATE TABLE "moderator_grants" (
    "user_id" TEXT NOT NULL,
    "granted_by" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "moderator_grants_pkey" PRIMARY KEY ("user_id")
);

-- AddForeignKey
ALTER TABLE "moderator_grants" ADD CONSTRAINT "moderator_grants_user_id_fkey" FOREIGN KEY ("user_id") REFERENCES "users"("id") ON DELETE CASCADE ON UPDATE CASCADE;
