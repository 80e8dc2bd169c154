// Small formatting helpers shared by the site-sharing components.
import type { ChatMessage, Site } from '@svc/types';
import type { TFunction } from 'i18next';
import type { ReactNode } from 'react';
import { withUserText } from '../user-text';

/** A tag (stored in Chinese) in the reader's language. */
export function tagLabel(tag: string, t: TFunction): string {
  return t(`tags.${tag}`, { ns: 'common', defaultValue: tag });
}

/** Brand names of the social platforms (never translated). */
const PLATFORMS: Record<string, string> = {
  x: 'X',
  github: 'GitHub',
  instagram: 'Instagram',
  linkedin: 'LinkedIn',
  youtube: 'YouTube',
  tiktok: 'TikTok',
  reddit: 'Reddit',
  medium: 'Medium',
  threads: 'Threads',
  bilibili: 'bilibili',
  weibo: 'Weibo',
};

export function platformName(platform: string | null): string {
  return platform ? (PLATFORMS[platform] ?? platform) : '';
}

export function siteTitle(site: Pick<Site, 'title' | 'domain'>): string {
  return site.title.trim() || site.domain;
}

/** `CC|City` → "City, Region name" in the reader's language (region alone without a city). */
export function placeName(location: string | null, lang: string): string | undefined {
  if (!location) return undefined;
  const [cc = '', city = ''] = location.split('|');
  let region = cc;
  try {
    region = new Intl.DisplayNames([lang], { type: 'region' }).of(cc) ?? cc;
  } catch {
    /* unknown code: keep it */
  }
  return city ? `${city}, ${region}` : region;
}

/**
 * A chat message's text: chat as written, entrance and system messages translated, with
 * what people typed (an app's name, a site's domain) isolated in them.
 */
export function messageText(m: ChatMessage, t: TFunction, lang: string): ReactNode {
  if (m.type === 'entrance') {
    const place = placeName(m.sender_location, lang);
    return place ? t('system.entered', { ns: 'common', place }) : t('system.enteredNowhere', { ns: 'common' });
  }
  if (m.type === 'system' && m.content_key) {
    const key = `system.${m.content_key}`;
    const params = Object.entries(m.content_params ?? {});
    const typed = Object.fromEntries(params.filter((p): p is [string, string] => typeof p[1] === 'string'));
    const other = Object.fromEntries(params.filter(([, v]) => typeof v !== 'string'));
    return withUserText(t, key, typed, { ns: 'common', ...other, defaultValue: m.content });
  }
  return m.content;
}

/** `?a=b` with some parameters changed (undefined removes one); `page` goes unless given. */
export function withParams(search: URLSearchParams, changes: Record<string, string | undefined>): string {
  const next = new URLSearchParams(search);
  if (!('page' in changes)) next.delete('page');
  for (const [k, v] of Object.entries(changes)) {
    if (v === undefined || v === '') next.delete(k);
    else next.set(k, v);
  }
  const s = next.toString();
  return s ? `/?${s}` : '/';
}
