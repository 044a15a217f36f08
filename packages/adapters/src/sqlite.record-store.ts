import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { randomUUID } from 'node:crypto';
import {
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
  type Permission,
  type RecordStore,
  type Session,
  type StagedPage,
  type StagedPageContent,
  type StagedPageOutline,
  type StoredChunk,
  type User,
  type UserWithPassword,
} from '@docshelf/core';
import type { Statement } from 'better-sqlite3';
import type { Database } from './sqlite.database';
import { optionalField } from './optional-field';
import { statement } from './sqlite.statements';

/** Rows per multi-row upsert statement (11 parameters each, well under SQLite's variable limit). */
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
}

interface StagedPageRow {
  url: string;
  chunks: string;
  page: string | null;
}

function toStagedPage(row: StagedPageRow): StagedPage {
  return {
    url: row.url,
    chunks: JSON.parse(row.chunks) as ChunkInput[],
    ...(row.page === null ? {} : { page: JSON.parse(row.page) as StagedPageContent }),
  };
}

interface CrawledPageRow {
  url: string;
  etag: string | null;
  last_modified: string | null;
  content_hash: string;
  chunk_ids: string;
  line_keys: string;
  links: string;
}

function toCrawledPage(row: CrawledPageRow): CrawledPage {
  return {
    url: row.url,
    ...optionalField('etag', row.etag),
    ...optionalField('lastModified', row.last_modified),
    contentHash: row.content_hash,
    chunkIds: JSON.parse(row.chunk_ids) as string[],
    lineKeys: JSON.parse(row.line_keys) as string[],
    links: JSON.parse(row.links) as string[],
  };
}

interface UserRow {
  id: string;
  email: string;
  password_hash: string;
}

interface ApiKeyRow {
  id: string;
  user_id: string;
  name: string;
  key_prefix: string;
  permissions: Permission;
  last_used_at: string | null;
  created_at: string;
}

const CHUNK_COLUMNS = 'id, title, content, url, token_count, position, bpe_tokens';
const API_KEY_COLUMNS = 'id, user_id, name, key_prefix, permissions, last_used_at, created_at';

export interface SqliteRecordStoreOptions {
  /** When true close() closes the Database; leave false when the vector index shares it. */
  ownsDatabase?: boolean;
}

/** RecordStore (and the embedder states kept with it) on the embedded SQLite file opened by openSqliteDatabase. */
export class SqliteRecordStore implements RecordStore, EmbedderStateStore {
  private readonly ownsDatabase: boolean;
  private readonly upsertStatements = new Map<number, Statement<unknown[]>>();

  constructor(
    private readonly db: Database,
    options: SqliteRecordStoreOptions = {},
  ) {
    this.ownsDatabase = options.ownsDatabase ?? false;
  }

  async getLibrary(id: string): Promise<Library | null> {
    return this.readLibrary(id);
  }

  async listLibraries(): Promise<Library[]> {
    // Replacements being built ('~staged/…') are not libraries yet.
    const rows = statement(this.db, "SELECT * FROM libraries WHERE id NOT LIKE '~%' ORDER BY id").all() as LibraryRow[];
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
      this.writeCrawledPages(libraryId, input.crawledPages ?? [], input.removeCrawledPages ?? []);
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

  async getEmbedderState(libraryId: string, model: string): Promise<EmbedderState | null> {
    const row = this.db
      .prepare('SELECT state_id, data FROM embedder_states WHERE library_id = ? AND model = ?')
      .get(libraryId, model) as { state_id: string; data: Buffer } | undefined;
    return row ? { id: row.state_id, data: row.data } : null;
  }

  async getEmbedderStateId(libraryId: string, model: string): Promise<string | null> {
    const row = statement(this.db, 'SELECT state_id FROM embedder_states WHERE library_id = ? AND model = ?').get(
      libraryId,
      model,
    ) as { state_id: string } | undefined;
    return row?.state_id ?? null;
  }

  async putEmbedderState(libraryId: string, model: string, state: EmbedderState): Promise<EmbedderState> {
    this.db
      .prepare(
        `INSERT INTO embedder_states (library_id, model, state_id, data, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (library_id, model) DO NOTHING`,
      )
      .run(libraryId, model, state.id, state.data, new Date().toISOString());
    return (await this.getEmbedderState(libraryId, model)) ?? state;
  }

  async deleteEmbedderState(libraryId: string, model: string): Promise<void> {
    this.db.prepare('DELETE FROM embedder_states WHERE library_id = ? AND model = ?').run(libraryId, model);
  }

  async upsertUser(input: { email: string; passwordHash: string; now: Date }): Promise<User> {
    const now = input.now.toISOString();
    const row = this.db
      .prepare(
        `INSERT INTO users (id, email, password_hash, created_at, updated_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (email) DO UPDATE SET password_hash = excluded.password_hash, updated_at = excluded.updated_at
         RETURNING id, email`,
      )
      .get(randomUUID(), input.email, input.passwordHash, now, now) as User;
    return { id: row.id, email: row.email };
  }

  async findUserByEmail(email: string): Promise<UserWithPassword | null> {
    const row = this.db.prepare('SELECT id, email, password_hash FROM users WHERE email = ?').get(email) as
      UserRow | undefined;
    return row ? { id: row.id, email: row.email, passwordHash: row.password_hash } : null;
  }

  async getUser(id: string): Promise<User | null> {
    const row = this.db.prepare('SELECT id, email FROM users WHERE id = ?').get(id) as User | undefined;
    return row ? { id: row.id, email: row.email } : null;
  }

  async createSession(input: { tokenHash: string; userId: string; expiresAt: Date; now: Date }): Promise<void> {
    this.db
      .prepare(
        'INSERT INTO sessions (token_hash, user_id, expires_at, created_at, last_used_at) VALUES (?, ?, ?, ?, ?)',
      )
      .run(
        input.tokenHash,
        input.userId,
        input.expiresAt.toISOString(),
        input.now.toISOString(),
        input.now.toISOString(),
      );
  }

  async findSession(tokenHash: string): Promise<Session | null> {
    const row = this.db
      .prepare(
        'SELECT user_id, expires_at, COALESCE(last_used_at, created_at) AS last_used_at FROM sessions WHERE token_hash = ?',
      )
      .get(tokenHash) as { user_id: string; expires_at: string; last_used_at: string } | undefined;
    return row ? { userId: row.user_id, expiresAt: row.expires_at, lastUsedAt: row.last_used_at } : null;
  }

  async touchSession(tokenHash: string, at: Date): Promise<void> {
    this.db.prepare('UPDATE sessions SET last_used_at = ? WHERE token_hash = ?').run(at.toISOString(), tokenHash);
  }

  async deleteSession(tokenHash: string): Promise<void> {
    this.db.prepare('DELETE FROM sessions WHERE token_hash = ?').run(tokenHash);
  }

  async deleteExpiredSessions(now: Date): Promise<number> {
    return this.db.prepare('DELETE FROM sessions WHERE expires_at <= ?').run(now.toISOString()).changes;
  }

  async createApiKey(input: {
    id: string;
    userId: string;
    name: string;
    keyHash: string;
    keyPrefix: string;
    permissions: ApiKey['permissions'];
    now: Date;
  }): Promise<ApiKey> {
    const row = this.db
      .prepare(
        `INSERT INTO api_keys (id, user_id, name, key_hash, key_prefix, permissions, last_used_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, NULL, ?) RETURNING ${API_KEY_COLUMNS}`,
      )
      .get(
        input.id,
        input.userId,
        input.name,
        input.keyHash,
        input.keyPrefix,
        input.permissions,
        input.now.toISOString(),
      ) as ApiKeyRow;
    return toApiKey(row);
  }

  async listApiKeys(userId: string): Promise<ApiKey[]> {
    const rows = this.db
      .prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE user_id = ? ORDER BY created_at DESC, rowid DESC`)
      .all(userId) as ApiKeyRow[];
    return rows.map(toApiKey);
  }

  async findApiKeyByHash(keyHash: string): Promise<ApiKeyRecord | null> {
    const row = this.db.prepare(`SELECT ${API_KEY_COLUMNS} FROM api_keys WHERE key_hash = ?`).get(keyHash) as
      ApiKeyRow | undefined;
    return row ? { ...toApiKey(row), userId: row.user_id } : null;
  }

  async findApiKeysByPrefix(keyPrefix: string): Promise<ApiKeyCandidate[]> {
    const rows = statement(this.db, `SELECT ${API_KEY_COLUMNS}, key_hash FROM api_keys WHERE key_prefix = ?`).all(
      keyPrefix,
    ) as (ApiKeyRow & { key_hash: string })[];
    return rows.map((row) => ({ ...toApiKey(row), userId: row.user_id, keyHash: row.key_hash }));
  }

  async deleteApiKey(userId: string, keyId: string): Promise<boolean> {
    return this.db.prepare('DELETE FROM api_keys WHERE id = ? AND user_id = ?').run(keyId, userId).changes > 0;
  }

  async touchApiKey(keyId: string, at: Date): Promise<void> {
    this.db.prepare('UPDATE api_keys SET last_used_at = ? WHERE id = ?').run(at.toISOString(), keyId);
  }

  async stagePage(input: {
    stagingId: string;
    url: string;
    chunks: ChunkInput[];
    page?: StagedPageContent;
    now: Date;
  }): Promise<void> {
    // Once per page of a crawl: prepared once.
    statement(
      this.db,
      `INSERT INTO staged_pages (staging_id, url, chunks, page, created_at) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (staging_id, url) DO UPDATE SET chunks = excluded.chunks, page = excluded.page, created_at = excluded.created_at`,
    ).run(
      input.stagingId,
      input.url,
      JSON.stringify(input.chunks),
      input.page ? JSON.stringify(input.page) : null,
      input.now.toISOString(),
    );
  }

  async listStagedPages(stagingId: string): Promise<StagedPage[]> {
    const rows = this.db
      .prepare('SELECT url, chunks, page FROM staged_pages WHERE staging_id = ? ORDER BY rowid')
      .all(stagingId) as StagedPageRow[];
    return rows.map(toStagedPage);
  }

  async listStagedOutlines(
    stagingId: string,
    page: { afterUrl?: string; limit: number },
  ): Promise<StagedPageOutline[]> {
    // The text stays in SQLite: json_extract reads the outline's fields out of each staged page's JSON.
    const rows = statement(
      this.db,
      `SELECT url, page IS NULL AS chunks_only, json_extract(page, '$.links') AS links,
         json_extract(page, '$.lineKeys') AS line_keys, json_extract(page, '$.unchanged') AS unchanged
       FROM staged_pages WHERE staging_id = ? AND url > ? ORDER BY url LIMIT ?`,
    ).all(stagingId, page.afterUrl ?? '', page.limit) as {
      url: string;
      chunks_only: number;
      links: string | null;
      line_keys: string | null;
      unchanged: number | null;
    }[];
    return rows.map((row) => ({
      url: row.url,
      links: row.links === null ? [] : (JSON.parse(row.links) as string[]),
      ...(row.line_keys === null ? {} : { lineKeys: JSON.parse(row.line_keys) as string[] }),
      unchanged: row.unchanged === 1,
      chunksOnly: row.chunks_only === 1,
    }));
  }

  async getStagedPages(stagingId: string, urls: string[]): Promise<StagedPage[]> {
    if (urls.length === 0) return [];
    const rows = statement(
      this.db,
      'SELECT url, chunks, page FROM staged_pages WHERE staging_id = ? AND url IN (SELECT value FROM json_each(?))',
    ).all(stagingId, JSON.stringify(urls)) as StagedPageRow[];
    return rows.map(toStagedPage);
  }

  async getCrawledPage(libraryId: string, url: string): Promise<CrawledPage | null> {
    const row = statement(this.db, 'SELECT * FROM crawled_pages WHERE library_id = ? AND url = ?').get(
      libraryId,
      url,
    ) as CrawledPageRow | undefined;
    return row ? toCrawledPage(row) : null;
  }

  async getCrawledPages(libraryId: string, urls: string[]): Promise<CrawledPage[]> {
    if (urls.length === 0) return [];
    const rows = statement(
      this.db,
      'SELECT * FROM crawled_pages WHERE library_id = ? AND url IN (SELECT value FROM json_each(?))',
    ).all(libraryId, JSON.stringify(urls)) as CrawledPageRow[];
    return rows.map(toCrawledPage);
  }

  async countCrawledPages(libraryId: string): Promise<{ pages: number; chunks: number }> {
    const { pages } = statement(this.db, 'SELECT COUNT(*) AS pages FROM crawled_pages WHERE library_id = ?').get(
      libraryId,
    ) as { pages: number };
    const { chunks } = statement(
      this.db,
      `SELECT COUNT(DISTINCT chunk.value) AS chunks FROM crawled_pages, json_each(crawled_pages.chunk_ids) AS chunk
       WHERE crawled_pages.library_id = ?`,
    ).get(libraryId) as { chunks: number };
    return { pages, chunks };
  }

  private writeCrawledPages(libraryId: string, pages: CrawledPage[], removed: string[]): void {
    const remove = this.db.prepare('DELETE FROM crawled_pages WHERE library_id = ? AND url = ?');
    for (const url of removed) remove.run(libraryId, url);
    const upsert = this.db.prepare(
      `INSERT INTO crawled_pages (library_id, url, etag, last_modified, content_hash, chunk_ids, line_keys, links)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?)
       ON CONFLICT (library_id, url) DO UPDATE SET etag = excluded.etag, last_modified = excluded.last_modified,
         content_hash = excluded.content_hash, chunk_ids = excluded.chunk_ids, line_keys = excluded.line_keys, links = excluded.links`,
    );
    for (const page of pages) {
      upsert.run(
        libraryId,
        page.url,
        page.etag ?? null,
        page.lastModified ?? null,
        page.contentHash,
        JSON.stringify(page.chunkIds),
        JSON.stringify(page.lineKeys),
        JSON.stringify(page.links),
      );
    }
  }

  async discardStaging(stagingId: string, olderThan?: Date): Promise<void> {
    this.db.prepare('DELETE FROM staged_pages WHERE staging_id = ?').run(stagingId);
    if (olderThan) this.db.prepare('DELETE FROM staged_pages WHERE created_at < ?').run(olderThan.toISOString());
  }

  async ping(): Promise<void> {
    this.db.prepare('SELECT 1').get();
  }

  async close(): Promise<void> {
    if (this.ownsDatabase && this.db.open) this.db.close();
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
    chunks: ChunkInput[],
    ingestionId: string,
    bpeTokens: Map<ChunkInput, number | null>,
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
      }
      this.prepareChunkUpsert(batch.length).run(...params);
    }
    return nextPosition - ((last.p ?? -1) + 1);
  }

  private prepareChunkUpsert(rows: number): Statement<unknown[]> {
    let statement = this.upsertStatements.get(rows);
    if (!statement) {
      const values = Array.from({ length: rows }, () => '(?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)').join(', ');
      statement = this.db.prepare(
        `INSERT INTO chunks (seq, library_id, id, title, content, url, token_count, position, ingestion_id, page_lead, bpe_tokens)
         VALUES ${values}
         ON CONFLICT (library_id, id) DO UPDATE SET title = excluded.title, content = excluded.content, url = excluded.url,
           token_count = excluded.token_count, ingestion_id = excluded.ingestion_id, page_lead = excluded.page_lead,
           bpe_tokens = excluded.bpe_tokens`,
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
  };
}

function toApiKey(row: ApiKeyRow): ApiKey {
  return {
    id: row.id,
    name: row.name,
    keyPrefix: row.key_prefix,
    permissions: row.permissions,
    lastUsedAt: row.last_used_at,
    createdAt: row.created_at,
  };
}

/** Chunks tokenized between two turns of the event loop (about 40 ms of 400-word chunks). */
const COUNT_SLICE = 100;

/**
 * BPE counts of the chunks' texts, a slice at a time with a turn of the event loop between slices: a worker committing
 * thousands of chunks must keep renewing its job's lock (and answering its health checks) meanwhile.
 */
async function countChunkTokens(chunks: ChunkInput[]): Promise<Map<ChunkInput, number | null>> {
  const counts = new Map<ChunkInput, number | null>();
  for (let start = 0; start < chunks.length; start += COUNT_SLICE) {
    if (start > 0) await yieldToEventLoop();
    for (const chunk of chunks.slice(start, start + COUNT_SLICE)) {
      counts.set(chunk, typeof chunk.content === 'string' ? countTokens(chunk.content) : null);
    }
  }
  return counts;
}
