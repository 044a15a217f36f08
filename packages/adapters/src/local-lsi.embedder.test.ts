import path from 'node:path';
import type { ChunkInput } from '@docshelf/core';
import { describeEmbedderContract } from '@docshelf/testing/contracts/embedder.contract';
import { fitLsi } from './local-lsi/fit-lsi';
import { LsiModel } from './local-lsi/lsi-model';
import { lsiTerms } from './local-lsi/lsi-terms';
import { LocalLsiEmbedder } from './local-lsi.embedder';
import { openSqliteDatabase } from './sqlite.database';
import { SqliteRecordStores } from './sqlite.record-stores';
import { announceContractTarget } from '@docshelf/testing/targets/announce-target';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';

const cosine = (a: ArrayLike<number>, b: ArrayLike<number>) => {
  let dot = 0;
  for (let i = 0; i < a.length; i++) dot += a[i]! * b[i]!;
  return dot;
};

/**
 * A small library in which "remove" and "delete" (and "folder" and "directory") are used in the same company but
 * never in one sentence with each other, the way a docs set words one thing two ways.
 */
const LIBRARY: string[] = [
  'Remove a file from the disk with unlink. The file is gone after the call.',
  'Delete a file from the disk with unlink; the call fails when the file is open.',
  'Remove a directory and its entries from the disk with rmdir.',
  'Delete a folder and its entries from the disk with rmdir.',
  'Read a file into memory with readFile; the file contents come back as a buffer.',
  'Write a file to the disk with writeFile; the file is created when missing.',
  'Open a socket to a server with connect and write bytes to it.',
  'A server listens on a port and accepts socket connections.',
  'Parse a URL into its host, path and query string.',
  'The query string of a URL holds keys and values after the question mark.',
  'Install the package with npm. Routing in the app directory maps folders to routes.',
  'Configuring middleware for routing in Next.js applications: middleware runs before routing.',
  'A chocolate cake recipe needs butter and sugar.',
];

async function libraryStore(texts: string[] = LIBRARY) {
  const { dir, removeDir } = createTempDir();
  const store = new SqliteRecordStores(openSqliteDatabase(path.join(dir, 'docshelf.sqlite')), { ownsDatabase: true });
  const chunks: ChunkInput[] = texts.map((content, i) => ({ id: `c${i}`, content, url: `https://docs.test/${i}` }));
  await store.libraries.commitIngestion({
    library: { id: 'acme/fs', name: 'fs', sourceType: 'html' },
    ownerId: 'o',
    chunks,
    replace: false,
    ingestionId: 'i',
    now: new Date(),
  });
  return {
    store,
    cleanup: async () => {
      await store.close();
      removeDir();
    },
  };
}

announceContractTarget('Embedder', 'local-lsi', 'in-process, learning from a library in a real SQLite file');
describeEmbedderContract('LocalLsiEmbedder', async () => {
  const { store, cleanup } = await libraryStore();
  return {
    embedder: new LocalLsiEmbedder({ states: store.embedderStates, libraries: store.libraries }),
    scope: { libraryId: 'acme/fs', kind: 'document' },
    cleanup,
  };
});

describe('LocalLsiEmbedder', () => {
  it('learns a library on its first document embedding, keeps it, and places questions in the same space', async () => {
    const { store, cleanup } = await libraryStore();
    try {
      // 8 dimensions: 5 latent ones, fewer than the library's topics, so words of one topic share a direction.
      const embedder = new LocalLsiEmbedder({ states: store.embedderStates, libraries: store.libraries }, 8);
      expect(embedder.model).toBe('local-lsi-v1');
      // A question before the library was learned is placed by its words alone, and learns nothing.
      const [early] = await embedder.embed(['delete a folder'], { libraryId: 'acme/fs', kind: 'query' });
      expect(early).toHaveLength(8);
      expect(await store.embedderStates.getEmbedderStateId('acme/fs', 'local-lsi-v1')).toBeNull();

      const documents = await embedder.embed(LIBRARY, { libraryId: 'acme/fs', kind: 'document' });
      const stateId = await store.embedderStates.getEmbedderStateId('acme/fs', 'local-lsi-v1');
      expect(stateId).toEqual(expect.any(String));

      // Another process reads the stored space and embeds exactly as this one does.
      const other = new LocalLsiEmbedder({ states: store.embedderStates, libraries: store.libraries }, 8);
      const [question] = await other.embed(['remove a folder'], { libraryId: 'acme/fs', kind: 'query' });
      const [same] = await embedder.embed(['remove a folder'], { libraryId: 'acme/fs', kind: 'query' });
      expect(cosine(question!, same!)).toBeGreaterThan(0.9999);

      // The directory chunks outrank the cake and the URL chunks for a question in other words.
      const scores = documents.map((d) => cosine(question!, d));
      const directoryChunks = [scores[2]!, scores[3]!];
      expect(Math.min(...directoryChunks)).toBeGreaterThan(scores[12]!);
      expect(Math.min(...directoryChunks)).toBeGreaterThan(scores[8]!);

      await embedder.forget('acme/fs');
      expect(await store.embedderStates.getEmbedderStateId('acme/fs', 'local-lsi-v1')).toBeNull();
      await expect(embedder.embed(['x'])).rejects.toThrow(/name the library/);
    } finally {
      await cleanup();
    }
  });

  it('with a general model, places a question near text that says it in words this library never pairs', async () => {
    // A library that says "folder" and "directory" in unrelated company, and a general model that knows they are alike.
    const { store, cleanup } = await libraryStore([
      'Delete a directory with rmdir; the directory must be empty.',
      'A folder of photos opens in the gallery with thumbnails.',
      'Bake the cake for forty minutes with butter and sugar.',
      'Parse a URL into its host, path and query string.',
    ]);
    try {
      const vocabulary = [...new Set(['folder', 'directory', 'delete', 'remove', 'photo'].flatMap(lsiTerms))];
      const like = (term: string) =>
        ['folder', 'directori'].includes(term) ? [1, 0] : term === 'photo' ? [0, 1] : [0.7, 0.7];
      const general = LsiModel.fromVectors(
        vocabulary,
        new Float32Array(vocabulary.length).fill(1),
        Float32Array.from(vocabulary.flatMap(like)),
        2,
      );
      const deps = { states: store.embedderStates, libraries: store.libraries };
      const placed = async (embedder: LocalLsiEmbedder) => {
        const documents = await embedder.embed(['Delete a directory with rmdir.'], {
          libraryId: 'acme/fs',
          kind: 'document',
        });
        const [question] = await embedder.embed(['remove a folder'], { libraryId: 'acme/fs', kind: 'query' });
        return cosine(question!, documents[0]!);
      };
      const withGeneral = new LocalLsiEmbedder({ ...deps, general: () => general }, 16);
      expect(withGeneral.model).toBe('local-lsi-v2');
      const alone = await placed(new LocalLsiEmbedder(deps, 16));
      expect(await placed(withGeneral)).toBeGreaterThan(alone + 0.1);
    } finally {
      await cleanup();
    }
  });

  it('shares what it learned from a library with another (a refreshed replacement), which then embeds alike', async () => {
    const { store, cleanup } = await libraryStore();
    try {
      const embedder = new LocalLsiEmbedder({ states: store.embedderStates, libraries: store.libraries }, 8);
      const scope = (libraryId: string) => ({ libraryId, kind: 'document' as const });
      const replacement = { id: '~staged/next', name: 'fs', sourceType: 'crawl' };
      await store.libraries.commitIngestion({
        library: replacement,
        ownerId: 'o',
        chunks: [],
        replace: true,
        ingestionId: 'j',
        now: new Date(),
      });
      expect(await embedder.shareLearned('acme/fs', '~staged/next')).toBe(false);
      const [learned] = await embedder.embed([LIBRARY[0]!], scope('acme/fs'));
      expect(await embedder.shareLearned('acme/fs', '~staged/next')).toBe(true);
      // The replacement holds no chunks of its own yet: without the shared state it would learn from nothing.
      expect(await embedder.embed([LIBRARY[0]!], scope('~staged/next'))).toEqual([learned]);
    } finally {
      await cleanup();
    }
  });

  it('keeps learned models within its memory budget, reading a model again only when it was let go', async () => {
    const { store, cleanup } = await libraryStore();
    try {
      await store.libraries.commitIngestion({
        library: { id: 'acme/net', name: 'net', sourceType: 'html' },
        ownerId: 'o',
        chunks: LIBRARY.map((content, i) => ({ id: `n${i}`, content: `${content} Over the network.` })),
        replace: false,
        ingestionId: 'i',
        now: new Date(),
      });
      let reads = 0;
      const states = {
        getEmbedderStateId: store.embedderStates.getEmbedderStateId.bind(store),
        putEmbedderState: store.embedderStates.putEmbedderState.bind(store),
        deleteEmbedderState: store.embedderStates.deleteEmbedderState.bind(store),
        getEmbedderState: (libraryId: string, model: string) => {
          reads++;
          return store.embedderStates.getEmbedderState(libraryId, model);
        },
      };
      const libraries = ['acme/fs', 'acme/net'];
      await new LocalLsiEmbedder({ states: store.embedderStates, libraries: store.libraries }, 16).embed(LIBRARY, {
        libraryId: 'acme/fs',
        kind: 'document',
      });
      await new LocalLsiEmbedder({ states: store.embedderStates, libraries: store.libraries }, 16).embed(LIBRARY, {
        libraryId: 'acme/net',
        kind: 'document',
      });
      const questionsInTurn = async (embedder: LocalLsiEmbedder) => {
        const vectors: number[][] = [];
        for (let turn = 0; turn < 3; turn++) {
          for (const libraryId of libraries) {
            vectors.push(...(await embedder.embed(['remove a folder'], { libraryId, kind: 'query' })));
          }
        }
        return vectors;
      };
      // Room for both models: each is read once.
      const roomy = await questionsInTurn(new LocalLsiEmbedder({ states, libraries: store.libraries }, 16));
      expect(reads).toBe(2);
      // Room for one: searched in turns, each is read again every time, and places the question the same.
      reads = 0;
      const tight = await questionsInTurn(
        new LocalLsiEmbedder({ states, libraries: store.libraries, cacheBytes: 1 }, 16),
      );
      expect(reads).toBe(6);
      expect(tight).toEqual(roomy);
    } finally {
      await cleanup();
    }
  });

  it('learns a library bigger than its sample from chunks spread evenly over it', async () => {
    // 40 chunks, a sample of at most 10: every 4th chunk in library order.
    const texts = Array.from({ length: 40 }, (_, i) => `${LIBRARY[i % LIBRARY.length]} Part ${i} of the guide.`);
    const { store, cleanup } = await libraryStore(texts);
    try {
      const embedder = new LocalLsiEmbedder(
        { states: store.embedderStates, libraries: store.libraries, learnSampleMax: 10 },
        16,
      );
      await embedder.embed([texts[0]!], { libraryId: 'acme/fs', kind: 'document' });
      const sampled = texts.filter((_, i) => i % 4 === 0).map(lsiTerms);
      const expected = LsiModel.idOf(fitLsi(sampled, { dimensions: 10 }).serialize());
      expect(await store.embedderStates.getEmbedderStateId('acme/fs', 'local-lsi-v1')).toBe(expected);
      // ...not the space of the whole library.
      const whole = LsiModel.idOf(fitLsi(texts.map(lsiTerms), { dimensions: 10 }).serialize());
      expect(expected).not.toBe(whole);
    } finally {
      await cleanup();
    }
  });

  it('learns off the event loop, which keeps turning while a library is learned', async () => {
    const { store, cleanup } = await libraryStore();
    let turns = 0;
    const ticking = setInterval(() => turns++, 1);
    try {
      const embedder = new LocalLsiEmbedder({ states: store.embedderStates, libraries: store.libraries }, 16);
      await embedder.embed([LIBRARY[0]!], { libraryId: 'acme/fs', kind: 'document' });
      // Reading the chunks from SQLite never yields to timers; only waiting for the learning thread does.
      expect(turns).toBeGreaterThan(0);
    } finally {
      clearInterval(ticking);
      await cleanup();
    }
  });

  it('learns the same space from the same chunks, so processes learning at once agree', async () => {
    const documents = LIBRARY.map(lsiTerms);
    const a = fitLsi(documents, { dimensions: 16 }).serialize();
    const b = fitLsi(documents, { dimensions: 16 }).serialize();
    expect(LsiModel.idOf(a)).toBe(LsiModel.idOf(b));
  });
});

describe('latent semantic indexing', () => {
  it('brings together words that keep the same company without ever meeting', () => {
    // Fewer dimensions than the library has topics: the space keeps what the topics share and drops the rest.
    const model = fitLsi(LIBRARY.map(lsiTerms), { dimensions: 4 });
    const remove = model.project(lsiTerms('remove'));
    const del = model.project(lsiTerms('delete'));
    const cake = model.project(lsiTerms('cake'));
    expect(cosine(remove, del)).toBeGreaterThan(0.8);
    expect(cosine(remove, cake)).toBeLessThan(0.3);
  });

  it('survives its compact binary form, and projects unknown words to zero', () => {
    const model = fitLsi(LIBRARY.map(lsiTerms), { dimensions: 8 });
    const copy = LsiModel.deserialize(model.serialize());
    const text = lsiTerms('delete a file from the disk');
    expect(cosine(model.project(text), copy.project(text))).toBeGreaterThan(0.999);
    expect([...copy.project(lsiTerms('zzzz qqqq'))].every((v) => v === 0)).toBe(true);
    expect(() => LsiModel.deserialize(Buffer.from('nope'))).toThrow(/not a serialized LSI model/);
  });

  it('learns from a library too small for the space it asks for, padding with zeros', () => {
    const model = fitLsi([lsiTerms('one file'), lsiTerms('two file')], { dimensions: 32 });
    expect(model.dimensions).toBe(32);
    expect(model.project(lsiTerms('file'))).toHaveLength(32);
  });

  it('reduces text to stemmed terms without stop words, numbers or link targets', () => {
    expect(lsiTerms('Removing the [files](https://x.test/removed) in 2024 with readFileSync')).toEqual([
      'remov',
      'file',
      'readfilesync',
      'read',
      'file',
      'sync',
    ]);
  });
});
