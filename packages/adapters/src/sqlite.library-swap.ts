import type { LibrarySwap } from '@docshelf/core';
import type { Database } from './sqlite.database';
import type { SqliteLibraryStore } from './sqlite.library-store';
import type { SqliteVecVectorIndex } from './sqlite-vec.vector-index';

/**
 * LibrarySwap for the embedded engines: records, keyword index, vectors and embedder states live in one SQLite file,
 * so a replacement is swapped in by one transaction and no reader ever sees part of it.
 */
export class SqliteLibrarySwap implements LibrarySwap {
  constructor(
    private readonly db: Database,
    private readonly libraries: SqliteLibraryStore,
    private readonly vectors: SqliteVecVectorIndex,
  ) {}

  async swapIn(stagedId: string, libraryId: string, now: Date): Promise<boolean> {
    const swap = this.db.transaction(() => {
      const chunkIds = (
        this.db.prepare('SELECT id FROM chunks WHERE library_id = ?').all(stagedId) as { id: string }[]
      ).map((r) => r.id);
      if (!this.libraries.swapLibraryNow(stagedId, libraryId, now)) return false;
      this.vectors.moveLibraryNow(stagedId, libraryId, chunkIds);
      return true;
    });
    return swap.immediate();
  }

  async discard(stagedId: string): Promise<void> {
    await this.vectors.deleteLibrary(stagedId);
    await this.libraries.deleteLibrary(stagedId);
  }
}
