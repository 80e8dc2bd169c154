-- The kit's job outbox, here for account deletion (docs/decisions/035-account-deletion.md):
-- the transaction that deletes a user also writes one user-deletion job per service that
-- holds data about them, and the relay puts them on the queue once it has committed.
-- CreateTable
CREATE TABLE "job_outbox" (
    "id" BIGSERIAL NOT NULL,
    "queue" TEXT NOT NULL,
    "job_name" TEXT NOT NULL,
    "job_id" TEXT,
    "payload" JSONB NOT NULL,
    "created_at" TIMESTAMPTZ NOT NULL DEFAULT CURRENT_TIMESTAMP,

    CONSTRAINT "job_outbox_pkey" PRIMARY KEY ("id")
);
