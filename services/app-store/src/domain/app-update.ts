// PATCH /api/v1/apps/{slug}: the validated body → column values. Rules beyond the field
// types (docs/decisions/004-app-store-rules.md): icon_svg is stored as sent once checked (400 naming the problem
// when it is not a single <svg> or holds scripts, handlers or external references), tech_tags
// are de-duplicated case-insensitively (first spelling kept).
import type { UpdateAppBody } from '@svc/types';
import { iconSvgProblem } from './icon-svg.js';

export interface AppChanges {
  name?: string;
  description?: string;
  iconGradientFrom?: string | null;
  iconGradientTo?: string | null;
  iconSvg?: string | null;
  techTags?: string[];
  category?: UpdateAppBody['category'];
  chain?: string | null;
  svcSdkVersion?: string | null;
}

/** The icon cannot be stored; the message names why. */
export class InvalidIconSvg extends Error {}

export function uniqueTags(tags: string[]): string[] {
  const seen = new Set<string>();
  return tags.filter((t) => {
    const k = t.toLowerCase();
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

export function appChanges(body: UpdateAppBody): AppChanges {
  const changes: AppChanges = {};
  if (body.name !== undefined) changes.name = body.name;
  if (body.description !== undefined) changes.description = body.description;
  if (body.icon_gradient_from !== undefined) changes.iconGradientFrom = body.icon_gradient_from;
  if (body.icon_gradient_to !== undefined) changes.iconGradientTo = body.icon_gradient_to;
  if (body.icon_svg !== undefined) {
    if (body.icon_svg === null) changes.iconSvg = null;
    else {
      const problem = iconSvgProblem(body.icon_svg);
      if (problem !== null) throw new InvalidIconSvg(problem);
      changes.iconSvg = body.icon_svg;
    }
  }
  if (body.tech_tags !== undefined) changes.techTags = uniqueTags(body.tech_tags);
  if (body.category !== undefined) changes.category = body.category;
  if (body.chain !== undefined) changes.chain = body.chain;
  if (body.svc_sdk_version !== undefined) changes.svcSdkVersion = body.svc_sdk_version;
  return changes;
}

/** Whether the changes can move the app in or out of a listing filter or search. */
export const changesListingMembership = (c: AppChanges): boolean =>
  c.name !== undefined ||
  c.description !== undefined ||
  c.techTags !== undefined ||
  c.category !== undefined;
