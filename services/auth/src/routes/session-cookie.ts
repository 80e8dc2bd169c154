// The sn_token cookie: HttpOnly, SameSite=Lax, Path=/, Secure when the request came over
// HTTPS (directly or as the trusted gateway says), Max-Age equal to the token's life.
import type { Request, Response } from 'express';
import { SESSION_COOKIE, signSessionToken, type SessionClaims } from '@svc/service-kit';

export function setSessionCookie(
  req: Request,
  res: Response,
  user: { id: string; email: string; username: string; isModerator: boolean; epoch: number },
  privateKey: string,
): SessionClaims {
  const { token, claims } = signSessionToken(user, privateKey);
  res.cookie(SESSION_COOKIE, token, {
    httpOnly: true,
    sameSite: 'lax',
    path: '/',
    secure: req.secure,
    maxAge: (claims.exp - claims.iat) * 1000,
  });
  return claims;
}

export function clearSessionCookie(req: Request, res: Response): void {
  res.clearCookie(SESSION_COOKIE, { httpOnly: true, sameSite: 'lax', path: '/', secure: req.secure });
}
