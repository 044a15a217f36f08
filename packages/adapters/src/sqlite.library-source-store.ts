import type { LibrarySource, LibrarySourceStore } from '@docshelf/core';
import type { Database } from './sqlite.database';

interface SourceRow {
  library_id: string;
  crawl: string;
  owner_id: string;
  refresh_every: string | null;
  last_refreshed_at: string | null;
}

/** How each library was last crawled and how often it is refreshed, on the embedded SQLite file. */
export class SqliteLibrarySourceStore implements LibrarySourceStore {
  constructor(private readonly db: Database) {}

  async putSource(source: Parameters<LibrarySourceStore['putSource']>[0]): Promise<void> {
    const keepsSchedule = source.refreshEvery === undefined;
    this.db
      .prepare(
        `INSERT INTO library_sources (library_id, crawl, owner_id, refresh_every) VALUES (?, ?, ?, ?)
         ON CONFLICT (library_id) DO UPDATE SET crawl = excluded.crawl, owner_id = excluded.owner_id,
           refresh_every = CASE WHEN ? THEN refresh_every ELSE excluded.refresh_every END`,
      )
      .run(
        source.libraryId,
        JSON.stringify(source.crawl),
        source.ownerId,
        source.refreshEvery ?? null,
        keepsSchedule ? 1 : 0,
      );
  }

  async getSource(libraryId: string): Promise<LibrarySource | null> {
    const row = this.db.prepare('SELECT * FROM library_sources WHERE library_id = ?').get(libraryId) as
      SourceRow | undefined;
    if (!row) return null;
    return {
      libraryId: row.library_id,
      crawl: JSON.parse(row.crawl) as Record<string, unknown>,
      ownerId: row.owner_id,
      refreshEvery: row.refresh_every,
      lastRefreshedAt: row.last_refreshed_at ? new Date(row.last_refreshed_at) : null,
    };
  }

  async setRefreshEvery(libraryId: string, refreshEvery: string | null): Promise<boolean> {
    const result = this.db
      .prepare('UPDATE library_sources SET refresh_every = ? WHERE library_id = ?')
      .run(refreshEvery, libraryId);
    return result.changes > 0;
  }

  async markRefreshed(libraryId: string, at: Date): Promise<void> {
    this.db
      .prepare('UPDATE library_sources SET last_refreshed_at = ? WHERE library_id = ?')
      .run(at.toISOString(), libraryId);
  }

  async deleteSource(libraryId: string): Promise<void> {
    this.db.prepare('DELETE FROM library_sources WHERE library_id = ?').run(libraryId);
  }
}
