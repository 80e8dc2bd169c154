-- The W3C trace context of the request that wrote a chat system message (tracing on), so the
-- relay and chat's worker continue its trace. NULL when tracing is off (docs/decisions.md, Tracing).
-- AlterTable
ALTER TABLE "system_message_outbox" ADD COLUMN "traceparent" TEXT;
