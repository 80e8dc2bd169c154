// chat's part of the data export from its rows (pure): timestamps as ISO strings, a mute
// only while it runs, visitors' address hashes never shown.
import { describe, expect, it } from '@jest/globals';
import { ChatExportPart } from '@svc/types';
import { toChatExportPart } from '../src/domain/user-export.js';
import type { ChatUserRows } from '../src/store/user-export-store.js';

const at = new Date('2026-11-21T10:00:00.000Z');
const later = new Date('2026-11-21T10:05:00.000Z');

const rows = (over: Partial<ChatUserRows> = {}): ChatUserRows => ({
  messages: [
    {
      id: 'm1',
      type: 'chat',
      content: 'hi',
      contentKey: null,
      contentParams: null,
      senderName: 'ann',
      senderLocation: 'JP|Tokyo',
      senderUserId: 'u1',
      senderIpHash: 'f00dfeed',
      likeCount: 2,
      createdAt: at,
      deletedAt: later,
    },
  ],
  likes: [{ messageId: 'm9', likerKey: 'user:u1', createdAt: at }],
  mutedUntil: later,
  audit: [
    { id: '7', at, actor: 'u1', action: 'sender.muted', targetType: 'sender', targetId: 'ip:f00dfeed', reason: '', before: null, after: null },
  ],
  readAt: at,
  ...over,
});

describe('toChatExportPart', () => {
  it('maps each row with its timestamps, in the documented shape', () => {
    const part = toChatExportPart('u1', rows());
    expect(ChatExportPart.parse(part)).toEqual(part);
    expect(part.data.messages).toEqual([
      {
        id: 'm1',
        type: 'chat',
        content: 'hi',
        sender_name: 'ann',
        sender_location: 'JP|Tokyo',
        like_count: 2,
        created_at: at.toISOString(),
        deleted_at: later.toISOString(),
      },
    ]);
    expect(part.data.likes).toEqual([{ message_id: 'm9', created_at: at.toISOString() }]);
    expect(part.data.mute).toEqual({ muted_until: later.toISOString() });
  });

  it('leaves out a mute that has ended and every address hash', () => {
    const part = toChatExportPart('u1', rows({ mutedUntil: at, readAt: later }));
    expect(part.data.mute).toBeNull();
    expect(part.moderation.by_you[0]!.target_id).toBe('ip');
    expect(JSON.stringify(part)).not.toContain('f00dfeed');
  });
});
