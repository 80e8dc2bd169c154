// The tag job: AI when configured, else (or when it fails) the keyword classifier; store
// the tags and announce them with `site_update`.
import type { Logger, EventPublisher } from '@svc/service-kit';
import { SiteUpdatePayload, type SiteTag } from '@svc/types';
import type { PrismaClient } from '../generated/prisma/client.js';
import type { AiTagger } from '../clients/ai-tagger.js';
import { classifyByKeywords, type TaggableSite } from '../domain/tagging/keyword-classifier.js';

export interface TagDeps {
  db: PrismaClient;
  events: EventPublisher;
  logger: Logger;
  /** Unset when ANTHROPIC_API_KEY is not configured. */
  ai?: AiTagger;
}

export interface TagResult {
  tags: SiteTag[];
  source: 'ai' | 'keywords';
}

/** Null when the site no longer exists. */
export async function tagSite(deps: TagDeps, siteId: string): Promise<TagResult | null> {
  const site = await deps.db.site.findUnique({
    where: { id: siteId },
    select: {
      url: true,
      domain: true,
      title: true,
      description: true,
      siteType: true,
      socialPlatform: true,
    },
  });
  if (!site) return null;
  const result = await chooseTags(deps, site);
  const { count } = await deps.db.site.updateMany({
    where: { id: siteId },
    data: { tags: result.tags },
  });
  if (count === 0) return null;
  await deps.events.publish(
    'site_update',
    SiteUpdatePayload.parse({ id: siteId, tags: result.tags }),
  );
  return result;
}

async function chooseTags(deps: TagDeps, site: TaggableSite): Promise<TagResult> {
  if (deps.ai) {
    try {
      return { tags: await deps.ai.chooseTags(site), source: 'ai' };
    } catch (err) {
      deps.logger.warn(
        { err: (err as Error).message, url: site.url },
        'AI tagging failed: keyword classifier',
      );
    }
  }
  return { tags: classifyByKeywords(site), source: 'keywords' };
}
