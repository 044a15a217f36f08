import fs from 'node:fs';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';
import * as sqliteVec from 'sqlite-vec';
import { registerSearchFunctions } from './sqlite-fts.functions';

export type Database = BetterSqlite3.Database;

/** Ordered schema steps; append only, never edit a step that has shipped. */
const MIGRATIONS: readonly string[] = [
  `
  CREATE TABLE libraries (
    id TEXT PRIMARY KEY,
    name TEXT NOT NULL,
    description TEXT,
    source_url TEXT,
    source_type TEXT NOT NULL,
    version TEXT,
    chunk_count INTEGER NOT NULL DEFAULT 0,
    owner_id TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE chunks (
    library_id TEXT NOT NULL REFERENCES libraries(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    title TEXT,
    content TEXT NOT NULL,
    url TEXT,
    token_count INTEGER NOT NULL,
    position INTEGER NOT NULL,
    ingestion_id TEXT NOT NULL,
    PRIMARY KEY (library_id, id)
  );
  CREATE UNIQUE INDEX chunks_library_position ON chunks(library_id, position);
  CREATE INDEX chunks_library_ingestion ON chunks(library_id, ingestion_id);
  CREATE TABLE users (
    id TEXT PRIMARY KEY,
    email TEXT NOT NULL UNIQUE COLLATE NOCASE,
    password_hash TEXT NOT NULL,
    created_at TEXT NOT NULL,
    updated_at TEXT NOT NULL
  );
  CREATE TABLE sessions (
    token_hash TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    expires_at TEXT NOT NULL,
    created_at TEXT NOT NULL
  );
  CREATE INDEX sessions_expires_at ON sessions(expires_at);
  CREATE TABLE api_keys (
    id TEXT PRIMARY KEY,
    user_id TEXT NOT NULL REFERENCES users(id) ON DELETE CASCADE,
    name TEXT NOT NULL,
    key_hash TEXT NOT NULL UNIQUE,
    key_prefix TEXT NOT NULL,
    permissions TEXT NOT NULL CHECK (permissions IN ('read', 'admin')),
    last_used_at TEXT,
    created_at TEXT NOT NULL
  );
  CREATE INDEX api_keys_user_created ON api_keys(user_id, created_at);
  CREATE TABLE vector_keys (
    rowid INTEGER PRIMARY KEY,
    library_id TEXT NOT NULL,
    chunk_id TEXT NOT NULL,
    UNIQUE (library_id, chunk_id)
  );
  CREATE TABLE meta (
    key TEXT PRIMARY KEY,
    value TEXT NOT NULL
  );
  `,
  `
  CREATE TABLE staged_pages (
    staging_id TEXT NOT NULL,
    url TEXT NOT NULL,
    chunks TEXT NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (staging_id, url)
  );
  CREATE INDEX staged_pages_created_at ON staged_pages(created_at);
  `,
  `
  ALTER TABLE libraries ADD COLUMN embedding_model TEXT;
  ALTER TABLE libraries ADD COLUMN embedding_dimensions INTEGER;
  `,
  // Keyword search: chunks get an explicit integer key (a bare rowid may change on VACUUM) that rows of a
  // contentless FTS5 index point at, and the lead of their page; the index's title column holds the title, the lead
  // and the chunk's headings. Triggers keep the index in step with every chunk write and delete.
  `
  CREATE TABLE chunks_v2 (
    seq INTEGER PRIMARY KEY,
    library_id TEXT NOT NULL REFERENCES libraries(id) ON DELETE CASCADE,
    id TEXT NOT NULL,
    title TEXT,
    content TEXT NOT NULL,
    url TEXT,
    token_count INTEGER NOT NULL,
    position INTEGER NOT NULL,
    ingestion_id TEXT NOT NULL,
    page_lead TEXT,
    UNIQUE (library_id, id)
  );
  INSERT INTO chunks_v2 (library_id, id, title, content, url, token_count, position, ingestion_id)
    SELECT library_id, id, title, content, url, token_count, position, ingestion_id FROM chunks ORDER BY library_id, position;
  DROP TABLE chunks;
  ALTER TABLE chunks_v2 RENAME TO chunks;
  CREATE UNIQUE INDEX chunks_library_position ON chunks(library_id, position);
  CREATE INDEX chunks_library_ingestion ON chunks(library_id, ingestion_id);
  CREATE VIRTUAL TABLE chunk_search USING fts5(
    lib, title, body,
    content = '', contentless_delete = 1,
    tokenize = 'porter unicode61 remove_diacritics 2'
  );
  INSERT INTO chunk_search (rowid, lib, title, body)
    SELECT seq, docshelf_library_key(library_id), docshelf_search_title(title, page_lead, content), docshelf_search_text(content) FROM chunks;
  CREATE TRIGGER chunks_search_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunk_search (rowid, lib, title, body)
    VALUES (new.seq, docshelf_library_key(new.library_id), docshelf_search_title(new.title, new.page_lead, new.content),
            docshelf_search_text(new.content));
  END;
  CREATE TRIGGER chunks_search_delete AFTER DELETE ON chunks BEGIN
    DELETE FROM chunk_search WHERE rowid = old.seq;
  END;
  CREATE TRIGGER chunks_search_update AFTER UPDATE OF library_id, title, content, page_lead ON chunks
  WHEN old.library_id IS NOT new.library_id OR old.title IS NOT new.title OR old.content IS NOT new.content
    OR old.page_lead IS NOT new.page_lead BEGIN
    DELETE FROM chunk_search WHERE rowid = old.seq;
    INSERT INTO chunk_search (rowid, lib, title, body)
    VALUES (new.seq, docshelf_library_key(new.library_id), docshelf_search_title(new.title, new.page_lead, new.content),
            docshelf_search_text(new.content));
  END;
  `,
  // What an embedder learned from a library's text (local-lsi-v1's term space), deleted with the library.
  `
  CREATE TABLE embedder_states (
    library_id TEXT NOT NULL REFERENCES libraries(id) ON DELETE CASCADE,
    model TEXT NOT NULL,
    state_id TEXT NOT NULL,
    data BLOB NOT NULL,
    created_at TEXT NOT NULL,
    PRIMARY KEY (library_id, model)
  );
  `,
  // Jobs clients follow (JobStore): kept here rather than in Redis so finished jobs outlive queue trimming.
  `
  CREATE TABLE jobs (
    id TEXT PRIMARY KEY,
    type TEXT NOT NULL,
    library_id TEXT NOT NULL,
    state TEXT NOT NULL,
    phase TEXT NOT NULL,
    done INTEGER NOT NULL DEFAULT 0,
    total INTEGER NOT NULL DEFAULT 0,
    pages_discovered INTEGER,
    pages_crawled INTEGER,
    pages_failed INTEGER,
    chunks_ingested INTEGER,
    result TEXT,
    error TEXT,
    callback_url TEXT,
    committing INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    started_at TEXT,
    finished_at TEXT
  );
  CREATE INDEX jobs_created_at ON jobs(created_at);
  CREATE INDEX jobs_library_created_at ON jobs(library_id, created_at);
  CREATE INDEX jobs_finished_at ON jobs(finished_at);
  `,
  // Idempotency-Key requests find the first request's job; a failed job keeps the HTTP status it answered with.
  `
  ALTER TABLE jobs ADD COLUMN idempotency_key TEXT;
  ALTER TABLE jobs ADD COLUMN request_hash TEXT;
  ALTER TABLE jobs ADD COLUMN error_status INTEGER;
  CREATE UNIQUE INDEX jobs_idempotency_key ON jobs(idempotency_key) WHERE idempotency_key IS NOT NULL;
  `,
  // Sessions expire when idle (last use, written at most every few seconds); keys are looked up by their prefix.
  `
  ALTER TABLE sessions ADD COLUMN last_used_at TEXT;
  UPDATE sessions SET last_used_at = created_at;
  CREATE INDEX api_keys_prefix ON api_keys(key_prefix);
  `,
  // A job's latest per-page errors (a JSON array of strings), shown live while it runs.
  `
  ALTER TABLE jobs ADD COLUMN errors TEXT;
  `,
  // Crawls stage a page's content (chunked at the commit, after repeated lines are dropped) and keep each page's
  // validators, hash, chunk ids and line keys for the next crawl of the library.
  `
  ALTER TABLE staged_pages ADD COLUMN page TEXT;
  ALTER TABLE jobs ADD COLUMN pages_unchanged INTEGER;
  CREATE TABLE crawled_pages (
    library_id TEXT NOT NULL,
    url TEXT NOT NULL,
    etag TEXT,
    last_modified TEXT,
    content_hash TEXT NOT NULL,
    chunk_ids TEXT NOT NULL,
    line_keys TEXT NOT NULL,
    links TEXT NOT NULL,
    PRIMARY KEY (library_id, url)
  );
  `,
  // Each chunk's BPE token count, counted when it is written, so search results need not count them (NULL in rows
  // written before: those are counted when they are read).
  `
  ALTER TABLE chunks ADD COLUMN bpe_tokens INTEGER;
  `,
  // How often each library's vectors changed: processes that hold a library's vectors in memory compare it per query.
  `
  CREATE TABLE vector_versions (
    library_id TEXT PRIMARY KEY,
    version INTEGER NOT NULL
  );
  `,
  // Each library's chunks take keys of a range of their own (seq = seq_base + position, seq_base a multiple of 2^32),
  // so a search of one library bounds the FTS index by rowid instead of intersecting with the library's marker token.
  // Existing chunks are re-keyed and the index rebuilt under the new keys (chunks of no library are dropped: no read
  // could reach them).
  `
  ALTER TABLE libraries ADD COLUMN seq_base INTEGER;
  UPDATE libraries SET seq_base = rowid * 4294967296;
  CREATE UNIQUE INDEX libraries_seq_base ON libraries(seq_base);
  CREATE TRIGGER libraries_seq_base AFTER INSERT ON libraries WHEN new.seq_base IS NULL BEGIN
    UPDATE libraries SET seq_base = (SELECT COALESCE(MAX(seq_base), 0) + 4294967296 FROM libraries) WHERE id = new.id;
  END;
  DELETE FROM chunks WHERE library_id NOT IN (SELECT id FROM libraries);
  DROP TRIGGER chunks_search_update;
  INSERT INTO chunk_search (chunk_search) VALUES ('delete-all');
  UPDATE chunks SET seq = (SELECT seq_base FROM libraries WHERE libraries.id = chunks.library_id) + position;
  INSERT INTO chunk_search (rowid, lib, title, body)
    SELECT seq, docshelf_library_key(library_id), docshelf_search_title(title, page_lead, content), docshelf_search_text(content) FROM chunks;
  CREATE TRIGGER chunks_search_update AFTER UPDATE OF seq, library_id, title, content, page_lead ON chunks
  WHEN old.seq IS NOT new.seq OR old.library_id IS NOT new.library_id OR old.title IS NOT new.title
    OR old.content IS NOT new.content OR old.page_lead IS NOT new.page_lead BEGIN
    DELETE FROM chunk_search WHERE rowid = old.seq;
    INSERT INTO chunk_search (rowid, lib, title, body)
    VALUES (new.seq, docshelf_library_key(new.library_id), docshelf_search_title(new.title, new.page_lead, new.content),
            docshelf_search_text(new.content));
  END;
  `,
  // Crawled pages loaded in Chromium (renderer "auto" renders only the pages that need scripts).
  `
  ALTER TABLE jobs ADD COLUMN pages_rendered INTEGER;
  `,
  // An ingestion's chunks are read a page at a time in position order (indexing a crawl of thousands of pages).
  `
  DROP INDEX IF EXISTS chunks_library_ingestion;
  CREATE INDEX chunks_library_ingestion ON chunks(library_id, ingestion_id, position);
  `,
  // Who started a job (an API key sees only its own jobs).
  `
  ALTER TABLE jobs ADD COLUMN started_by TEXT;
  CREATE INDEX jobs_started_by_created_at ON jobs(started_by, created_at);
  `,
  // Where each chunk's text came from: when its page was fetched (or last found unchanged) and the page's hash. NULL
  // in rows written before; a re-crawl that finds their page unchanged fills them in.
  `
  ALTER TABLE chunks ADD COLUMN fetched_at TEXT;
  ALTER TABLE chunks ADD COLUMN content_hash TEXT;
  `,
  // How often each library's chunks were written, by key range (seq_base), whatever the process or the statement:
  // keyword search keeps a library's statistics until its own chunks change (sqlite-fts.statistics.ts). Rows are never
  // deleted, so a key range used again by a new library goes on counting from where it was.
  `
  CREATE TABLE chunk_writes (
    seq_base INTEGER PRIMARY KEY,
    writes INTEGER NOT NULL
  );
  CREATE TRIGGER chunks_writes_insert AFTER INSERT ON chunks BEGIN
    INSERT INTO chunk_writes (seq_base, writes) VALUES ((new.seq >> 32) << 32, 1)
      ON CONFLICT (seq_base) DO UPDATE SET writes = writes + 1;
  END;
  CREATE TRIGGER chunks_writes_delete AFTER DELETE ON chunks BEGIN
    INSERT INTO chunk_writes (seq_base, writes) VALUES ((old.seq >> 32) << 32, 1)
      ON CONFLICT (seq_base) DO UPDATE SET writes = writes + 1;
  END;
  CREATE TRIGGER chunks_writes_update AFTER UPDATE OF seq, library_id, title, content, page_lead ON chunks BEGIN
    INSERT INTO chunk_writes (seq_base, writes) VALUES ((old.seq >> 32) << 32, 1), ((new.seq >> 32) << 32, 1)
      ON CONFLICT (seq_base) DO UPDATE SET writes = writes + 1;
  END;
  `,
  // Where each library was last read from (a crawl's or a git ingestion's request), how often it is refreshed and, for
  // a git source, the commit it holds: kept apart from the library's record, as a request's settings are kept when it
  // is made, before the library exists.
  `
  CREATE TABLE library_sources (
    library_id TEXT PRIMARY KEY,
    kind TEXT NOT NULL,
    request TEXT NOT NULL,
    owner_id TEXT NOT NULL,
    refresh_every TEXT,
    last_refreshed_at TEXT,
    git_commit TEXT
  );
  `,
];

/** Opens (creating when missing) the service's SQLite file with sqlite-vec loaded and the schema migrated. */
export function openSqliteDatabase(file: string): Database {
  if (file !== ':memory:') fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
  const db = new BetterSqlite3(file);
  try {
    // busy_timeout first so the WAL switch and migrations wait for a concurrently starting process.
    db.pragma('busy_timeout = 5000');
    db.pragma('journal_mode = WAL');
    db.pragma('synchronous = NORMAL');
    db.pragma('foreign_keys = ON');
    sqliteVec.load(db);
    // Before migrating: the search index's triggers call these on every chunk write, in every process.
    registerSearchFunctions(db);
    migrateSchema(db);
    return db;
  } catch (error) {
    db.close();
    throw error;
  }
}

/**
 * Applies pending migrations under the write lock, so a second process re-reads the version and skips them.
 * `upTo` stops at an older version (tests build files as earlier releases left them).
 */
export function migrateSchema(db: Database, upTo = MIGRATIONS.length): void {
  db.transaction(() => {
    const current = db.pragma('user_version', { simple: true }) as number;
    for (let version = current; version < upTo; version++) {
      db.exec(MIGRATIONS[version] as string);
    }
    if (current < upTo) db.pragma(`user_version = ${upTo}`);
  }).immediate();
}
