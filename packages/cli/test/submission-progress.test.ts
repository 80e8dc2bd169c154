// The steps of `svc sites submit --wait` from the submit's answer and the site's events.
import { describe, expect, it } from '@jest/globals';
import type { Site } from '@svc/types';
import { hasMetadata, SubmissionProgress } from '../src/submission-progress.js';
import { sampleSite } from './helpers.js';

const site = (over: Record<string, unknown> = {}) => sampleSite(over) as Site;
const names = (steps: { step: string }[]) => steps.map((s) => s.step);

describe('SubmissionProgress', () => {
  it('a new site: accepted, then metadata once, then tagged and done; later events change nothing', () => {
    const p = new SubmissionProgress({ site: site(), isNew: true });
    expect(names(p.start())).toEqual(['accepted']);
    expect(p.apply({ id: 'other', title: 'Not ours' })).toEqual([]);
    expect(names(p.apply({ id: 's1', title: 'Page', description: 'Text' }))).toEqual(['metadata']);
    expect(p.apply({ id: 's1', title: 'Page again' }).length).toBe(0);
    expect(p.done).toBe(false);
    const last = p.apply({ id: 's1', tags: ['工具'] });
    expect(last).toEqual([
      { step: 'tagged', site: expect.objectContaining({ title: 'Page again', tags: ['工具'] }) },
      { step: 'done', result: 'done', site: expect.objectContaining({ tags: ['工具'] }) },
    ]);
    expect(p.done).toBe(true);
    expect(p.apply({ id: 's1', tags: ['娱乐'] })).toEqual([]);
    expect(p.site.tags).toEqual(['工具']);
  });

  it('an empty tag list is not the end', () => {
    const p = new SubmissionProgress({ site: site(), isNew: true });
    p.start();
    expect(p.apply({ id: 's1', tags: [] })).toEqual([]);
    expect(p.done).toBe(false);
  });

  it('tags without metadata: done, page unreadable', () => {
    const p = new SubmissionProgress({ site: site(), isNew: true });
    p.start();
    expect(p.apply({ id: 's1', tags: ['资源'] }).at(-1)).toMatchObject({
      step: 'done',
      result: 'page_unreadable',
    });
  });

  it('a known site is judged by its record, and a re-read finishes it', () => {
    const fetched = new SubmissionProgress({ site: site({ description: 'Text' }), isNew: false });
    expect(names(fetched.start())).toEqual(['accepted', 'metadata']);
    expect(fetched.reread(site({ description: 'Text', tags: ['工具'] })).at(-1)).toMatchObject({
      step: 'done',
      result: 'done',
    });

    const bare = new SubmissionProgress({ site: site(), isNew: false });
    expect(names(bare.start())).toEqual(['accepted']);
    expect(bare.reread(site({ tags: ['资源'] })).at(-1)).toMatchObject({
      result: 'page_unreadable',
    });
  });

  it('hasMetadata: anything beyond the bare submission', () => {
    expect(hasMetadata(site())).toBe(false);
    expect(hasMetadata(site({ title: 'Page' }))).toBe(true);
    expect(hasMetadata(site({ favicon_url: 'https://example.com/f.ico' }))).toBe(true);
    expect(hasMetadata(site({ og_image_url: 'https://example.com/i.png' }))).toBe(true);
  });
});
