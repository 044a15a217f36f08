import { randomUUID } from 'node:crypto';
import mongoose, { type ClientSession, type Connection } from 'mongoose';
import {
  chunkHeadings,
  countTokens,
  estimateTokens,
  pageLeads,
  type ApiKey,
  type ApiKeyRecord,
  type ApiKeyCandidate,
  type ChunkInput,
  type ChunkMeta,
  type ChunkPage,
  type CommitIngestionInput,
  type CrawledPage,
  type EmbedderState,
  type EmbedderStateStore,
  type EmbeddingModel,
  type Library,
  type RecordStore,
  type Session,
  type StagedPage,
  type StagedPageContent,
  type StagedPageOutline,
  type StoredChunk,
  type User,
  type UserWithPassword,
} from '@docshelf/core';
import {
  defineMongoModels,
  type ApiKeyDoc,
  type ChunkDoc,
  type CrawledPageDoc,
  type StagedPageDoc,
  type EmbedderStateDoc,
  type LibraryDoc,
  type MongoModels,
} from './mongo.models';
import { optionalField } from './optional-field';

/** Chunk writes per bulkWrite round trip. */
const WRITE_BATCH_SIZE = 1_000;
const LIBRARY_OPTIONAL = ['description', 'sourceUrl', 'version'] as const;

export interface MongoRecordStoreOptions {
  uri: string;
  /** Overrides the database named in the URI (tests use one database each). */
  dbName?: string;
}

let sequence = 0;
/** Increasing within a process and roughly across processes: orders keys and staged pages written in one millisecond. */
const nextSeq = () => Date.now() * 1_024 + (sequence++ % 1_024);

/**
 * RecordStore on MongoDB via mongoose. Ingestion commits and library deletes run in multi-document transactions,
 * so a reader sees a library entirely before or entirely after them; MongoDB offers those on replica sets and
 * sharded clusters only (a single-node replica set is enough), which the store checks on first use.
 */
export class MongoRecordStore implements RecordStore, EmbedderStateStore {
  private readonly connection: Connection;
  private readonly models: MongoModels;
  private ready?: Promise<void>;

  constructor(options: MongoRecordStoreOptions) {
    this.connection = mongoose.createConnection(options.uri, {
      ...(options.dbName ? { dbName: options.dbName } : {}),
      serverSelectionTimeoutMS: 10_000,
    });
    this.models = defineMongoModels(this.connection);
  }

  async getLibrary(id: string): Promise<Library | null> {
    const doc = await this.models.libraries.findById(id).lean<LibraryDoc>();
    return doc ? toLibrary(doc) : null;
  }

  async listLibraries(): Promise<Library[]> {
    // Replacements being built ('~staged/…') are not libraries yet.
    const docs = await this.models.libraries
      .find({ _id: { $not: /^~/ } })
      .sort({ _id: 1 })
      .lean<LibraryDoc[]>();
    return docs.map(toLibrary);
  }

  async commitIngestion(input: CommitIngestionInput): Promise<Library> {
    await this.whenReady();
    return this.connection.transaction(async (session) => {
      await this.writeLibrary(input, session);
      const libraryId = input.library.id;
      if (input.replace) {
        await this.models.chunks.deleteMany({ libraryId }, { session });
        await this.models.crawledPages.deleteMany({ libraryId }, { session });
      }
      if (input.removeChunkIds?.length)
        await this.models.chunks.deleteMany({ libraryId, id: { $in: input.removeChunkIds } }, { session });
      await this.upsertChunks(input, session);
      if (input.removeCrawledPages?.length) {
        await this.models.crawledPages.deleteMany({ libraryId, url: { $in: input.removeCrawledPages } }, { session });
      }
      for (const page of input.crawledPages ?? []) {
        const { url, etag, lastModified, contentHash, chunkIds, lineKeys, links } = page;
        await this.models.crawledPages.replaceOne(
          { libraryId, url },
          {
            libraryId,
            url,
            ...(etag === undefined ? {} : { etag }),
            ...(lastModified === undefined ? {} : { lastModified }),
            contentHash,
            chunkIds,
            lineKeys,
            links,
          },
          { upsert: true, session },
        );
      }
      const chunkCount = await this.models.chunks.countDocuments({ libraryId: input.library.id }, { session });
      const doc = await this.models.libraries
        .findByIdAndUpdate(input.library.id, { $set: { chunkCount } }, { session, new: true })
        .lean<LibraryDoc>();
      return toLibrary(doc as LibraryDoc);
    });
  }

  async listChunkMeta(libraryId: string): Promise<ChunkMeta[]> {
    const docs = await this.models.chunks
      .find({ libraryId }, { _id: 0, id: 1, title: 1, url: 1, tokenCount: 1 })
      .sort({ position: 1 })
      .lean<Pick<ChunkDoc, 'id' | 'title' | 'url' | 'tokenCount'>[]>();
    return docs.map((d) => ({
      id: d.id,
      ...optionalField('title', d.title),
      ...optionalField('url', d.url),
      tokenCount: d.tokenCount,
    }));
  }

  async listChunks(libraryId: string, page: ChunkPage): Promise<StoredChunk[]> {
    const query =
      'afterPosition' in page
        ? this.models.chunks.find({ libraryId, position: { $gt: page.afterPosition } })
        : this.models.chunks.find({ libraryId }).skip(page.offset);
    const docs = await query.sort({ position: 1 }).limit(page.limit).lean<ChunkDoc[]>();
    return docs.map(toStoredChunk);
  }

  async getChunks(libraryId: string, chunkIds: string[]): Promise<StoredChunk[]> {
    if (chunkIds.length === 0) return [];
    const docs = await this.models.chunks
      .find({ libraryId, id: { $in: chunkIds } })
      .sort({ position: 1 })
      .lean<ChunkDoc[]>();
    return docs.map(toStoredChunk);
  }

  async listChunksOfIngestion(
    libraryId: string,
    ingestionId: string,
    page: { afterPosition?: number; limit: number },
  ): Promise<StoredChunk[]> {
    const docs = await this.models.chunks
      .find({ libraryId, ingestionId, position: { $gt: page.afterPosition ?? -1 } })
      .sort({ position: 1 })
      .limit(page.limit)
      .lean<ChunkDoc[]>();
    return docs.map(toStoredChunk);
  }

  async countChunks(libraryId: string): Promise<number> {
    return this.models.chunks.countDocuments({ libraryId });
  }

  async deleteLibrary(id: string): Promise<boolean> {
    await this.whenReady();
    return this.connection.transaction(async (session) => {
      await this.models.chunks.deleteMany({ libraryId: id }, { session });
      await this.models.crawledPages.deleteMany({ libraryId: id }, { session });
      await this.models.embedderStates.deleteMany({ libraryId: id }, { session });
      return (await this.models.libraries.deleteOne({ _id: id }, { session })).deletedCount > 0;
    });
  }

  async swapLibrary(stagedId: string, libraryId: string, now: Date): Promise<boolean> {
    await this.whenReady();
    return this.connection.transaction(async (session) => {
      const staged = await this.models.libraries.findById(stagedId).session(session).lean<LibraryDoc>();
      if (!staged) return false;
      const existing = await this.models.libraries.findById(libraryId).session(session).lean<LibraryDoc>();
      const { _id: _staged, ownerId, createdAt, chunkCount: _count, ...fields } = staged;
      await this.models.libraries.replaceOne(
        { _id: libraryId },
        {
          ...fields,
          _id: libraryId,
          ownerId: existing?.ownerId ?? ownerId,
          createdAt: existing?.createdAt ?? createdAt,
          updatedAt: now,
          chunkCount: 0,
        },
        { upsert: true, session },
      );
      await this.models.chunks.deleteMany({ libraryId }, { session });
      await this.models.chunks.updateMany({ libraryId: stagedId }, { $set: { libraryId } }, { session });
      await this.models.crawledPages.deleteMany({ libraryId }, { session });
      await this.models.crawledPages.updateMany({ libraryId: stagedId }, { $set: { libraryId } }, { session });
      await this.models.embedderStates.deleteMany({ libraryId }, { session });
      const states = await this.models.embedderStates
        .find({ libraryId: stagedId })
        .session(session)
        .lean<EmbedderStateDoc[]>();
      for (const state of states) {
        await this.models.embedderStates.create([{ ...state, _id: stateKey(libraryId, state.model), libraryId }], {
          session,
        });
      }
      await this.models.embedderStates.deleteMany({ libraryId: stagedId }, { session });
      const chunkCount = await this.models.chunks.countDocuments({ libraryId }, { session });
      await this.models.libraries.updateOne({ _id: libraryId }, { $set: { chunkCount } }, { session });
      await this.models.libraries.deleteOne({ _id: stagedId }, { session });
      return true;
    });
  }

  async getEmbedderState(libraryId: string, model: string): Promise<EmbedderState | null> {
    const doc = await this.models.embedderStates
      .findById(stateKey(libraryId, model))
      .lean<{ stateId: string; data: { buffer: ArrayBuffer } | Buffer }>();
    return doc ? { id: doc.stateId, data: asBuffer(doc.data) } : null;
  }

  async getEmbedderStateId(libraryId: string, model: string): Promise<string | null> {
    const doc = await this.models.embedderStates
      .findById(stateKey(libraryId, model), { stateId: 1 })
      .lean<{ stateId: string }>();
    return doc?.stateId ?? null;
  }

  async putEmbedderState(libraryId: string, model: string, state: EmbedderState): Promise<EmbedderState> {
    try {
      await this.models.embedderStates.create({
        _id: stateKey(libraryId, model),
        libraryId,
        model,
        stateId: state.id,
        data: state.data,
        createdAt: new Date(),
      });
    } catch (error) {
      // Another process stored its state first: that one is the library's.
      if (!isDuplicateKey(error)) throw error;
    }
    return (await this.getEmbedderState(libraryId, model)) ?? state;
  }

  async deleteEmbedderState(libraryId: string, model: string): Promise<void> {
    await this.models.embedderStates.deleteOne({ _id: stateKey(libraryId, model) });
  }

  async setEmbeddingModel(libraryId: string, embedding: EmbeddingModel | null): Promise<void> {
    const update = embedding
      ? { $set: { embeddingModel: embedding.model, embeddingDimensions: embedding.dimensions } }
      : { $unset: { embeddingModel: 1, embeddingDimensions: 1 } };
    await this.models.libraries.updateOne({ _id: libraryId }, update);
  }

  async upsertUser(input: { email: string; passwordHash: string; now: Date }): Promise<User> {
    const upsert = () =>
      this.models.users
        .findOneAndUpdate(
          { emailKey: input.email.toLowerCase() },
          {
            $set: { passwordHash: input.passwordHash, updatedAt: input.now },
            $setOnInsert: { _id: randomUUID(), email: input.email, createdAt: input.now },
          },
          { upsert: true, new: true },
        )
        .lean();
    // Two first logins at once can both try the insert; the loser finds the winner's user on the second try.
    const doc = await upsert().catch((error: unknown) =>
      isDuplicateKey(error) ? upsert() : Promise.reject(error as Error),
    );
    return { id: doc._id, email: doc.email };
  }

  async findUserByEmail(email: string): Promise<UserWithPassword | null> {
    const doc = await this.models.users.findOne({ emailKey: email.toLowerCase() }).lean();
    return doc ? { id: doc._id, email: doc.email, passwordHash: doc.passwordHash } : null;
  }

  async getUser(id: string): Promise<User | null> {
    const doc = await this.models.users.findById(id).lean();
    return doc ? { id: doc._id, email: doc.email } : null;
  }

  async createSession(input: { tokenHash: string; userId: string; expiresAt: Date; now: Date }): Promise<void> {
    await this.models.sessions.create({
      _id: input.tokenHash,
      userId: input.userId,
      expiresAt: input.expiresAt,
      createdAt: input.now,
      lastUsedAt: input.now,
    });
  }

  async findSession(tokenHash: string): Promise<Session | null> {
    const doc = await this.models.sessions.findById(tokenHash).lean();
    return doc
      ? {
          userId: doc.userId,
          expiresAt: doc.expiresAt.toISOString(),
          lastUsedAt: (doc.lastUsedAt ?? doc.createdAt).toISOString(),
        }
      : null;
  }

  async touchSession(tokenHash: string, at: Date): Promise<void> {
    await this.models.sessions.updateOne({ _id: tokenHash }, { $set: { lastUsedAt: at } });
  }

  async deleteSession(tokenHash: string): Promise<void> {
    await this.models.sessions.deleteOne({ _id: tokenHash });
  }

  async deleteExpiredSessions(now: Date): Promise<number> {
    return (await this.models.sessions.deleteMany({ expiresAt: { $lte: now } })).deletedCount;
  }

  async createApiKey(input: Parameters<RecordStore['createApiKey']>[0]): Promise<ApiKey> {
    const { id, now, ...fields } = input;
    const doc: ApiKeyDoc = { _id: id, ...fields, lastUsedAt: null, createdAt: now, seq: nextSeq() };
    await this.models.apiKeys.create(doc);
    return toApiKey(doc);
  }

  async listApiKeys(userId: string): Promise<ApiKey[]> {
    const docs = await this.models.apiKeys.find({ userId }).sort({ createdAt: -1, seq: -1 }).lean<ApiKeyDoc[]>();
    return docs.map(toApiKey);
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const doc = await this.models.apiKeys.findOne({ keyHash }).lean<ApiKeyDoc>();
    return doc ? { ...toApiKey(doc), userId: doc.userId } : null;
  }

  async findApiKeysByPrefix(keyPrefix: string): Promise<ApiKeyCandidate[]> {
    const docs = await this.models.apiKeys.find({ keyPrefix }).lean<ApiKeyDoc[]>();
    return docs.map((doc) => ({ ...toApiKey(doc), userId: doc.userId, keyHash: doc.keyHash }));
  }

  async deleteApiKey(userId: string, keyId: string): Promise<boolean> {
    return (await this.models.apiKeys.deleteOne({ _id: keyId, userId })).deletedCount > 0;
  }

  async touchApiKey(keyId: string, at: Date): Promise<void> {
    await this.models.apiKeys.updateOne({ _id: keyId }, { $set: { lastUsedAt: at } });
  }

  async stagePage(input: {
    stagingId: string;
    url: string;
    chunks: ChunkInput[];
    page?: StagedPageContent;
    now: Date;
  }): Promise<void> {
    // seq is set on the first stage only, so a page staged again keeps its place.
    const fields = { chunks: input.chunks, createdAt: input.now };
    const update = input.page ? { $set: { ...fields, page: input.page } } : { $set: fields, $unset: { page: 1 } };
    await this.models.stagedPages.updateOne(
      { stagingId: input.stagingId, url: input.url },
      { ...update, $setOnInsert: { seq: nextSeq() } },
      { upsert: true },
    );
  }

  async listStagedPages(stagingId: string): Promise<StagedPage[]> {
    const docs = await this.models.stagedPages.find({ stagingId }).sort({ seq: 1 }).lean();
    return docs.map(toStagedPage);
  }

  async listStagedOutlines(
    stagingId: string,
    page: { afterUrl?: string; limit: number },
  ): Promise<StagedPageOutline[]> {
    // Projected on the server: the pages' text never leaves MongoDB.
    const docs = await this.models.stagedPages
      .find(
        { stagingId, url: { $gt: page.afterUrl ?? '' } },
        { url: 1, 'page.links': 1, 'page.lineKeys': 1, 'page.unchanged': 1 },
      )
      .sort({ url: 1 })
      .limit(page.limit)
      .lean<Array<Pick<StagedPageDoc, 'url'> & { page?: Partial<StagedPageContent> }>>();
    return docs.map((doc) => ({
      url: doc.url,
      links: doc.page?.links ?? [],
      ...(doc.page?.lineKeys ? { lineKeys: doc.page.lineKeys } : {}),
      unchanged: doc.page?.unchanged === true,
      chunksOnly: doc.page === undefined,
    }));
  }

  async getStagedPages(stagingId: string, urls: string[]): Promise<StagedPage[]> {
    if (urls.length === 0) return [];
    const docs = await this.models.stagedPages.find({ stagingId, url: { $in: urls } }).lean<StagedPageDoc[]>();
    return docs.map(toStagedPage);
  }

  async getCrawledPage(libraryId: string, url: string): Promise<CrawledPage | null> {
    const doc = await this.models.crawledPages.findOne({ libraryId, url }).lean<CrawledPageDoc>();
    return doc ? toCrawledPage(doc) : null;
  }

  async getCrawledPages(libraryId: string, urls: string[]): Promise<CrawledPage[]> {
    if (urls.length === 0) return [];
    const docs = await this.models.crawledPages.find({ libraryId, url: { $in: urls } }).lean<CrawledPageDoc[]>();
    return docs.map(toCrawledPage);
  }

  async countCrawledPages(libraryId: string): Promise<{ pages: number; chunks: number }> {
    const pages = await this.models.crawledPages.countDocuments({ libraryId });
    const [distinct] = await this.models.crawledPages.aggregate<{ chunks: number }>([
      { $match: { libraryId } },
      { $unwind: '$chunkIds' },
      { $group: { _id: '$chunkIds' } },
      { $count: 'chunks' },
    ]);
    return { pages, chunks: distinct?.chunks ?? 0 };
  }

  async discardStaging(stagingId: string, olderThan?: Date): Promise<void> {
    await this.models.stagedPages.deleteMany({ stagingId });
    if (olderThan) await this.models.stagedPages.deleteMany({ createdAt: { $lt: olderThan } });
  }

  /** The chunks collection with its indexes built, for a keyword index that searches what this store writes. */
  async chunkModel(): Promise<MongoModels['chunks']> {
    await this.whenReady();
    return this.models.chunks;
  }

  async ping(): Promise<void> {
    await this.connection.asPromise();
    await this.connection.db!.admin().ping();
  }

  async close(): Promise<void> {
    await this.connection.close();
  }

  /** Connects, builds the indexes and checks that the server can run transactions, once. */
  private whenReady(): Promise<void> {
    this.ready ??= (async () => {
      await this.connection.asPromise();
      const hello = await this.connection.db!.admin().command({ hello: 1 });
      if (!hello.setName && hello.msg !== 'isdbgrid') {
        throw new Error(
          'MongoDB record store needs transactions: run MongoDB as a replica set (one node is enough) or a sharded cluster',
        );
      }
      await Promise.all(Object.values(this.models).map((model) => model.init()));
    })().catch((error: unknown) => {
      this.ready = undefined;
      throw error;
    });
    return this.ready;
  }

  private async writeLibrary({ library, ownerId, now }: CommitIngestionInput, session: ClientSession): Promise<void> {
    const { id, ...fields } = library;
    const absent = Object.fromEntries(
      LIBRARY_OPTIONAL.filter((key) => fields[key] === undefined).map((key) => [key, 1]),
    );
    const set = Object.fromEntries(Object.entries({ ...fields, updatedAt: now }).filter(([, v]) => v !== undefined));
    await this.models.libraries.updateOne(
      { _id: id },
      {
        $set: set,
        ...(Object.keys(absent).length > 0 ? { $unset: absent } : {}),
        $setOnInsert: { ownerId, createdAt: now, chunkCount: 0 },
      },
      { upsert: true, session },
    );
  }

  /** Existing ids keep their position; new ids are appended in payload order; a repeated id keeps its last content. */
  private async upsertChunks(input: CommitIngestionInput, session: ClientSession): Promise<void> {
    const libraryId = input.library.id;
    const latest = new Map<string, ChunkInput>();
    for (const chunk of input.chunks) latest.set(chunk.id, chunk);
    const ids = [...latest.keys()];
    const last = await this.models.chunks
      .findOne({ libraryId }, { position: 1 })
      .sort({ position: -1 })
      .session(session)
      .lean();
    let nextPosition = (last?.position ?? -1) + 1;
    const leadOf = pageLeads(input.chunks);
    for (let start = 0; start < ids.length; start += WRITE_BATCH_SIZE) {
      const batch = ids.slice(start, start + WRITE_BATCH_SIZE);
      const existing = new Set(
        (
          await this.models.chunks
            .find({ libraryId, id: { $in: batch } }, { id: 1 })
            .session(session)
            .lean()
        ).map((d) => d.id),
      );
      const operations = batch.map((id) => {
        const chunk = latest.get(id) as ChunkInput;
        const pageLead = leadOf(chunk) ?? undefined;
        const headings = chunkHeadings(chunk.content).join('\n') || undefined;
        const fields = {
          title: chunk.title,
          content: chunk.content,
          url: chunk.url,
          tokenCount: chunk.tokenCount ?? estimateTokens(chunk.content),
          bpeTokens: countTokens(chunk.content),
          ingestionId: input.ingestionId,
          pageLead,
          headings,
        };
        const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
        const unset = Object.fromEntries(
          (['title', 'url', 'pageLead', 'headings'] as const).filter((k) => fields[k] === undefined).map((k) => [k, 1]),
        );
        if (existing.has(id)) {
          return {
            updateOne: {
              filter: { libraryId, id },
              update: { $set: set, ...(Object.keys(unset).length ? { $unset: unset } : {}) },
            },
          };
        }
        return { insertOne: { document: { libraryId, id, ...set, position: nextPosition++ } as ChunkDoc } };
      });
      // Every id appears once per batch, so unordered writes cannot reorder an insert and an update of one chunk.
      await this.models.chunks.bulkWrite(operations, { ordered: false, session });
    }
  }
}

function toLibrary(doc: LibraryDoc): Library {
  return {
    id: doc._id,
    name: doc.name,
    ...optionalField('description', doc.description),
    ...optionalField('sourceUrl', doc.sourceUrl),
    sourceType: doc.sourceType,
    ...optionalField('version', doc.version),
    chunkCount: doc.chunkCount,
    ownerId: doc.ownerId,
    createdAt: doc.createdAt.toISOString(),
    updatedAt: doc.updatedAt.toISOString(),
    ...(doc.embeddingModel
      ? { embeddingModel: doc.embeddingModel, embeddingDimensions: doc.embeddingDimensions ?? 0 }
      : {}),
  };
}

function toStoredChunk(doc: ChunkDoc): StoredChunk {
  return {
    id: doc.id,
    ...optionalField('title', doc.title),
    content: doc.content,
    ...optionalField('url', doc.url),
    tokenCount: doc.tokenCount,
    position: doc.position,
    ...(doc.bpeTokens === undefined ? {} : { bpeTokens: doc.bpeTokens }),
  };
}

function toApiKey(doc: ApiKeyDoc): ApiKey {
  return {
    id: doc._id,
    name: doc.name,
    keyPrefix: doc.keyPrefix,
    permissions: doc.permissions,
    lastUsedAt: doc.lastUsedAt ? doc.lastUsedAt.toISOString() : null,
    createdAt: doc.createdAt.toISOString(),
  };
}

const stateKey = (libraryId: string, model: string) => `${libraryId} ${model}`;

/** A lean read gives BSON Binary for a Buffer field. */
function asBuffer(data: { buffer: ArrayBuffer } | Buffer): Buffer {
  if (Buffer.isBuffer(data)) return data;
  const binary = data as unknown as { buffer: Uint8Array };
  return Buffer.from(binary.buffer);
}

function isDuplicateKey(error: unknown): boolean {
  return (error as { code?: number } | null)?.code === 11000;
}

function toStagedPage(doc: Pick<StagedPageDoc, 'url' | 'chunks' | 'page'>): StagedPage {
  return { url: doc.url, chunks: doc.chunks, ...(doc.page ? { page: doc.page } : {}) };
}

function toCrawledPage(doc: CrawledPageDoc): CrawledPage {
  return {
    url: doc.url,
    ...optionalField('etag', doc.etag),
    ...optionalField('lastModified', doc.lastModified),
    contentHash: doc.contentHash,
    chunkIds: [...doc.chunkIds],
    lineKeys: [...doc.lineKeys],
    links: [...doc.links],
  };
}
