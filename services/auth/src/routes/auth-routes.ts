// HTTP of /api/auth: parse with the shared schemas, call the login, shape the answer.
import { Router } from 'express';
import type { Redis } from 'ioredis';
import { SendCodeBody, SetUsernameBody, VerifyBody } from '@svc/types';
import { rateLimit, requireSession, revokeSession, unauthorized } from '@svc/service-kit';
import type { Login } from '../login.js';
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
  // Per email (DECISIONS §2); the email is known only after the body is parsed.
  const sendCodeLimit = rateLimit({ redis, prefix, name: 'auth-send-code', points: 3, durationSeconds: 60, key: () => undefined });
  const verifyLimit = rateLimit({ redis, prefix, name: 'auth-verify', points: 5, durationSeconds: 60, key: () => undefined });

  const router = Router();

  router.post('/send-code', async (req, res) => {
    const { email } = SendCodeBody.parse(req.body);
    if (!(await sendCodeLimit.consume(email, res))) return;
    await login.sendCode(email);
    res.json({ sent: true });
  });

  router.post('/verify', async (req, res) => {
    const { email, code } = VerifyBody.parse(req.body);
    if (!(await verifyLimit.consume(email, res))) return;
    const user = await login.verify(email, code);
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
