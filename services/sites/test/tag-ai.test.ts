// AI tagging through the real @anthropic-ai/sdk against a loopback Messages API, and the
// tag job's fallback to the keyword classifier (no key, API down, useless answer).
import { afterAll, beforeAll, describe, expect, it } from '@jest/globals';
import { createEventPublisher } from '@svc/service-kit';
import { SITE_TAGS } from '@svc/types';
import { createAiTagger } from '../src/clients/ai-tagger.js';
import { tagSite, type TagDeps } from '../src/worker/tag-site.js';
import {
  createWorkerEnv,
  fakeAiTagger,
  logger,
  startFakeAnthropic,
  waitFor,
  type FakeAnthropic,
  type WorkerEnv,
} from './worker-harness.js';

let ai: FakeAnthropic;
let env: WorkerEnv;

beforeAll(async () => {
  ai = await startFakeAnthropic();
  env = await createWorkerEnv();
});

afterAll(async () => {
  await ai?.close();
  await env?.close();
});

const site = {
  url: 'https://jsonformatter.example/',
  domain: 'jsonformatter.example',
  title: 'JSON Formatter',
  description: 'Format JSON online',
  siteType: 'website' as const,
  socialPlatform: null,
};

describe('AI tagger (Messages API)', () => {
  it('sends the site and the 11 allowed tags, and keeps only known tags', async () => {
    ai.answer('["工具", "Developer Tools", "技术", "技术"]');
    const before = ai.calls.length;
    expect(await fakeAiTagger(ai).chooseTags(site)).toEqual(['工具', '技术']);
    const call = ai.calls[before]!;
    expect(call.model).toBe('claude-haiku-4-5');
    for (const tag of SITE_TAGS) expect(call.system).toContain(tag);
    expect(JSON.stringify(call.messages)).toContain('JSON Formatter');
    expect(JSON.stringify(call.messages)).toContain('https://jsonformatter.example/');
    // The SDK authenticated with the configured key (header name depends on the SDK version).
    expect(JSON.stringify(call.headers)).toContain('test-key');
  });

  it('caps the answer at three tags', async () => {
    ai.answer('["工具","技术","设计","新闻","社区"]');
    expect(await fakeAiTagger(ai).chooseTags(site)).toEqual(['工具', '技术', '设计']);
  });

  it('throws when the answer holds no known tag', async () => {
    ai.answer('["Tools"]');
    await expect(fakeAiTagger(ai).chooseTags(site)).rejects.toThrow(/no known tag/);
  });

  it('throws after the SDK’s retries when the API keeps failing', async () => {
    ai.failWith(529);
    const before = ai.calls.length;
    const tagger = createAiTagger({
      apiKey: 'k',
      baseURL: ai.baseURL,
      model: 'm',
      maxRetries: 2,
      timeoutMs: 2000,
    });
    await expect(tagger.chooseTags(site)).rejects.toThrow();
    expect(ai.calls.length - before).toBe(3);
    ai.answer('["工具"]');
  });

  it('throws when the API is unreachable', async () => {
    const tagger = createAiTagger({
      apiKey: 'k',
      baseURL: 'http://127.0.0.1:1',
      model: 'm',
      maxRetries: 0,
      timeoutMs: 1000,
    });
    await expect(tagger.chooseTags(site)).rejects.toThrow();
  });
});

describe('tag job', () => {
  const deps = (over: Partial<TagDeps> = {}): TagDeps => ({
    db: env.db,
    events: createEventPublisher(env.redis, env.prefix),
    logger,
    ...over,
  });
  const insert = async () => {
    const id = await env.insertSite(
      `https://tools.example/json/${Math.random().toString(36).slice(2)}`,
    );
    await env.db.site.update({
      where: { id },
      data: {
        title: 'JSON 在线格式化工具',
        description: 'Free online JSON formatter',
        scrapeStatus: 'done',
      },
    });
    return id;
  };

  it('stores the AI’s tags and publishes site_update with them', async () => {
    ai.answer('["工具"]');
    const id = await insert();
    expect(await tagSite(deps({ ai: fakeAiTagger(ai) }), id)).toEqual({
      tags: ['工具'],
      source: 'ai',
    });
    expect((await env.db.site.findUniqueOrThrow({ where: { id } })).tags).toEqual(['工具']);
    await waitFor(async () =>
      env.events.some((e) => e.event === 'site_update' && e.payload.id === id),
    );
    expect(env.events.filter((e) => e.payload.id === id)).toEqual([
      { event: 'site_update', payload: { id, tags: ['工具'] } },
    ]);
  });

  it('without an API key: the keyword classifier tags the site', async () => {
    const calls = ai.calls.length;
    const id = await insert();
    const result = await tagSite(deps(), id);
    expect(result?.source).toBe('keywords');
    expect(result?.tags).toContain('工具');
    expect(ai.calls.length).toBe(calls);
    expect((await env.db.site.findUniqueOrThrow({ where: { id } })).tags).toEqual(result?.tags);
  });

  it('when the AI fails after retries: the keyword classifier tags the site', async () => {
    ai.failWith(500);
    const id = await insert();
    const result = await tagSite(deps({ ai: fakeAiTagger(ai) }), id);
    expect(result).toMatchObject({ source: 'keywords' });
    expect(result?.tags.length).toBeGreaterThanOrEqual(1);
    ai.answer('["工具"]');
  });

  it('a deleted site: nothing stored, nothing published', async () => {
    expect(await tagSite(deps(), 'gone')).toBeNull();
  });
});
