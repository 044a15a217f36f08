import { createHash, randomBytes } from 'node:crypto';

export const SESSION_COOKIE = 'docshelf_session';

export function generateSessionToken(): string {
  return randomBytes(32).toString('base64url');
}

/** Only the hash is stored, so a leaked database does not hand out live sessions. */
export function hashSessionToken(token: string): string {
  return createHash('sha256').update(token).digest('hex');
}
