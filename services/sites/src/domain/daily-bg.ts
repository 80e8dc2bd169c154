// The image-of-the-day provider's answer (Bing HPImageArchive JSON shape) read into the
// public DailyBg fields. The image itself is proxied by /api/daily-bg/image.
import { z } from 'zod';
import { DAILY_BG_IMAGE_PATH } from '@svc/types';

const ProviderAnswer = z.object({
  images: z
    .array(
      z
        .object({
          url: z.string().min(1),
          copyright: z.string().default(''),
          title: z.string().default(''),
          /** Some archives carry a video variant. */
          vid: z
            .object({ sources: z.array(z.unknown()).optional(), image: z.string().optional() })
            .optional(),
        })
        .passthrough(),
    )
    .min(1),
});

export interface DailyBgEntry {
  /** Absolute URL of the provider's image, same origin as the provider. */
  sourceImageUrl: string;
  videoUrl: string | null;
  copyright: string;
  title: string;
}

/**
 * Reads the first image. Its URL is resolved against the provider's URL and must stay on
 * the provider's origin: the service fetches it, so the JSON must not point it anywhere.
 */
export function parseProviderAnswer(body: unknown, providerUrl: string): DailyBgEntry | null {
  const parsed = ProviderAnswer.safeParse(body);
  if (!parsed.success) return null;
  const image = parsed.data.images[0]!;
  let url: URL;
  try {
    url = new URL(image.url, providerUrl);
  } catch {
    return null;
  }
  if (url.origin !== new URL(providerUrl).origin) return null;
  const sources = image.vid?.sources;
  const video = Array.isArray(sources)
    ? sources.find((s): s is string => typeof s === 'string')
    : undefined;
  return {
    sourceImageUrl: url.toString(),
    videoUrl: video && /^https?:\/\//.test(video) ? video : null,
    copyright: image.copyright,
    title: image.title,
  };
}

export function publicDailyBg(entry: Pick<DailyBgEntry, 'videoUrl' | 'copyright' | 'title'>) {
  return {
    imageUrl: DAILY_BG_IMAGE_PATH,
    videoUrl: entry.videoUrl,
    copyright: entry.copyright,
    title: entry.title,
  };
}
