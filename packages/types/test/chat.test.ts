import { describe, it, expect } from '@jest/globals';
import {
  ChatMessage,
  ChatMessageListQuery,
  ChatMessageListResponse,
  EntranceRequestBody,
  LikeChatMessageResponse,
  PostChatMessageBody,
  PostChatMessageResponse,
} from '../src/chat.js';
import { message } from './fixtures.js';

describe('chat', () => {
  it('ChatMessage parses every type, nullable fields', () => {
    expect(ChatMessage.parse(message)).toEqual(message);
    const system = {
      ...message,
      type: 'system',
      content_key: 'chat.welcome',
      content_params: { name: 'ann', n: 3 },
    };
    expect(ChatMessage.safeParse(system).success).toBe(true);
    expect(
      ChatMessage.safeParse({
        ...message,
        type: 'entrance',
        content: 'entered',
        sender_location: null,
      }).success,
    ).toBe(true);
    expect(ChatMessage.safeParse({ ...message, type: 'dm' }).success).toBe(false);
    expect(ChatMessage.safeParse({ ...message, sender_location: 'Tokyo' }).success).toBe(false);
  });

  it('list query: default 50, max 100, coerced', () => {
    expect(ChatMessageListQuery.parse({})).toEqual({ limit: 50 });
    expect(ChatMessageListQuery.parse({ limit: '100' })).toEqual({ limit: 100 });
    expect(ChatMessageListQuery.safeParse({ limit: '101' }).success).toBe(false);
    expect(ChatMessageListQuery.safeParse({ limit: '0' }).success).toBe(false);
    expect(ChatMessageListResponse.safeParse({ messages: [message] }).success).toBe(true);
  });

  it('post body is trimmed, 1–200 characters', () => {
    expect(PostChatMessageBody.parse({ content: '  hi  ' })).toEqual({ content: 'hi' });
    expect(PostChatMessageBody.safeParse({ content: 'x'.repeat(200) }).success).toBe(true);
    expect(PostChatMessageBody.safeParse({ content: ` ${'x'.repeat(200)} ` }).success).toBe(true);
    expect(PostChatMessageBody.safeParse({ content: 'x'.repeat(201) }).success).toBe(false);
    expect(PostChatMessageBody.safeParse({ content: '' }).success).toBe(false);
    expect(PostChatMessageBody.safeParse({ content: '   ' }).success).toBe(false);
    expect(PostChatMessageBody.safeParse({}).success).toBe(false);
  });

  it('post response is a chat-type message', () => {
    expect(PostChatMessageResponse.safeParse({ message }).success).toBe(true);
    expect(
      PostChatMessageResponse.safeParse({ message: { ...message, type: 'system' } }).success,
    ).toBe(false);
  });

  it('like response', () => {
    expect(LikeChatMessageResponse.safeParse({ liked: true, like_count: 1 }).success).toBe(true);
    expect(LikeChatMessageResponse.safeParse({ liked: true }).success).toBe(false);
  });

  it('entrance request carries an IP', () => {
    expect(EntranceRequestBody.safeParse({ ip: '203.0.113.9' }).success).toBe(true);
    expect(EntranceRequestBody.safeParse({ ip: '::ffff:203.0.113.9' }).success).toBe(true);
    expect(EntranceRequestBody.safeParse({ ip: 'localhost' }).success).toBe(false);
  });
});
