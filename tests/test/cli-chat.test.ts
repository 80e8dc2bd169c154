// End to end: `svc chat send` and `svc chat tail` (built binary) through the real gateway,
// chat and realtime processes: tail prints the history, then follows the WebSocket.
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { spawn, type ChildProcess } from 'node:child_process';
import type { ServiceProcess } from '@svc/service-kit/testing';
import { startSvc as svc } from './svc-binary.js';
import { createTestSystem, ROOT } from './system-processes.js';

const system = createTestSystem();
let chat: ServiceProcess;
let realtime: ServiceProcess;
/** The realtime process that replaces the first one on the same port (restart test). */
let replacement: ChildProcess | undefined;
let gateway: ServiceProcess;

beforeAll(async () => {
  chat = await system.service('chat');
  realtime = await system.service('realtime', { CHAT_URL: chat.url });
  gateway = await system.start('gateway/dist/main.js', {
    CHAT_URL: chat.url,
    REALTIME_URL: realtime.url,
  });
}, 90_000);

afterAll(async () => {
  if (replacement && replacement.exitCode === null) {
    const exited = new Promise((r) => replacement!.once('exit', r));
    replacement.kill('SIGTERM');
    await exited;
  }
  await system.stop();
});

describe('svc chat through the real services', () => {
  it('tail prints the history, then a message sent while it follows', async () => {
    const env = { SVC_BASE_URL: gateway.url };
    const before = await svc(['chat', 'send', 'first', 'message', '--json'], env).done;
    expect(before.code).toBe(0);
    expect(JSON.parse(before.stdout).message).toMatchObject({
      type: 'chat',
      content: 'first message',
    });

    // Follows until it has seen our live message (an entrance message may come first).
    const tail = svc(['chat', 'tail', '--json', '--history', '10', '--count', '2'], env);
    const deadline = Date.now() + 15_000;
    while (!tail.output().includes('first message') && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    // The subscription is opened before the history is read, so this cannot be missed.
    await new Promise((r) => setTimeout(r, 300));
    const sent = await svc(['chat', 'send', 'live', 'message'], env).done;
    expect(sent.code).toBe(0);
    expect(sent.stdout).toMatch(/: live message\n$/);
    const again = await svc(['chat', 'send', 'second', 'live'], env).done;
    expect(again.code).toBe(0);

    const res = await tail.done;
    expect(res.code).toBe(0);
    const events = res.stdout
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line));
    expect(events.every((e: { event: string }) => e.event === 'new_message')).toBe(true);
    const contents = events.map((e: { payload: { content: string } }) => e.payload.content);
    expect(contents[0]).toBe('first message');
    expect(contents).toContain('live message');
    expect(contents.filter((c: string) => c === 'first message')).toHaveLength(1);
  }, 60_000);

  it('tail survives a realtime restart: close code 1012, then it resumes (a message posted while down shows once) and follows on', async () => {
    const env = { SVC_BASE_URL: gateway.url };
    const tail = svc(['chat', 'tail', '--history', '0'], env);
    // Polls `check`; with `send`, posts that message now and then until it shows (posts are
    // spaced out: chat allows 10 a minute per IP). Connected once the first one shows up.
    const until = async (check: () => boolean, what: string, send?: string) => {
      const deadline = Date.now() + 20_000;
      let lastSent = 0;
      while (!check()) {
        if (Date.now() > deadline)
          throw new Error(`${what}; tail said:\n${tail.output()}\n${tail.errors()}`);
        if (send && Date.now() - lastSent > 2_000) {
          lastSent = Date.now();
          await svc(['chat', 'send', send], env).done;
        }
        await new Promise((r) => setTimeout(r, 100));
      }
    };
    await until(
      () => tail.output().includes('before restart'),
      'tail never connected',
      'before restart',
    );

    // SIGTERM: realtime closes every socket with 1012 (Service Restart); the gateway passes it on.
    const port = realtime.port;
    expect(await realtime.stop()).toBe(0);
    await until(() => /connection closed \(1012\)/.test(tail.errors()), 'no 1012 close seen');
    // Posted while no realtime runs: the reconnection resumes after tail's last event id, so
    // this reaches tail from the stream's history, exactly once.
    const down = await svc(['chat', 'send', 'while down'], env).done;
    expect(down.code).toBe(0);

    replacement = spawn(process.execPath, ['services/realtime/dist/main.js'], {
      cwd: ROOT,
      env: {
        ...process.env,
        NODE_ENV: 'test',
        LOG_LEVEL: 'warn',
        PORT: String(port),
        REDIS_PREFIX: system.redisPrefix,
        CHAT_URL: chat.url,
      },
      stdio: 'ignore',
    });
    await until(() => /reconnected/.test(tail.errors()), 'tail never reconnected');
    await until(
      () => tail.output().includes('after restart'),
      'no message after the restart',
      'after restart',
    );

    tail.child.kill('SIGINT');
    const res = await tail.done;
    expect(res.code).toBe(0);
    const lines = res.stdout.split('\n');
    const downAt = lines.findIndex((l) => l.endsWith(': while down'));
    expect(downAt).toBeGreaterThan(lines.findIndex((l) => l.endsWith(': before restart')));
    expect(lines.filter((l) => l.endsWith(': while down'))).toHaveLength(1);
    expect(downAt).toBeLessThan(lines.findIndex((l) => l.endsWith(': after restart')));
    // Nothing printed twice (entrance lines aside, every line is one message).
    const chatLines = lines.filter((l) => /^\[\d\d:\d\d:\d\d\] [^*]/.test(l));
    expect(new Set(chatLines).size).toBe(chatLines.length);
  }, 90_000);

  it('chat send refuses an empty message with exit 2 before calling the API', async () => {
    const res = await svc(['chat', 'send', ' '], { SVC_BASE_URL: gateway.url }).done;
    expect(res.code).toBe(2);
    expect(res.stderr).toMatch(/content/);
  });
});
