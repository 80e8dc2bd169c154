// docs/decisions/002-email-code-login-and-sessions.md: avatar_url is a Gravatar-style URL of the email's SHA-256.
import { createHash } from 'node:crypto';

export function avatarUrl(email: string): string {
  const hash = createHash('sha256').update(email.trim().toLowerCase()).digest('hex');
  return `https://www.gravatar.com/avatar/${hash}?d=identicon`;
}
