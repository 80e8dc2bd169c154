// svc apps …: the application listing interface (/api/v1).
import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import {
  APP_WITHDRAWAL_RETENTION_DAYS,
  AppealBody,
  AppListQuery,
  AuthorAuditQuery,
  APP_CATEGORIES,
  REPORT_REASONS,
  ReportAppBody,
  SubmitAppBody,
  UpdateAppBody,
  type App,
  type AppDetail,
  type AppListItem,
  type AuthorAuditEntry,
  type MyApp,
} from '@svc/types';
import type { SvcClient } from '@svc/client';
import type { Context } from '../context.js';
import { CommandFailed, UsageError } from '../exit-codes.js';
import { parseManifest, planManifest } from '../manifest.js';
import { readAll } from '../prompt.js';
import { renderRecord, renderTable, type Column } from '../table.js';
import { integer, parseOrUsage } from '../validate.js';
import { registerKeys } from './keys.js';

const LIST_COLUMNS: Column<AppListItem>[] = [
  { header: 'SLUG', value: (a) => a.slug },
  { header: 'NAME', value: (a) => a.name, max: 30 },
  { header: 'CATEGORY', value: (a) => a.category },
  { header: 'TYPE', value: (a) => a.app_type },
  { header: 'STATUS', value: (a) => a.status },
  { header: 'DOWNLOADS', value: (a) => a.downloads, align: 'right' },
  { header: 'AUTHOR', value: (a) => a.author_name, max: 20 },
  { header: 'URL', value: (a) => a.url, max: 50 },
];

const AUDIT_COLUMNS: Column<AuthorAuditEntry>[] = [
  { header: 'AT', value: (e) => e.at },
  { header: 'ACTOR', value: (e) => e.actor },
  { header: 'ACTION', value: (e) => e.action },
  { header: 'REASON', value: (e) => e.reason, max: 50 },
];

/**
 * Under the table of your own apps: why each blocked one was blocked, and its appeal; when
 * each withdrawn one was withdrawn and goes for good.
 */
export function blockLines(apps: MyApp[]): string[] {
  return apps.flatMap((a) => {
    if (a.status === 'withdrawn')
      return [`${a.slug}: withdrawn ${a.withdrawn_at}; deleted for good ${a.purge_at}`];
    if (!a.block) return [];
    const { block } = a;
    const appeal = block.appeal
      ? `appeal sent ${block.appeal.created_at}`
      : `appeal: svc apps appeal ${a.slug} --text "..."`;
    return [
      `${a.slug}: blocked ${block.blocked_at} by ${block.by}: ${block.reason_summary || '-'}; ${appeal}`,
    ];
  });
}

function appRecord(app: App | AppDetail): string {
  return renderRecord(Object.entries(app).filter(([k]) => k !== 'icon_svg'));
}

export function registerApps(program: Command, ctx: Context): void {
  const apps = program
    .command('apps')
    .description('the app store (/api/v1): list, submit, update and report apps; API keys');

  apps
    .command('list')
    .description('list approved apps (public), or your own apps with --mine')
    .option('--category <category>', `one of: ${APP_CATEGORIES.join(', ')}`)
    .option('--type <type>', 'web, pwa or dapp')
    .option('-q, --search <text>', 'full-text search over name, description and tags')
    .option('--limit <n>', 'page size, 1-100 (default 50)', integer('--limit'))
    .option('--offset <n>', 'pagination offset (default 0)', integer('--offset'))
    .option('--mine', 'every app you submitted, in any status (needs SVC_API_KEY or svc login)')
    .option('--installed', 'the apps installed in your desktop (needs SVC_API_KEY or svc login)')
    .action(async (opts) => {
      const client = ctx.client();
      if (opts.mine || opts.installed) {
        if (opts.mine && opts.installed)
          throw new UsageError('--mine and --installed exclude each other');
        if (opts.mine) {
          const out = await client.me.apps();
          ctx.print(out, () => {
            if (!out.apps.length) return 'no apps';
            const blocked = blockLines(out.apps);
            const table = renderTable(out.apps, LIST_COLUMNS);
            return blocked.length ? `${table}\n\n${blocked.join('\n')}` : table;
          });
          return;
        }
        const out = await client.me.installed();
        ctx.print(out, () => (out.apps.length ? renderTable(out.apps, LIST_COLUMNS) : 'no apps'));
        return;
      }
      const query = parseOrUsage(
        AppListQuery,
        {
          category: opts.category,
          app_type: opts.type,
          q: opts.search,
          limit: opts.limit,
          offset: opts.offset,
        },
        'options',
      );
      const out = await client.apps.list(query);
      ctx.print(out, () => {
        if (!out.apps.length) return 'no apps';
        const { offset, count, total } = out.meta;
        return `${renderTable(out.apps, LIST_COLUMNS)}\n\n${offset + 1}-${offset + count} of ${total}`;
      });
    });

  apps
    .command('get')
    .description('show one approved app')
    .argument('<slug>', 'the app slug')
    .action(async (slug: string) => {
      const out = await ctx.client().apps.get(slug);
      ctx.print(out, () => appRecord(out.app));
    });

  apps
    .command('submit')
    .description(
      'submit an app; with --from, create it or update it idempotently from a manifest (JSON file, - for stdin)',
    )
    .option('--from <file>', 'app manifest: the submit fields plus any updatable field')
    .option('--slug <slug>', 'URL-safe identifier, unique (3-64 chars)')
    .option('--name <name>', 'display name')
    .option('--url <url>', 'https:// address of the app')
    .option('--description <text>', 'description')
    .option('--category <category>', `one of: ${APP_CATEGORIES.join(', ')} (default tools)`)
    .option('--type <type>', 'web, pwa or dapp (default web)')
    .option('--open-mode <mode>', 'iframe or external (default iframe)')
    .option('--chain <chain>', 'blockchain identifier, for dApps')
    .addHelpText(
      'after',
      `
With --from the command is safe to run on every pipeline run:
  - no app of yours has the slug   -> POST /api/v1/apps (created)
  - you own it and a field differs -> PATCH /api/v1/apps/{slug} with the fields that differ (updated)
  - you own it and nothing differs -> nothing is sent (unchanged)
Fields left out of the manifest are left as they are. url, app_type and open_mode cannot
change after submission; a difference is reported as a warning. An invalid manifest exits 2.`,
    )
    .action(async (opts) => {
      const flags = ['slug', 'name', 'url', 'description', 'category', 'type', 'openMode', 'chain'];
      if (opts.from !== undefined) {
        const given = flags.filter((f) => opts[f] !== undefined);
        if (given.length)
          throw new UsageError(
            `--from cannot be combined with field options (${given.join(', ')})`,
          );
        await submitFromManifest(ctx, opts.from);
        return;
      }
      const body = parseOrUsage(
        SubmitAppBody,
        {
          slug: opts.slug,
          name: opts.name,
          url: opts.url,
          description: opts.description,
          category: opts.category,
          app_type: opts.type,
          open_mode: opts.openMode,
          chain: opts.chain,
        },
        'app (use --slug, --name and --url, or --from app.json)',
      );
      const out = await ctx.client().apps.submit(body);
      ctx.print(out, () => `submitted ${out.slug} (id ${out.id}, ${out.status})`);
    });

  apps
    .command('update')
    .description('change an app you own (PATCH); only the given fields change')
    .argument('<slug>', 'the app slug')
    .option('--name <name>', 'display name')
    .option('--description <text>', 'description')
    .option('--category <category>', `one of: ${APP_CATEGORIES.join(', ')}`)
    .option('--chain <chain>', 'blockchain identifier')
    .option('--icon-gradient-from <colour>', '#rrggbb')
    .option('--icon-gradient-to <colour>', '#rrggbb')
    .option('--icon-svg <file>', 'SVG file for the icon (max 20 KB)')
    .option('--tech-tags <tags>', 'comma-separated, up to 10')
    .option('--sdk-version <semver>', 'svc SDK version the app uses, e.g. 1.2.3')
    .action(async (slug: string, opts) => {
      const raw: Record<string, unknown> = {
        name: opts.name,
        description: opts.description,
        category: opts.category,
        chain: opts.chain,
        icon_gradient_from: opts.iconGradientFrom,
        icon_gradient_to: opts.iconGradientTo,
        icon_svg: opts.iconSvg === undefined ? undefined : readText(opts.iconSvg, '--icon-svg'),
        tech_tags:
          opts.techTags === undefined
            ? undefined
            : String(opts.techTags)
                .split(',')
                .map((t) => t.trim())
                .filter(Boolean),
        svc_sdk_version: opts.sdkVersion,
      };
      for (const k of Object.keys(raw)) if (raw[k] === undefined) delete raw[k];
      if (!Object.keys(raw).length)
        throw new UsageError('nothing to update: give at least one field option');
      const body = parseOrUsage(UpdateAppBody, raw, 'update');
      const out = await ctx.client().apps.update(slug, body);
      ctx.print(out, () => `updated ${out.app.slug} (${Object.keys(body).join(', ')})`);
    });

  apps
    .command('report')
    .description('report an app (needs svc login; once per user; 5 reporters block it)')
    .argument('<slug>', 'the app slug')
    .option('--reason <reason>', `one of: ${REPORT_REASONS.join(', ')} (default other)`)
    .option('--detail <text>', 'what is wrong, at most 500 characters')
    .action(async (slug: string, opts) => {
      const body = parseOrUsage(
        ReportAppBody,
        { reason: opts.reason, detail: opts.detail },
        'report',
      );
      const out = await ctx.client().apps.report(slug, body);
      ctx.print(out, () => out.message);
    });

  apps
    .command('withdraw')
    .description(
      `take your app out of the store (needs svc login: a key cannot); you keep it as withdrawn for ${APP_WITHDRAWAL_RETENTION_DAYS} days and its slug stays reserved as long`,
    )
    .argument('<slug>', 'the app slug')
    .option('--permanent', 'delete it for good now: its reports, keys and installs go too')
    .action(async (slug: string, opts: { permanent?: boolean }) => {
      const permanent = opts.permanent === true;
      await ctx.client().apps.withdraw(slug, { permanent });
      ctx.print({ slug, withdrawn: true, permanent }, () =>
        permanent
          ? `deleted ${slug} for good; its slug stays reserved until ${APP_WITHDRAWAL_RETENTION_DAYS} days after its withdrawal`
          : `withdrew ${slug}: gone from the store, its keys refused; deleted for good in ${APP_WITHDRAWAL_RETENTION_DAYS} days (now: svc apps withdraw ${slug} --permanent)`,
      );
    });

  apps
    .command('appeal')
    .description('appeal the block of your app (needs svc login; once per block, at most 1,000 characters)')
    .argument('<slug>', 'the app slug')
    .requiredOption('--text <text>', 'why the block is wrong or what you fixed (moderators read it)')
    .action(async (slug: string, opts: { text: string }) => {
      const { text } = parseOrUsage(AppealBody, { text: opts.text }, 'appeal');
      const out = await ctx.client().me.appeal(slug, text);
      ctx.print(out, () => `appealed the block of ${out.slug} at ${out.appeal.created_at}; a moderator will read it`);
    });

  apps
    .command('audit')
    .description('the moderation audit entries about your app, newest first (actors: system, moderator, author)')
    .argument('<slug>', 'the app slug')
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .option('--limit <n>', 'page size, 1-100 (default 50)', integer('--limit'))
    .action(async (slug: string, opts: { cursor?: string; limit?: number }) => {
      const query = parseOrUsage(
        AuthorAuditQuery,
        { cursor: opts.cursor, limit: opts.limit },
        'options',
      );
      const out = await ctx.client().me.appAudit(slug, query);
      ctx.print(out, () => {
        if (!out.entries.length) return 'no audit entries';
        const table = renderTable(out.entries, AUDIT_COLUMNS);
        return out.next_cursor ? `${table}\n\nolder: --cursor ${out.next_cursor}` : table;
      });
    });

  registerKeys(apps, ctx);
}

function readText(file: string, option: string): string {
  try {
    return readFileSync(file, 'utf8');
  } catch (err) {
    throw new UsageError(
      `${option}: cannot read ${file}: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`,
    );
  }
}

async function submitFromManifest(ctx: Context, file: string): Promise<void> {
  const text = file === '-' ? await readAll(ctx.io.stdin) : readText(file, '--from');
  const parsed = parseManifest(text, file === '-' ? '(stdin)' : file);
  const client: SvcClient = ctx.client();
  const mine = await client.me.apps();
  const existing = mine.apps.find((a) => a.slug === parsed.manifest.slug);
  // Neither created (the slug is reserved) nor updated (it is gone): say so, not "unchanged".
  if (existing?.status === 'withdrawn')
    throw new CommandFailed(
      `${existing.slug} was withdrawn (${existing.withdrawn_at}); it is deleted for good at ${existing.purge_at} and its slug is reserved until then`,
    );
  const plan = planManifest(parsed, existing);

  for (const field of plan.action === 'create' ? [] : plan.ignored) {
    ctx.note(
      `warning: ${field} differs from the submitted app (${String(existing![field])}); API v1 cannot change ${field} after submission`,
    );
  }

  if (plan.action === 'create') {
    const created = await client.apps.submit(plan.body);
    if (plan.followUp) {
      try {
        await client.apps.update(created.slug, plan.followUp);
      } catch (err) {
        // The app exists now: say so, so a re-run (which will PATCH) is understood.
        ctx.note(
          `created ${created.slug} (id ${created.id}) but setting ${Object.keys(plan.followUp).join(', ')} failed:`,
        );
        throw err;
      }
    }
    const result = {
      action: 'created' as const,
      id: created.id,
      slug: created.slug,
      status: created.status,
      changed: [] as string[],
      ignored: [] as string[],
    };
    ctx.print(result, () => `created ${result.slug} (id ${result.id}, ${result.status})`);
    return;
  }
  if (plan.action === 'update') {
    const { app } = await client.apps.update(existing!.slug, plan.patch);
    const result = {
      action: 'updated' as const,
      id: app.id,
      slug: app.slug,
      status: app.status,
      changed: plan.changed,
      ignored: plan.ignored,
    };
    ctx.print(
      result,
      () => `updated ${app.slug} (id ${app.id}, ${app.status}): ${plan.changed.join(', ')}`,
    );
    return;
  }
  const result = {
    action: 'unchanged' as const,
    id: existing!.id,
    slug: existing!.slug,
    status: existing!.status,
    changed: [] as string[],
    ignored: plan.ignored,
  };
  ctx.print(result, () => `unchanged ${result.slug} (id ${result.id}, ${result.status})`);
}
