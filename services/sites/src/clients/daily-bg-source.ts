// GET /api/daily-bg and its image (docs/decisions/005-sites.md): the provider's answer is cached 6 h in
// Redis; while the provider is down the last good answer (kept without expiry) is served;
// with none ever, a bundled default image. The image bytes are fetched once per answer and
// kept beside it, so /api/daily-bg/image never makes the client wait on the provider.
import { readFileSync } from 'node:fs';
import { DAILY_BG_CACHE_SECONDS, type DailyBgResponse } from '@svc/types';
import type { Logger, Redis } from '@svc/service-kit';
import { parseProviderAnswer, publicDailyBg } from '../domain/daily-bg.js';

const DEFAULT_IMAGE_FILE = new URL('../../assets/default-daily-bg.png', import.meta.url);
const DEFAULT_META: StoredMeta = {
  videoUrl: null,
  copyright: '',
  title: 'Default background',
  contentType: 'image/png',
};

/** After a failed refresh, ask the provider again only after this long. */
const RETRY_AFTER_FAILURE_SECONDS = 300;
const MAX_JSON_BYTES = 256 * 1024;
const MAX_IMAGE_BYTES = 8 * 1024 * 1024;

interface StoredMeta {
  videoUrl: string | null;
  copyright: string;
  title: string;
  contentType: string;
}

export interface DailyBgImage {
  body: Buffer;
  contentType: string;
}

export interface DailyBgSource {
  current(): Promise<DailyBgResponse>;
  image(): Promise<DailyBgImage>;
}

/**
 * The cache's keys. The `{daily-bg}` hash tag keeps them in one Redis Cluster slot, so the
 * refresh can write them in one MULTI and the check read two in one MGET. (Before cluster
 * support they had no tag: an upgrade refetches the picture once.)
 */
export const dailyBgKeys = (redisPrefix: string) => ({
  fresh: `${redisPrefix}sites:{daily-bg}:fresh`,
  failed: `${redisPrefix}sites:{daily-bg}:failed`,
  meta: `${redisPrefix}sites:{daily-bg}:meta`,
  image: `${redisPrefix}sites:{daily-bg}:image`,
});

export function createDailyBgSource(opts: {
  redis: Redis;
  redisPrefix: string;
  sourceUrl: string;
  logger: Logger;
  timeoutMs?: number;
}): DailyBgSource {
  const { redis, logger } = opts;
  const keys = dailyBgKeys(opts.redisPrefix);
  const timeoutMs = opts.timeoutMs ?? 5000;
  let defaultImage: Buffer | undefined;
  let refreshing: Promise<void> | undefined;

  async function fetchCapped(
    url: string,
    maxBytes: number,
  ): Promise<{ body: Buffer; contentType: string }> {
    const res = await fetch(url, { signal: AbortSignal.timeout(timeoutMs), redirect: 'follow' });
    if (!res.ok || !res.body) throw new Error(`provider answered ${res.status}`);
    const declared = Number(res.headers.get('content-length') ?? 0);
    if (declared > maxBytes) throw new Error('provider answer too large');
    const chunks: Buffer[] = [];
    let size = 0;
    for await (const chunk of res.body) {
      size += chunk.byteLength;
      if (size > maxBytes) throw new Error('provider answer too large');
      chunks.push(Buffer.from(chunk));
    }
    return { body: Buffer.concat(chunks), contentType: res.headers.get('content-type') ?? '' };
  }

  async function refresh(): Promise<void> {
    try {
      const answer = await fetchCapped(opts.sourceUrl, MAX_JSON_BYTES);
      const entry = parseProviderAnswer(JSON.parse(answer.body.toString('utf8')), opts.sourceUrl);
      if (!entry) throw new Error('provider answer has no usable image');
      const image = await fetchCapped(entry.sourceImageUrl, MAX_IMAGE_BYTES);
      const contentType = image.contentType.split(';')[0]!.trim().toLowerCase();
      if (!contentType.startsWith('image/'))
        throw new Error(`image has content type ${contentType}`);
      const meta: StoredMeta = {
        videoUrl: entry.videoUrl,
        copyright: entry.copyright,
        title: entry.title,
        contentType,
      };
      await redis
        .multi()
        .set(keys.meta, JSON.stringify(meta))
        .set(keys.image, image.body)
        .set(keys.fresh, '1', 'EX', DAILY_BG_CACHE_SECONDS)
        .del(keys.failed)
        .exec();
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'daily background provider unavailable');
      await redis.set(keys.failed, '1', 'EX', RETRY_AFTER_FAILURE_SECONDS);
    }
  }

  /** Refreshes when the cached answer is older than 6 h (one refresh at a time per process). */
  async function ensureFresh(): Promise<void> {
    const [fresh, failed] = await redis.mget(keys.fresh, keys.failed);
    if (fresh || failed) return;
    refreshing ??= refresh().finally(() => {
      refreshing = undefined;
    });
    await refreshing;
  }

  async function storedMeta(): Promise<StoredMeta | null> {
    const raw = await redis.get(keys.meta);
    return raw ? (JSON.parse(raw) as StoredMeta) : null;
  }

  return {
    async current() {
      await ensureFresh();
      return publicDailyBg((await storedMeta()) ?? DEFAULT_META);
    },
    async image() {
      await ensureFresh();
      const [meta, body] = await Promise.all([storedMeta(), redis.getBuffer(keys.image)]);
      if (meta && body) return { body, contentType: meta.contentType };
      defaultImage ??= readFileSync(DEFAULT_IMAGE_FILE);
      return { body: defaultImage, contentType: DEFAULT_META.contentType };
    },
  };
}
