// A Redis that accepts the connection and the handshake, then never answers a command
// (a hung server or a black-holed network): the cache gives up within its timeout and
// counts as a miss, so a translation never waits on it for long.
import net from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createLogger, createRedis, waitForRedis, type Redis } from '@svc/service-kit';
import { createTranslationCache } from '../src/store/translation-cache.js';

const logger = createLogger('translate-silent-redis-test', 'silent');
let server: net.Server;
let redis: Redis;

/** The commands in a chunk of RESP requests (arrays of bulk strings), upper-cased. */
function commands(chunk: string): string[] {
  const found: string[] = [];
  const lines = chunk.split('\r\n');
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (!line.startsWith('*')) continue;
    const n = Number(line.slice(1));
    const parts: string[] = [];
    for (let k = 0; k < n; k++) parts.push(lines[i + 2 + 2 * k] ?? '');
    found.push(parts.join(' ').toUpperCase());
    i += 2 * n;
  }
  return found;
}

/**
 * Speaks just enough RESP for ioredis's handshake, then goes quiet. ioredis 6 pipelines
 * HELLO 3, CLIENT SETNAME and CLIENT SETINFO; like a Redis without RESP3 this answers HELLO
 * with NOPROTO (ioredis then stays on RESP2), the CLIENT commands with OK and INFO with a
 * loaded server. GET, SET and everything else: no answer, ever.
 */
function startSilentRedis(): Promise<net.Server> {
  const s = net.createServer((socket) => {
    socket.on('data', (chunk) => {
      for (const command of commands(chunk.toString('utf8'))) {
        if (command.startsWith('HELLO')) socket.write('-NOPROTO unsupported protocol version\r\n');
        else if (command.startsWith('CLIENT')) socket.write('+OK\r\n');
        else if (command.startsWith('INFO')) {
          const info = '# Server\r\nloading:0\r\n';
          socket.write(`$${Buffer.byteLength(info)}\r\n${info}\r\n`);
        }
      }
    });
    socket.on('error', () => socket.destroy());
  });
  return new Promise((resolve) => s.listen(0, '127.0.0.1', () => resolve(s)));
}

beforeAll(async () => {
  server = await startSilentRedis();
  const { port } = server.address() as net.AddressInfo;
  redis = createRedis(`redis://127.0.0.1:${port}`, logger, { name: 'silent' });
  await waitForRedis(redis);
});

afterAll(async () => {
  redis?.disconnect();
  await new Promise<void>((r) => server.close(() => r()));
});

describe('translation cache against a silent Redis', () => {
  it('treats a read as a miss and a write as done within the timeout', async () => {
    const cache = createTranslationCache({ redis, prefix: 'test:', logger, timeoutMs: 200 });
    const started = Date.now();
    await expect(cache.get('Hello', 'fr')).resolves.toBeUndefined();
    await expect(
      cache.set('Hello', 'fr', { translated: 'Bonjour', detectedLang: 'en' }),
    ).resolves.toBeUndefined();
    const elapsed = Date.now() - started;
    expect(elapsed).toBeGreaterThanOrEqual(350);
    expect(elapsed).toBeLessThan(2_000);
  });
});
