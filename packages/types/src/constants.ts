// Plain values of the contract, with no zod: what a browser bundle may import
// (`@svc/types/constants`) without carrying the schemas. The schemas are built from them.

/** The 12 translation / UI languages. */
export const LANGUAGE_CODES = [
  'zh-CN',
  'zh-HK',
  'zh-TW',
  'en',
  'es',
  'ar',
  'hi',
  'pt',
  'ja',
  'ko',
  'fr',
  'de',
] as const;
/** The 11 site tags, stored in Chinese and translated by the client. */
export const SITE_TAGS = [
  '工具',
  '技术',
  '设计',
  '新闻',
  '社区',
  '学习',
  '娱乐',
  '资源',
  '商业',
  '生活',
  '社交',
] as const;
