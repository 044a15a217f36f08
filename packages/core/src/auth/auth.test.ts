import { generateApiKey, hashApiKey, isWellFormedApiKey, keyPrefixOf } from './api-key';
import { hashPassword, verifyPassword } from './password';

describe('API keys', () => {
  it('are dsk_ + 64 lowercase hex characters, unique, with a checksum that catches typos', () => {
    const keys = new Set(Array.from({ length: 50 }, generateApiKey));
    expect(keys.size).toBe(50);
    for (const key of keys) {
      expect(key).toMatch(/^dsk_[0-9a-f]{64}$/);
      expect(isWellFormedApiKey(key)).toBe(true);
      expect(keyPrefixOf(key)).toBe(key.slice(0, 12));
    }
    const key = [...keys][0]!;
    const typo = key.slice(0, 20) + (key[20] === 'a' ? 'b' : 'a') + key.slice(21);
    expect(isWellFormedApiKey(typo)).toBe(false);
    expect(isWellFormedApiKey(key.toUpperCase())).toBe(false);
    expect(isWellFormedApiKey('dsk_123')).toBe(false);
  });

  it('are stored as a SHA-256 hash that does not contain the key', () => {
    const key = generateApiKey();
    expect(hashApiKey(key)).toMatch(/^[0-9a-f]{64}$/);
    expect(hashApiKey(key)).not.toContain(key.slice(4));
  });
});

describe('passwords', () => {
  it('hash with scrypt and a salt, and verify only the right password', async () => {
    const a = await hashPassword('s3cret-pass');
    const b = await hashPassword('s3cret-pass');
    expect(a).toMatch(/^scrypt\$16384\$8\$1\$/);
    expect(a).not.toBe(b);
    expect(await verifyPassword('s3cret-pass', a)).toBe(true);
    expect(await verifyPassword('s3cret-pasS', a)).toBe(false);
    expect(await verifyPassword('s3cret-pass', 'plain')).toBe(false);
  });
});
