import type {
  ChunkInput,
  CrawledPage,
  StagedPage,
  StagedPageContent,
  StagedPageOutline,
  StagingStore,
} from '@docshelf/core';
import type { Database } from './sqlite.database';
import { optionalField } from './optional-field';
import { statement } from './sqlite.statements';

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

/** Pages staged by ingestions and crawls, and the pages a library's crawls kept, on the embedded SQLite file. */
export class SqliteStagingStore implements StagingStore {
  constructor(private readonly db: Database) {}

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

  async discardStaging(stagingId: string, olderThan?: Date): Promise<void> {
    this.db.prepare('DELETE FROM staged_pages WHERE staging_id = ?').run(stagingId);
    if (olderThan) this.db.prepare('DELETE FROM staged_pages WHERE created_at < ?').run(olderThan.toISOString());
  }
}

/** Upserts and forgets a library's crawled pages; commits call it inside their transaction. */
export function writeCrawledPages(db: Database, libraryId: string, pages: CrawledPage[], removed: string[]): void {
  const remove = db.prepare('DELETE FROM crawled_pages WHERE library_id = ? AND url = ?');
  for (const url of removed) remove.run(libraryId, url);
  const upsert = db.prepare(
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
