import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import {
  countTokens,
  estimateTokens,
  pageLeads,
  type ChunkMeta,
  type ChunkToStore,
  type ConfirmedPage,
  type ChunkPage,
  type CommitIngestionInput,
  type EmbeddingModel,
  type Library,
  type LibraryStore,
  type StoredChunk,
  versionIdRange,
} from '@docshelf/core';
import type { Statement } from 'better-sqlite3';
import type { Database } from './sqlite.database';
import { optionalField } from './optional-field';
import { writeCrawledPages } from './sqlite.staging-store';
import { statement } from './sqlite.statements';

/** Rows per multi-row upsert statement (13 parameters each, well under SQLite's variable limit). */
const CHUNK_BATCH_SIZE = 200;

interface LibraryRow {
  id: string;
  name: string;
  description: string | null;
  source_url: string | null;
  source_type: string;
  version: string | null;
  chunk_count: number;
  owner_id: string;
  created_at: string;
  updated_at: string;
  embedding_model: string | null;
  embedding_dimensions: number | null;
}

interface ChunkRow {
  id: string;
  title: string | null;
  content: string;
  url: string | null;
  token_count: number;
  position: number;
  bpe_tokens: number | null;
  fetched_at: string | null;
  content_hash: string | null;
}
const CHUNK_COLUMNS = 'id, title, content, url, token_count, position, bpe_tokens, fetched_at, content_hash';

/** Libraries and their chunks on the embedded SQLite file; a commit also writes the crawled pages it keeps. */
export class SqliteLibraryStore implements LibraryStore {
  private readonly upsertStatements = new Map<number, Statement<unknown[]>>();

  constructor(private readonly db: Database) {}

  async getLibrary(id: string): Promise<Library | null> {
    return this.readLibrary(id);
  }

  async listLibraries(): Promise<Library[]> {
    // Replacements being built ('~staged/…') are not libraries yet.
    const rows = statement(this.db, "SELECT * FROM libraries WHERE id NOT LIKE '~%' ORDER BY id").all() as LibraryRow[];
    return rows.map(toLibrary);
  }

  async listLibraryVersions(baseId: string): Promise<Library[]> {
    const rows = statement(this.db, 'SELECT * FROM libraries WHERE id >= ? AND id < ? ORDER BY id').all(
      ...versionIdRange(baseId),
    ) as LibraryRow[];
    return rows.map(toLibrary);
  }

  async commitIngestion(input: CommitIngestionInput): Promise<Library> {
    // Counted before the write lock is taken: the tokenizer is the slow part of a commit. A chunk without text fails
    // in the transaction below, as any other bad row does.
    const bpeTokens = await countChunkTokens(input.chunks);
    const commit = this.db.transaction(() => {
      this.writeLibrary(input);
      const libraryId = input.library.id;
      // The count is kept, not recounted: a commit costs what it writes, whatever the library's size.
      let removed = 0;
      if (input.replace) {
        removed += this.db.prepare('DELETE FROM chunks WHERE library_id = ?').run(libraryId).changes;
        this.db.prepare('DELETE FROM crawled_pages WHERE library_id = ?').run(libraryId);
      }
      if (input.removeChunkIds?.length) {
        removed += this.db
          .prepare('DELETE FROM chunks WHERE library_id = ? AND id IN (SELECT value FROM json_each(?))')
          .run(libraryId, JSON.stringify(input.removeChunkIds)).changes;
      }
      const added = this.upsertChunks(libraryId, input.chunks, input.ingestionId, bpeTokens);
      this.confirmPages(libraryId, input.confirmedPages ?? []);
      writeCrawledPages(this.db, libraryId, input.crawledPages ?? [], input.removeCrawledPages ?? []);
      statement(this.db, 'UPDATE libraries SET chunk_count = chunk_count + ? WHERE id = ?').run(
        added - removed,
        libraryId,
      );
      return this.readLibrary(libraryId) as Library;
    });
    return commit.immediate();
  }

  async listChunkMeta(libraryId: string): Promise<ChunkMeta[]> {
    const rows = this.db
      .prepare('SELECT id, title, url, token_count FROM chunks WHERE library_id = ? ORDER BY position')
      .all(libraryId) as Omit<ChunkRow, 'content' | 'position'>[];
    return rows.map((row) => ({
      id: row.id,
      ...optionalField('title', row.title),
      ...optionalField('url', row.url),
      tokenCount: row.token_count,
    }));
  }

  async listChunks(libraryId: string, page: ChunkPage): Promise<StoredChunk[]> {
    const rows = (
      'afterPosition' in page
        ? statement(
            this.db,
            `SELECT ${CHUNK_COLUMNS} FROM chunks WHERE library_id = ? AND position > ? ORDER BY position LIMIT ?`,
          ).all(libraryId, page.afterPosition, page.limit)
        : statement(
            this.db,
            `SELECT ${CHUNK_COLUMNS} FROM chunks WHERE library_id = ? ORDER BY position LIMIT ? OFFSET ?`,
          ).all(libraryId, page.limit, page.offset)
    ) as ChunkRow[];
    return rows.map(toStoredChunk);
  }

  async getChunks(libraryId: string, chunkIds: string[]): Promise<StoredChunk[]> {
    if (chunkIds.length === 0) return [];
    // Sorted here: an ORDER BY position would make SQLite walk the whole library by position instead of using the
    // (library, id) key for each id.
    const rows = statement(
      this.db,
      `SELECT ${CHUNK_COLUMNS} FROM chunks WHERE library_id = ? AND id IN (SELECT value FROM json_each(?))`,
    ).all(libraryId, JSON.stringify(chunkIds)) as ChunkRow[];
    return rows.sort((a, b) => a.position - b.position).map(toStoredChunk);
  }

  async listChunksOfIngestion(
    libraryId: string,
    ingestionId: string,
    page: { afterPosition?: number; limit: number },
  ): Promise<StoredChunk[]> {
    const rows = statement(
      this.db,
      `SELECT ${CHUNK_COLUMNS} FROM chunks WHERE library_id = ? AND ingestion_id = ? AND position > ?
       ORDER BY position LIMIT ?`,
    ).all(libraryId, ingestionId, page.afterPosition ?? -1, page.limit) as ChunkRow[];
    return rows.map(toStoredChunk);
  }

  async countChunks(libraryId: string): Promise<number> {
    const row = this.db.prepare('SELECT COUNT(*) AS n FROM chunks WHERE library_id = ?').get(libraryId) as {
      n: number;
    };
    return row.n;
  }

  async deleteLibrary(id: string): Promise<boolean> {
    const remove = this.db.transaction(() => {
      this.db.prepare('DELETE FROM chunks WHERE library_id = ?').run(id);
      this.db.prepare('DELETE FROM crawled_pages WHERE library_id = ?').run(id);
      return this.db.prepare('DELETE FROM libraries WHERE id = ?').run(id).changes > 0;
    });
    return remove.immediate();
  }

  async swapLibrary(stagedId: string, libraryId: string, now: Date): Promise<boolean> {
    return this.db.transaction(() => this.swapLibraryNow(stagedId, libraryId, now)).immediate();
  }

  /**
   * The swap's statements, for a caller that runs them inside a wider transaction of the same file (the vectors
   * live here too; see sqlite.library-swap.ts).
   */
  swapLibraryNow(stagedId: string, libraryId: string, now: Date): boolean {
    const staged = this.readLibrary(stagedId);
    if (!staged) return false;
    const existing = this.readLibrary(libraryId);
    const at = now.toISOString();
    const fields = [
      staged.name,
      staged.description ?? null,
      staged.sourceUrl ?? null,
      staged.sourceType,
      staged.version ?? null,
    ];
    const embedding = [staged.embeddingModel ?? null, staged.embeddingDimensions ?? null];
    if (existing) {
      this.db
        .prepare(
          `UPDATE libraries SET name = ?, description = ?, source_url = ?, source_type = ?, version = ?, updated_at = ?,
             embedding_model = ?, embedding_dimensions = ? WHERE id = ?`,
        )
        .run(...fields, at, ...embedding, libraryId);
    } else {
      this.db
        .prepare(
          `INSERT INTO libraries (id, name, description, source_url, source_type, version, chunk_count, owner_id, created_at,
             updated_at, embedding_model, embedding_dimensions) VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?, ?, ?)`,
        )
        .run(libraryId, ...fields, staged.ownerId, at, at, ...embedding);
    }
    this.db.prepare('DELETE FROM chunks WHERE library_id = ?').run(libraryId);
    // The chunks move into the library's key range (see the migration that added seq_base).
    this.db
      .prepare(
        'UPDATE chunks SET library_id = ?, seq = (SELECT seq_base FROM libraries WHERE id = ?) + position WHERE library_id = ?',
      )
      .run(libraryId, libraryId, stagedId);
    this.db.prepare('DELETE FROM crawled_pages WHERE library_id = ?').run(libraryId);
    this.db.prepare('UPDATE crawled_pages SET library_id = ? WHERE library_id = ?').run(libraryId, stagedId);
    this.db.prepare('DELETE FROM embedder_states WHERE library_id = ?').run(libraryId);
    this.db.prepare('UPDATE embedder_states SET library_id = ? WHERE library_id = ?').run(libraryId, stagedId);
    this.db
      .prepare('UPDATE libraries SET chunk_count = (SELECT chunk_count FROM libraries WHERE id = ?) WHERE id = ?')
      .run(stagedId, libraryId);
    this.db.prepare('DELETE FROM libraries WHERE id = ?').run(stagedId);
    return true;
  }

  async setEmbeddingModel(libraryId: string, embedding: EmbeddingModel | null): Promise<void> {
    this.db
      .prepare('UPDATE libraries SET embedding_model = ?, embedding_dimensions = ? WHERE id = ?')
      .run(embedding?.model ?? null, embedding?.dimensions ?? null, libraryId);
  }
  private readLibrary(id: string): Library | null {
    const row = statement(this.db, 'SELECT * FROM libraries WHERE id = ?').get(id) as LibraryRow | undefined;
    return row ? toLibrary(row) : null;
  }

  private writeLibrary({ library, ownerId, now }: CommitIngestionInput): void {
    const at = now.toISOString();
    const fields = [
      library.name,
      library.description ?? null,
      library.sourceUrl ?? null,
      library.sourceType,
      library.version ?? null,
    ];
    const updated = this.db
      .prepare(
        `UPDATE libraries SET name = ?, description = ?, source_url = ?, source_type = ?, version = ?, updated_at = ?
         WHERE id = ?`,
      )
      .run(...fields, at, library.id);
    if (updated.changes > 0) return;
    this.db
      .prepare(
        `INSERT INTO libraries (id, name, description, source_url, source_type, version, chunk_count, owner_id, created_at, updated_at)
         VALUES (?, ?, ?, ?, ?, ?, 0, ?, ?, ?)`,
      )
      .run(library.id, ...fields, ownerId, at, at);
  }

  /**
   * Existing ids keep their position; new ids are appended after the current last position in payload order.
   * Returns how many chunks are new to the library.
   */
  private upsertChunks(
    libraryId: string,
    chunks: ChunkToStore[],
    ingestionId: string,
    bpeTokens: Map<ChunkToStore, number | null>,
  ): number {
    const last = this.db.prepare('SELECT MAX(position) AS p FROM chunks WHERE library_id = ?').get(libraryId) as {
      p: number | null;
    };
    // A new chunk's key is its library's base plus its position; an existing one keeps its key (NULL is never stored).
    const { seq_base: base } = this.db.prepare('SELECT seq_base FROM libraries WHERE id = ?').get(libraryId) as {
      seq_base: number;
    };
    let nextPosition = (last.p ?? -1) + 1;
    const findExisting = this.db.prepare(
      'SELECT id FROM chunks WHERE library_id = ? AND id IN (SELECT value FROM json_each(?))',
    );
    const written = new Set<string>();
    const leadOf = pageLeads(chunks);
    for (let start = 0; start < chunks.length; start += CHUNK_BATCH_SIZE) {
      const batch = chunks.slice(start, start + CHUNK_BATCH_SIZE);
      const existing = new Set(
        (findExisting.all(libraryId, JSON.stringify(batch.map((c) => c.id))) as { id: string }[]).map((r) => r.id),
      );
      const params: unknown[] = [];
      for (const chunk of batch) {
        const isNew = !existing.has(chunk.id) && !written.has(chunk.id);
        written.add(chunk.id);
        const tokenCount = chunk.tokenCount ?? estimateTokens(chunk.content);
        // Position of an existing row is never overwritten (see ON CONFLICT), so any value works for it.
        const position = isNew ? nextPosition++ : -1;
        params.push(
          isNew ? base + position : null,
          libraryId,
          chunk.id,
          chunk.title ?? null,
          chunk.content,
          chunk.url ?? null,
          tokenCount,
        );
        params.push(position, ingestionId, leadOf(chunk), bpeTokens.get(chunk) ?? null);
        params.push(chunk.fetchedAt ?? null, chunk.contentHash ?? null);
      }
      this.prepareChunkUpsert(batch.length).run(...params);
    }
    return nextPosition - ((last.p ?? -1) + 1);
  }

  /**
   * Unchanged pages' chunks take the time they were found unchanged: one statement per page, touching two columns the
   * search index's triggers do not watch, so nothing is re-indexed.
   */
  private confirmPages(libraryId: string, pages: ConfirmedPage[]): void {
    const confirm = statement(
      this.db,
      `UPDATE chunks SET fetched_at = ?, content_hash = ?
       WHERE library_id = ? AND id IN (SELECT value FROM json_each(?))`,
    );
    for (const page of pages) {
      if (page.chunkIds.length > 0)
        confirm.run(page.fetchedAt, page.contentHash, libraryId, JSON.stringify(page.chunkIds));
    }
  }

  private prepareChunkUpsert(rows: number): Statement<unknown[]> {
    let statement = this.upsertStatements.get(rows);
    if (!statement) {
      const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
      statement = this.db.prepare(
        `INSERT INTO chunks (seq, library_id, id, title, content, url, token_count, position, ingestion_id, page_lead, bpe_tokens,
           fetched_at, content_hash)
         VALUES ${values}
         ON CONFLICT (library_id, id) DO UPDATE SET title = excluded.title, content = excluded.content, url = excluded.url,
           token_count = excluded.token_count, ingestion_id = excluded.ingestion_id, page_lead = excluded.page_lead,
           bpe_tokens = excluded.bpe_tokens, fetched_at = excluded.fetched_at, content_hash = excluded.content_hash`,
      );
      this.upsertStatements.set(rows, statement);
    }
    return statement;
  }
}

function toLibrary(row: LibraryRow): Library {
  return {
    id: row.id,
    name: row.name,
    ...optionalField('description', row.description),
    ...optionalField('sourceUrl', row.source_url),
    sourceType: row.source_type,
    ...optionalField('version', row.version),
    chunkCount: row.chunk_count,
    ownerId: row.owner_id,
    createdAt: row.created_at,
    updatedAt: row.updated_at,
    ...(row.embedding_model === null
      ? {}
      : { embeddingModel: row.embedding_model, embeddingDimensions: row.embedding_dimensions ?? 0 }),
  };
}

function toStoredChunk(row: ChunkRow): StoredChunk {
  return {
    id: row.id,
    ...optionalField('title', row.title),
    content: row.content,
    ...optionalField('url', row.url),
    tokenCount: row.token_count,
    position: row.position,
    ...(row.bpe_tokens === null ? {} : { bpeTokens: row.bpe_tokens }),
    ...optionalField('fetchedAt', row.fetched_at),
    ...optionalField('contentHash', row.content_hash),
  };
}

/** Chunks tokenized between two turns of the event loop (about 40 ms of 400-word chunks). */
const COUNT_SLICE = 100;

/**
 * BPE counts of the chunks' texts, a slice at a time with a turn of the event loop between slices: a worker committing
 * thousands of chunks must keep renewing its job's lock (and answering its health checks) meanwhile.
 */
async function countChunkTokens(chunks: ChunkToStore[]): Promise<Map<ChunkToStore, number | null>> {
  const counts = new Map<ChunkToStore, number | null>();
  for (let start = 0; start < chunks.length; start += COUNT_SLICE) {
    if (start > 0) await yieldToEventLoop();
    for (const chunk of chunks.slice(start, start + COUNT_SLICE)) {
      counts.set(chunk, typeof chunk.content === 'string' ? countTokens(chunk.content) : null);
    }
  }
  return counts;
}
