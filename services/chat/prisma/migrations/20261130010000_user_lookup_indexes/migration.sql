-- A user's data export and account deletion (docs/decisions/034-data-export.md,
-- 035-account-deletion.md) read and change every row of one user. Without these, each was a
-- scan of the whole table: 10M messages took seconds per user (bench/growth.md, "One user's
-- rows"). Partial on logged-in senders: visitors' messages are most of the table and are
-- never looked up by user.
CREATE INDEX "messages_sender_user_idx" ON "messages"("sender_user_id", "created_at", "id") WHERE "sender_user_id" IS NOT NULL;
-- The primary key leads with the message, this finds one liker's likes. Full, not partial on
-- `user:` keys: a LIKE predicate is not implied by an equality on a bound parameter, so a
-- partial index would never be chosen.
CREATE INDEX "message_likes_liker_idx" ON "message_likes"("liker_key", "created_at", "message_id");
