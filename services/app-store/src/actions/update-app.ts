// Updating an app: only its author may, and an API key only for its own app; a blocked app
// does not exist for anyone else, a withdrawn one for anybody. Clears the listing caches (the totals too when the change
// can move the app in or out of a filter).
import { ERROR_MESSAGES, type UpdateAppBody } from '@svc/types';
import { badRequest, forbidden, notFound, type Caller } from '@svc/service-kit';
import { InvalidIconSvg, appChanges, changesListingMembership } from '../domain/app-update.js';
import type { Listing } from '../store/listing.js';
import type { AppRow, AppStore } from '../store/store.js';

export async function updateApp(
  deps: { store: AppStore; listing: Listing },
  caller: Caller,
  slug: string,
  parseBody: () => UpdateAppBody,
): Promise<AppRow> {
  const found = await deps.store.findBySlug(slug);
  const isAuthor = found?.authorId === caller.userId;
  if (!found || found.status === 'withdrawn' || (found.status === 'blocked' && !isAuthor))
    throw notFound(ERROR_MESSAGES.appNotFound);
  if (caller.apiKey && caller.apiKey.appId !== found.id)
    throw forbidden(ERROR_MESSAGES.keyNotValidForApp);
  if (!isAuthor) throw forbidden('Only the author of the app can update it');
  // The body is validated only once the caller may change the app: 404 and 403 before 400.
  let changes;
  try {
    changes = appChanges(parseBody());
  } catch (err) {
    if (err instanceof InvalidIconSvg) throw badRequest(err.message);
    throw err;
  }
  if (caller.via === 'session') {
    const { userId, email, username } = caller;
    await deps.store.upsertDeveloper({ userId, email, username });
  }
  const updated = await deps.store.updateApp(found.id, changes);
  await deps.listing.invalidate({
    totals: changesListingMembership(changes),
    caller: caller.userId,
  });
  return updated;
}
