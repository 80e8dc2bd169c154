// The local keyword classifier and the filter applied to the AI's answers (pure).
import { describe, expect, it } from '@jest/globals';
import { SITE_TAGS } from '@svc/types';
import { classifyByKeywords, type TaggableSite } from '../src/domain/tagging/keyword-classifier.js';
import { tagsFromAnswer } from '../src/domain/tagging/tag-filter.js';

const site = (over: Partial<TaggableSite>): TaggableSite => ({
  url: 'https://example.com/',
  domain: 'example.com',
  title: '',
  description: '',
  siteType: 'website',
  socialPlatform: null,
  ...over,
});

describe('classifyByKeywords', () => {
  it.each<[string, Partial<TaggableSite>, string]>([
    ['Chinese tool', { title: '在线JSON格式化工具', description: '免费的在线转换器' }, '工具'],
    [
      'English tool',
      { title: 'Online Image Converter', description: 'A free tool to convert images' },
      '工具',
    ],
    ['Chinese news', { title: '每日科技新闻', description: '最新资讯与快讯' }, '新闻'],
    ['English news', { title: 'World News and Headlines', description: 'Breaking news' }, '新闻'],
    ['Chinese learning', { title: 'Python 入门教程', description: '零基础学习编程课程' }, '学习'],
    [
      'English learning',
      { title: 'Learn Spanish', description: 'Free courses and lessons' },
      '学习',
    ],
    [
      'design',
      { title: 'Color Palette Generator for Designers', description: 'UI design inspiration' },
      '设计',
    ],
    ['Chinese entertainment', { title: '动漫视频在线看', description: '最新番剧与电影' }, '娱乐'],
    ['lifestyle', { title: '家常菜谱大全', description: '美食与健康生活' }, '生活'],
    [
      'business',
      { title: 'Startup pricing playbook', description: 'Marketing and sales for SaaS founders' },
      '商业',
    ],
    [
      'community',
      { title: 'Rust Forum', description: 'A community for discussion and questions' },
      '社区',
    ],
    [
      'GitHub by domain',
      { domain: 'github.com', title: 'octocat', url: 'https://github.com/octocat' },
      '技术',
    ],
    ['bilibili by domain', { domain: 'space.bilibili.com', title: '某UP主的个人空间' }, '娱乐'],
    ['.edu by domain', { domain: 'cs.stanford.edu', title: 'CS 101' }, '学习'],
    [
      'a social profile',
      { domain: 'x.com', siteType: 'profile', socialPlatform: 'x', title: 'Jane (@jane)' },
      '社交',
    ],
  ])('%s → includes %s', (_name, over, tag) => {
    const tags = classifyByKeywords(site(over));
    expect(tags).toContain(tag);
    expect(tags.length).toBeGreaterThanOrEqual(1);
    expect(tags.length).toBeLessThanOrEqual(3);
    for (const t of tags) expect(SITE_TAGS).toContain(t);
  });

  it('puts the strongest tag first', () => {
    expect(
      classifyByKeywords(site({ title: '编程教程', description: '学习 课程 教育 入门' }))[0],
    ).toBe('学习');
  });

  it('matches English keywords as whole words only', () => {
    // "tool" inside "toolbox" and "ai" inside "maintain" must not count.
    expect(classifyByKeywords(site({ title: 'Toolbox maintain' }))).toEqual(['资源']);
    expect(classifyByKeywords(site({ title: 'AI notes' }))).toContain('技术');
  });

  it('drops weak runners-up and never returns more than three', () => {
    const many = site({
      title: '工具 技术 设计 新闻 社区 学习 娱乐',
      description: 'tool code design news forum course game',
    });
    expect(classifyByKeywords(many)).toHaveLength(3);
    const oneStrong = classifyByKeywords(
      site({ title: '新闻 资讯 快讯 头条', description: 'free' }),
    );
    expect(oneStrong).toEqual(['新闻']);
  });

  it('gives an unrecognisable site the broadest tag', () => {
    expect(classifyByKeywords(site({ title: 'zzqx', domain: 'zzqx.io' }))).toEqual(['资源']);
  });

  it('is deterministic', () => {
    const s = site({ title: 'Free design resources', description: 'icons fonts templates' });
    expect(classifyByKeywords(s)).toEqual(classifyByKeywords(s));
  });
});

describe('tagsFromAnswer (AI output filter)', () => {
  it.each<[string, string[]]>([
    ['["工具","技术"]', ['工具', '技术']],
    ['Here you go: ["设计"]', ['设计']],
    ['["工具","Tools","技术","技术","学习","新闻"]', ['工具', '技术', '学习']],
    ['["tools","software"]', []],
    ['工具、技术', ['工具', '技术']],
    ['工具, 资源 and 商业', ['工具', '资源', '商业']],
    ['I cannot tell.', []],
    ['[1, null, {"a":1}, "社交"]', ['社交']],
    ['["工具"', ['工具']],
    ['', []],
  ])('%s → %j', (answer, tags) => {
    expect(tagsFromAnswer(answer)).toEqual(tags);
  });
});
