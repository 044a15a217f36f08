import { hashPassword } from '../../auth/password';
import { hashSessionToken } from '../../auth/session-token';
import type { Session, UserWithPassword } from '../../domain/types';
import type { AccountStore } from '../../ports';
import { logIn, resolveSession, sessionTouchInterval } from './sessions';

/** The session half of a record store, in memory, counting last-use writes. */
function fakeAccounts(user: UserWithPassword) {
  const sessions = new Map<string, Session>();
  const touches: string[] = [];
  const accounts = {
    findUserByEmail: async (email: string) => (email === user.email ? user : null),
    getUser: async (id: string) => (id === user.id ? { id: user.id, email: user.email } : null),
    createSession: async (s: { tokenHash: string; userId: string; expiresAt: Date; now: Date }) => {
      sessions.set(s.tokenHash, {
        userId: s.userId,
        expiresAt: s.expiresAt.toISOString(),
        lastUsedAt: s.now.toISOString(),
      });
    },
    findSession: async (hash: string) => sessions.get(hash) ?? null,
    deleteSession: async (hash: string) => void sessions.delete(hash),
    deleteExpiredSessions: async () => 0,
    touchSession: async (hash: string, at: Date) => {
      touches.push(at.toISOString());
      const s = sessions.get(hash);
      if (s) s.lastUsedAt = at.toISOString();
    },
  } as unknown as AccountStore;
  return { accounts, sessions, touches };
}

describe('sessions', () => {
  const T0 = Date.parse('2026-01-01T00:00:00Z');
  let user: UserWithPassword;
  beforeAll(async () => {
    user = { id: 'u1', email: 'ann@example.com', passwordHash: await hashPassword('right password') };
  });
  const deps = (accounts: AccountStore, at: { now: number }) => ({
    accounts,
    sessionTtlMs: 60 * 60_000,
    sessionIdleMs: 10 * 60_000,
    now: () => new Date(at.now),
  });

  it('gives every login a new token and destroys the session presented with it', async () => {
    const { accounts, sessions } = fakeAccounts(user);
    const at = { now: T0 };
    const first = await logIn(deps(accounts, at), { email: user.email, password: 'right password' });
    const second = await logIn(deps(accounts, at), { email: user.email, password: 'right password' }, first.token);
    expect(second.token).not.toBe(first.token);
    expect(sessions.has(hashSessionToken(first.token))).toBe(false);
    expect(await resolveSession(deps(accounts, at), first.token)).toBeNull();
    expect(await resolveSession(deps(accounts, at), second.token)).toEqual({ id: 'u1', email: user.email });
    await expect(logIn(deps(accounts, at), { email: 'nobody@example.com', password: 'x' })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'Invalid email or password',
    });
    await expect(logIn(deps(accounts, at), { email: user.email, password: 'x' })).rejects.toMatchObject({
      code: 'UNAUTHORIZED',
      message: 'Invalid email or password',
    });
  });

  it('refuses an idle session, keeps a used one until its absolute expiry, and writes the last use sparingly', async () => {
    const { accounts, touches } = fakeAccounts(user);
    const at = { now: T0 };
    const { token } = await logIn(deps(accounts, at), { email: user.email, password: 'right password' });
    // Used every 5 minutes (idle limit 10): alive until the 60-minute absolute expiry.
    for (let minute = 5; minute < 60; minute += 5) {
      at.now = T0 + minute * 60_000;
      expect(await resolveSession(deps(accounts, at), token)).not.toBeNull();
    }
    at.now = T0 + 60 * 60_000;
    expect(await resolveSession(deps(accounts, at), token)).toBeNull();
    expect(touches).toHaveLength(11);

    // Requests closer together than the touch interval write nothing.
    at.now = T0;
    const busy = await logIn(deps(accounts, at), { email: user.email, password: 'right password' });
    touches.length = 0;
    for (let i = 1; i <= 10; i++) {
      at.now = T0 + i * 1_000;
      await resolveSession(deps(accounts, at), busy.token);
    }
    expect(sessionTouchInterval(10 * 60_000)).toBe(60_000);
    expect(touches).toHaveLength(0);

    // Left alone for the idle time: refused, and removed.
    at.now = T0 + 10_000 + 10 * 60_000;
    expect(await resolveSession(deps(accounts, at), busy.token)).toBeNull();
    at.now = T0 + 11_000;
    expect(await resolveSession(deps(accounts, at), busy.token)).toBeNull();
  });
});
