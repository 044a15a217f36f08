import { Schema, type Connection } from 'mongoose';
import type {
  ChunkInput,
  CrawledPage,
  Library,
  LibrarySource,
  Permission,
  StagedPageContent,
  StoredChunk,
} from '@docshelf/core';

/** The domain's Library as stored: the id is `_id` and the timestamps are Dates. */
export type LibraryDoc = Omit<Library, 'id' | 'createdAt' | 'updatedAt'> & {
  _id: string;
  createdAt: Date;
  updatedAt: Date;
};

/**
 * A stored chunk with the library it belongs to, the ingestion that last wrote it, and what keyword search weighs as
 * much as the title: its page's lead and the headings inside it.
 */
export type ChunkDoc = StoredChunk & { libraryId: string; ingestionId: string; pageLead?: string; headings?: string };

export interface UserDoc {
  _id: string;
  email: string;
  /** Lower-cased email: the unique key, so lookups ignore case. */
  emailKey: string;
  passwordHash: string;
  createdAt: Date;
  updatedAt: Date;
}

export interface SessionDoc {
  _id: string;
  userId: string;
  expiresAt: Date;
  createdAt: Date;
  lastUsedAt?: Date;
}

export interface ApiKeyDoc {
  _id: string;
  userId: string;
  name: string;
  keyHash: string;
  keyPrefix: string;
  permissions: Permission;
  lastUsedAt: Date | null;
  createdAt: Date;
  /** Insertion order, the tie-breaker for keys created in the same millisecond. */
  seq: number;
}

export interface StagedPageDoc {
  stagingId: string;
  url: string;
  chunks: ChunkInput[];
  page?: StagedPageContent;
  createdAt: Date;
  seq: number;
}

/** What a library's crawls kept of one page (CrawledPage), keyed by library and URL. */
export type CrawledPageDoc = CrawledPage & { libraryId: string };

/** What an embedder learned from one library's text; `_id` is "<libraryId> <model>". */
export interface EmbedderStateDoc {
  _id: string;
  libraryId: string;
  model: string;
  stateId: string;
  data: Buffer;
  createdAt: Date;
}

/** Where a library was last read from (LibrarySource), by library id. */
export type LibrarySourceDoc = Omit<LibrarySource, 'libraryId'> & { _id: string };

export type MongoModels = ReturnType<typeof defineMongoModels>;

// No `id` virtual: chunks have a real `id` field, and the store maps `_id` itself.
const options = { versionKey: false, minimize: false, id: false } as const;

/** Collections and one index for every query the record store makes. */
export function defineMongoModels(connection: Connection) {
  const libraries = new Schema<LibraryDoc>(
    {
      _id: String,
      name: { type: String, required: true },
      description: String,
      sourceUrl: String,
      sourceType: { type: String, required: true },
      version: String,
      chunkCount: { type: Number, required: true },
      ownerId: { type: String, required: true },
      createdAt: { type: Date, required: true },
      updatedAt: { type: Date, required: true },
      embeddingModel: String,
      embeddingDimensions: Number,
    },
    options,
  );

  const chunks = new Schema<ChunkDoc>(
    {
      libraryId: { type: String, required: true },
      id: { type: String, required: true },
      title: String,
      content: { type: String, required: true },
      url: String,
      tokenCount: { type: Number, required: true },
      position: { type: Number, required: true },
      ingestionId: { type: String, required: true },
      bpeTokens: Number,
      pageLead: String,
      headings: String,
      // Absent in documents written before chunks kept their page's provenance.
      fetchedAt: String,
      contentHash: String,
    },
    options,
  );
  chunks.index({ libraryId: 1, id: 1 }, { unique: true });
  chunks.index({ libraryId: 1, position: 1 }, { unique: true });
  chunks.index({ libraryId: 1, ingestionId: 1, position: 1 });
  // Keyword search (mongo.keyword-index.ts): a title match counts 2.5× a body match, as in SQLite FTS. Not prefixed
  // by libraryId, since a prefixed text index serves only equality on it, not the `$in` of a multi-library search.
  chunks.index(
    { title: 'text', pageLead: 'text', headings: 'text', content: 'text' },
    { name: 'chunk_text', weights: { title: 5, pageLead: 5, headings: 5, content: 2 }, default_language: 'english' },
  );

  const users = new Schema<UserDoc>(
    {
      _id: String,
      email: { type: String, required: true },
      emailKey: { type: String, required: true },
      passwordHash: { type: String, required: true },
      createdAt: { type: Date, required: true },
      updatedAt: { type: Date, required: true },
    },
    options,
  );
  users.index({ emailKey: 1 }, { unique: true });

  const sessions = new Schema<SessionDoc>(
    {
      _id: String,
      userId: { type: String, required: true },
      expiresAt: { type: Date, required: true },
      createdAt: Date,
      lastUsedAt: Date,
    },
    options,
  );
  // MongoDB removes expired sessions by itself; deleteExpiredSessions still answers exactly at its `now`.
  sessions.index({ expiresAt: 1 }, { expireAfterSeconds: 0 });

  const apiKeys = new Schema<ApiKeyDoc>(
    {
      _id: String,
      userId: { type: String, required: true },
      name: { type: String, required: true },
      keyHash: { type: String, required: true },
      keyPrefix: { type: String, required: true },
      permissions: { type: String, enum: ['read', 'admin'], required: true },
      lastUsedAt: { type: Date, default: null },
      createdAt: { type: Date, required: true },
      seq: { type: Number, required: true },
    },
    options,
  );
  apiKeys.index({ keyHash: 1 }, { unique: true });
  apiKeys.index({ keyPrefix: 1 });
  apiKeys.index({ userId: 1, createdAt: -1, seq: -1 });

  const stagedPages = new Schema<StagedPageDoc>(
    {
      stagingId: { type: String, required: true },
      url: { type: String, required: true },
      chunks: { type: Schema.Types.Mixed, required: true },
      page: { type: Schema.Types.Mixed },
      createdAt: { type: Date, required: true },
      seq: { type: Number, required: true },
    },
    options,
  );
  stagedPages.index({ stagingId: 1, url: 1 }, { unique: true });
  stagedPages.index({ stagingId: 1, seq: 1 });
  stagedPages.index({ createdAt: 1 });

  const crawledPages = new Schema<CrawledPageDoc>(
    {
      libraryId: { type: String, required: true },
      url: { type: String, required: true },
      etag: String,
      lastModified: String,
      contentHash: { type: String, required: true },
      chunkIds: { type: [String], required: true },
      lineKeys: { type: [String], required: true },
      links: { type: [String], required: true },
    },
    options,
  );
  crawledPages.index({ libraryId: 1, url: 1 }, { unique: true });

  const embedderStates = new Schema<EmbedderStateDoc>(
    {
      _id: String,
      libraryId: { type: String, required: true },
      model: { type: String, required: true },
      stateId: { type: String, required: true },
      data: { type: Buffer, required: true },
      createdAt: { type: Date, required: true },
    },
    options,
  );
  embedderStates.index({ libraryId: 1 });

  const librarySources = new Schema<LibrarySourceDoc>(
    {
      _id: String,
      kind: { type: String, required: true },
      request: { type: Schema.Types.Mixed, required: true },
      ownerId: { type: String, required: true },
      refreshEvery: { type: String, default: null },
      lastRefreshedAt: { type: Date, default: null },
      commit: { type: String, default: null },
    },
    options,
  );

  return {
    libraries: connection.model('Library', libraries, 'libraries'),
    embedderStates: connection.model('EmbedderState', embedderStates, 'embedderStates'),
    chunks: connection.model('Chunk', chunks, 'chunks'),
    users: connection.model('User', users, 'users'),
    sessions: connection.model('Session', sessions, 'sessions'),
    apiKeys: connection.model('ApiKey', apiKeys, 'apiKeys'),
    stagedPages: connection.model('StagedPage', stagedPages, 'stagedPages'),
    crawledPages: connection.model('CrawledPage', crawledPages, 'crawledPages'),
    librarySources: connection.model('LibrarySource', librarySources, 'librarySources'),
  };
}
