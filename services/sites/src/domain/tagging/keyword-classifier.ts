// The local tagger: used when no AI is configured or the AI call failed after its retries,
// so every scraped site ends with 1–3 of the 11 tags. Pure. Scores each tag by keyword
// hits (Chinese by substring, English by whole word; the title weighs double) plus
// well-known domains, keeps the best three, and drops weak runners-up.
import { SITE_TAGS, type SiteTag, type SiteType, type SocialPlatform } from '@svc/types';

export interface TaggableSite {
  url: string;
  domain: string;
  title: string;
  description: string;
  siteType: SiteType;
  socialPlatform?: SocialPlatform | null;
}

export const MAX_TAGS = 3;

const KEYWORDS: Record<SiteTag, string[]> = {
  工具: [
    '工具',
    '在线',
    '转换',
    '生成器',
    '计算器',
    '编辑器',
    '插件',
    '效率',
    '神器',
    '翻译',
    'tool',
    'tools',
    'utility',
    'converter',
    'generator',
    'calculator',
    'editor',
    'extension',
    'plugin',
    'productivity',
    'online',
    'translator',
    'formatter',
  ],
  技术: [
    '技术',
    '编程',
    '开发',
    '代码',
    '程序员',
    '开源',
    '软件',
    '数据库',
    '人工智能',
    '算法',
    '前端',
    '后端',
    '架构',
    'programming',
    'developer',
    'developers',
    'code',
    'coding',
    'software',
    'api',
    'open source',
    'open-source',
    'javascript',
    'typescript',
    'python',
    'rust',
    'golang',
    'java',
    'database',
    'cloud',
    'devops',
    'ai',
    'machine learning',
    'tech',
    'technology',
    'engineering',
    'framework',
    'linux',
    'kubernetes',
  ],
  设计: [
    '设计',
    '字体',
    '配色',
    '图标',
    '插画',
    '排版',
    '原型',
    '视觉',
    'design',
    'designer',
    'designers',
    'ui',
    'ux',
    'figma',
    'font',
    'fonts',
    'typography',
    'icons',
    'illustration',
    'palette',
    'colors',
    'mockup',
    'sketch',
    'portfolio',
  ],
  新闻: [
    '新闻',
    '资讯',
    '快讯',
    '报道',
    '头条',
    '日报',
    '时事',
    'news',
    'breaking',
    'headlines',
    'journalism',
    'newsroom',
    'press',
    'reporting',
    'politics',
    'world news',
  ],
  社区: [
    '社区',
    '论坛',
    '讨论',
    '问答',
    '交流',
    '贴吧',
    '小组',
    'community',
    'communities',
    'forum',
    'forums',
    'discussion',
    'discussions',
    'bbs',
    'q&a',
    'questions',
    'answers',
    'members',
    'subreddit',
  ],
  学习: [
    '学习',
    '教程',
    '课程',
    '教育',
    '学校',
    '考试',
    '文档',
    '入门',
    '知识',
    '百科',
    '大学',
    'learn',
    'learning',
    'course',
    'courses',
    'tutorial',
    'tutorials',
    'education',
    'study',
    'lesson',
    'lessons',
    'academy',
    'university',
    'documentation',
    'docs',
    'guide',
    'encyclopedia',
    'school',
  ],
  娱乐: [
    '娱乐',
    '游戏',
    '电影',
    '音乐',
    '视频',
    '动漫',
    '漫画',
    '直播',
    '综艺',
    '追剧',
    '小说',
    'game',
    'games',
    'gaming',
    'movie',
    'movies',
    'film',
    'films',
    'music',
    'video',
    'videos',
    'anime',
    'comic',
    'comics',
    'manga',
    'streaming',
    'fun',
    'entertainment',
    'podcast',
    'tv',
  ],
  资源: [
    '资源',
    '下载',
    '免费',
    '合集',
    '素材',
    '模板',
    '导航',
    '大全',
    '网盘',
    '图库',
    'resource',
    'resources',
    'download',
    'downloads',
    'free',
    'collection',
    'library',
    'assets',
    'templates',
    'awesome',
    'directory',
    'stock',
    'curated',
  ],
  商业: [
    '商业',
    '创业',
    '营销',
    '金融',
    '投资',
    '电商',
    '购物',
    '企业',
    '商店',
    '理财',
    '招聘',
    'business',
    'startup',
    'startups',
    'marketing',
    'finance',
    'investing',
    'investment',
    'sales',
    'shop',
    'store',
    'ecommerce',
    'e-commerce',
    'pricing',
    'enterprise',
    'saas',
    'crypto',
    'jobs',
    'hiring',
  ],
  生活: [
    '生活',
    '美食',
    '旅行',
    '旅游',
    '健康',
    '健身',
    '家居',
    '时尚',
    '菜谱',
    '宠物',
    '摄影',
    '育儿',
    'life',
    'lifestyle',
    'food',
    'recipe',
    'recipes',
    'travel',
    'health',
    'fitness',
    'home',
    'fashion',
    'cooking',
    'pets',
    'photography',
    'wellness',
    'personal blog',
  ],
  社交: [
    '社交',
    '关注',
    '粉丝',
    '好友',
    '聊天',
    '微博',
    '动态',
    'social',
    'profile',
    'followers',
    'following',
    'friends',
    'chat',
    'messaging',
    'social network',
    'tweets',
    'posts',
  ],
};

/** Domains (and their subdomains) that say what a site is. */
const DOMAIN_HINTS: Array<[RegExp, SiteTag[]]> = [
  [
    /(^|\.)(github|gitlab|gitee|stackoverflow|npmjs|pypi|dev|hashnode|csdn|juejin|segmentfault|oschina|cnblogs)\.(com|org|to|net|cn|io)$/,
    ['技术'],
  ],
  [
    /(^|\.)(x|twitter|instagram|facebook|threads|weibo|linkedin|mastodon|bsky)\.(com|net|social|app|cn)$/,
    ['社交'],
  ],
  [
    /(^|\.)(youtube|bilibili|netflix|twitch|tiktok|douyin|spotify|iqiyi|youku|steampowered|imdb)\.(com|tv|net|cn)$/,
    ['娱乐'],
  ],
  [
    /(^|\.)(reddit|v2ex|discord|zhihu|douban|tieba|quora|hackernews|ycombinator)\.(com|gg|net)$/,
    ['社区'],
  ],
  [
    /(^|\.)(bbc|cnn|nytimes|reuters|theguardian|apnews|36kr|thepaper|ifeng|xinhuanet|huxiu)\.(com|co\.uk|cn|net)$/,
    ['新闻'],
  ],
  [
    /(^|\.)(coursera|udemy|khanacademy|edx|wikipedia|leetcode|duolingo|w3schools|mdn|freecodecamp)\.(com|org|cn)$/,
    ['学习'],
  ],
  [/(^|\.)(dribbble|behance|figma|canva|pinterest|unsplash|fonts\.google)\.(com|net)$/, ['设计']],
  [/(^|\.)(medium|substack)\.com$/, ['社区']],
  [/\.edu(\.[a-z]{2})?$/, ['学习']],
  [/(^|\.)(amazon|taobao|jd|shopify|etsy|ebay|alibaba|stripe)\.(com|cn)$/, ['商业']],
];

export function classifyByKeywords(site: TaggableSite): SiteTag[] {
  const scores = new Map<SiteTag, number>();
  const add = (tag: SiteTag, points: number) => scores.set(tag, (scores.get(tag) ?? 0) + points);

  const title = site.title.toLowerCase();
  const body = `${site.description} ${safePath(site.url)}`.toLowerCase();
  for (const tag of SITE_TAGS) {
    for (const keyword of KEYWORDS[tag]) {
      if (mentions(title, keyword)) add(tag, 2);
      else if (mentions(body, keyword)) add(tag, 1);
    }
  }
  const domain = site.domain.toLowerCase();
  for (const [pattern, tags] of DOMAIN_HINTS)
    if (pattern.test(domain)) for (const tag of tags) add(tag, 3);
  if (site.siteType === 'profile' || site.socialPlatform) add('社交', 3);

  const ranked = [...scores.entries()]
    .filter(([, score]) => score > 0)
    // Highest score first; ties in the order of SITE_TAGS, so the result is stable.
    .sort((a, b) => b[1] - a[1] || SITE_TAGS.indexOf(a[0]) - SITE_TAGS.indexOf(b[0]));
  const top = ranked[0]?.[1] ?? 0;
  const chosen = ranked
    .filter(([, score]) => score * 3 >= top)
    .slice(0, MAX_TAGS)
    .map(([tag]) => tag);
  // Nothing recognised: the broadest tag, so every site still gets one.
  return chosen.length > 0 ? chosen : ['资源'];
}

/** Chinese keywords (and multi-word phrases) match as substrings, English words whole. */
function mentions(text: string, keyword: string): boolean {
  if (!/^[a-z0-9&\- ]+$/.test(keyword)) return text.includes(keyword);
  let from = 0;
  for (;;) {
    const at = text.indexOf(keyword, from);
    if (at === -1) return false;
    const before = text[at - 1];
    const after = text[at + keyword.length];
    if (!isWordChar(before) && !isWordChar(after)) return true;
    from = at + 1;
  }
}

function isWordChar(ch: string | undefined): boolean {
  return ch !== undefined && /[a-z0-9]/.test(ch);
}

/** The URL path's words (`/blog/rust-tutorial` says something); never the query string. */
function safePath(url: string): string {
  try {
    return decodeURIComponent(new URL(url).pathname).replace(/[/_\-.]+/g, ' ');
  } catch {
    return '';
  }
}
