import type { StoredChunk } from '../../domain/types';
import type { LibraryStore } from '../../ports';

/**
 * A library's chunks in library order, `pageSize` at a time — or only those one ingestion last wrote. Each page is
 * found by the position the one before ended at, so the thousandth page costs what the first did.
 */
export async function* chunkPages(
  store: Pick<LibraryStore, 'listChunks' | 'listChunksOfIngestion'>,
  libraryId: string,
  options: { pageSize: number; ingestionId?: string },
): AsyncGenerator<StoredChunk[]> {
  const { pageSize, ingestionId } = options;
  for (let afterPosition = -1; ;) {
    const page =
      ingestionId === undefined
        ? await store.listChunks(libraryId, { afterPosition, limit: pageSize })
        : await store.listChunksOfIngestion(libraryId, ingestionId, { afterPosition, limit: pageSize });
    if (page.length > 0) yield page;
    if (page.length < pageSize) return;
    afterPosition = page.at(-1)!.position;
  }
}
