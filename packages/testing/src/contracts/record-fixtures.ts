import type { ChunkInput, CommitIngestionInput, LibraryInput, RecordStores } from '@docshelf/core';

/** Fresh, empty record stores for one test, and how to drop them. */
export interface RecordStoresHarness {
  stores: RecordStores;
  cleanup(): Promise<void>;
}

/** What the record store's contract suites write: a library, its chunks and an ingestion of them, at fixed times. */
export const T0 = new Date('2025-01-01T00:00:00.000Z');
export const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);

export const library = (overrides: Partial<LibraryInput> = {}): LibraryInput => ({
  id: 'vercel/next.js',
  name: 'Next.js',
  description: 'The React framework',
  sourceUrl: 'https://github.com/vercel/next.js',
  sourceType: 'github',
  version: 'v15',
  ...overrides,
});

export const chunk = (id: string, content = `content of ${id}`, extra: Partial<ChunkInput> = {}): ChunkInput => ({
  id,
  title: `Title ${id}`,
  content,
  url: `https://example.com/${id}`,
  tokenCount: 10,
  ...extra,
});

export const ingestion = (overrides: Partial<CommitIngestionInput> = {}): CommitIngestionInput => ({
  library: library(),
  ownerId: 'owner-1',
  chunks: [],
  replace: false,
  ingestionId: 'ing-1',
  now: T0,
  ...overrides,
});
