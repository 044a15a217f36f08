import type { EmbedderState, EmbedderStateStore } from '@docshelf/core';
import type { Database } from './sqlite.database';
import { statement } from './sqlite.statements';

/** What the local embedders learned of each library, on the embedded SQLite file; swaps and deletes move it with the library. */
export class SqliteEmbedderStateStore implements EmbedderStateStore {
  constructor(private readonly db: Database) {}

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
}
