// Reporting an app: one report per user and app, never one's own app nor a blocked one. The
// report that reaches the threshold blocks the app in the same transaction (with its chat
// message and the author's e-mail in the outboxes); this hurries their relays and clears the
// listing caches.
import { ERROR_MESSAGES, type ReportAppBody } from '@svc/types';
import { conflict, forbidden, notFound, type OutboxRelay, type Caller } from '@svc/service-kit';
import { reportOutcome } from '../domain/report-threshold.js';
import { reporterNetworkHash } from '../domain/reporter-network.js';
import type { Listing } from '../store/listing.js';
import type { AppStore } from '../store/store.js';

export interface ReportAppDeps {
  store: AppStore;
  listing: Listing;
  /** The read router's `wrote`: the reporter's next reads see their report. */
  wrote: (caller: string) => Promise<void>;
  systemMessages: Pick<OutboxRelay, 'nudge'>;
  jobs?: Pick<OutboxRelay, 'nudge'>;
  /** HMAC key of the reporter-network hash stored with each report. */
  ipHashSecret: string;
}

export async function reportApp(
  deps: ReportAppDeps,
  caller: Caller,
  slug: string,
  body: ReportAppBody,
  clientIp: string,
): Promise<ReturnType<typeof reportOutcome>> {
  const result = await deps.store.report(slug, caller.userId, body.reason, body.detail, {
    networkHash: reporterNetworkHash(deps.ipHashSecret, clientIp),
  });
  switch (result.kind) {
    case 'not-found':
      throw notFound(ERROR_MESSAGES.appNotFound);
    case 'blocked':
      throw conflict('App is already blocked');
    case 'own-app':
      throw forbidden('You cannot report your own app');
    case 'duplicate':
      throw conflict('You have already reported this app');
  }
  if (result.blockedNow) {
    await deps.listing.invalidate({ totals: true, caller: caller.userId });
    deps.systemMessages.nudge();
    deps.jobs?.nudge();
  } else await deps.wrote(caller.userId);
  return reportOutcome(result.reportCount);
}
