import type { BackupStorage } from '@docshelf/core';

export interface BackupStorageHarness {
  storage: BackupStorage;
  cleanup(): Promise<void>;
}

/** Behaviour every BackupStorage adapter must show; `create` returns a fresh, empty storage per test. */
export function describeBackupStorageContract(label: string, create: () => Promise<BackupStorageHarness>): void {
  describe(`BackupStorage contract: ${label}`, () => {
    let harness: BackupStorageHarness;
    let storage: BackupStorage;

    beforeEach(async () => {
      harness = await create();
      storage = harness.storage;
    });

    afterEach(async () => {
      await harness.cleanup();
    });

    it('lists nothing for an unknown library', async () => {
      expect(await storage.list('unknown')).toEqual([]);
    });

    it('reads back what was put, byte for byte', async () => {
      const body = Buffer.from([0x1f, 0x8b, 0x00, 0xff, 0x10]);
      await storage.put('vercel/next.js', '20250101T000000Z-full.json.gz', body);
      expect(Buffer.compare(await storage.read('vercel/next.js', '20250101T000000Z-full.json.gz'), body)).toBe(0);
    });

    it('overwrites an object put twice under the same name', async () => {
      await storage.put('lib', 'a.gz', Buffer.from('one'));
      await storage.put('lib', 'a.gz', Buffer.from('two'));
      expect((await storage.read('lib', 'a.gz')).toString()).toBe('two');
      expect(await storage.list('lib')).toEqual(['a.gz']);
    });

    it('lists names in ascending order regardless of write order', async () => {
      const names = ['20250103T000000Z.json.gz', '20250101T000000Z.json.gz', '20250102T120000Z.json.gz'];
      for (const name of names) await storage.put('lib', name, Buffer.from(name));
      expect(await storage.list('lib')).toEqual([...names].sort());
    });

    it('keeps `vercel` and `vercel/next.js` apart', async () => {
      await storage.put('vercel', 'a.gz', Buffer.from('parent'));
      await storage.put('vercel/next.js', 'a.gz', Buffer.from('child'));
      await storage.put('vercel/next.js', 'b.gz', Buffer.from('child'));
      expect(await storage.list('vercel')).toEqual(['a.gz']);
      expect(await storage.list('vercel/next.js')).toEqual(['a.gz', 'b.gz']);
      expect((await storage.read('vercel', 'a.gz')).toString()).toBe('parent');
      expect(await storage.deleteAll('vercel')).toBe(1);
      expect(await storage.list('vercel/next.js')).toEqual(['a.gz', 'b.gz']);
    });

    it('fails to read a missing object with an error naming it', async () => {
      await expect(storage.read('lib', 'missing.json.gz')).rejects.toThrow(/missing\.json\.gz/);
      await storage.put('lib', 'present.gz', Buffer.from('x'));
      await expect(storage.read('lib', 'missing.json.gz')).rejects.toThrow(/missing\.json\.gz/);
    });

    it('deletes every object of a library and counts them', async () => {
      await storage.put('lib', 'a.gz', Buffer.from('a'));
      await storage.put('lib', 'b.gz', Buffer.from('b'));
      await storage.put('other', 'a.gz', Buffer.from('a'));
      expect(await storage.deleteAll('lib')).toBe(2);
      expect(await storage.list('lib')).toEqual([]);
      expect(await storage.deleteAll('lib')).toBe(0);
      expect(await storage.list('other')).toEqual(['a.gz']);
      await storage.put('lib', 'c.gz', Buffer.from('c'));
      expect(await storage.list('lib')).toEqual(['c.gz']);
    });

    it.each(['../escape.gz', '..', '.', 'a/b.gz', 'a\\b.gz', '', 'x..gz', 'name with space.gz', '%2e%2e'])(
      'rejects the unsafe object name %j',
      async (name) => {
        await expect(storage.put('lib', name, Buffer.from('x'))).rejects.toThrow();
        await expect(storage.read('lib', name)).rejects.toThrow();
        expect(await storage.list('lib')).toEqual([]);
      },
    );
  });
}
