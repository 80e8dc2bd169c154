// HTTP of /api/auth: parse with the shared schemas, call the login, shape the answer.
import { Router } from 'express';
import type { Redis } from 'ioredis';
import { SendCodeBody, SetUsernameBody, VerifyBody } from '@svc/types';
import { requireSession, revokeSession, unauthorized } from '@svc/service-kit';
import type { Login } from '../login.js';
import { createLoginLimits } from '../login-limits.js';
import { clearSessionCookie, setSessionCookie } from '../session-cookie.js';
import type { AuthStore } from '../store.js';

export function authRoutes(deps: {
  login: Login;
  store: AuthStore;
  redis: Redis;
  redisPrefix: string;
  privateKey: string;
}): Router {
  const { login, store, redis, redisPrefix: prefix, privateKey } = deps;
  // The email is known only once the body is parsed, so the limits are applied here.
  const limits = createLoginLimits({ redis, prefix });

  const router = Router();

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
    setSessionCookie(req, res, user, privateKey);
    res.json({ user });
  });

  router.get('/me', requireSession, async (req, res) => {
    const user = await store.findUserById(req.caller!.userId);
    if (!user) throw unauthorized();
    res.json({ user });
  });

  router.post('/set-username', requireSession, async (req, res) => {
    const { username } = SetUsernameBody.parse(req.body);
    const user = await login.setUsername(req.caller!.userId, username);
    // The old token carries the old name: replace it and retire it.
    setSessionCookie(req, res, user, privateKey);
    await revokeSession(redis, prefix, req.caller!.session!);
    res.json({ user });
  });

  router.post('/logout', async (req, res) => {
    if (req.caller?.session) await revokeSession(redis, prefix, req.caller.session);
    clearSessionCookie(req, res);
    res.json({ success: true });
  });

  return router;
}
