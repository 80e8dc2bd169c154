// The pseudonym a deleted user becomes where a trace of their actions stays (audit entries,
// reports, the grants they made): drawn at random once per deletion, so it ties that
// person's entries together and to nobody (docs/decisions/035-account-deletion.md).
import { randomBytes } from 'node:crypto';
import type { DeletedUserPseudonym } from '@svc/types';

export const newDeletedUserPseudonym = (): DeletedUserPseudonym =>
  `deleted-user-${randomBytes(8).toString('hex')}`;
