-- Moderation (issue 13): DELETE /api/moderation/messages/{id} marks a message deleted. The
-- row stays (so a moderator can still mute its sender, whose identity it holds) but it is
-- no longer listed nor likeable. GET /api/messages reads the newest undeleted rows.
-- AlterTable
ALTER TABLE "messages" ADD COLUMN "deleted_at" TIMESTAMP(3);
