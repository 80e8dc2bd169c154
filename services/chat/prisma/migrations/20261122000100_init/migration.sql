-- CreateEnum
CREATE TYPE "message_type" AS ENUM ('chat', 'system', 'entrance');

-- CreateTable
CREATE TABLE "messages" (
    "id" TEXT NOT NULL,
    "type" "message_type" NOT NULL DEFAULT 'chat',
    "content" TEXT NOT NULL,
    "content_key" TEXT,
    "content_params" JSONB,
    "sender_name" TEXT NOT NULL,
    "sender_location" TEXT,
    "sender_user_id" TEXT,
    "sender_ip_hash" TEXT,
    "like_count" INTEGER NOT NULL DEFAULT 0,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "messages_pkey" PRIMARY KEY ("id")
);

-- CreateTable
CREATE TABLE "message_likes" (
    "message_id" TEXT NOT NULL,
    "liker_key" TEXT NOT NULL,
    "created_at" TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "message_likes_pkey" PRIMARY KEY ("message_id","liker_key")
);

-- CreateIndex
CREATE INDEX "messages_recent_idx" ON "messages"("created_at" DESC, "id");

-- AddForeignKey
ALTER TABLE "message_likes" ADD CONSTRAINT "message_likes_message_id_fkey" FOREIGN KEY ("message_id") REFERENCES "messages"("id") ON DELETE CASCADE ON UPDATE CASCADE;


-- Hand-written (Prisma cannot express these) ------------------------------------------
ALTER TABLE "messages"
  ADD CONSTRAINT "messages_like_count_check" CHECK ("like_count" >= 0),
  ADD CONSTRAINT "messages_chat_content_check" CHECK ("type" <> 'chat' OR char_length("content") BETWEEN 1 AND 200),
  ADD CONSTRAINT "messages_sender_location_check" CHECK ("sender_location" IS NULL OR "sender_location" ~ '^[A-Z]{2}\|[^|]*$'),
  ADD CONSTRAINT "messages_content_params_check" CHECK ("content_params" IS NULL OR jsonb_typeof("content_params") = 'object');
ALTER TABLE "message_likes" ADD CONSTRAINT "message_likes_liker_key_check" CHECK ("liker_key" ~ '^(user|ip):.+$');
