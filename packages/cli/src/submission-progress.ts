// What `svc sites submit --wait` knows of one submission: the submit's answer, then the
// site's `site_update` events: one with its metadata once the worker has fetched the page
// (none when the page cannot be fetched), then one with its tags, which ends the work.
// Pure: events in, steps out; the caller prints the steps.
import type { Site, SiteUpdatePayload, SubmitSiteResponse } from '@svc/types';

/** How a processed submission ended: with the page's metadata, or without (exit 4). */
export type Result = 'done' | 'page_unreadable';

export type Step =
  | { step: 'accepted'; isNew: boolean; site: Site }
  | { step: 'metadata'; site: Site }
  | { step: 'tagged'; site: Site }
  | { step: 'done'; result: Result; site: Site }
  | { step: 'timeout'; site: Site | null };

/** The fields the scrape sets; an update carrying any of them is the metadata step. */
const METADATA_FIELDS = ['title', 'description', 'favicon_url', 'og_image_url'] as const;

/**
 * A site whose record shows fetched metadata: until a fetch succeeds, the title is the host
 * name and there is no description and no image (docs/decisions/005-sites.md).
 */
export function hasMetadata(site: Site): boolean {
  return (
    site.title !== site.domain ||
    site.description !== '' ||
    site.favicon_url !== null ||
    site.og_image_url !== null
  );
}

export class SubmissionProgress {
  private current: Site;
  private metadataSeen = false;
  private finished = false;

  constructor(private readonly accepted: SubmitSiteResponse) {
    this.current = accepted.site;
  }

  get site(): Site {
    return this.current;
  }

  get done(): boolean {
    return this.finished;
  }

  /** The steps known from the submit's answer: a known site may be processed already. */
  start(): Step[] {
    const steps: Step[] = [{ step: 'accepted', isNew: this.accepted.isNew, site: this.current }];
    // A new site's record is the bare submission; a known one may carry earlier work.
    if (!this.accepted.isNew) steps.push(...this.fromRecord());
    return steps;
  }

  /** A `site_update` event (any site's: others are ignored). */
  apply(update: SiteUpdatePayload): Step[] {
    if (this.finished || update.id !== this.current.id) return [];
    this.current = { ...this.current, ...update };
    const steps: Step[] = [];
    if (!this.metadataSeen && METADATA_FIELDS.some((field) => field in update)) {
      this.metadataSeen = true;
      steps.push({ step: 'metadata', site: this.current });
    }
    if (update.tags && update.tags.length > 0) steps.push(...this.finish());
    return steps;
  }

  /** The site as read again after events may have been missed (the channel's resync). */
  reread(site: Site): Step[] {
    if (this.finished || site.id !== this.current.id) return [];
    this.current = site;
    return this.fromRecord();
  }

  private fromRecord(): Step[] {
    const steps: Step[] = [];
    if (!this.metadataSeen && hasMetadata(this.current)) {
      this.metadataSeen = true;
      steps.push({ step: 'metadata', site: this.current });
    }
    if (this.current.tags.length > 0) steps.push(...this.finish());
    return steps;
  }

  private finish(): Step[] {
    this.finished = true;
    // Neither a metadata event nor metadata in the record: the worker could not read the page.
    const result: Result = this.metadataSeen ? 'done' : 'page_unreadable';
    return [
      { step: 'tagged', site: this.current },
      { step: 'done', result, site: this.current },
    ];
  }
}
