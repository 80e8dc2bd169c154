// svc mod …: moderators' commands (the session from svc login; others get 403 "Moderators
// only", exit 1). Apps: /api/v1/moderation/*; sites and chat: /api/moderation/*.
import type { Command } from 'commander';
import {
  AuditQuery,
  CHAT_MUTE_MAX_MINUTES,
  ChatAuditQuery,
  DismissReportsBody,
  HideSiteBody,
  ModerationQueueQuery,
  ModerationReasonBody,
  MuteChatSenderBody,
  SiteAuditQuery,
  type AppReportEntry,
  type AuditEntryView,
  type ModerationActionResponse,
  type ModerationQueueItem,
} from '@svc/types';
import type { Context } from '../context.js';
import { UsageError } from '../exit-codes.js';
import { renderTable, type Column } from '../table.js';
import { integer, parseOrUsage } from '../validate.js';

const reasons = (counts: Record<string, number | undefined>) =>
  Object.entries(counts)
    .map(([reason, n]) => `${reason}:${n}`)
    .join(' ');

const QUEUE_COLUMNS: Column<ModerationQueueItem>[] = [
  { header: 'SLUG', value: (a) => a.slug },
  { header: 'NAME', value: (a) => a.name, max: 28 },
  { header: 'STATUS', value: (a) => a.status },
  { header: 'REPORTERS', value: (a) => a.open_reporters, align: 'right' },
  { header: 'REASONS', value: (a) => reasons(a.reasons) },
  { header: 'LATEST', value: (a) => a.latest_report_at ?? '-' },
  // The author's open appeal of the block (an appealed app is listed even without reports).
  { header: 'APPEAL', value: (a) => (a.appeal ? a.appeal.text : '-'), max: 40 },
];

const REPORT_COLUMNS: Column<AppReportEntry>[] = [
  { header: 'ID', value: (r) => r.id },
  { header: 'REASON', value: (r) => r.reason },
  { header: 'OPEN', value: (r) => (r.open ? 'yes' : 'no') },
  { header: 'CREATED', value: (r) => r.created_at },
  { header: 'RESOLVED', value: (r) => r.resolved_at ?? '-' },
  { header: 'DETAIL', value: (r) => r.detail ?? '', max: 40 },
];

const AUDIT_COLUMNS: Column<AuditEntryView>[] = [
  { header: 'AT', value: (e) => e.at },
  { header: 'ACTOR', value: (e) => e.actor },
  { header: 'ACTION', value: (e) => e.action },
  {
    header: 'TARGET',
    // A target that no longer exists says why (a chat message deleted by retention).
    value: (e) =>
      `${e.target_type}:${e.target_id}${e.target_removed ? ` (removed: ${e.target_removed})` : ''}`,
  },
  { header: 'REASON', value: (e) => e.reason, max: 40 },
];

const actionLine = (verb: string, out: ModerationActionResponse) =>
  `${verb} ${out.slug}: now ${out.status}; ${out.resolved_reports} open report${out.resolved_reports === 1 ? '' : 's'} resolved`;

const reasonOf = (reason: unknown) =>
  parseOrUsage(ModerationReasonBody, { reason }, 'reason').reason;

/**
 * Each service keeps its own audit log (docs/decisions/009-moderation-audit-log.md): its target types, and the
 * call with the query checked against its schema (exit 2, nothing sent, when refused).
 */
const AUDIT_LOGS = {
  apps: {
    targets: AuditQuery.shape.target_type.unwrap().options,
    list: (ctx: Context, raw: unknown) =>
      ctx.client().appModeration.audit(parseOrUsage(AuditQuery, raw, 'options')),
  },
  sites: {
    targets: SiteAuditQuery.shape.target_type.unwrap().options,
    list: (ctx: Context, raw: unknown) =>
      ctx.client().moderation.siteAudit(parseOrUsage(SiteAuditQuery, raw, 'options')),
  },
  chat: {
    targets: ChatAuditQuery.shape.target_type.unwrap().options,
    list: (ctx: Context, raw: unknown) =>
      ctx.client().moderation.chatAudit(parseOrUsage(ChatAuditQuery, raw, 'options')),
  },
} as const;
type AuditService = keyof typeof AUDIT_LOGS;

/** --service, else the service whose log has --target-type, else apps (the first log). */
function auditServiceOf(service: string | undefined, targetType: string | undefined): AuditService {
  const names = Object.keys(AUDIT_LOGS) as AuditService[];
  if (service !== undefined) {
    if (!names.includes(service as AuditService))
      throw new UsageError(`--service must be one of ${names.join(', ')}`);
    return service as AuditService;
  }
  const owner = names.find((name) =>
    (AUDIT_LOGS[name].targets as readonly string[]).includes(targetType ?? ''),
  );
  return owner ?? 'apps';
}

export function registerMod(program: Command, ctx: Context): void {
  const mod = program
    .command('mod')
    .description('moderators only (after svc login): reported apps, audit, sites, chat');

  mod
    .command('queue')
    .description('apps with open reports, newest report first')
    .option('--limit <n>', 'page size, 1-100 (default 50)', integer('--limit'))
    .option('--offset <n>', 'pagination offset (default 0)', integer('--offset'))
    .action(async (opts: { limit?: number; offset?: number }) => {
      const query = parseOrUsage(
        ModerationQueueQuery,
        { limit: opts.limit, offset: opts.offset },
        'options',
      );
      const out = await ctx.client().appModeration.queue(query);
      ctx.print(out, () => {
        if (!out.apps.length) return 'no open reports';
        const { offset, count, total } = out.meta;
        const more = offset + count < total ? ` (more: --offset ${offset + count})` : '';
        return `${renderTable(out.apps, QUEUE_COLUMNS)}\n\n${count} of ${total} apps${more}`;
      });
    });

  mod
    .command('history')
    .description("an app's reports, open and resolved, newest first")
    .argument('<slug>', 'the app slug')
    .action(async (slug: string) => {
      const out = await ctx.client().appModeration.reports(slug);
      ctx.print(out, () => {
        const head = `${out.app.slug} (${out.app.name}): ${out.app.status}`;
        return out.reports.length
          ? `${head}\n\n${renderTable(out.reports, REPORT_COLUMNS)}`
          : `${head}\nno reports`;
      });
    });

  mod
    .command('restore')
    .description('restore a blocked app (blocked -> approved); its open reports are resolved')
    .argument('<slug>', 'the app slug')
    .requiredOption('--reason <text>', 'why (kept in the audit log)')
    .action(async (slug: string, opts: { reason: string }) => {
      const out = await ctx.client().appModeration.restore(slug, reasonOf(opts.reason));
      ctx.print(out, () => actionLine('restored', out));
    });

  mod
    .command('block')
    .description('block an app by hand')
    .argument('<slug>', 'the app slug')
    .requiredOption('--reason <text>', 'why (kept in the audit log)')
    .action(async (slug: string, opts: { reason: string }) => {
      const out = await ctx.client().appModeration.block(slug, reasonOf(opts.reason));
      ctx.print(out, () => actionLine('blocked', out));
    });

  mod
    .command('dismiss')
    .description("resolve an app's open reports without blocking it")
    .argument('<slug>', 'the app slug')
    .option('--reason <text>', 'why (kept in the audit log)')
    .action(async (slug: string, opts: { reason?: string }) => {
      const body = parseOrUsage(DismissReportsBody, { reason: opts.reason }, 'reason');
      const out = await ctx.client().appModeration.dismiss(slug, body);
      ctx.print(out, () => actionLine('dismissed reports of', out));
    });

  mod
    .command('audit')
    .description('a moderation audit log (apps, sites or chat), newest first')
    .option(
      '--service <name>',
      'whose log: apps, sites or chat (default: the one of --target-type, else apps)',
    )
    .option(
      '--target-type <type>',
      'only entries about this kind of target: app (apps), site (sites), message or sender (chat)',
    )
    .option('--target-id <id>', 'only entries about this target (needs --target-type)')
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .option('--limit <n>', 'page size, 1-100 (default 50)', integer('--limit'))
    .action(
      async (opts: {
        service?: string;
        targetType?: string;
        targetId?: string;
        cursor?: string;
        limit?: number;
      }) => {
        if (opts.targetId !== undefined && opts.targetType === undefined)
          throw new UsageError('--target-id needs --target-type');
        const service = auditServiceOf(opts.service, opts.targetType);
        const out = await AUDIT_LOGS[service].list(ctx, {
          target_type: opts.targetType,
          target_id: opts.targetId,
          cursor: opts.cursor,
          limit: opts.limit,
        });
        ctx.print(out, () => {
          if (!out.entries.length) return 'no audit entries';
          const table = renderTable(out.entries, AUDIT_COLUMNS);
          return out.next_cursor ? `${table}\n\nolder: --cursor ${out.next_cursor}` : table;
        });
      },
    );

  mod
    .command('hide-site')
    .description('hide a shared site from every public read')
    .argument('<id>', 'the site id')
    .requiredOption('--reason <text>', 'why (shown to moderators only)')
    .action(async (id: string, opts: { reason: string }) => {
      const body = parseOrUsage(HideSiteBody, { reason: opts.reason }, 'reason');
      const out = await ctx.client().moderation.hideSite(id, body.reason);
      ctx.print(out, () => `hid site ${out.site_id} at ${out.hidden_at}: ${out.hidden_reason}`);
    });

  mod
    .command('restore-site')
    .description('make a hidden site visible again')
    .argument('<id>', 'the site id')
    .action(async (id: string) => {
      const out = await ctx.client().moderation.restoreSite(id);
      ctx.print(out, () => `restored site ${out.site_id}`);
    });

  mod
    .command('delete-message')
    .description('delete a chat message (it disappears from every open client)')
    .argument('<id>', 'the message id')
    .action(async (id: string) => {
      const out = await ctx.client().moderation.deleteMessage(id);
      ctx.print(out, () => `deleted message ${out.id}`);
    });

  mod
    .command('mute')
    .description('mute the sender of a chat message')
    .argument('<message-id>', 'the id of a message the sender wrote')
    .requiredOption(
      '--minutes <n>',
      `how long, 1-${CHAT_MUTE_MAX_MINUTES} (30 days)`,
      integer('--minutes'),
    )
    .option('--reason <text>', 'why (kept in the chat audit log)')
    .action(async (messageId: string, opts: { minutes: number; reason?: string }) => {
      if (opts.minutes < 1 || opts.minutes > CHAT_MUTE_MAX_MINUTES)
        throw new UsageError(`--minutes must be 1-${CHAT_MUTE_MAX_MINUTES}`);
      const { reason } = parseOrUsage(
        MuteChatSenderBody.pick({ reason: true }),
        { reason: opts.reason },
        'reason',
      );
      const out = await ctx.client().moderation.muteSender(messageId, opts.minutes, reason);
      ctx.print(out, () => `muted the sender (${out.sender_kind}) until ${out.muted_until}`);
    });
}
