// Submitting an app: record the developer (a session caller), store the app under a slug
// no other app has nor a withdrawn app reserves, and clear the listing caches so the new
// app is listed at once.
import { ERROR_MESSAGES, type SubmitAppBody } from '@svc/types';
import { conflict, newId, type Caller } from '@svc/service-kit';
import type { Listing } from '../store/listing.js';
import { SlugTaken, type AppRow, type AppStore } from '../store/store.js';

export async function submitApp(
  deps: { store: AppStore; listing: Listing; now: () => Date },
  caller: Caller,
  body: SubmitAppBody,
): Promise<AppRow> {
  if (caller.via === 'session') {
    const { userId, email, username } = caller;
    await deps.store.upsertDeveloper({ userId, email, username });
  }
  let created: AppRow;
  try {
    created = await deps.store.createApp(
      newId(),
      body,
      { userId: caller.userId, authorName: caller.username },
      deps.now(),
    );
  } catch (err) {
    if (err instanceof SlugTaken) throw conflict(ERROR_MESSAGES.slugTaken);
    throw err;
  }
  await deps.listing.invalidate({ totals: true, caller: caller.userId });
  return created;
}
