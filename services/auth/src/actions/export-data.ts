// "Export my data" (docs/decisions/034-data-export.md): auth's rows and every other service's
// part, asked over the internal path, put together as one document. Any service failing
// fails the export: it is complete or it is not sent.
import type { ExportResponse } from '@svc/types';
import type { UserDataServices } from '../clients/user-data-services.js';
import { assembleExport, toExportUser } from '../domain/user-export.js';
import type { AuthStore } from '../store/store.js';
import type { Moderators } from './moderators.js';

export function createDataExport(deps: {
  store: AuthStore;
  services: UserDataServices;
  moderators: Pick<Moderators, 'isConfigured'>;
  now?: () => Date;
}) {
  const now = deps.now ?? (() => new Date());
  return {
    /** The user's export; null when there is no such user (any longer). */
    async exportFor(userId: string): Promise<ExportResponse | null> {
      const rows = await deps.store.userExportRows(userId);
      if (!rows) return null;
      const parts = await deps.services.exportParts(userId);
      const user = toExportUser(rows, deps.moderators.isConfigured(rows.user.email));
      return assembleExport(user, parts, now());
    },
  };
}
export type DataExport = ReturnType<typeof createDataExport>;
