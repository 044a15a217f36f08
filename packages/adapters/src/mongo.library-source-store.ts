import type { LibrarySource, LibrarySourceStore } from '@docshelf/core';
import type { LibrarySourceDoc } from './mongo.models';
import type { MongoRecordDatabase } from './mongo.record-database';

/** Where each library was last read from and how often it is refreshed, on MongoDB: one document per library. */
export class MongoLibrarySourceStore implements LibrarySourceStore {
  constructor(private readonly db: MongoRecordDatabase) {}

  async putSource(source: Parameters<LibrarySourceStore['putSource']>[0]): Promise<void> {
    const { libraryId, kind, request, ownerId, refreshEvery } = source;
    const before = await this.db.models.librarySources.findById(libraryId).lean<LibrarySourceDoc>();
    // The commit stays only while the library is read from the same repository.
    const sameRepository = before?.kind === kind && before.request.repoUrl === request.repoUrl;
    await this.db.models.librarySources.updateOne(
      { _id: libraryId },
      {
        $set: {
          kind,
          request,
          ownerId,
          ...(refreshEvery === undefined ? {} : { refreshEvery }),
          ...(sameRepository ? {} : { commit: null }),
        },
      },
      { upsert: true },
    );
  }

  async getSource(libraryId: string): Promise<LibrarySource | null> {
    const doc = await this.db.models.librarySources.findById(libraryId).lean<LibrarySourceDoc>();
    if (!doc) return null;
    return {
      libraryId,
      kind: doc.kind,
      request: doc.request,
      ownerId: doc.ownerId,
      refreshEvery: doc.refreshEvery ?? null,
      lastRefreshedAt: doc.lastRefreshedAt ?? null,
      commit: doc.commit ?? null,
    };
  }

  async setRefreshEvery(libraryId: string, refreshEvery: string | null): Promise<boolean> {
    const result = await this.db.models.librarySources.updateOne({ _id: libraryId }, { $set: { refreshEvery } });
    return result.matchedCount > 0;
  }

  async markRefreshed(libraryId: string, at: Date): Promise<void> {
    await this.db.models.librarySources.updateOne({ _id: libraryId }, { $set: { lastRefreshedAt: at } });
  }

  async setCommit(libraryId: string, commit: string): Promise<void> {
    await this.db.models.librarySources.updateOne({ _id: libraryId }, { $set: { commit } });
  }

  async deleteSource(libraryId: string): Promise<void> {
    await this.db.models.librarySources.deleteOne({ _id: libraryId });
  }
}
