// Internal calls (docs/decisions/034-data-export.md): auth's data export. Under /internal,
// which the gateway never forwards; the shared INTERNAL_TOKEN guards the port itself.
import type { Express } from 'express';
import { INTERNAL_USER_EXPORT_PATH, InternalUserParams, toExpressPath } from '@svc/types';
import { notFound, requireInternalToken } from '@svc/service-kit';
import { toAppsExportPart } from '../domain/user-export.js';
import type { UserExportStore } from '../store/user-export-store.js';

export function internalRoutes(
  app: Express,
  deps: { exports: UserExportStore; internalToken: string },
): void {
  const internal = requireInternalToken(deps.internalToken);

  // What app-store holds about one user, as their data export's apps section.
  app.get(toExpressPath(INTERNAL_USER_EXPORT_PATH), internal, async (req, res) => {
    const params = InternalUserParams.safeParse(req.params);
    if (!params.success) throw notFound();
    const userId = params.data.id;
    res.json(toAppsExportPart(userId, await deps.exports.read(userId)));
  });
}
