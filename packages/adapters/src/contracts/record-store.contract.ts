import {
  countTokens,
  type ChunkInput,
  type CommitIngestionInput,
  type CrawledPage,
  type LibraryInput,
  type RecordStore,
  type StagedPageContent,
} from '@docshelf/core';

export interface RecordStoreHarness {
  store: RecordStore;
  cleanup(): Promise<void>;
}

const T0 = new Date('2025-01-01T00:00:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

const library = (overrides: Partial<LibraryInput> = {}): LibraryInput => ({
  id: 'vercel/next.js',
  name: 'Next.js',
  description: 'The React framework',
  sourceUrl: 'https://github.com/vercel/next.js',
  sourceType: 'github',
  version: 'v15',
  ...overrides,
});

const chunk = (id: string, content = `content of ${id}`, extra: Partial<ChunkInput> = {}): ChunkInput => ({
  id,
  title: `Title ${id}`,
  content,
  url: `https://example.com/${id}`,
  tokenCount: 10,
  ...extra,
});

const ingestion = (overrides: Partial<CommitIngestionInput> = {}): CommitIngestionInput => ({
  library: library(),
  ownerId: 'owner-1',
  chunks: [],
  replace: false,
  ingestionId: 'ing-1',
  now: T0,
  ...overrides,
});

/** Behaviour every RecordStore adapter must show; `create` returns a fresh, empty store per test. */
export function describeRecordStoreContract(label: string, create: () => Promise<RecordStoreHarness>): void {
  describe(`RecordStore contract: ${label}`, () => {
    let harness: RecordStoreHarness;
    let store: RecordStore;

    beforeEach(async () => {
      harness = await create();
      store = harness.store;
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

      it('keeps chunks of different libraries apart even with equal chunk ids', async () => {
        await store.commitIngestion(ingestion({ library: library({ id: 'vercel' }), chunks: [chunk('a', 'one')] }));
        await store.commitIngestion(ingestion({ chunks: [chunk('a', 'two'), chunk('b')] }));
        expect((await store.listChunks('vercel', { offset: 0, limit: 10 })).map((c) => c.content)).toEqual(['one']);
        expect(await store.countChunks('vercel')).toBe(1);
        expect(await store.countChunks('vercel/next.js')).toBe(2);
      });
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

    describe('staged crawl pages', () => {
      const now = new Date('2026-01-01T00:00:00.000Z');

      it('keeps pages per staging id in staging order, last write wins, until discarded', async () => {
        await store.stagePage({
          stagingId: 's1',
          url: 'https://d.test/a',
          chunks: [{ id: 'a1', content: 'A one' }],
          now,
        });
        await store.stagePage({ stagingId: 's1', url: 'https://d.test/b', chunks: [], now });
        await store.stagePage({
          stagingId: 's2',
          url: 'https://d.test/a',
          chunks: [{ id: 'x', content: 'other crawl' }],
          now,
        });
        await store.stagePage({
          stagingId: 's1',
          url: 'https://d.test/a',
          chunks: [{ id: 'a2', title: 'T', content: 'A two', url: 'https://d.test/a', tokenCount: 2 }],
          now,
        });
        expect(await store.listStagedPages('s1')).toEqual([
          {
            url: 'https://d.test/a',
            chunks: [{ id: 'a2', title: 'T', content: 'A two', url: 'https://d.test/a', tokenCount: 2 }],
          },
          { url: 'https://d.test/b', chunks: [] },
        ]);
        await store.discardStaging('s1');
        expect(await store.listStagedPages('s1')).toEqual([]);
        expect(await store.listStagedPages('s2')).toHaveLength(1);
      });

      it('discards stale staging left by crashed crawls', async () => {
        await store.stagePage({
          stagingId: 'old',
          url: 'https://d.test/a',
          chunks: [],
          now: new Date('2020-01-01T00:00:00Z'),
        });
        await store.stagePage({ stagingId: 'new', url: 'https://d.test/a', chunks: [], now });
        await store.discardStaging('none', new Date('2025-01-01T00:00:00Z'));
        expect(await store.listStagedPages('old')).toEqual([]);
        expect(await store.listStagedPages('new')).toHaveLength(1);
      });
    });

    describe('crawled pages (what a re-crawl compares against)', () => {
      const page = (url: string, extra: Partial<CrawledPage> = {}): CrawledPage => ({
        url,
        etag: `"${url}"`,
        lastModified: 'Tue, 02 Jan 2024 10:00:00 GMT',
        contentHash: `hash of ${url}`,
        chunkIds: [`${url}#1`],
        lineKeys: ['k1', 'k2'],
        links: ['https://d.test/b'],
        ...extra,
      });
      /** The pages a library kept, of every URL these tests use, in URL order. */
      const keptPages = async (libraryId: string) =>
        (
          await store.getCrawledPages(
            libraryId,
            ['a', 'b', 'c', 'd', 'e'].map((p) => `https://d.test/${p}`),
          )
        ).sort((x, y) => x.url.localeCompare(y.url));

      it('keeps staged page content beside the chunks, and a page staged again without it loses it', async () => {
        const content = {
          finalUrl: 'https://d.test/a',
          title: 'A',
          markdown: '# A\n\ntext',
          landmark: true,
          links: [],
          validators: { contentHash: 'h' },
        };
        await store.stagePage({ stagingId: 's1', url: 'https://d.test/a', chunks: [], page: content, now: T0 });
        await store.stagePage({
          stagingId: 's1',
          url: 'https://d.test/b',
          chunks: [],
          page: { ...content, markdown: '', unchanged: true },
          now: T0,
        });
        expect(await store.listStagedPages('s1')).toEqual([
          { url: 'https://d.test/a', chunks: [], page: content },
          { url: 'https://d.test/b', chunks: [], page: { ...content, markdown: '', unchanged: true } },
        ]);
        await store.stagePage({ stagingId: 's1', url: 'https://d.test/a', chunks: [], now: T0 });
        expect((await store.listStagedPages('s1'))[0]).toEqual({ url: 'https://d.test/a', chunks: [] });
      });

      it('reads staged pages by URL, and their outlines a page at a time in URL order without their text', async () => {
        const content = (url: string, extra: Partial<StagedPageContent> = {}): StagedPageContent => ({
          finalUrl: url,
          title: url,
          markdown: `# ${url}\n\ntext`,
          landmark: false,
          links: [`${url}/next`],
          lineKeys: [`key of ${url}`],
          ...extra,
        });
        const urls = ['https://d.test/c', 'https://d.test/a', 'https://d.test/e', 'https://d.test/b'];
        for (const url of urls)
          await store.stagePage({ stagingId: 's1', url, chunks: [], page: content(url), now: T0 });
        const { lineKeys: _keys, ...unchanged } = content('https://d.test/d', { unchanged: true, markdown: '' });
        await store.stagePage({ stagingId: 's1', url: 'https://d.test/d', chunks: [], page: unchanged, now: T0 });
        await store.stagePage({ stagingId: 's1', url: 'chunks/000000', chunks: [chunk('x1')], now: T0 });
        await store.stagePage({
          stagingId: 's2',
          url: 'https://d.test/a',
          chunks: [],
          page: content('other'),
          now: T0,
        });

        const first = await store.listStagedOutlines('s1', { limit: 4 });
        const rest = await store.listStagedOutlines('s1', { afterUrl: first.at(-1)!.url, limit: 4 });
        expect([...first, ...rest]).toEqual([
          { url: 'chunks/000000', links: [], unchanged: false, chunksOnly: true },
          ...['a', 'b', 'c'].map((p) => ({
            url: `https://d.test/${p}`,
            links: [`https://d.test/${p}/next`],
            lineKeys: [`key of https://d.test/${p}`],
            unchanged: false,
            chunksOnly: false,
          })),
          { url: 'https://d.test/d', links: ['https://d.test/d/next'], unchanged: true, chunksOnly: false },
          {
            url: 'https://d.test/e',
            links: ['https://d.test/e/next'],
            lineKeys: ['key of https://d.test/e'],
            unchanged: false,
            chunksOnly: false,
          },
        ]);
        expect(await store.listStagedOutlines('s1', { afterUrl: 'https://d.test/e', limit: 4 })).toEqual([]);

        const read = await store.getStagedPages('s1', ['https://d.test/e', 'https://d.test/a', 'https://d.test/none']);
        expect(read.sort((x, y) => x.url.localeCompare(y.url))).toEqual([
          { url: 'https://d.test/a', chunks: [], page: content('https://d.test/a') },
          { url: 'https://d.test/e', chunks: [], page: content('https://d.test/e') },
        ]);
        expect(await store.getStagedPages('s1', [])).toEqual([]);
      });

      it('reads kept pages by URL and counts them with their distinct chunks', async () => {
        const a = page('https://d.test/a', { chunkIds: ['a1', 'shared'] });
        const b = page('https://d.test/b', { chunkIds: ['b1', 'shared'] });
        await store.commitIngestion(
          ingestion({ chunks: [chunk('a1'), chunk('b1'), chunk('shared')], crawledPages: [a, b] }),
        );
        const read = await store.getCrawledPages('vercel/next.js', ['https://d.test/b', 'https://d.test/z']);
        expect(read).toEqual([b]);
        expect(await store.getCrawledPages('vercel/next.js', [])).toEqual([]);
        expect(await store.getCrawledPages('other/lib', ['https://d.test/a'])).toEqual([]);
        expect(await store.countCrawledPages('vercel/next.js')).toEqual({ pages: 2, chunks: 3 });
        expect(await store.countCrawledPages('other/lib')).toEqual({ pages: 0, chunks: 0 });
      });

      it('stores pages with a commit, updates them by URL, forgets removed ones and drops removed chunks in the same commit', async () => {
        const a = page('https://d.test/a', { chunkIds: ['a1', 'a2'] });
        const { etag: _none, ...b } = page('https://d.test/b', { chunkIds: ['b1'] });
        await store.commitIngestion(
          ingestion({ chunks: [chunk('a1'), chunk('a2'), chunk('b1')], crawledPages: [a, b] }),
        );
        expect(await store.getCrawledPage('vercel/next.js', 'https://d.test/a')).toEqual(a);
        expect(await store.getCrawledPage('vercel/next.js', 'https://d.test/b')).toEqual(b);
        expect(await store.getCrawledPage('other/lib', 'https://d.test/a')).toBeNull();

        const a2 = { ...a, contentHash: 'changed', chunkIds: ['a3'] };
        await store.commitIngestion(
          ingestion({
            chunks: [chunk('a3')],
            crawledPages: [a2],
            removeChunkIds: ['a1', 'a2', 'b1'],
            removeCrawledPages: ['https://d.test/b'],
            ingestionId: 'ing-2',
          }),
        );
        expect(await keptPages('vercel/next.js')).toEqual([a2]);
        expect(await store.countCrawledPages('vercel/next.js')).toEqual({ pages: 1, chunks: 1 });
        expect((await store.listChunkMeta('vercel/next.js')).map((c) => c.id)).toEqual(['a3']);
        expect((await store.getLibrary('vercel/next.js'))?.chunkCount).toBe(1);
      });

      it('replaces the pages with a replacing commit, swaps them in with a staged library and deletes them with the library', async () => {
        await store.commitIngestion(
          ingestion({ chunks: [chunk('a1')], crawledPages: [page('https://d.test/a'), page('https://d.test/b')] }),
        );
        await store.commitIngestion(
          ingestion({
            chunks: [chunk('c1')],
            replace: true,
            crawledPages: [page('https://d.test/c')],
            ingestionId: 'ing-2',
          }),
        );
        expect((await keptPages('vercel/next.js')).map((p) => p.url)).toEqual(['https://d.test/c']);

        const staged = '~staged/6f1c1e9e-3b0a-4c55-9a51-1f4f3b1c2d3e';
        await store.commitIngestion(
          ingestion({
            library: library({ id: staged }),
            chunks: [chunk('d1')],
            replace: true,
            crawledPages: [page('https://d.test/d')],
            ingestionId: 'ing-3',
          }),
        );
        expect(await store.swapLibrary(staged, 'vercel/next.js', at(5))).toBe(true);
        expect((await keptPages('vercel/next.js')).map((p) => p.url)).toEqual(['https://d.test/d']);
        expect(await keptPages(staged)).toEqual([]);

        await store.deleteLibrary('vercel/next.js');
        expect(await keptPages('vercel/next.js')).toEqual([]);
        expect(await store.countCrawledPages('vercel/next.js')).toEqual({ pages: 0, chunks: 0 });
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

    it('answers ping', async () => {
      await expect(store.ping()).resolves.toBeUndefined();
    });
  });
}

function expectIncreasing(values: number[]): void {
  for (let i = 1; i < values.length; i++) expect(values[i]).toBeGreaterThan(values[i - 1] as number);
}
