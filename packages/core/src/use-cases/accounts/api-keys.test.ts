import { generateApiKey, hashApiKey, keyPrefixOf } from '../../auth/api-key';
import type { ApiKeyCandidate } from '../../domain/types';
import type { AccountStore } from '../../ports';
import { authenticateApiKey } from './api-keys';

const candidate = (key: string, id: string): ApiKeyCandidate => ({
  id,
  userId: 'u1',
  name: id,
  keyPrefix: keyPrefixOf(key),
  keyHash: hashApiKey(key),
  permissions: 'read',
  lastUsedAt: null,
  createdAt: '2026-01-01T00:00:00.000Z',
});

describe('authenticateApiKey', () => {
  it('looks keys up by prefix and accepts only the one whose hash matches, without handing the hash out', async () => {
    const key = generateApiKey();
    // Another stored key that happens to share the public prefix.
    const sibling = keyPrefixOf(key) + generateApiKey().slice(12);
    const lookedUp: string[] = [];
    const accounts = {
      findApiKeysByPrefix: async (prefix: string) => {
        lookedUp.push(prefix);
        return prefix === keyPrefixOf(key) ? [candidate(sibling, 'sibling'), candidate(key, 'mine')] : [];
      },
      touchApiKey: async () => undefined,
    } as unknown as AccountStore;
    const found = await authenticateApiKey({ accounts }, key);
    expect(found).toMatchObject({ id: 'mine', userId: 'u1' });
    expect(found).not.toHaveProperty('keyHash');
    expect(await authenticateApiKey({ accounts }, generateApiKey())).toBeNull();
    expect(lookedUp).toEqual([keyPrefixOf(key), expect.any(String)]);
    // A malformed key is refused before any lookup.
    expect(await authenticateApiKey({ accounts }, 'dsk_nope')).toBeNull();
    expect(lookedUp).toHaveLength(2);
  });
});
