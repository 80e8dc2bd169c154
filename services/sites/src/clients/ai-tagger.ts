// AI tagging through the Anthropic Messages API (the real SDK; tests point `baseURL` at a
// loopback fake). The SDK retries 429/5xx/timeouts itself; when it still fails, or the
// answer holds no known tag, the caller falls back to the keyword classifier.
import Anthropic from '@anthropic-ai/sdk';
import { SITE_TAGS, type SiteTag } from '@svc/types';
import type { TaggableSite } from '../domain/tagging/keyword-classifier.js';
import { tagsFromAnswer } from '../domain/tagging/tag-filter.js';

export interface AiTagger {
  /** 1–3 known tags; throws when the API fails or the answer has none. */
  chooseTags(site: TaggableSite): Promise<SiteTag[]>;
}

export interface AiTaggerOptions {
  apiKey: string;
  baseURL?: string;
  model: string;
  /** Per request; the SDK's default (10 min) is far too long for a tag. */
  timeoutMs?: number;
  maxRetries?: number;
}

const SYSTEM_PROMPT = [
  'You classify websites for a Chinese site directory.',
  `Choose 1 to 3 tags for the site, only from this list: ${SITE_TAGS.join(', ')}.`,
  'Answer with a JSON array of the chosen tags and nothing else, e.g. ["工具","技术"].',
].join('\n');

export function createAiTagger(options: AiTaggerOptions): AiTagger {
  const client = new Anthropic({
    apiKey: options.apiKey,
    baseURL: options.baseURL,
    timeout: options.timeoutMs ?? 20_000,
    maxRetries: options.maxRetries ?? 2,
  });
  return {
    async chooseTags(site) {
      const message = await client.messages.create({
        model: options.model,
        max_tokens: 64,
        system: SYSTEM_PROMPT,
        messages: [{ role: 'user', content: describeSite(site) }],
      });
      const text = message.content
        .map((block) => (block.type === 'text' ? block.text : ''))
        .join('\n');
      const tags = tagsFromAnswer(text);
      if (tags.length === 0) throw new Error(`AI answer held no known tag: ${text.slice(0, 100)}`);
      return tags;
    },
  };
}

/** The page as the model sees it: the scraped fields, bounded (they are already clipped). */
function describeSite(site: TaggableSite): string {
  return [
    `URL: ${site.url}`,
    `Title: ${site.title}`,
    `Description: ${site.description || '(none)'}`,
    site.siteType === 'profile' ? `A ${site.socialPlatform ?? 'social'} profile page.` : '',
  ]
    .filter(Boolean)
    .join('\n');
}
