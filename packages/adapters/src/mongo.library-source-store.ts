import type { LibrarySource, LibrarySourceStore } from '@docshelf/core';
import type { LibrarySourceDoc } from './mongo.models';
import type { MongoRecordDatabase } from './mongo.record-database';

/** How each library was last crawled and how often it is refreshed, on MongoDB: one document per library. */
export class MongoLibrarySourceStore implements LibrarySourceStore {
  constructor(private readonly db: MongoRecordDatabase) {}

  async putSource(source: Parameters<LibrarySourceStore['putSource']>[0]): Promise<void> {
    const { libraryId, crawl, ownerId, refreshEvery } = source;
    await this.db.models.librarySources.updateOne(
      { _id: libraryId },
      { $set: { crawl, ownerId, ...(refreshEvery === undefined ? {} : { refreshEvery }) } },
      { upsert: true },
    );
  }

  async getSource(libraryId: string): Promise<LibrarySource | null> {
    const doc = await this.db.models.librarySources.findById(libraryId).lean<LibrarySourceDoc>();
    if (!doc) return null;
    return {
      libraryId,
      crawl: doc.crawl,
      ownerId: doc.ownerId,
      refreshEvery: doc.refreshEvery ?? null,
      lastRefreshedAt: doc.lastRefreshedAt ?? null,
    };
  }

  async setRefreshEvery(libraryId: string, refreshEvery: string | null): Promise<boolean> {
    const result = await this.db.models.librarySources.updateOne({ _id: libraryId }, { $set: { refreshEvery } });
    return result.matchedCount > 0;
  }

  async markRefreshed(libraryId: string, at: Date): Promise<void> {
    await this.db.models.librarySources.updateOne({ _id: libraryId }, { $set: { lastRefreshedAt: at } });
  }

  async deleteSource(libraryId: string): Promise<void> {
    await this.db.models.librarySources.deleteOne({ _id: libraryId });
  }
}
