import { randomUUID } from 'node:crypto';
import { generateApiKey, hashApiKey, isWellFormedApiKey, keyPrefixOf } from '../auth/api-key';
import type { ApiKey, ApiKeyRecord, Permission } from '../domain/types';
import { keyNotFound } from '../errors';
import type { RecordStore } from '../ports';

/** lastUsedAt is written at most this often per key, so busy keys do not turn every read into a write. */
const TOUCH_INTERVAL_MS = 60_000;

export interface KeyDeps {
  records: RecordStore;
  now?: () => Date;
}

const clock = (deps: KeyDeps) => (deps.now ?? (() => new Date()))();

export async function createApiKey(
  deps: KeyDeps,
  userId: string,
  input: { name: string; permissions: Permission },
): Promise<Omit<ApiKey, 'lastUsedAt' | 'createdAt'> & { key: string }> {
  const key = generateApiKey();
  const created = await deps.records.createApiKey({
    id: randomUUID(),
    userId,
    name: input.name,
    keyHash: hashApiKey(key),
    keyPrefix: keyPrefixOf(key),
    permissions: input.permissions,
    now: clock(deps),
  });
  return { id: created.id, name: created.name, key, keyPrefix: created.keyPrefix, permissions: created.permissions };
}

export function listApiKeys(deps: KeyDeps, userId: string): Promise<ApiKey[]> {
  return deps.records.listApiKeys(userId);
}

export async function revokeApiKey(deps: KeyDeps, userId: string, keyId: string): Promise<void> {
  if (!(await deps.records.deleteApiKey(userId, keyId))) throw keyNotFound(keyId);
}

/** The key record behind a bearer token, or null; records the use. */
export async function authenticateApiKey(deps: KeyDeps, key: string): Promise<ApiKeyRecord | null> {
  if (!isWellFormedApiKey(key)) return null;
  const record = await deps.records.findApiKeyByHash(hashApiKey(key));
  if (!record) return null;
  const now = clock(deps);
  if (!record.lastUsedAt || now.getTime() - new Date(record.lastUsedAt).getTime() >= TOUCH_INTERVAL_MS) {
    await deps.records.touchApiKey(record.id, now);
  }
  return record;
}
