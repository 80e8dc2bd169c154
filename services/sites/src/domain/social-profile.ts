// Social profile detection by URL pattern (docs/api-reference.md, docs/decisions/005-sites.md): 11 platform
// families, four path shapes, reserved first segments that are pages, not people.
import type { SocialPlatform } from '@svc/types';

export interface SocialProfile {
  platform: SocialPlatform;
  /** The handle without `@`, as written in the URL. */
  username: string;
}

type Shape = 'root' | 'at' | 'in' | 'user' | 'u';

interface PlatformRule {
  platform: SocialPlatform;
  hosts: string[];
  shapes: Shape[];
  handle: RegExp;
  /** First path segments that are site pages, lower-case (only for the `root` shape). */
  reserved?: string[];
  /** Handle pattern of the `u` shape (weibo's numeric ids), when it differs. */
  idHandle?: RegExp;
}

const RULES: PlatformRule[] = [
  {
    platform: 'x',
    hosts: ['x.com', 'twitter.com'],
    shapes: ['root'],
    handle: /^[A-Za-z0-9_]{1,15}$/,
    reserved: [
      'home',
      'explore',
      'search',
      'login',
      'logout',
      'signup',
      'i',
      'settings',
      'messages',
      'notifications',
      'compose',
      'intent',
      'share',
      'hashtag',
      'tos',
      'privacy',
      'about',
      'jobs',
      'download',
      'account',
    ],
  },
  {
    platform: 'github',
    hosts: ['github.com'],
    shapes: ['root'],
    handle: /^[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})$/,
    reserved: [
      'settings',
      'login',
      'logout',
      'join',
      'signup',
      'explore',
      'search',
      'topics',
      'trending',
      'marketplace',
      'features',
      'pricing',
      'about',
      'orgs',
      'organizations',
      'notifications',
      'new',
      'issues',
      'pulls',
      'sponsors',
      'apps',
      'collections',
      'enterprise',
      'security',
      'site',
      'contact',
      'codespaces',
      'events',
      'team',
      'dashboard',
      'home',
      'readme',
      'customer-stories',
    ],
  },
  {
    platform: 'instagram',
    hosts: ['instagram.com'],
    shapes: ['root'],
    handle: /^[A-Za-z0-9._]{1,30}$/,
    reserved: [
      'explore',
      'accounts',
      'p',
      'reel',
      'reels',
      'stories',
      'direct',
      'about',
      'developer',
      'legal',
      'tv',
      'login',
      'web',
      'privacy',
      'emails',
    ],
  },
  {
    platform: 'linkedin',
    hosts: ['linkedin.com'],
    shapes: ['in'],
    handle: /^[A-Za-z0-9_%-]{3,100}$/,
  },
  { platform: 'youtube', hosts: ['youtube.com'], shapes: ['at'], handle: /^[A-Za-z0-9._-]{3,30}$/ },
  { platform: 'tiktok', hosts: ['tiktok.com'], shapes: ['at'], handle: /^[A-Za-z0-9._]{2,24}$/ },
  { platform: 'reddit', hosts: ['reddit.com'], shapes: ['user'], handle: /^[A-Za-z0-9_-]{3,20}$/ },
  { platform: 'medium', hosts: ['medium.com'], shapes: ['at'], handle: /^[A-Za-z0-9._-]{1,50}$/ },
  {
    platform: 'threads',
    hosts: ['threads.net', 'threads.com'],
    shapes: ['at'],
    handle: /^[A-Za-z0-9._]{1,30}$/,
  },
  { platform: 'bilibili', hosts: ['space.bilibili.com'], shapes: ['root'], handle: /^\d{1,20}$/ },
  {
    platform: 'weibo',
    hosts: ['weibo.com'],
    shapes: ['root', 'u'],
    handle: /^[A-Za-z0-9_]{2,30}$/,
    idHandle: /^\d{1,20}$/,
    reserved: [
      'u',
      'n',
      'p',
      'login',
      'signup',
      'newlogin',
      'home',
      'hot',
      'search',
      'explore',
      'tv',
      'set',
      'messages',
      'at',
      'comment',
      'fav',
      'like',
      'ajax',
      'about',
      'aj',
    ],
  },
];

/** `url` is a normalised http(s) URL. Returns the profile, or null for a plain website. */
export function detectSocialProfile(url: string): SocialProfile | null {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return null;
  }
  const host = parsed.hostname.toLowerCase().replace(/^(www|m|mobile)\./, '');
  const rule = RULES.find((r) => r.hosts.includes(host));
  if (!rule) return null;
  // One or two path segments, an optional trailing slash; anything deeper is a page.
  const segments = parsed.pathname.replace(/\/$/, '').split('/').slice(1).map(safeDecode);
  if (segments.length === 0 || segments.some((s) => s === '')) return null;

  for (const shape of rule.shapes) {
    const username = matchShape(shape, segments, rule);
    if (username !== null) return { platform: rule.platform, username };
  }
  return null;
}

function matchShape(shape: Shape, segments: string[], rule: PlatformRule): string | null {
  const [first, second] = segments;
  switch (shape) {
    case 'root':
      if (segments.length !== 1 || first!.startsWith('@')) return null;
      if (rule.reserved?.includes(first!.toLowerCase())) return null;
      return rule.handle.test(first!) ? first! : null;
    case 'at':
      if (segments.length !== 1 || !first!.startsWith('@')) return null;
      return rule.handle.test(first!.slice(1)) ? first!.slice(1) : null;
    case 'in':
    case 'user':
    case 'u': {
      if (segments.length !== 2 || first!.toLowerCase() !== shape) return null;
      const pattern = shape === 'u' ? (rule.idHandle ?? rule.handle) : rule.handle;
      return pattern.test(second!) ? second! : null;
    }
  }
}

function safeDecode(s: string): string {
  try {
    return decodeURIComponent(s);
  } catch {
    return s;
  }
}
