// `svc apps submit --from app.json`: the app manifest a pipeline keeps in its repository,
// and the plan that makes running it idempotent (create, update what changed, or nothing).
import {
  HexColor,
  IconSvg,
  SemVer,
  SubmitAppBody,
  TechTags,
  type App,
  type UpdateAppBody,
} from '@svc/types';
import { z } from 'zod';
import { UsageError } from './exit-codes.js';
import { parseOrUsage } from './validate.js';

/**
 * The submit body (SubmitAppBody: the same rules as POST /api/v1/apps) plus the fields only
 * PATCH can set. Strict: an unknown field is a typo to report, not something to drop.
 */
export const AppManifest = z.strictObject({
  ...SubmitAppBody.shape,
  icon_gradient_from: HexColor.nullable().optional(),
  icon_gradient_to: HexColor.nullable().optional(),
  icon_svg: IconSvg.nullable().optional(),
  tech_tags: TechTags.optional(),
  svc_sdk_version: SemVer.nullable().optional(),
});
export type AppManifest = z.infer<typeof AppManifest>;

/** Fields PATCH /api/v1/apps/{slug} accepts. */
export const UPDATABLE_FIELDS = [
  'name',
  'description',
  'category',
  'chain',
  'icon_gradient_from',
  'icon_gradient_to',
  'icon_svg',
  'tech_tags',
  'svc_sdk_version',
] as const;
type UpdatableField = (typeof UPDATABLE_FIELDS)[number];

/** Fields fixed at submission: API v1 has no way to change them. */
export const FIXED_FIELDS = ['url', 'app_type', 'open_mode'] as const;
export type FixedField = (typeof FIXED_FIELDS)[number];

const SUBMIT_FIELDS = [
  'slug',
  'name',
  'url',
  'description',
  'category',
  'app_type',
  'open_mode',
  'chain',
] as const;

export interface ParsedManifest {
  manifest: AppManifest;
  /** Fields written in the file (defaults filled in by the schema are not among them). */
  present: ReadonlySet<string>;
}

/** Parses and validates manifest text; any problem is a usage error (exit 2). */
export function parseManifest(text: string, source: string): ParsedManifest {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (err) {
    throw new UsageError(`invalid manifest ${source}: not JSON (${(err as Error).message})`);
  }
  if (!raw || typeof raw !== 'object' || Array.isArray(raw)) {
    throw new UsageError(`invalid manifest ${source}: expected a JSON object`);
  }
  const manifest = parseOrUsage(AppManifest, raw, `manifest ${source}`);
  return { manifest, present: new Set(Object.keys(raw)) };
}

export type ManifestPlan =
  | {
      action: 'create';
      body: z.input<typeof SubmitAppBody>;
      /** PATCH-only fields of the manifest, applied right after creation. */
      followUp: UpdateAppBody | undefined;
    }
  | { action: 'update'; patch: UpdateAppBody; changed: string[]; ignored: FixedField[] }
  | { action: 'unchanged'; ignored: FixedField[] };

/**
 * Decides what to do with a manifest given the caller's app of that slug (or none).
 * Updating sends only the fields written in the manifest whose values differ: fields left
 * out of the file stay as they are. Fields fixed at submission that differ are reported in
 * `ignored` (the API cannot change them).
 */
export function planManifest(parsed: ParsedManifest, existing: App | undefined): ManifestPlan {
  const { manifest, present } = parsed;
  if (!existing) {
    const body: Record<string, unknown> = {};
    for (const field of SUBMIT_FIELDS) {
      if (manifest[field] !== undefined) body[field] = manifest[field];
    }
    const followUp: Record<string, unknown> = {};
    for (const field of UPDATABLE_FIELDS) {
      if (!(SUBMIT_FIELDS as readonly string[]).includes(field) && present.has(field)) {
        followUp[field] = manifest[field];
      }
    }
    return {
      action: 'create',
      body: body as z.input<typeof SubmitAppBody>,
      followUp: Object.keys(followUp).length ? (followUp as UpdateAppBody) : undefined,
    };
  }

  const patch: Record<string, unknown> = {};
  for (const field of UPDATABLE_FIELDS) {
    if (!present.has(field)) continue;
    const wanted = manifest[field as UpdatableField] ?? null;
    if (!sameValue(wanted, existing[field] ?? null)) patch[field] = wanted;
  }
  const ignored: FixedField[] = FIXED_FIELDS.filter(
    (field) => present.has(field) && manifest[field] !== existing[field],
  );
  const changed = Object.keys(patch);
  return changed.length
    ? { action: 'update', patch: patch as UpdateAppBody, changed, ignored }
    : { action: 'unchanged', ignored };
}

function sameValue(a: unknown, b: unknown): boolean {
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((x, i) => x === b[i]);
  }
  return a === b;
}
