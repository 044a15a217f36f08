import { randomUUID } from 'node:crypto';
import type {
  AccountStore,
  ApiKey,
  ApiKeyCandidate,
  ApiKeyRecord,
  Permission,
  Session,
  User,
  UserWithPassword,
} from '@docshelf/core';
import type { Database } from './sqlite.database';
import { statement } from './sqlite.statements';

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
const API_KEY_COLUMNS = 'id, user_id, name, key_prefix, permissions, last_used_at, created_at';

/** The dashboard's users, sessions and API keys on the embedded SQLite file. */
export class SqliteAccountStore implements AccountStore {
  constructor(private readonly db: Database) {}

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
