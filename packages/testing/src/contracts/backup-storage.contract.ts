import { randomBytes } from 'node:crypto';
import { Readable } from 'node:stream';
import { setImmediate } from 'node:timers/promises';
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

    it('reads back a streamed body byte for byte, from a Readable or an async generator', async () => {
      const pieces = [randomBytes(300_000), randomBytes(1), randomBytes(700_000)];
      await storage.put('vercel/next.js', 'readable.json.gz', Readable.from(pieces));
      await storage.put('vercel/next.js', 'generator.json.gz', yieldPieces(pieces));
      for (const name of ['readable.json.gz', 'generator.json.gz']) {
        expect(Buffer.compare(await storage.read('vercel/next.js', name), Buffer.concat(pieces))).toBe(0);
      }
    });

    it('stores an empty object from a stream that ends at once', async () => {
      await storage.put('lib', 'empty.gz', Readable.from([]));
      expect((await storage.read('lib', 'empty.gz')).length).toBe(0);
      expect(await storage.list('lib')).toEqual(['empty.gz']);
    });

    it('overwrites an object with a streamed body, and a streamed one with a buffer', async () => {
      await storage.put('lib', 'a.gz', Buffer.from('one'));
      await storage.put('lib', 'a.gz', Readable.from([Buffer.from('tw'), Buffer.from('o')]));
      expect((await storage.read('lib', 'a.gz')).toString()).toBe('two');
      await storage.put('lib', 'a.gz', Buffer.from('three'));
      expect((await storage.read('lib', 'a.gz')).toString()).toBe('three');
      expect(await storage.list('lib')).toEqual(['a.gz']);
    });

    it('rejects a body that fails halfway and keeps no part of it', async () => {
      await expect(storage.put('lib', 'broken.json.gz', failHalfway())).rejects.toThrow('source failed halfway');
      expect(await storage.list('lib')).toEqual([]);
      await expect(storage.read('lib', 'broken.json.gz')).rejects.toThrow(/broken\.json\.gz/);
    });

    it('keeps the earlier object of a name when its replacement fails halfway', async () => {
      const earlier = randomBytes(1_000);
      await storage.put('lib', 'snapshot.json.gz', earlier);
      await expect(storage.put('lib', 'snapshot.json.gz', failHalfway())).rejects.toThrow('source failed halfway');
      expect(Buffer.compare(await storage.read('lib', 'snapshot.json.gz'), earlier)).toBe(0);
      expect(await storage.list('lib')).toEqual(['snapshot.json.gz']);
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

    it('keeps the versions of a library apart from it and from each other (`@` and `+` in ids)', async () => {
      await storage.put('demo/lib', 'a.gz', Buffer.from('base'));
      await storage.put('demo/lib@1.2.0', 'a.gz', Buffer.from('one'));
      await storage.put('demo/lib@1.2.0+build.5', 'a.gz', Buffer.from('build'));
      expect((await storage.read('demo/lib@1.2.0', 'a.gz')).toString()).toBe('one');
      expect((await storage.read('demo/lib@1.2.0+build.5', 'a.gz')).toString()).toBe('build');
      expect(await storage.deleteAll('demo/lib@1.2.0')).toBe(1);
      expect(await storage.list('demo/lib@1.2.0')).toEqual([]);
      expect(await storage.list('demo/lib@1.2.0+build.5')).toEqual(['a.gz']);
      expect((await storage.read('demo/lib', 'a.gz')).toString()).toBe('base');
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

/** Yields each piece a turn of the event loop after the last, as a producer that reads from elsewhere would. */
async function* yieldPieces(pieces: Buffer[]): AsyncGenerator<Buffer> {
  for (const piece of pieces) {
    await setImmediate();
    yield piece;
  }
}

/** A megabyte in two pieces, each taken by the storage before the next is made, then an error. */
export async function* failHalfway(): AsyncGenerator<Buffer> {
  yield* yieldPieces([randomBytes(512 * 1024), randomBytes(512 * 1024)]);
  await setImmediate();
  throw new Error('source failed halfway');
}
