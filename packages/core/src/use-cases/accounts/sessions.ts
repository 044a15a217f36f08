import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../../auth/password';
import { generateSessionToken, hashSessionToken } from '../../auth/session-token';
import type { User } from '../../domain/types';
import { unauthorized } from '../../errors';
import type { AccountStore } from '../../ports';

export interface SessionDeps {
  accounts: AccountStore;
  /** Absolute lifetime of a session, from login. */
  sessionTtlMs: number;
  /** A session unused for this long is refused and removed; absent = only the absolute lifetime applies. */
  sessionIdleMs?: number;
  now?: () => Date;
}

const clock = (deps: { now?: () => Date }) => (deps.now ?? (() => new Date()))();

/** How often a session's last use is written: often enough for the idle expiry, rarely enough to keep reads reads. */
export function sessionTouchInterval(idleMs: number | undefined): number {
  return idleMs === undefined ? 60_000 : Math.min(60_000, Math.max(250, Math.floor(idleMs / 10)));
}

/**
 * Checks the credentials and opens a new session with a fresh random token. A session the client already presented
 * (`previousToken`) is destroyed, so a cookie set before login never becomes the logged-in session.
 */
export async function logIn(
  deps: SessionDeps,
  credentials: { email: string; password: string },
  previousToken?: string,
): Promise<{ user: User; token: string; expiresAt: Date }> {
  const found = await deps.accounts.findUserByEmail(credentials.email);
  // An unknown user costs the same scrypt work as a wrong password, so timing does not reveal which emails exist.
  const valid = await verifyPassword(credentials.password, found?.passwordHash ?? DUMMY_PASSWORD_HASH);
  if (!found || !valid) throw unauthorized('Invalid email or password');
  const now = clock(deps);
  if (previousToken) await deps.accounts.deleteSession(hashSessionToken(previousToken));
  const token = generateSessionToken();
  const expiresAt = new Date(now.getTime() + deps.sessionTtlMs);
  await deps.accounts.deleteExpiredSessions(now);
  await deps.accounts.createSession({ tokenHash: hashSessionToken(token), userId: found.id, expiresAt, now });
  return { user: { id: found.id, email: found.email }, token, expiresAt };
}

export async function logOut(deps: SessionDeps, token: string): Promise<void> {
  await deps.accounts.deleteSession(hashSessionToken(token));
}

/**
 * The user behind a session cookie, or null when it is unknown, past its absolute expiry or idle for too long (an
 * expired session is removed). Records the use, at most once per sessionTouchInterval.
 */
export async function resolveSession(deps: SessionDeps, token: string): Promise<User | null> {
  const tokenHash = hashSessionToken(token);
  const session = await deps.accounts.findSession(tokenHash);
  if (!session) return null;
  const now = clock(deps).getTime();
  const lastUsed = new Date(session.lastUsedAt).getTime();
  const idle = deps.sessionIdleMs !== undefined && now - lastUsed >= deps.sessionIdleMs;
  if (new Date(session.expiresAt).getTime() <= now || idle) {
    await deps.accounts.deleteSession(tokenHash);
    return null;
  }
  if (now - lastUsed >= sessionTouchInterval(deps.sessionIdleMs))
    await deps.accounts.touchSession(tokenHash, new Date(now));
  return deps.accounts.getUser(session.userId);
}

/** Creates or updates the configured dashboard user at boot. */
export async function ensureAdminUser(deps: SessionDeps, admin: { email: string; password: string }): Promise<User> {
  return deps.accounts.upsertUser({
    email: admin.email,
    passwordHash: await hashPassword(admin.password),
    now: clock(deps),
  });
}
