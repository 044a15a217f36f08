import { chunkPages, type LibrarySwap, type LibraryStore, type VectorIndex } from '@docshelf/core';

/**
 * LibrarySwap across engines that share no transaction (MongoDB with Pinecone, or mixed): the vectors move first,
 * then the records swap in one MongoDB transaction. Between the two a search may find a moved vector whose chunk is
 * not the library's yet; every hit is read back from the record store, so it is dropped, and text is never mixed.
 */
export class StepwiseLibrarySwap implements LibrarySwap {
  constructor(
    private readonly libraries: LibraryStore,
    private readonly vectors: VectorIndex,
  ) {}

  async swapIn(stagedId: string, libraryId: string, now: Date): Promise<boolean> {
    if (!(await this.libraries.getLibrary(stagedId))) return false;
    const chunkIds: string[] = [];
    for await (const page of chunkPages(this.libraries, stagedId, { pageSize: 1_000 })) {
      chunkIds.push(...page.map((chunk) => chunk.id));
    }
    await this.vectors.moveLibrary(stagedId, libraryId, chunkIds);
    return this.libraries.swapLibrary(stagedId, libraryId, now);
  }

  async discard(stagedId: string): Promise<void> {
    await this.vectors.deleteLibrary(stagedId);
    await this.libraries.deleteLibrary(stagedId);
  }
}
