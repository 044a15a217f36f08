import type { LibrarySource, LibrarySourceStore } from '@docshelf/core';
import type { Database } from './sqlite.database';

interface SourceRow {
  library_id: string;
  kind: LibrarySource['kind'];
  request: string;
  owner_id: string;
  refresh_every: string | null;
  last_refreshed_at: string | null;
  git_commit: string | null;
}

/** Where each library was last read from and how often it is refreshed, on the embedded SQLite file. */
export class SqliteLibrarySourceStore implements LibrarySourceStore {
  constructor(private readonly db: Database) {}

  async putSource(source: Parameters<LibrarySourceStore['putSource']>[0]): Promise<void> {
    const keepsSchedule = source.refreshEvery === undefined;
    const request = JSON.stringify(source.request);
    this.db
      .prepare(
        `INSERT INTO library_sources (library_id, kind, request, owner_id, refresh_every) VALUES (?, ?, ?, ?, ?)
         ON CONFLICT (library_id) DO UPDATE SET kind = excluded.kind, request = excluded.request,
           owner_id = excluded.owner_id,
           refresh_every = CASE WHEN ? THEN refresh_every ELSE excluded.refresh_every END,
           git_commit = CASE WHEN kind = excluded.kind AND json_extract(request, '$.repoUrl') IS
             json_extract(excluded.request, '$.repoUrl') THEN git_commit END`,
      )
      .run(source.libraryId, source.kind, request, source.ownerId, source.refreshEvery ?? null, keepsSchedule ? 1 : 0);
  }

  async getSource(libraryId: string): Promise<LibrarySource | null> {
    const row = this.db.prepare('SELECT * FROM library_sources WHERE library_id = ?').get(libraryId) as
      SourceRow | undefined;
    if (!row) return null;
    return {
      libraryId: row.library_id,
      kind: row.kind,
      request: JSON.parse(row.request) as Record<string, unknown>,
      ownerId: row.owner_id,
      refreshEvery: row.refresh_every,
      lastRefreshedAt: row.last_refreshed_at ? new Date(row.last_refreshed_at) : null,
      commit: row.git_commit,
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

  async setCommit(libraryId: string, commit: string): Promise<void> {
    this.db.prepare('UPDATE library_sources SET git_commit = ? WHERE library_id = ?').run(commit, libraryId);
  }

  async deleteSource(libraryId: string): Promise<void> {
    this.db.prepare('DELETE FROM library_sources WHERE library_id = ?').run(libraryId);
  }
}
