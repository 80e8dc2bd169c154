// The AI's answer, reduced to what a site may carry: known tags only (anything else is
// dropped, docs/decisions/005-sites.md), no duplicates, at most three. Pure.
import { SITE_TAGS, type SiteTag } from '@svc/types';
import { MAX_TAGS } from './keyword-classifier.js';

const KNOWN = new Set<string>(SITE_TAGS);

/** Reads a JSON array if the text holds one, else any tag words in the text. */
export function tagsFromAnswer(answer: string): SiteTag[] {
  const candidates = jsonArray(answer) ?? answer.split(/[\s,，、;；"'“”[\]]+/);
  const tags: SiteTag[] = [];
  for (const c of candidates) {
    const tag = typeof c === 'string' ? c.trim() : '';
    if (KNOWN.has(tag) && !tags.includes(tag as SiteTag)) tags.push(tag as SiteTag);
    if (tags.length === MAX_TAGS) break;
  }
  return tags;
}

function jsonArray(text: string): unknown[] | undefined {
  const match = /\[[\s\S]*?\]/.exec(text);
  if (!match) return undefined;
  try {
    const parsed: unknown = JSON.parse(match[0]);
    return Array.isArray(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
