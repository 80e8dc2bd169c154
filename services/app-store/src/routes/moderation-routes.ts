// HTTP of /api/v1/moderation/* (moderators only; docs/decisions/009-moderation-audit-log.md): a session, then the
// kit's requireModerator (401 without a session, 403 "Moderators only" for anyone else), then
// the shared schemas, the moderation store and the shape of the answer.
import type { Express, RequestHandler } from 'express';
import {
  AppSlugParams,
  AuditQuery,
  DismissReportsBody,
  ERROR_MESSAGES,
  ModerationQueueQuery,
  ModerationReasonBody,
  type AppReportHistoryResponse,
  type ModerationActionResponse,
  type ModerationQueueResponse,
} from '@svc/types';
import {
  auditPageFor,
  conflict,
  notFound,
  requireModerator,
  type OutboxRelay,
  type SystemMessageOutbox,
} from '@svc/service-kit';
import { callerOf, type AuthRequirement } from './authentication.js';
import { changesListing, type ModerationAction } from '../domain/moderation.js';
import type { Listing } from '../store/listing.js';
import type { ModerationStore } from '../store/moderation-store.js';
import type { RateLimits } from './rate-limits.js';

export interface ModerationRoutesDeps {
  moderation: ModerationStore;
  listing: Listing;
  limits: RateLimits;
  authenticate: (requirement: AuthRequirement) => RequestHandler;
  systemMessages: Pick<SystemMessageOutbox, 'nudge'>;
  /** The job-outbox relay (the author's notify-email jobs); it also polls. */
  jobs?: Pick<OutboxRelay, 'nudge'>;
}

export function moderationRoutes(app: Express, deps: ModerationRoutesDeps): void {
  const { moderation, listing } = deps;
  // The per-user bucket counts a refused caller's attempts too (they cannot probe faster).
  const guard = [
    deps.authenticate('session'),
    deps.limits.authenticated.middleware,
    requireModerator,
  ];

  app.get('/api/v1/moderation/reports', ...guard, async (req, res) => {
    const query = ModerationQueueQuery.parse(req.query);
    const { items, total } = await moderation.queue(query);
    const body: ModerationQueueResponse = {
      apps: items.map((i) => ({
        slug: i.slug,
        name: i.name,
        status: i.status,
        open_reporters: i.openReporters,
        reasons: i.reasons,
        latest_report_at: i.latestReportAt?.toISOString() ?? null,
        appeal: i.appeal
          ? { text: i.appeal.text, created_at: i.appeal.createdAt.toISOString() }
          : null,
      })),
      meta: { limit: query.limit, offset: query.offset, count: items.length, total },
    };
    res.json(body);
  });

  app.get('/api/v1/moderation/apps/:slug/reports', ...guard, async (req, res) => {
    const { slug } = AppSlugParams.parse(req.params);
    const found = await moderation.history(slug);
    if (!found) throw notFound(ERROR_MESSAGES.appNotFound);
    const body: AppReportHistoryResponse = {
      app: { slug: found.app.slug, name: found.app.name, status: found.app.status },
      reports: found.reports.map((r) => ({
        id: r.id,
        reason: r.reason,
        detail: r.detail,
        created_at: r.createdAt.toISOString(),
        resolved_at: r.resolvedAt?.toISOString() ?? null,
        open: r.resolvedAt === null,
      })),
      appeals: found.appeals.map((a) => ({
        id: a.id,
        text: a.text,
        created_at: a.createdAt.toISOString(),
        closed_at: a.closedAt?.toISOString() ?? null,
        open: a.closedAt === null,
      })),
    };
    res.json(body);
  });

  const action = (name: ModerationAction, parseReason: (body: unknown) => string | undefined) =>
    (async (req, res) => {
      const caller = callerOf(req);
      const { slug } = AppSlugParams.parse(req.params);
      const reason = parseReason(req.body ?? {});
      const result = await moderation.moderate(slug, name, caller.userId, reason);
      if (result.kind === 'not-found') throw notFound(ERROR_MESSAGES.appNotFound);
      if (result.kind === 'conflict') throw conflict(result.message);
      if (changesListing(result.before, result.after))
        await listing.invalidate({ totals: true, caller: caller.userId });
      if (result.after === 'blocked' && result.before !== 'blocked') deps.systemMessages.nudge();
      // A block or restore wrote the author's e-mail into the job outbox.
      if (changesListing(result.before, result.after)) deps.jobs?.nudge();
      const body: ModerationActionResponse = {
        slug: result.slug,
        status: result.after,
        resolved_reports: result.resolvedReports,
      };
      res.json(body);
    }) satisfies RequestHandler;

  const withReason = (body: unknown) => ModerationReasonBody.parse(body).reason;
  app.post('/api/v1/moderation/apps/:slug/restore', ...guard, action('restore', withReason));
  app.post('/api/v1/moderation/apps/:slug/block', ...guard, action('block', withReason));
  app.post(
    '/api/v1/moderation/apps/:slug/dismiss',
    ...guard,
    action('dismiss', (body) => DismissReportsBody.parse(body).reason),
  );

  app.get('/api/v1/moderation/audit', ...guard, async (req, res) => {
    res.json(await auditPageFor(AuditQuery, req.query, moderation.audit));
  });
}
