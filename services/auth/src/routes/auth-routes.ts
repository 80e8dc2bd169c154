// HTTP of /api/auth: parse with the shared schemas, call the login, shape the answer.
import { Router, type Request, type Response } from 'express';
import type { Redis } from '@svc/service-kit';
import {
  DeleteAccountBody,
  ModeratorEmailParams,
  SendCodeBody,
  SetUsernameBody,
  VerifyBody,
} from '@svc/types';
import {
  callerIsModerator,
  currentSessionEpoch,
  limitFor,
  notFound,
  rateLimit,
  requireModerator,
  requireSession,
  revokeAllSessions,
  revokeSession,
  unauthorized,
} from '@svc/service-kit';
import type { AccountDeletion } from '../actions/delete-account.js';
import type { Login } from '../actions/login.js';
import { createLoginLimits } from './login-limits.js';
import { USER_NOT_FOUND, type Moderators } from '../actions/moderators.js';
import type { UserRecord } from '../store/store.js';
import { clearSessionCookie, setSessionCookie } from './session-cookie.js';
import type { AuthStore } from '../store/store.js';

export function authRoutes(deps: {
  login: Login;
  accountDeletion: AccountDeletion;
  store: AuthStore;
  moderators: Moderators;
  redis: Redis;
  redisPrefix: string;
  privateKey: string;
}): Router {
  const { login, accountDeletion, store, moderators, redis, redisPrefix: prefix, privateKey } = deps;
  // The email is known only once the body is parsed, so the limits are applied here.
  const limits = createLoginLimits({ redis, prefix });
  const logoutAllLimit = rateLimit({
    redis,
    prefix,
    name: 'auth-logout-all',
    ...limitFor('logoutAll'),
    key: (req) => req.caller?.userId,
  });
  const deleteAccountLimit = rateLimit({
    redis,
    prefix,
    name: 'auth-delete-account',
    ...limitFor('deleteAccount'),
    key: (req) => req.caller?.userId,
  });

  const router = Router();

  /**
   * Signs the session with the role as the configuration and the grants say now, in the
   * session epoch given: a later sign-out everywhere ends it.
   */
  async function startSession(
    req: Request,
    res: Response,
    user: UserRecord,
    epoch: number,
  ): Promise<void> {
    const isModerator = await moderators.isModerator(user);
    if (isModerator) await moderators.refreshConfiguredOverride(user);
    setSessionCookie(req, res, { ...user, isModerator, epoch }, privateKey);
  }

  /** The `{email}` of a moderators path; one that is not an email names no user. */
  const emailParam = (params: unknown): string => {
    const parsed = ModeratorEmailParams.safeParse(params);
    if (!parsed.success) throw notFound(USER_NOT_FOUND);
    return parsed.data.email;
  };

  router.post('/send-code', async (req, res) => {
    const { email } = SendCodeBody.parse(req.body);
    if (!(await limits.admitSendCode(req, res, email))) return;
    await login.sendCode(email);
    res.json({ sent: true });
  });

  router.post('/verify', async (req, res) => {
    const { email, code } = VerifyBody.parse(req.body);
    const admitted = await limits.admitVerify(req, res, email);
    if (!admitted) return;
    const user = await login.verify(email, code);
    await admitted.succeeded();
    await startSession(req, res, user, await currentSessionEpoch(redis, prefix, user.id));
    res.json({ user });
  });

  router.get('/me', requireSession, async (req, res) => {
    const user = await store.findUserById(req.caller!.userId);
    if (!user) throw unauthorized();
    res.json({ user, is_moderator: callerIsModerator(req) });
  });

  // Delete my account (docs/decisions/035-account-deletion.md): a fresh login code, then
  // every session ends and the other services are told through the job outbox.
  router.delete('/me', requireSession, deleteAccountLimit.middleware, async (req, res) => {
    const { code } = DeleteAccountBody.parse(req.body);
    await accountDeletion.deleteAccount(req.caller!.userId, code);
    clearSessionCookie(req, res);
    res.json({ deleted: true });
  });

  router.post('/set-username', requireSession, async (req, res) => {
    const { username } = SetUsernameBody.parse(req.body);
    const user = await login.setUsername(req.caller!.userId, username);
    // The old token carries the old name: replace it and retire it. The new one keeps the
    // old one's epoch, so a sign-out everywhere that lands meanwhile ends it too.
    await startSession(req, res, user, req.caller!.session!.epoch ?? 0);
    await revokeSession(redis, prefix, req.caller!.session!);
    res.json({ user });
  });

  router.post('/logout', async (req, res) => {
    if (req.caller?.session) await revokeSession(redis, prefix, req.caller.session);
    clearSessionCookie(req, res);
    res.json({ success: true });
  });

  // Every session of the user ends, on every device and in every service, this one included
  // (docs/decisions/032-sign-out-everywhere.md).
  router.post('/logout-all', requireSession, logoutAllLimit.middleware, async (req, res) => {
    await revokeAllSessions(redis, prefix, req.caller!.userId);
    clearSessionCookie(req, res);
    res.json({ success: true });
  });

  router.get('/moderators', requireModerator, async (_req, res) => {
    res.json({ moderators: await moderators.list() });
  });

  router.put('/moderators/:email', requireModerator, async (req, res) => {
    const moderator = await moderators.grant(emailParam(req.params), req.caller!.userId);
    res.json({ moderator });
  });

  router.delete('/moderators/:email', requireModerator, async (req, res) => {
    await moderators.revoke(emailParam(req.params));
    res.json({ success: true });
  });

  return router;
}
