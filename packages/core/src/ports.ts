import type {
  ApiKey,
  ApiKeyRecord,
  ApiKeyCandidate,
  ChunkInput,
  ChunkMeta,
  ChunkToStore,
  Library,
  LibraryInput,
  Session,
  StoredChunk,
  User,
  UserWithPassword,
  ChunkHit,
  VectorMatch,
  VectorRecord,
} from './domain/types';

export interface EmbeddingModel {
  model: string;
  dimensions: number;
}

/** HTTP validators and content hash of a loaded page: the next crawl asks conditionally and compares. */
export interface PageValidators {
  etag?: string;
  lastModified?: string;
  /** sha256 of the body as fetched, or of the HTML as rendered. */
  contentHash: string;
}

/** What a crawl keeps of one page of a library, so the next crawl can tell an unchanged page and keep its chunks. */
export interface CrawledPage extends PageValidators {
  /** The URL the crawl requested (before redirects). */
  url: string;
  chunkIds: string[];
  /** Hashed keys of the page's lines that repetition may drop (crawl/repeated-blocks.ts), counted again when unchanged. */
  lineKeys: string[];
  /** Its same-origin links, so an unchanged page still leads the crawl to the others. */
  links: string[];
}

/** A crawled page waiting for its crawl's commit, which drops lines repeated across pages and then chunks it. */
export interface StagedPageContent {
  /** Where the page ended up after redirects (chunks are attributed to it). */
  finalUrl: string;
  title: string;
  markdown: string;
  /** The content came from a content landmark (see LoadedPage.landmark). */
  landmark: boolean;
  links: string[];
  /** Keys of the lines repetition may drop (crawl/repeated-blocks.ts), computed by the page job. */
  lineKeys?: string[];
  validators?: PageValidators;
  /** When the page was loaded (or found unchanged); absent when staged by an older worker (the commit's time then). */
  fetchedAt?: string;
  /** Unchanged since the library's last crawl (HTTP 304 or the same content hash): its stored chunks stand. */
  unchanged?: boolean;
}

/** A page (or a batch of chunks) staged under a staging id. */
export interface StagedPage {
  url: string;
  chunks: ChunkInput[];
  page?: StagedPageContent;
}

/** A staged page without its text: what a crawl's commit orders the pages by and counts repeated lines with. */
export interface StagedPageOutline {
  url: string;
  /** The page's links as staged (a seed's sitemap URLs first); none for staged chunks. */
  links: string[];
  /** Keys of its lines that repetition may drop; unset for an unchanged page (its kept record has them). */
  lineKeys?: string[];
  /** Unchanged since the library's last crawl. */
  unchanged: boolean;
  /** Staged chunks rather than a page's content. */
  chunksOnly: boolean;
}

/** Where a page of a library's chunks starts: at an offset (API pages) or after a position (walks). */
export type ChunkPage = { limit: number } & ({ offset: number } | { afterPosition: number });

export interface CommitIngestionInput {
  library: LibraryInput;
  /** Owner recorded when the library is created; an existing library keeps its owner. */
  ownerId: string;
  chunks: ChunkToStore[];
  /** When true every existing chunk of the library is removed first. */
  replace: boolean;
  /** Stamped on every chunk written, so later jobs can find exactly this ingestion's chunks. */
  ingestionId: string;
  now: Date;
  /** Chunks removed in the same transaction (pages a re-crawl found changed or gone). */
  removeChunkIds?: string[];
  /** The crawled pages to keep for the next crawl (upserted by URL; a replacement keeps only these). */
  crawledPages?: CrawledPage[];
  /** Crawled pages to forget (gone from the site). */
  removeCrawledPages?: string[];
  /** Pages a re-crawl found unchanged: their chunks stay as they are and take this fetch's time and hash. */
  confirmedPages?: ConfirmedPage[];
}

/** A page a re-crawl found unchanged (HTTP 304 or the same hash): its kept chunks, and when and as what it was seen. */
export interface ConfirmedPage {
  chunkIds: string[];
  fetchedAt: string;
  contentHash: string;
}

/** Libraries and their chunks. Every write that changes a library is all-or-nothing. */
export interface LibraryStore {
  getLibrary(id: string): Promise<Library | null>;
  listLibraries(): Promise<Library[]>;
  /** The versions of a library: those whose id is `<baseId>@<version>`, ordered by id (reads pick the newest). */
  listLibraryVersions(baseId: string): Promise<Library[]>;
  /** Creates or updates the library and upserts the chunks (batched) in one transaction; returns the library after it. */
  commitIngestion(input: CommitIngestionInput): Promise<Library>;
  /** Chunk metadata in library order (position ascending). */
  listChunkMeta(libraryId: string): Promise<ChunkMeta[]>;
  /**
   * A page of chunks in library order: the `limit` chunks from `offset`, or those after position `afterPosition` —
   * the form for walking a whole library, whose cost does not grow with how far the walk has gone.
   */
  listChunks(libraryId: string, page: ChunkPage): Promise<StoredChunk[]>;
  /** The chunks of the library with these ids, in library order; unknown ids are left out. */
  getChunks(libraryId: string, chunkIds: string[]): Promise<StoredChunk[]>;
  /** The chunks last written by one ingestion, in library order: the first `limit` after position `afterPosition`. */
  listChunksOfIngestion(
    libraryId: string,
    ingestionId: string,
    page: { afterPosition?: number; limit: number },
  ): Promise<StoredChunk[]>;
  countChunks(libraryId: string): Promise<number>;
  /** Removes the library and its chunks; false when it did not exist. */
  deleteLibrary(id: string): Promise<boolean>;
  /**
   * Makes the library staged under `stagedId` (see stagedLibraryId) the library `libraryId`, in one transaction: its
   * chunks, fields and embedder states replace the library's own, which keeps its owner and creation time; the staged
   * library is gone afterwards. False when nothing is staged under `stagedId` (already swapped in).
   */
  swapLibrary(stagedId: string, libraryId: string, now: Date): Promise<boolean>;
  /** Records which model made the library's vectors (null: it has none); leaves other fields and updatedAt alone. */
  setEmbeddingModel(libraryId: string, embedding: EmbeddingModel | null): Promise<void>;
}

/** The dashboard's users, their sessions and their API keys. */
export interface AccountStore {
  upsertUser(input: { email: string; passwordHash: string; now: Date }): Promise<User>;
  findUserByEmail(email: string): Promise<UserWithPassword | null>;
  getUser(id: string): Promise<User | null>;

  createSession(input: { tokenHash: string; userId: string; expiresAt: Date; now: Date }): Promise<void>;
  findSession(tokenHash: string): Promise<Session | null>;
  deleteSession(tokenHash: string): Promise<void>;
  /** Records a use of the session (its idle expiry counts from the last one). */
  touchSession(tokenHash: string, at: Date): Promise<void>;
  deleteExpiredSessions(now: Date): Promise<number>;

  createApiKey(input: {
    id: string;
    userId: string;
    name: string;
    keyHash: string;
    keyPrefix: string;
    permissions: ApiKey['permissions'];
    now: Date;
  }): Promise<ApiKey>;
  listApiKeys(userId: string): Promise<ApiKey[]>;
  findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null>;
  /** Every key whose public prefix is this one, with its stored hash (almost always one or none). */
  findApiKeysByPrefix(keyPrefix: string): Promise<ApiKeyCandidate[]>;
  /** False when the user has no key with that id. */
  deleteApiKey(userId: string, keyId: string): Promise<boolean>;
  touchApiKey(keyId: string, at: Date): Promise<void>;
}

/**
 * What ingestions and crawls keep between their steps: pages staged until the commit takes them, and the pages a
 * library's crawls kept for the next crawl (their validators, content hashes and chunks).
 */
export interface StagingStore {
  /** Keeps one crawled page's chunks (or content) until the crawl commits them; a page staged twice keeps the last. */
  stagePage(input: {
    stagingId: string;
    url: string;
    chunks: ChunkInput[];
    page?: StagedPageContent;
    now: Date;
  }): Promise<void>;
  /** Every staged page, in the order first staged (for stagings of a few entries: it reads all their text). */
  listStagedPages(stagingId: string): Promise<StagedPage[]>;
  /**
   * Outlines of staged pages in URL order, the first `limit` after `afterUrl`: a crawl's commit reads its pages' links
   * and line keys this way, a page at a time, whatever the crawl's size.
   */
  listStagedOutlines(stagingId: string, page: { afterUrl?: string; limit: number }): Promise<StagedPageOutline[]>;
  /** The staged pages with these URLs, in no particular order; URLs not staged are left out. */
  getStagedPages(stagingId: string, urls: string[]): Promise<StagedPage[]>;
  getCrawledPage(libraryId: string, url: string): Promise<CrawledPage | null>;
  /** What the library's crawls kept of these pages, in no particular order; pages not kept are left out. */
  getCrawledPages(libraryId: string, urls: string[]): Promise<CrawledPage[]>;
  /** How many pages the library's crawls kept, and how many distinct chunks those pages hold. */
  countCrawledPages(libraryId: string): Promise<{ pages: number; chunks: number }>;
  /** Drops a crawl's staged pages, and any staging older than `olderThan` left behind by crashed crawls. */
  discardStaging(stagingId: string, olderThan?: Date): Promise<void>;
}

/** Where a library was last read from, kept so that it can be read again the same way (POST /api/refresh, schedules). */
export interface LibrarySource {
  libraryId: string;
  /** A crawl (`POST /api/crawl`) or a git repository (`POST /api/ingest-git`). */
  kind: 'crawl' | 'git';
  /** The request as accepted, without its callback or schedule (core validates it again on use). */
  request: Record<string, unknown>;
  /** Who made the request: refreshes run as that user. */
  ownerId: string;
  /** `refreshEvery`, while the library is refreshed on a schedule. */
  refreshEvery: string | null;
  /** When the last refresh (scheduled or asked for) started. */
  lastRefreshedAt: Date | null;
  /** A git source's commit the library holds. */
  commit: string | null;
}

export interface LibrarySourceStore {
  /**
   * Keeps the request (a new one of another kind or repository forgets the commit); the schedule is kept unless
   * `refreshEvery` is given (null stops it).
   */
  putSource(source: {
    libraryId: string;
    kind: LibrarySource['kind'];
    request: Record<string, unknown>;
    ownerId: string;
    refreshEvery?: string | null;
  }): Promise<void>;
  getSource(libraryId: string): Promise<LibrarySource | null>;
  /** Sets or stops the schedule of a kept source; false when the library has none. */
  setRefreshEvery(libraryId: string, refreshEvery: string | null): Promise<boolean>;
  markRefreshed(libraryId: string, at: Date): Promise<void>;
  /** The commit a git source's library now holds. */
  setCommit(libraryId: string, commit: string): Promise<void>;
  deleteSource(libraryId: string): Promise<void>;
}

/**
 * Starts each scheduled library's refresh once per interval, whatever the number of workers (BullMQ job schedulers):
 * a `refresh-library` job each time.
 */
export interface RefreshScheduler {
  /** The first refresh comes `everyMs` from now; scheduling a library again starts its interval again from now. */
  schedule(libraryId: string, everyMs: number): Promise<void>;
  unschedule(libraryId: string): Promise<void>;
  /** When the next refresh of the library starts; null when it has no schedule. */
  nextRefreshAt(libraryId: string): Promise<Date | null>;
}

/** The record database as a whole (one SQLite file, or one MongoDB database): checked and closed as one. */
export interface RecordDatabase {
  ping(): Promise<void>;
  close(): Promise<void>;
}

/**
 * The record database's stores: libraries, accounts and staging, each its own port over the same engine. Use cases
 * take the store they use.
 */
export interface RecordStores extends RecordDatabase {
  libraries: LibraryStore;
  accounts: AccountStore;
  staging: StagingStore;
  sources: LibrarySourceStore;
}

/** Embedding vectors of chunks, kept apart per library. */
export interface VectorIndex {
  readonly dimensions: number;
  /** Inserts or overwrites vectors by chunk id. */
  upsert(libraryId: string, records: VectorRecord[]): Promise<void>;
  deleteChunks(libraryId: string, chunkIds: string[]): Promise<void>;
  deleteLibrary(libraryId: string): Promise<void>;
  count(libraryId: string): Promise<number>;
  /** Nearest chunks by cosine similarity, best first. */
  query(libraryId: string, vector: number[], topK: number): Promise<VectorMatch[]>;
  /** The stored vectors of these chunks; chunks without one are left out. */
  fetch(libraryId: string, chunkIds: string[]): Promise<Map<string, number[]>>;
  /** Replaces every vector of library `to` with those of library `from` (these chunks), which is left empty. */
  moveLibrary(from: string, to: string, chunkIds: string[]): Promise<void>;
  close(): Promise<void>;
}

export interface KeywordQuery {
  /** Analysed query terms (see queryTerms); any of them may match. */
  terms: string[];
  /** The libraries to search; null searches every library. */
  libraryIds: string[] | null;
  limit: number;
}

/**
 * BM25-style keyword ranking over chunk titles and contents, kept in step with every chunk write, replace and delete
 * of the record store it belongs to.
 */
export interface KeywordIndex {
  /** Matching chunks, best first; `score` is higher for better matches and comparable within one answer only. */
  search(query: KeywordQuery): Promise<ChunkHit[]>;
}

/**
 * Swaps a replacement built under a staging id into its library: the chunks, vectors and embedder states of the
 * library change together, so readers and searches see the library entirely before or entirely after it.
 */
export interface LibrarySwap {
  /** False when nothing is staged under `stagedId` (swapped in already). */
  swapIn(stagedId: string, libraryId: string, now: Date): Promise<boolean>;
  /** Removes a staged replacement that will not be swapped in. */
  discard(stagedId: string): Promise<void>;
}

/** An object's bytes: whole, or a stream (a Readable or any async iterable of chunks) that is read once. */
export type BackupBody = Buffer | AsyncIterable<Uint8Array>;

/** Gzipped backup objects, grouped per library. */
export interface BackupStorage {
  /**
   * Writes the object, replacing any of that name, once the body has ended; a body that fails rejects the put and
   * leaves no part of it behind (an earlier object of that name stays as it was).
   */
  put(libraryId: string, name: string, body: BackupBody): Promise<void>;
  /** Object names of the library, oldest first. */
  list(libraryId: string): Promise<string[]>;
  read(libraryId: string, name: string): Promise<Buffer>;
  /** Removes every object of the library; returns how many were removed. */
  deleteAll(libraryId: string): Promise<number>;
}

/**
 * Uploaded files waiting for the job that reads them (POST /api/ingest-archive): the API writes one as it arrives, a
 * worker reads it and removes it when the job ends. Shared by the API and the workers, wherever they run.
 */
export interface UploadStore {
  /** Writes the upload once the body has ended; a body that fails rejects the put and leaves nothing behind. */
  put(uploadId: string, body: AsyncIterable<Uint8Array>): Promise<void>;
  /** The upload's bytes; null when there is none of that id (removed, or never written). */
  read(uploadId: string): Promise<Buffer | null>;
  /** Removes the upload; nothing happens when there is none. */
  remove(uploadId: string): Promise<void>;
}

/** What the texts to embed are: chunks of a library, or a question asked of it. */
export interface EmbedScope {
  libraryId: string;
  kind: 'document' | 'query';
}

export interface Embedder {
  readonly model: string;
  readonly dimensions: number;
  /**
   * One vector per text, in order, each of length `dimensions`. An embedder that learns from a library's own text
   * learns when it first embeds the library's documents; a query never makes it learn.
   */
  embed(texts: string[], scope?: EmbedScope): Promise<number[][]>;
  /** The library's vectors are all gone (replaced or deleted): what was learned from its text is dropped too. */
  forget?(libraryId: string): Promise<void>;
  /**
   * Lets library `to` use what was learned from library `from`, so vectors of `from` carried into `to` (a refreshed
   * replacement) and vectors embedded for `to` lie in one space. An embedder that learns and lacks this has its
   * libraries embedded afresh. False when nothing was learned from `from`.
   */
  shareLearned?(from: string, to: string): Promise<boolean>;
}

/** What an embedder learned from one library's text: an id that changes with it, and the data. */
export interface EmbedderState {
  id: string;
  data: Buffer;
}

/** Embedder states, kept with the library's records and deleted with the library. */
export interface EmbedderStateStore {
  getEmbedderState(libraryId: string, model: string): Promise<EmbedderState | null>;
  /** Just the id: a cheap check that a state held in memory is still the stored one. */
  getEmbedderStateId(libraryId: string, model: string): Promise<string | null>;
  /** Stores the state unless the library already has one for the model; returns the stored one (the first wins). */
  putEmbedderState(libraryId: string, model: string, state: EmbedderState): Promise<EmbedderState>;
  deleteEmbedderState(libraryId: string, model: string): Promise<void>;
}
