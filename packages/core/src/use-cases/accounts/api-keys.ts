import { randomUUID, timingSafeEqual } from 'node:crypto';
import { generateApiKey, hashApiKey, isWellFormedApiKey, keyPrefixOf } from '../../auth/api-key';
import type { ApiKey, ApiKeyRecord, Permission } from '../../domain/types';
import { keyNotFound } from '../../errors';
import type { AccountStore } from '../../ports';

/** lastUsedAt is written at most this often per key, so busy keys do not turn every read into a write. */
const TOUCH_INTERVAL_MS = 60_000;

export interface KeyDeps {
  accounts: AccountStore;
  now?: () => Date;
}

const clock = (deps: KeyDeps) => (deps.now ?? (() => new Date()))();

export async function createApiKey(
  deps: KeyDeps,
  userId: string,
  input: { name: string; permissions: Permission },
): Promise<Omit<ApiKey, 'lastUsedAt' | 'createdAt'> & { key: string }> {
  const key = generateApiKey();
  const created = await deps.accounts.createApiKey({
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
  return deps.accounts.listApiKeys(userId);
}

export async function revokeApiKey(deps: KeyDeps, userId: string, keyId: string): Promise<void> {
  if (!(await deps.accounts.deleteApiKey(userId, keyId))) throw keyNotFound(keyId);
}

/** Compared against when no stored key has the prefix, so a miss costs what a hit costs. */
const NO_KEY_HASH = Buffer.alloc(32);

/**
 * The key record behind a bearer token, or null; records the use. The key is looked up by its public prefix and its
 * SHA-256 hash compared in constant time, so response times say nothing about how much of a key was right. Nothing
 * is cached: a revoked key is refused on its very next request, by every API process.
 */
export async function authenticateApiKey(deps: KeyDeps, key: string): Promise<ApiKeyRecord | null> {
  if (!isWellFormedApiKey(key)) return null;
  const presented = Buffer.from(hashApiKey(key), 'hex');
  const candidates = await deps.accounts.findApiKeysByPrefix(keyPrefixOf(key));
  let found: ApiKeyRecord | null = null;
  for (const { keyHash, ...candidate } of candidates) {
    const stored = Buffer.from(keyHash, 'hex');
    if (stored.length === presented.length && timingSafeEqual(stored, presented)) found = candidate;
  }
  if (candidates.length === 0) timingSafeEqual(NO_KEY_HASH, presented);
  const record = found;
  if (!record) return null;
  const now = clock(deps);
  if (!record.lastUsedAt || now.getTime() - new Date(record.lastUsedAt).getTime() >= TOUCH_INTERVAL_MS) {
    await deps.accounts.touchApiKey(record.id, now);
  }
  return record;
}
