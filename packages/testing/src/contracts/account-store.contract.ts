import type { AccountStore } from '@docshelf/core';
import { at, T0, type RecordStoresHarness } from './record-fixtures';

/** Behaviour every AccountStore adapter must show: users, sessions and API keys. `create` returns a fresh, empty store per test. */
export function describeAccountStoreContract(label: string, create: () => Promise<RecordStoresHarness>): void {
  describe(`AccountStore contract: ${label}`, () => {
    let harness: RecordStoresHarness;
    let store: AccountStore;

    beforeEach(async () => {
      harness = await create();
      store = harness.stores.accounts;
    });

    afterEach(async () => {
      await harness.cleanup();
    });

    describe('users and sessions', () => {
      it('creates a user once and updates its password by case-insensitive email', async () => {
        const created = await store.upsertUser({ email: 'Ann@Example.com', passwordHash: 'h1', now: T0 });
        const again = await store.upsertUser({ email: 'ann@example.COM', passwordHash: 'h2', now: at(1) });
        expect(again.id).toBe(created.id);
        const found = await store.findUserByEmail('ANN@EXAMPLE.COM');
        expect(found).toMatchObject({ id: created.id, passwordHash: 'h2' });
        expect(found?.email.toLowerCase()).toBe('ann@example.com');
        expect(await store.getUser(created.id)).toEqual({ id: created.id, email: found?.email });
        expect(await store.findUserByEmail('bob@example.com')).toBeNull();
        expect(await store.getUser('missing')).toBeNull();
      });

      it('gives different users different ids', async () => {
        const ann = await store.upsertUser({ email: 'ann@example.com', passwordHash: 'h', now: T0 });
        const bob = await store.upsertUser({ email: 'bob@example.com', passwordHash: 'h', now: T0 });
        expect(ann.id).not.toBe(bob.id);
      });

      it('creates, finds, deletes and expires sessions', async () => {
        const user = await store.upsertUser({ email: 'ann@example.com', passwordHash: 'h', now: T0 });
        await store.createSession({ tokenHash: 'old', userId: user.id, expiresAt: at(10), now: T0 });
        await store.createSession({ tokenHash: 'new', userId: user.id, expiresAt: at(60), now: T0 });
        await store.createSession({ tokenHash: 'gone', userId: user.id, expiresAt: at(60), now: T0 });
        expect(await store.findSession('old')).toEqual({
          userId: user.id,
          expiresAt: at(10).toISOString(),
          lastUsedAt: T0.toISOString(),
        });
        expect(await store.findSession('missing')).toBeNull();
        await store.deleteSession('gone');
        expect(await store.findSession('gone')).toBeNull();
        expect(await store.deleteExpiredSessions(at(30))).toBe(1);
        expect(await store.findSession('old')).toBeNull();
        expect(await store.findSession('new')).not.toBeNull();
        expect(await store.deleteExpiredSessions(at(30))).toBe(0);
      });

      it('records the last use of a session', async () => {
        const user = await store.upsertUser({ email: 'ann@example.com', passwordHash: 'h', now: T0 });
        await store.createSession({ tokenHash: 'used', userId: user.id, expiresAt: at(60), now: T0 });
        await store.touchSession('used', at(5));
        expect((await store.findSession('used'))?.lastUsedAt).toBe(at(5).toISOString());
      });
    });

    describe('api keys', () => {
      const key = (id: string, userId: string, minutes: number, permissions: 'read' | 'admin' = 'read') => ({
        id,
        userId,
        name: `key ${id}`,
        keyHash: `hash-${id}`,
        keyPrefix: `ds_${id}`,
        permissions,
        now: at(minutes),
      });

      it('creates keys that are listed newest first, never used yet', async () => {
        const ann = await store.upsertUser({ email: 'ann@example.com', passwordHash: 'h', now: T0 });
        const created = await store.createApiKey(key('k1', ann.id, 1, 'admin'));
        expect(created).toEqual({
          id: 'k1',
          name: 'key k1',
          keyPrefix: 'ds_k1',
          permissions: 'admin',
          lastUsedAt: null,
          createdAt: at(1).toISOString(),
        });
        await store.createApiKey(key('k2', ann.id, 2));
        await store.createApiKey(key('k3', ann.id, 3));
        expect((await store.listApiKeys(ann.id)).map((k) => k.id)).toEqual(['k3', 'k2', 'k1']);
        expect(await store.listApiKeys('nobody')).toEqual([]);
      });

      it('finds a key by hash together with its owner', async () => {
        const ann = await store.upsertUser({ email: 'ann@example.com', passwordHash: 'h', now: T0 });
        await store.createApiKey(key('k1', ann.id, 1));
        expect(await store.findApiKeyByHash('hash-k1')).toEqual({
          id: 'k1',
          userId: ann.id,
          name: 'key k1',
          keyPrefix: 'ds_k1',
          permissions: 'read',
          lastUsedAt: null,
          createdAt: at(1).toISOString(),
        });
        expect(await store.findApiKeyByHash('hash-unknown')).toBeNull();
      });

      it('finds the keys of a prefix with their hashes', async () => {
        const ann = await store.upsertUser({ email: 'ann@example.com', passwordHash: 'h', now: T0 });
        await store.createApiKey(key('k1', ann.id, 1));
        await store.createApiKey(key('k2', ann.id, 2));
        expect(await store.findApiKeysByPrefix('ds_k1')).toEqual([
          expect.objectContaining({ id: 'k1', userId: ann.id, keyPrefix: 'ds_k1', keyHash: 'hash-k1' }),
        ]);
        expect(await store.findApiKeysByPrefix('ds_none')).toEqual([]);
      });

      it('records the last use when touched', async () => {
        const ann = await store.upsertUser({ email: 'ann@example.com', passwordHash: 'h', now: T0 });
        await store.createApiKey(key('k1', ann.id, 1));
        await store.touchApiKey('k1', at(9));
        expect((await store.findApiKeyByHash('hash-k1'))?.lastUsedAt).toBe(at(9).toISOString());
        expect((await store.listApiKeys(ann.id))[0]?.lastUsedAt).toBe(at(9).toISOString());
      });

      it('deletes only the user own key', async () => {
        const ann = await store.upsertUser({ email: 'ann@example.com', passwordHash: 'h', now: T0 });
        const bob = await store.upsertUser({ email: 'bob@example.com', passwordHash: 'h', now: T0 });
        await store.createApiKey(key('ann-key', ann.id, 1));
        await store.createApiKey(key('bob-key', bob.id, 1));
        expect(await store.deleteApiKey(ann.id, 'bob-key')).toBe(false);
        expect(await store.findApiKeyByHash('hash-bob-key')).not.toBeNull();
        expect(await store.deleteApiKey(ann.id, 'ann-key')).toBe(true);
        expect(await store.deleteApiKey(ann.id, 'ann-key')).toBe(false);
        expect(await store.findApiKeyByHash('hash-ann-key')).toBeNull();
        expect((await store.listApiKeys(bob.id)).map((k) => k.id)).toEqual(['bob-key']);
      });
    });
  });
}
