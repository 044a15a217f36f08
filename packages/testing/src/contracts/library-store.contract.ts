import { countTokens, type LibraryInput, type LibraryStore } from '@docshelf/core';
import { at, chunk, ingestion, library, T0, type RecordStoresHarness } from './record-fixtures';

/** Behaviour every LibraryStore adapter must show: libraries, their chunks, swaps and embedding models. `create` returns a fresh, empty store per test. */
export function describeLibraryStoreContract(label: string, create: () => Promise<RecordStoresHarness>): void {
  describe(`LibraryStore contract: ${label}`, () => {
    let harness: RecordStoresHarness;
    let store: LibraryStore;

    beforeEach(async () => {
      harness = await create();
      store = harness.stores.libraries;
    });

    afterEach(async () => {
      await harness.cleanup();
    });

    describe('libraries', () => {
      it('returns null and an empty list before anything is ingested', async () => {
        expect(await store.getLibrary('vercel/next.js')).toBeNull();
        expect(await store.listLibraries()).toEqual([]);
      });

      it('creates a library on the first ingestion', async () => {
        const created = await store.commitIngestion(ingestion({ chunks: [chunk('a'), chunk('b')] }));
        expect(created).toEqual({
          id: 'vercel/next.js',
          name: 'Next.js',
          description: 'The React framework',
          sourceUrl: 'https://github.com/vercel/next.js',
          sourceType: 'github',
          version: 'v15',
          chunkCount: 2,
          ownerId: 'owner-1',
          createdAt: T0.toISOString(),
          updatedAt: T0.toISOString(),
        });
        expect(await store.getLibrary('vercel/next.js')).toEqual(created);
      });

      it('updates fields on a later ingestion but keeps owner and creation time', async () => {
        await store.commitIngestion(ingestion());
        const updated = await store.commitIngestion(
          ingestion({
            library: library({ name: 'Next', description: 'New description', version: 'v16', sourceType: 'website' }),
            ownerId: 'someone-else',
            now: at(5),
          }),
        );
        expect(updated).toMatchObject({
          name: 'Next',
          description: 'New description',
          version: 'v16',
          sourceType: 'website',
          ownerId: 'owner-1',
          createdAt: T0.toISOString(),
          updatedAt: at(5).toISOString(),
        });
      });

      it('omits optional fields that are absent, also when a later ingestion drops them', async () => {
        const minimal: LibraryInput = { id: 'lib', name: 'Lib', sourceType: 'upload' };
        const created = await store.commitIngestion(ingestion({ library: minimal }));
        expect(Object.keys(created).sort()).toEqual(
          ['chunkCount', 'createdAt', 'id', 'name', 'ownerId', 'sourceType', 'updatedAt'].sort(),
        );
        await store.commitIngestion(
          ingestion({ library: { ...minimal, description: 'd', version: '1', sourceUrl: 'u' } }),
        );
        const dropped = await store.commitIngestion(ingestion({ library: minimal, now: at(1) }));
        expect(dropped).not.toHaveProperty('description');
        expect(dropped).not.toHaveProperty('sourceUrl');
        expect(dropped).not.toHaveProperty('version');
        expect(await store.getLibrary('lib')).toEqual(dropped);
      });

      it('lists libraries ordered by id', async () => {
        for (const id of ['vercel/next.js', 'facebook/react', 'vercel']) {
          await store.commitIngestion(ingestion({ library: library({ id }) }));
        }
        expect((await store.listLibraries()).map((l) => l.id)).toEqual(['facebook/react', 'vercel', 'vercel/next.js']);
      });

      it('lists the versions of a library by its base id, ordered by id, and none of its neighbours', async () => {
        for (const id of [
          'demo/lib@1.2.0',
          'demo/lib',
          'demo/lib@1.10.0+build.5',
          'demo/lib-extra@1.0',
          'demo/lib.js@2',
          'demo/lib/sub@3',
          'demo@1',
          'demo/li@1',
        ]) {
          await store.commitIngestion(
            ingestion({ library: library({ id, version: undefined }), chunks: [chunk('a')] }),
          );
        }
        const versions = await store.listLibraryVersions('demo/lib');
        expect(versions.map((l) => l.id)).toEqual(['demo/lib@1.10.0+build.5', 'demo/lib@1.2.0']);
        expect(versions[1]).toEqual(await store.getLibrary('demo/lib@1.2.0'));
        expect(await store.listChunkMeta('demo/lib@1.2.0')).toHaveLength(1);
        expect(await store.listLibraryVersions('demo/other')).toEqual([]);
        expect((await store.listLibraryVersions('demo')).map((l) => l.id)).toEqual(['demo@1']);
      });

      it('deletes a library with its chunks and reports whether it existed', async () => {
        await store.commitIngestion(ingestion({ chunks: [chunk('a')] }));
        await store.commitIngestion(ingestion({ library: library({ id: 'other' }), chunks: [chunk('a')] }));
        expect(await store.deleteLibrary('vercel/next.js')).toBe(true);
        expect(await store.deleteLibrary('vercel/next.js')).toBe(false);
        expect(await store.getLibrary('vercel/next.js')).toBeNull();
        expect(await store.countChunks('vercel/next.js')).toBe(0);
        expect(await store.listChunkMeta('vercel/next.js')).toEqual([]);
        expect(await store.countChunks('other')).toBe(1);
      });
    });

    describe('swapping a replacement in', () => {
      const staged = '~staged/6f1c1e9e-3b0a-4c55-9a51-1f4f3b1c2d3e';

      it('makes the staged library the library in one step, keeping its owner and creation time', async () => {
        await store.commitIngestion(ingestion({ chunks: [chunk('old-1'), chunk('old-2')], ownerId: 'first-owner' }));
        await store.setEmbeddingModel('vercel/next.js', { model: 'old-model', dimensions: 4 });
        await store.commitIngestion(
          ingestion({
            library: library({ id: staged, name: 'Next.js 16', version: 'v16' }),
            chunks: [chunk('new-1'), chunk('new-2'), chunk('new-3')],
            ownerId: 'second',
            now: at(5),
          }),
        );
        await store.setEmbeddingModel(staged, { model: 'new-model', dimensions: 8 });
        expect((await store.listLibraries()).map((l) => l.id)).toEqual(['vercel/next.js']);

        expect(await store.swapLibrary(staged, 'vercel/next.js', at(10))).toBe(true);
        const swapped = await store.getLibrary('vercel/next.js');
        expect(swapped).toMatchObject({
          name: 'Next.js 16',
          version: 'v16',
          chunkCount: 3,
          ownerId: 'first-owner',
          createdAt: T0.toISOString(),
          updatedAt: at(10).toISOString(),
          embeddingModel: 'new-model',
          embeddingDimensions: 8,
        });
        expect((await store.listChunks('vercel/next.js', { offset: 0, limit: 10 })).map((c) => c.id)).toEqual([
          'new-1',
          'new-2',
          'new-3',
        ]);
        expect(await store.getLibrary(staged)).toBeNull();
        expect(await store.countChunks(staged)).toBe(0);
        // Swapped in already: a retried step changes nothing.
        expect(await store.swapLibrary(staged, 'vercel/next.js', at(11))).toBe(false);
        expect(await store.countChunks('vercel/next.js')).toBe(3);
      });

      it('creates the library when it did not exist, and leaves other libraries alone', async () => {
        await store.commitIngestion(ingestion({ library: library({ id: 'vercel' }), chunks: [chunk('keep')] }));
        await store.commitIngestion(
          ingestion({ library: library({ id: staged }), chunks: [chunk('a')], ownerId: 'creator', now: at(2) }),
        );
        expect(await store.swapLibrary(staged, 'vercel/next.js', at(3))).toBe(true);
        expect(await store.getLibrary('vercel/next.js')).toMatchObject({
          ownerId: 'creator',
          createdAt: at(3).toISOString(),
          chunkCount: 1,
        });
        expect(await store.getLibrary('vercel/next.js')).not.toHaveProperty('embeddingModel');
        expect(await store.countChunks('vercel')).toBe(1);
      });
    });

    describe('embedding model', () => {
      it('remembers the model and dimensions of the vectors, clears them, and leaves the rest alone', async () => {
        const created = await store.commitIngestion(ingestion({ chunks: [chunk('a')] }));
        expect(created).not.toHaveProperty('embeddingModel');
        await store.setEmbeddingModel('vercel/next.js', { model: 'text-embedding-3-small', dimensions: 1536 });
        expect(await store.getLibrary('vercel/next.js')).toEqual({
          ...created,
          embeddingModel: 'text-embedding-3-small',
          embeddingDimensions: 1536,
        });
        const later = await store.commitIngestion(ingestion({ chunks: [chunk('b')], now: at(1) }));
        expect(later).toMatchObject({ embeddingModel: 'text-embedding-3-small', embeddingDimensions: 1536 });
        await store.setEmbeddingModel('vercel/next.js', null);
        expect(await store.getLibrary('vercel/next.js')).toEqual({
          ...later,
          embeddingModel: undefined,
          embeddingDimensions: undefined,
        });
        expect(await store.getLibrary('vercel/next.js')).not.toHaveProperty('embeddingModel');
        await store.setEmbeddingModel('missing', { model: 'm', dimensions: 8 });
        expect(await store.getLibrary('missing')).toBeNull();
      });
    });

    describe('chunks', () => {
      it('stores chunks in payload order with increasing positions', async () => {
        await store.commitIngestion(ingestion({ chunks: [chunk('c'), chunk('a'), chunk('b')] }));
        const chunks = await store.listChunks('vercel/next.js', { offset: 0, limit: 10 });
        expect(chunks.map((c) => c.id)).toEqual(['c', 'a', 'b']);
        expectIncreasing(chunks.map((c) => c.position));
        expect(chunks[0]).toEqual({
          id: 'c',
          title: 'Title c',
          content: 'content of c',
          url: 'https://example.com/c',
          tokenCount: 10,
          position: chunks[0]?.position,
          bpeTokens: countTokens('content of c'),
        });
      });

      it("counts each chunk with the read side's tokenizer when it is written, and again when its content changes", async () => {
        const long =
          'Configure the `cacheDirectory` option before the first build — ünïcödé, emoji 🚀 and <|endoftext|> too.';
        await store.commitIngestion(ingestion({ chunks: [chunk('a', long), chunk('b')] }));
        const [a] = await store.getChunks('vercel/next.js', ['a']);
        expect(a?.bpeTokens).toBe(countTokens(long));
        // The client's tokenCount is kept as given; the BPE count is the store's own.
        expect(a?.tokenCount).toBe(10);
        await store.commitIngestion(ingestion({ chunks: [chunk('a', 'shorter now')] }));
        const [changed] = await store.listChunks('vercel/next.js', { offset: 0, limit: 1 });
        expect(changed?.bpeTokens).toBe(countTokens('shorter now'));
      });

      it('keeps the position of re-sent chunks and appends new ones after the last', async () => {
        await store.commitIngestion(ingestion({ chunks: [chunk('a'), chunk('b'), chunk('c')] }));
        const before = await store.listChunks('vercel/next.js', { offset: 0, limit: 10 });
        const library = await store.commitIngestion(
          ingestion({ chunks: [chunk('d'), chunk('b', 'changed'), chunk('e')], ingestionId: 'ing-2', now: at(1) }),
        );
        const after = await store.listChunks('vercel/next.js', { offset: 0, limit: 10 });
        expect(after.map((c) => c.id)).toEqual(['a', 'b', 'c', 'd', 'e']);
        expect(after.slice(0, 3).map((c) => c.position)).toEqual(before.map((c) => c.position));
        expectIncreasing(after.map((c) => c.position));
        expect(after.find((c) => c.id === 'b')?.content).toBe('changed');
        expect(library.chunkCount).toBe(5);
        expect(await store.countChunks('vercel/next.js')).toBe(5);
      });

      it('pages through the library by offset or after a position, alike', async () => {
        await store.commitIngestion(ingestion({ chunks: ['a', 'b', 'c', 'd', 'e'].map((id) => chunk(id)) }));
        const [first, second] = [
          await store.listChunks('vercel/next.js', { offset: 0, limit: 2 }),
          await store.listChunks('vercel/next.js', { offset: 2, limit: 2 }),
        ];
        const afterFirst = await store.listChunks('vercel/next.js', { afterPosition: first[1]!.position, limit: 2 });
        expect(afterFirst).toEqual(second);
        const rest = await store.listChunks('vercel/next.js', { afterPosition: second[1]!.position, limit: 10 });
        expect(rest.map((c) => c.id)).toEqual(['e']);
        expect(await store.listChunks('vercel/next.js', { afterPosition: -1, limit: 1 })).toEqual(first.slice(0, 1));
      });

      it('removes every old chunk first when replace is set', async () => {
        await store.commitIngestion(ingestion({ chunks: [chunk('a'), chunk('b'), chunk('c')] }));
        const library = await store.commitIngestion(
          ingestion({ chunks: [chunk('x'), chunk('b')], replace: true, ingestionId: 'ing-2', now: at(1) }),
        );
        expect(library.chunkCount).toBe(2);
        const chunks = await store.listChunks('vercel/next.js', { offset: 0, limit: 10 });
        expect(chunks.map((c) => c.id)).toEqual(['x', 'b']);
      });

      it('estimates tokenCount when it is not supplied and omits absent title and url', async () => {
        await store.commitIngestion(
          ingestion({
            chunks: [
              { id: 'plain', content: 'Hello brave new world, how are you today?' },
              chunk('given', 'x', { tokenCount: 7 }),
            ],
          }),
        );
        const [plain, given] = await store.listChunks('vercel/next.js', { offset: 0, limit: 10 });
        expect(plain?.tokenCount).toBeGreaterThan(0);
        expect(plain).not.toHaveProperty('title');
        expect(plain).not.toHaveProperty('url');
        expect(given?.tokenCount).toBe(7);
        const meta = await store.listChunkMeta('vercel/next.js');
        expect(meta).toEqual([
          { id: 'plain', tokenCount: plain?.tokenCount },
          { id: 'given', title: 'Title given', url: 'https://example.com/given', tokenCount: 7 },
        ]);
      });

      it('pages through many chunks in library order', async () => {
        const ids = Array.from({ length: 450 }, (_, i) => `chunk-${String(449 - i).padStart(3, '0')}`);
        const library = await store.commitIngestion(ingestion({ chunks: ids.map((id) => chunk(id)) }));
        expect(library.chunkCount).toBe(450);
        const seen: string[] = [];
        const positions: number[] = [];
        for (let offset = 0; offset < 500; offset += 100) {
          const page = await store.listChunks('vercel/next.js', { offset, limit: 100 });
          expect(page.length).toBe(Math.max(0, Math.min(100, 450 - offset)));
          seen.push(...page.map((c) => c.id));
          positions.push(...page.map((c) => c.position));
        }
        expect(seen).toEqual(ids);
        expectIncreasing(positions);
        expect((await store.listChunkMeta('vercel/next.js')).map((c) => c.id)).toEqual(ids);
      });

      it('lists the chunks last written by one ingestion', async () => {
        await store.commitIngestion(ingestion({ chunks: [chunk('a'), chunk('b'), chunk('c')], ingestionId: 'ing-1' }));
        await store.commitIngestion(ingestion({ chunks: [chunk('d'), chunk('a')], ingestionId: 'ing-2', now: at(1) }));
        const ofIngestion = async (ingestionId: string, page: { afterPosition?: number; limit: number }) =>
          (await store.listChunksOfIngestion('vercel/next.js', ingestionId, page)).map((c) => c.id);
        expect(await ofIngestion('ing-1', { limit: 10 })).toEqual(['b', 'c']);
        expect(await ofIngestion('ing-2', { limit: 10 })).toEqual(['a', 'd']);
        // A page at a time, from after the last position read.
        const [first] = await store.listChunksOfIngestion('vercel/next.js', 'ing-2', { limit: 1 });
        expect(first!.id).toBe('a');
        expect(await ofIngestion('ing-2', { afterPosition: first!.position, limit: 1 })).toEqual(['d']);
        expect(await ofIngestion('unknown', { limit: 10 })).toEqual([]);
      });

      it('reads chunks by id in library order, leaving out unknown ids and other libraries', async () => {
        await store.commitIngestion(
          ingestion({ library: library({ id: 'vercel' }), chunks: [chunk('c', 'elsewhere')] }),
        );
        await store.commitIngestion(ingestion({ chunks: [chunk('a'), chunk('b'), chunk('c')] }));
        const found = await store.getChunks('vercel/next.js', ['c', 'missing', 'a']);
        expect(found.map((c) => [c.id, c.content])).toEqual([
          ['a', 'content of a'],
          ['c', 'content of c'],
        ]);
        expect(found[0]).toMatchObject({
          title: 'Title a',
          url: 'https://example.com/a',
          tokenCount: 10,
          position: expect.any(Number),
        });
        expect(await store.getChunks('vercel/next.js', [])).toEqual([]);
      });

      it("keeps when each chunk's page was fetched and the page's hash, and has neither for a chunk written without", async () => {
        const fetched = { fetchedAt: at(1).toISOString(), contentHash: 'hash of a' };
        await store.commitIngestion(ingestion({ chunks: [{ ...chunk('a'), ...fetched }, chunk('b')] }));
        const [a, b] = await store.listChunks('vercel/next.js', { offset: 0, limit: 10 });
        expect(a).toMatchObject(fetched);
        expect(b).not.toHaveProperty('fetchedAt');
        expect(b).not.toHaveProperty('contentHash');
        expect((await store.getChunks('vercel/next.js', ['a']))[0]).toMatchObject(fetched);
        expect((await store.listChunksOfIngestion('vercel/next.js', 'ing-1', { limit: 1 }))[0]).toMatchObject(fetched);
        // A page fetched again and changed: its chunks are written again, with the new fetch.
        const again = { fetchedAt: at(2).toISOString(), contentHash: 'hash of a, changed' };
        await store.commitIngestion(
          ingestion({ chunks: [{ ...chunk('a', 'changed'), ...again }], ingestionId: 'ing-2', now: at(2) }),
        );
        expect((await store.getChunks('vercel/next.js', ['a']))[0]).toMatchObject({ content: 'changed', ...again });
      });

      it('confirms the chunks of a page found unchanged: a new fetch time and hash, nothing else touched', async () => {
        const first = { fetchedAt: at(1).toISOString(), contentHash: 'hash of page' };
        await store.commitIngestion(
          ingestion({
            library: library({ id: 'vercel' }),
            chunks: [{ ...chunk('a', 'elsewhere'), ...first }],
          }),
        );
        await store.commitIngestion(
          ingestion({ chunks: [{ ...chunk('a'), ...first }, { ...chunk('b'), ...first }, chunk('old')] }),
        );
        const before = await store.listChunks('vercel/next.js', { offset: 0, limit: 10 });
        const seen = at(60).toISOString();
        const library2 = await store.commitIngestion(
          ingestion({
            chunks: [],
            ingestionId: 'ing-2',
            now: at(60),
            confirmedPages: [
              { chunkIds: ['a', 'b', 'missing'], fetchedAt: seen, contentHash: 'hash of page' },
              { chunkIds: ['old'], fetchedAt: seen, contentHash: 'hash of old page' },
              { chunkIds: [], fetchedAt: seen, contentHash: 'nothing' },
            ],
          }),
        );
        const after = await store.listChunks('vercel/next.js', { offset: 0, limit: 10 });
        expect(after).toEqual([
          { ...before[0], fetchedAt: seen },
          { ...before[1], fetchedAt: seen },
          { ...before[2], fetchedAt: seen, contentHash: 'hash of old page' },
        ]);
        expect(library2.chunkCount).toBe(3);
        // Still the chunks of the ingestion that wrote them (nothing to embed again), and other libraries untouched.
        expect((await store.listChunksOfIngestion('vercel/next.js', 'ing-1', { limit: 10 })).length).toBe(3);
        expect((await store.getChunks('vercel', ['a']))[0]).toMatchObject(first);
      });

      it('keeps chunks of different libraries apart even with equal chunk ids', async () => {
        await store.commitIngestion(ingestion({ library: library({ id: 'vercel' }), chunks: [chunk('a', 'one')] }));
        await store.commitIngestion(ingestion({ chunks: [chunk('a', 'two'), chunk('b')] }));
        expect((await store.listChunks('vercel', { offset: 0, limit: 10 })).map((c) => c.content)).toEqual(['one']);
        expect(await store.countChunks('vercel')).toBe(1);
        expect(await store.countChunks('vercel/next.js')).toBe(2);
      });
    });
  });
}

function expectIncreasing(values: number[]): void {
  for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1] as number);
}
