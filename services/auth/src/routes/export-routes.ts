// GET /api/auth/export (docs/decisions/034-data-export.md): the caller's data as a download,
// with the session only, EXPORTS_PER_HOUR per user. A try that fails gives its point back,
// so an outage does not use up the hour.
import { Router } from 'express';
import { ERROR_MESSAGES, exportFileName } from '@svc/types';
import {
  HttpError,
  limitFor,
  rateLimit,
  requireSession,
  unauthorized,
  type Logger,
  type Redis,
} from '@svc/service-kit';
import type { DataExport } from '../actions/export-data.js';
import { UserDataServiceUnavailable } from '../clients/user-data-services.js';

/** Seconds a client is asked to wait when a service could not give its part. */
const RETRY_AFTER_SECONDS = 30;

export function exportRoutes(deps: {
  dataExport: DataExport;
  redis: Redis;
  redisPrefix: string;
  logger: Logger;
}): Router {
  const limit = rateLimit({
    redis: deps.redis,
    prefix: deps.redisPrefix,
    name: 'auth-export',
    ...limitFor('exportUserData'),
    key: (req) => req.caller?.userId,
  });
  const router = Router();

  router.get('/export', requireSession, limit.middleware, async (req, res) => {
    const userId = req.caller!.userId;
    let body;
    try {
      body = await deps.dataExport.exportFor(userId);
    } catch (err) {
      await limit.refund(userId);
      if (err instanceof UserDataServiceUnavailable) {
        deps.logger.warn({ service: err.service, err: err.message }, 'data export: a part is missing');
        throw new HttpError(503, ERROR_MESSAGES.serviceUnavailable, undefined, {
          'Retry-After': String(RETRY_AFTER_SECONDS),
        });
      }
      throw err;
    }
    if (!body) throw unauthorized();
    res.setHeader('Cache-Control', 'no-store');
    // Quoted, whatever the name: the form every browser reads (express leaves a token bare).
    res.setHeader(
      'Content-Disposition',
      `attachment; filename="${exportFileName(new Date(body.exported_at))}"`,
    );
    res.json(body);
  });

  return router;
}
