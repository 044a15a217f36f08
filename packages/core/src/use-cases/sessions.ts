import { DUMMY_PASSWORD_HASH, hashPassword, verifyPassword } from '../auth/password';
import { generateSessionToken, hashSessionToken } from '../auth/session-token';
import type { User } from '../domain/types';
import { unauthorized } from '../errors';
import type { RecordStore } from '../ports';

export interface SessionDeps {
  records: RecordStore;
  sessionTtlMs: number;
  now?: () => Date;
}

const clock = (deps: { now?: () => Date }) => (deps.now ?? (() => new Date()))();

export async function logIn(
  deps: SessionDeps,
  credentials: { email: string; password: string },
): Promise<{ user: User; token: string; expiresAt: Date }> {
  const found = await deps.records.findUserByEmail(credentials.email);
  const valid = await verifyPassword(credentials.password, found?.passwordHash ?? DUMMY_PASSWORD_HASH);
  if (!found || !valid) throw unauthorized('Invalid email or password');
  const now = clock(deps);
  const token = generateSessionToken();
  const expiresAt = new Date(now.getTime() + deps.sessionTtlMs);
  await deps.records.deleteExpiredSessions(now);
  await deps.records.createSession({ tokenHash: hashSessionToken(token), userId: found.id, expiresAt, now });
  return { user: { id: found.id, email: found.email }, token, expiresAt };
}

export async function logOut(deps: SessionDeps, token: string): Promise<void> {
  await deps.records.deleteSession(hashSessionToken(token));
}

/** The user behind a session cookie, or null when it is unknown or expired. */
export async function resolveSession(deps: SessionDeps, token: string): Promise<User | null> {
  const session = await deps.records.findSession(hashSessionToken(token));
  if (!session || new Date(session.expiresAt) <= clock(deps)) return null;
  return deps.records.getUser(session.userId);
}

/** Creates or updates the configured dashboard user at boot. */
export async function ensureAdminUser(deps: SessionDeps, admin: { email: string; password: string }): Promise<User> {
  return deps.records.upsertUser({ email: admin.email, passwordHash: await hashPassword(admin.password), now: clock(deps) });
}
