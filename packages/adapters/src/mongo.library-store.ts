import type { ClientSession } from 'mongoose';
import {
  chunkHeadings,
  countTokens,
  estimateTokens,
  pageLeads,
  type ChunkMeta,
  type ChunkToStore,
  type ChunkPage,
  type CommitIngestionInput,
  type EmbeddingModel,
  type Library,
  type LibraryStore,
  type StoredChunk,
  versionIdRange,
} from '@docshelf/core';
import { stateKey } from './mongo.embedder-state-store';
import type { ChunkDoc, EmbedderStateDoc, LibraryDoc } from './mongo.models';
import type { MongoRecordDatabase } from './mongo.record-database';
import { optionalField } from './optional-field';

/** Chunk writes per bulkWrite round trip. */
const WRITE_BATCH_SIZE = 1_000;
const LIBRARY_OPTIONAL = ['description', 'sourceUrl', 'version'] as const;
/** Libraries and their chunks on MongoDB; a commit also writes the crawled pages it keeps, in the same transaction. */
export class MongoLibraryStore implements LibraryStore {
  constructor(private readonly db: MongoRecordDatabase) {}

  async getLibrary(id: string): Promise<Library | null> {
    const doc = await this.db.models.libraries.findById(id).lean<LibraryDoc>();
    return doc ? toLibrary(doc) : null;
  }

  async listLibraries(): Promise<Library[]> {
    // Replacements being built ('~staged/…') are not libraries yet.
    const docs = await this.db.models.libraries
      .find({ _id: { $not: /^~/ } })
      .sort({ _id: 1 })
      .lean<LibraryDoc[]>();
    return docs.map(toLibrary);
  }

  async listLibraryVersions(baseId: string): Promise<Library[]> {
    const [from, below] = versionIdRange(baseId);
    const docs = await this.db.models.libraries
      .find({ _id: { $gte: from, $lt: below } })
      .sort({ _id: 1 })
      .lean<LibraryDoc[]>();
    return docs.map(toLibrary);
  }

  async commitIngestion(input: CommitIngestionInput): Promise<Library> {
    await this.db.whenReady();
    return this.db.connection.transaction(async (session) => {
      await this.writeLibrary(input, session);
      const libraryId = input.library.id;
      if (input.replace) {
        await this.db.models.chunks.deleteMany({ libraryId }, { session });
        await this.db.models.crawledPages.deleteMany({ libraryId }, { session });
      }
      if (input.removeChunkIds?.length)
        await this.db.models.chunks.deleteMany({ libraryId, id: { $in: input.removeChunkIds } }, { session });
      await this.upsertChunks(input, session);
      // Unchanged pages' chunks take the time they were found unchanged; fields text search does not index.
      for (const page of input.confirmedPages ?? []) {
        if (page.chunkIds.length === 0) continue;
        await this.db.models.chunks.updateMany(
          { libraryId, id: { $in: page.chunkIds } },
          { $set: { fetchedAt: page.fetchedAt, contentHash: page.contentHash } },
          { session },
        );
      }
      if (input.removeCrawledPages?.length) {
        await this.db.models.crawledPages.deleteMany(
          { libraryId, url: { $in: input.removeCrawledPages } },
          { session },
        );
      }
      for (const page of input.crawledPages ?? []) {
        const { url, etag, lastModified, contentHash, chunkIds, lineKeys, links } = page;
        await this.db.models.crawledPages.replaceOne(
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
      const chunkCount = await this.db.models.chunks.countDocuments({ libraryId: input.library.id }, { session });
      const doc = await this.db.models.libraries
        .findByIdAndUpdate(input.library.id, { $set: { chunkCount } }, { session, new: true })
        .lean<LibraryDoc>();
      return toLibrary(doc as LibraryDoc);
    });
  }

  async listChunkMeta(libraryId: string): Promise<ChunkMeta[]> {
    const docs = await this.db.models.chunks
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
        ? this.db.models.chunks.find({ libraryId, position: { $gt: page.afterPosition } })
        : this.db.models.chunks.find({ libraryId }).skip(page.offset);
    const docs = await query.sort({ position: 1 }).limit(page.limit).lean<ChunkDoc[]>();
    return docs.map(toStoredChunk);
  }

  async getChunks(libraryId: string, chunkIds: string[]): Promise<StoredChunk[]> {
    if (chunkIds.length === 0) return [];
    const docs = await this.db.models.chunks
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
    const docs = await this.db.models.chunks
      .find({ libraryId, ingestionId, position: { $gt: page.afterPosition ?? -1 } })
      .sort({ position: 1 })
      .limit(page.limit)
      .lean<ChunkDoc[]>();
    return docs.map(toStoredChunk);
  }

  async countChunks(libraryId: string): Promise<number> {
    return this.db.models.chunks.countDocuments({ libraryId });
  }

  async deleteLibrary(id: string): Promise<boolean> {
    await this.db.whenReady();
    return this.db.connection.transaction(async (session) => {
      await this.db.models.chunks.deleteMany({ libraryId: id }, { session });
      await this.db.models.crawledPages.deleteMany({ libraryId: id }, { session });
      await this.db.models.embedderStates.deleteMany({ libraryId: id }, { session });
      return (await this.db.models.libraries.deleteOne({ _id: id }, { session })).deletedCount > 0;
    });
  }

  async swapLibrary(stagedId: string, libraryId: string, now: Date): Promise<boolean> {
    await this.db.whenReady();
    return this.db.connection.transaction(async (session) => {
      const staged = await this.db.models.libraries.findById(stagedId).session(session).lean<LibraryDoc>();
      if (!staged) return false;
      const existing = await this.db.models.libraries.findById(libraryId).session(session).lean<LibraryDoc>();
      const { _id: _staged, ownerId, createdAt, chunkCount: _count, ...fields } = staged;
      await this.db.models.libraries.replaceOne(
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
      await this.db.models.chunks.deleteMany({ libraryId }, { session });
      await this.db.models.chunks.updateMany({ libraryId: stagedId }, { $set: { libraryId } }, { session });
      await this.db.models.crawledPages.deleteMany({ libraryId }, { session });
      await this.db.models.crawledPages.updateMany({ libraryId: stagedId }, { $set: { libraryId } }, { session });
      await this.db.models.embedderStates.deleteMany({ libraryId }, { session });
      const states = await this.db.models.embedderStates
        .find({ libraryId: stagedId })
        .session(session)
        .lean<EmbedderStateDoc[]>();
      for (const state of states) {
        await this.db.models.embedderStates.create([{ ...state, _id: stateKey(libraryId, state.model), libraryId }], {
          session,
        });
      }
      await this.db.models.embedderStates.deleteMany({ libraryId: stagedId }, { session });
      const chunkCount = await this.db.models.chunks.countDocuments({ libraryId }, { session });
      await this.db.models.libraries.updateOne({ _id: libraryId }, { $set: { chunkCount } }, { session });
      await this.db.models.libraries.deleteOne({ _id: stagedId }, { session });
      return true;
    });
  }

  async setEmbeddingModel(libraryId: string, embedding: EmbeddingModel | null): Promise<void> {
    const update = embedding
      ? { $set: { embeddingModel: embedding.model, embeddingDimensions: embedding.dimensions } }
      : { $unset: { embeddingModel: 1, embeddingDimensions: 1 } };
    await this.db.models.libraries.updateOne({ _id: libraryId }, update);
  }
  private async writeLibrary({ library, ownerId, now }: CommitIngestionInput, session: ClientSession): Promise<void> {
    const { id, ...fields } = library;
    const absent = Object.fromEntries(
      LIBRARY_OPTIONAL.filter((key) => fields[key] === undefined).map((key) => [key, 1]),
    );
    const set = Object.fromEntries(Object.entries({ ...fields, updatedAt: now }).filter(([, v]) => v !== undefined));
    await this.db.models.libraries.updateOne(
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
    const latest = new Map<string, ChunkToStore>();
    for (const chunk of input.chunks) latest.set(chunk.id, chunk);
    const ids = [...latest.keys()];
    const last = await this.db.models.chunks
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
          await this.db.models.chunks
            .find({ libraryId, id: { $in: batch } }, { id: 1 })
            .session(session)
            .lean()
        ).map((d) => d.id),
      );
      const operations = batch.map((id) => {
        const chunk = latest.get(id) as ChunkToStore;
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
          fetchedAt: chunk.fetchedAt,
          contentHash: chunk.contentHash,
        };
        const set = Object.fromEntries(Object.entries(fields).filter(([, v]) => v !== undefined));
        const unset = Object.fromEntries(
          (['title', 'url', 'pageLead', 'headings', 'fetchedAt', 'contentHash'] as const)
            .filter((k) => fields[k] === undefined)
            .map((k) => [k, 1]),
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
      await this.db.models.chunks.bulkWrite(operations, { ordered: false, session });
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
    ...optionalField('fetchedAt', doc.fetchedAt),
    ...optionalField('contentHash', doc.contentHash),
  };
}
