-- Chat system messages (app_blocked) written in the transaction that causes them, relayed
-- to the chat-system queue afterwards: the transactional outbox of @svc/service-kit.
-- CreateTable
CREATE TABLE "system_message_outbox" (
    "id" BIGSERIAL NOT NULL,
    "content_key" TEXT NOT NULL,
    "content_params" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "system_message_outbox_pkey" PRIMARY KEY ("id")
);
