// The init migration on a fresh schema: rows go in through the generated client, the
// unique and CHECK constraints hold, and the listing index exists.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createPgAdapter } from '@svc/service-kit';
import { createTestDatabase, type TestDatabase } from '@svc/service-kit/testing';
import { PrismaClient } from '../src/generated/prisma/client.js';

const migrations = new URL('../prisma/migrations', import.meta.url).pathname;

let testDb: TestDatabase;
let db: PrismaClient;
let schema: string;

beforeAll(async () => {
  testDb = await createTestDatabase(migrations);
  schema = testDb.target.schema;
  db = new PrismaClient({ adapter: createPgAdapter(testDb.target, { max: 2 }) });
});

afterAll(async () => {
  await db?.$disconnect();
  await testDb?.drop();
});

describe('chat schema', () => {
  it('stores chat, system and entrance messages', async () => {
    const chat = await db.message.create({
      data: {
        id: 'm1',
        content: 'hello',
        senderName: 'alice',
        senderUserId: 'u1',
        senderIpHash: 'h1',
        senderLocation: 'JP|Tokyo',
      },
    });
    expect(chat).toMatchObject({
      type: 'chat',
      likeCount: 0,
      contentKey: null,
      contentParams: null,
    });
    const system = await db.message.create({
      data: {
        id: 'm2',
        type: 'system',
        content: 'alice is now bob',
        contentKey: 'system.renamed',
        contentParams: { from: 'alice', to: 'bob' },
        senderName: 'system',
      },
    });
    expect(system.contentParams).toEqual({ from: 'alice', to: 'bob' });
    await db.message.create({
      data: {
        id: 'm3',
        type: 'entrance',
        content: 'entered',
        senderName: 'Visitor from Paris',
        senderLocation: 'FR|Paris',
      },
    });
    const newest = await db.message.findMany({
      orderBy: [{ createdAt: 'desc' }, { id: 'asc' }],
      take: 2,
    });
    expect(newest).toHaveLength(2);
  });

  it('refuses a second like of a message by the same liker', async () => {
    await db.message.create({ data: { id: 'liked', content: 'like me', senderName: 'carol' } });
    await db.messageLike.create({ data: { messageId: 'liked', likerKey: 'user:u1' } });
    await db.messageLike.create({ data: { messageId: 'liked', likerKey: 'ip:abc' } });
    await expect(
      db.messageLike.create({ data: { messageId: 'liked', likerKey: 'user:u1' } }),
    ).rejects.toMatchObject({
      code: 'P2002',
    });
    expect(await db.messageLike.count({ where: { messageId: 'liked' } })).toBe(2);
  });

  it('refuses values outside the CHECK constraints', async () => {
    await expect(
      db.message.create({ data: { id: 'long', content: 'x'.repeat(201), senderName: 'a' } }),
    ).rejects.toThrow();
    await expect(
      db.message.create({ data: { id: 'empty', content: '', senderName: 'a' } }),
    ).rejects.toThrow();
    await expect(
      db.message.create({
        data: { id: 'loc', content: 'hi', senderName: 'a', senderLocation: 'Tokyo' },
      }),
    ).rejects.toThrow();
    await expect(
      db.message.create({ data: { id: 'neg', content: 'hi', senderName: 'a', likeCount: -1 } }),
    ).rejects.toThrow();
    await expect(
      db.messageLike.create({ data: { messageId: 'liked', likerKey: '1.2.3.4' } }),
    ).rejects.toThrow();
  });

  it('has the index the newest-messages query needs', async () => {
    const rows = await db.$queryRaw<Array<{ indexname: string; indexdef: string }>>`
      SELECT indexname, indexdef FROM pg_indexes WHERE schemaname = ${schema}`;
    const defs = new Map(rows.map((r) => [r.indexname, r.indexdef]));
    expect(defs.get('messages_recent_idx')).toMatch(/\(created_at DESC, id\)/);
    expect(defs.get('message_likes_pkey')).toMatch(/UNIQUE INDEX .* \(message_id, liker_key\)/);
  });
});
