// Entrance messages end to end: realtime reports each new client's IP (from the gateway's
// X-Forwarded-For) to a real chat process, which stores and broadcasts at most one
// `entrance` message per IP per 10 minutes back through realtime.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  TEST_DATABASE_URL,
  TEST_REDIS_URL,
  clearRedisPrefix,
  createTestDatabase,
  spawnService,
  testRedisPrefix,
  waitForOk,
  type ServiceProcess,
  type TestDatabase,
} from '@svc/service-kit/testing';
import { CHAT_ROOT, INTERNAL_TOKEN, connect, metric, sleep, startRealtime } from './harness.js';

const prefix = testRedisPrefix();
let chatDb: TestDatabase;
let chat: ServiceProcess;
let realtime: ServiceProcess;
let realtime2: ServiceProcess;

beforeAll(async () => {
  chatDb = await createTestDatabase(`${CHAT_ROOT}/prisma/migrations`);
  chat = await spawnService({
    cwd: CHAT_ROOT,
    source: true,
    entry: 'src/main.ts',
    env: {
      DATABASE_URL: TEST_DATABASE_URL,
      CHAT_DATABASE_URL: chatDb.url,
      REDIS_URL: TEST_REDIS_URL,
      REDIS_PREFIX: prefix,
      INTERNAL_TOKEN,
    },
  });
  await waitForOk(chat, '/readyz', 40_000);
  [realtime, realtime2] = await Promise.all([
    startRealtime(prefix, { CHAT_URL: chat.url }),
    startRealtime(prefix, { CHAT_URL: chat.url }),
  ]);
}, 90_000);
afterAll(async () => {
  for (const p of [chat, realtime, realtime2])
    if (p && p.child.exitCode === null) p.child.kill('SIGKILL');
  await clearRedisPrefix(prefix);
  await chatDb?.drop();
});

describe('entrance messages', () => {
  it('broadcasts one entrance per client IP per window, named from the forwarded IP', async () => {
    const observer = await connect(realtime);
    // The observer's own address (loopback) enters first: no location, a plain name.
    const own = await observer.waitFor((m) => m.event === 'new_message');
    expect(own.payload).toMatchObject({
      type: 'entrance',
      content: 'entered',
      sender_location: null,
    });
    expect(own.payload.sender_name).toMatch(/^Visitor #[0-9A-F]{4}$/);

    const tokyo = { headers: { 'X-Forwarded-For': '27.0.0.3' } };
    const first = await connect(realtime, tokyo);
    const entered = await observer.waitFor(
      (m) => m.event === 'new_message' && m.payload.sender_location === 'JP|Tokyo',
    );
    expect(entered.payload).toMatchObject({ type: 'entrance', content: 'entered' });
    expect(entered.payload.sender_name).toMatch(/^Visitor from Tokyo #/);

    // Reconnects from the same address: no new entrance.
    first.ws.close();
    const again = await connect(realtime, tokyo);
    const third = await connect(realtime, tokyo);
    await sleep(700);
    const entrances = observer.messages.filter((m) => m.payload.type === 'entrance');
    expect(entrances).toHaveLength(2);
    const listed = (await (await fetch(`${chat.url}/api/messages`)).json()) as {
      messages: Array<{ type: string }>;
    };
    expect(listed.messages.filter((m) => m.type === 'entrance')).toHaveLength(2);
    expect(await metric(realtime, 'realtime_entrance_reports_total', 'result="sent"')).toBe(2);
    for (const c of [observer, again, third]) c.ws.close();
  });

  it('delivers a message posted to chat exactly once to the clients of both replicas', async () => {
    const clients = [await connect(realtime), await connect(realtime2), await connect(realtime2)];
    const res = await fetch(`${chat.url}/api/messages`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'x-forwarded-for': '198.51.100.20' },
      body: JSON.stringify({ content: 'to every replica' }),
    });
    expect(res.status).toBe(201);
    const { message } = (await res.json()) as { message: { id: string } };
    for (const c of clients) await c.waitFor((m) => m.payload.id === message.id);
    await sleep(300);
    for (const c of clients) {
      expect(c.messages.filter((m) => m.payload.id === message.id)).toHaveLength(1);
      c.ws.close();
    }
  });

  it('keeps sockets working while chat is down', async () => {
    chat.child.kill('SIGKILL');
    await chat.exited;
    const c = await connect(realtime, { headers: { 'X-Forwarded-For': '81.2.69.142' } });
    c.ws.send(JSON.stringify({ event: 'ping' }));
    await c.waitFor((m) => m.event === 'pong');
    for (let i = 0; i < 30; i++) {
      if ((await metric(realtime, 'realtime_entrance_reports_total', 'result="failed"')) >= 1)
        break;
      await sleep(100);
    }
    expect(await metric(realtime, 'realtime_entrance_reports_total', 'result="failed"')).toBe(1);
    expect(c.ws.readyState).toBe(c.ws.OPEN);
    c.ws.close();
  });
});
