// The other services that keep data about a user (USER_DATA_SERVICES: app-store, sites,
// chat), called on their internal per-user paths with the shared INTERNAL_TOKEN
// (docs/decisions/034-data-export.md, docs/decisions/035-account-deletion.md). Each answer is checked against its part's schema: a
// service that is down, slow, or answers anything else fails the whole call, so a partial
// export is never taken for a complete one.
import {
  AppsExportPart,
  ChatExportPart,
  SitesExportPart,
  internalUserExportPath,
  internalUserPath,
  type UserDataService,
} from '@svc/types';
import { internalHeaders, type Logger } from '@svc/service-kit';

/** How long a service's part of an export may take by default (DATA_EXPORT_TIMEOUT_MS). */
export const DATA_EXPORT_TIMEOUT_MS = 10_000;

/** Each service's part of a data export, as its schema reads it. */
const PARTS = { 'app-store': AppsExportPart, sites: SitesExportPart, chat: ChatExportPart };

export interface ExportParts {
  'app-store': AppsExportPart;
  sites: SitesExportPart;
  chat: ChatExportPart;
}

/** A service could not give its part: unreachable, too slow, or an unexpected answer. */
export class UserDataServiceUnavailable extends Error {
  constructor(
    readonly service: UserDataService,
    reason: string,
  ) {
    super(`${service}: ${reason}`);
    this.name = 'UserDataServiceUnavailable';
  }
}

export interface UserDataServicesOptions {
  /** Base URL of each service (APP_STORE_URL, SITES_URL, CHAT_URL). */
  urls: Record<UserDataService, string>;
  internalToken: string;
  timeoutMs?: number;
  logger: Logger;
}

export function createUserDataServices(opts: UserDataServicesOptions) {
  const timeoutMs = opts.timeoutMs ?? DATA_EXPORT_TIMEOUT_MS;

  async function partOf<S extends UserDataService>(service: S, userId: string): Promise<ExportParts[S]> {
    const url = new URL(internalUserExportPath(userId), opts.urls[service]);
    let res: Response;
    let body: unknown;
    try {
      res = await fetch(url, {
        headers: internalHeaders(opts.internalToken),
        signal: AbortSignal.timeout(timeoutMs),
      });
      body = await res.json();
    } catch (err) {
      throw new UserDataServiceUnavailable(service, (err as Error).message);
    }
    if (!res.ok) throw new UserDataServiceUnavailable(service, `answered ${res.status}`);
    const parsed = PARTS[service].safeParse(body);
    if (!parsed.success) {
      // A service answering a shape its schema refuses is a bug, not an outage: say so loudly.
      opts.logger.error({ service, issues: parsed.error.issues.slice(0, 5) }, 'export part refused');
      throw new UserDataServiceUnavailable(service, 'answered an export part its schema refuses');
    }
    return parsed.data as ExportParts[S];
  }

  return {
    /** Every service's part of the user's export, asked in parallel; the first failure throws. */
    async exportParts(userId: string): Promise<ExportParts> {
      const [apps, sites, chat] = await Promise.all([
        partOf('app-store', userId),
        partOf('sites', userId),
        partOf('chat', userId),
      ]);
      return { 'app-store': apps, sites, chat };
    },

    /**
     * Asks one service to remove or anonymise what it holds about the user. Resolves once
     * it answered 204; throws otherwise (the deletion job is then tried again).
     */
    async deleteUserData(service: UserDataService, userId: string, pseudonym: string): Promise<void> {
      const url = new URL(internalUserPath(userId), opts.urls[service]);
      let res: Response;
      try {
        res = await fetch(url, {
          method: 'DELETE',
          headers: { ...internalHeaders(opts.internalToken), 'content-type': 'application/json' },
          body: JSON.stringify({ pseudonym }),
          signal: AbortSignal.timeout(timeoutMs),
        });
        await res.arrayBuffer();
      } catch (err) {
        throw new UserDataServiceUnavailable(service, (err as Error).message);
      }
      if (res.status !== 204) throw new UserDataServiceUnavailable(service, `answered ${res.status}`);
    },
  };
}
export type UserDataServices = ReturnType<typeof createUserDataServices>;
