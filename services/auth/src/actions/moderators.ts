// The moderator role (docs/decisions/016-moderator-role.md): held by the emails of MODERATOR_EMAILS (the
// configuration; the API cannot revoke them) and by users a moderator granted it to (a row of
// moderator_grants). Sessions carry it as the `mod` claim; a grant or revoke also writes the
// kit's override in Redis, so every service sees the change at once in open sessions.
import type { Redis } from '@svc/service-kit';
import type { Moderator } from '@svc/types';
import { confirmModeratorRole, conflict, notFound, setModeratorRole } from '@svc/service-kit';
import type { AuthStore, UserRecord } from '../store/store.js';

export const USER_NOT_FOUND = 'User not found';
export const CONFIGURED_MODERATOR =
  'This moderator is listed in MODERATOR_EMAILS: change the configuration to remove them';

export function createModerators(deps: {
  store: AuthStore;
  redis: Redis;
  prefix: string;
  /** MODERATOR_EMAILS, lower-cased. */
  configured: readonly string[];
}) {
  const { store, redis, prefix } = deps;
  const configured = new Set(deps.configured.map((e) => e.toLowerCase()));
  const isConfigured = (email: string) => configured.has(email.toLowerCase());

  async function userByEmail(email: string): Promise<UserRecord> {
    const user = await store.findUserByEmail(email.toLowerCase());
    if (!user) throw notFound(USER_NOT_FOUND);
    return user;
  }

  const configurationEntry = (email: string, user?: UserRecord): Moderator => ({
    email,
    user_id: user?.id ?? null,
    username: user?.username ?? null,
    source: 'configuration',
    granted_by: null,
    granted_at: null,
  });

  return {
    isConfigured,

    /** The role a new session gets, from the configuration and the grants (not the token). */
    async isModerator(user: UserRecord): Promise<boolean> {
      return isConfigured(user.email) || (await store.hasModeratorGrant(user.id));
    },

    /**
     * Before a configured moderator's session is signed: an override left by an earlier
     * revoke (before the email was listed) must not hide the role, so it is set again if present.
     */
    async refreshConfiguredOverride(user: UserRecord): Promise<void> {
      if (!isConfigured(user.email)) return;
      await confirmModeratorRole(redis, prefix, user.id);
    },

    async list(): Promise<Moderator[]> {
      const emails = [...configured];
      const users = new Map((await store.findUsersByEmail(emails)).map((u) => [u.email, u]));
      const fromConfiguration = emails.map((e) => configurationEntry(e, users.get(e)));
      const grants = (await store.listModeratorGrants())
        .filter((g) => !isConfigured(g.user.email))
        .map(
          (g): Moderator => ({
            email: g.user.email,
            user_id: g.user.id,
            username: g.user.username,
            source: 'grant',
            granted_by: g.grantedBy,
            granted_at: g.createdAt.toISOString(),
          }),
        );
      return [...fromConfiguration, ...grants];
    },

    /** Idempotent; a configured moderator needs (and gets) no row. */
    async grant(email: string, grantedBy: string): Promise<Moderator> {
      const user = await userByEmail(email);
      if (isConfigured(user.email)) return configurationEntry(user.email, user);
      const grant = await store.setModeratorGrant(user.id, grantedBy, () =>
        setModeratorRole(redis, prefix, user.id, true),
      );
      return {
        email: user.email,
        user_id: user.id,
        username: user.username,
        source: 'grant',
        granted_by: grant!.grantedBy,
        granted_at: grant!.createdAt.toISOString(),
      };
    },

    /**
     * Idempotent: also for a user without a grant, which is how an email just taken out of
     * MODERATOR_EMAILS loses the role in the sessions it already has.
     */
    async revoke(email: string): Promise<void> {
      const user = await userByEmail(email);
      if (isConfigured(user.email)) throw conflict(CONFIGURED_MODERATOR);
      await store.setModeratorGrant(user.id, null, () => setModeratorRole(redis, prefix, user.id, false));
    },
  };
}
export type Moderators = ReturnType<typeof createModerators>;
