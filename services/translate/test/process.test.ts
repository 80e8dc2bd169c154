// The real entry point: starts with its settings, translates through a fake Anthropic,
// refuses a raised rate limit in production, stops cleanly on SIGTERM.
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import {
  TEST_REDIS_URL,
  clearRedisPrefix,
  spawnService,
  testRedisPrefix,
  waitForOk,
  type ServiceProcess,
} from '@svc/service-kit/testing';
import { startFakeAnthropic, type FakeAnthropic } from './fake-anthropic.js';

const SERVICE_ROOT = fileURLToPath(new URL('..', import.meta.url));
const prefix = testRedisPrefix();

let fake: FakeAnthropic;
const procs: ServiceProcess[] = [];

beforeAll(async () => {
  fake = await startFakeAnthropic();
});

afterAll(async () => {
  for (const p of procs) if (p.child.exitCode === null) p.child.kill('SIGKILL');
  await fake?.close();
  await clearRedisPrefix(prefix);
});

const start = async (env: Record<string, string>) => {
  const proc = await spawnService({
    cwd: SERVICE_ROOT,
    source: true,
    entry: 'src/main.ts',
    env: { REDIS_URL: TEST_REDIS_URL, REDIS_PREFIX: prefix, ...env },
  });
  procs.push(proc);
  return proc;
};

const translate = (proc: ServiceProcess, text: string, targetLang: string) =>
  fetch(`${proc.url}/api/translate`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ text, targetLang }),
  });

describe('translate process', () => {
  it('translates with ANTHROPIC_API_KEY/ANTHROPIC_BASE_URL, then exits 0 within 10 s of SIGTERM', async () => {
    const proc = await start({
      ANTHROPIC_API_KEY: 'sk-process-test',
      ANTHROPIC_BASE_URL: fake.baseURL,
    });
    await waitForOk(proc, '/readyz', 40_000);
    const res = await translate(proc, 'The process talks to the configured provider.', 'de');
    expect(res.status).toBe(200);
    expect(await res.json()).toEqual({
      translated: '[German] The process talks to the configured provider.',
      detectedLang: 'en',
    });
    expect(fake.requests).toHaveLength(1);
    expect(fake.requests[0]!.model).toBe('claude-haiku-4-5');
    expect(res.headers.get('ratelimit-limit')).toBe('20');
    expect(await proc.stop(10_000)).toBe(0);
  }, 90_000);

  it('answers 503 without an AI provider', async () => {
    const proc = await start({ ANTHROPIC_API_KEY: '' });
    await waitForOk(proc, '/healthz', 40_000);
    const res = await translate(proc, 'Nobody can translate this sentence now.', 'ja');
    expect(res.status).toBe(503);
    expect(await proc.stop(10_000)).toBe(0);
  }, 90_000);

  it('refuses to start in production with a raised rate limit', async () => {
    const proc = await start({ NODE_ENV: 'production', TRANSLATE_RATE_LIMIT_PER_MINUTE: '100000' });
    const { code } = await proc.exited;
    expect(code).not.toBe(0);
    expect(proc.output()).toContain('TRANSLATE_RATE_LIMIT_PER_MINUTE');
  }, 60_000);
});
