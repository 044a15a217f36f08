import { createHash, randomBytes } from 'node:crypto';

/** `dsk_` + 56 random hex characters + an 8-hex checksum of them: 64 hex characters in all. */
const KEY_PATTERN = /^dsk_([0-9a-f]{56})([0-9a-f]{8})$/;
export const KEY_PREFIX_LENGTH = 12;

const checksumOf = (body: string) => createHash('sha256').update(body).digest('hex').slice(0, 8);

export function generateApiKey(): string {
  const body = randomBytes(28).toString('hex');
  return `dsk_${body}${checksumOf(body)}`;
}

/** Rejects typos and random strings before any lookup. */
export function isWellFormedApiKey(key: string): boolean {
  const match = KEY_PATTERN.exec(key);
  return match !== null && checksumOf(match[1]!) === match[2];
}

export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

export function keyPrefixOf(key: string): string {
  return key.slice(0, KEY_PREFIX_LENGTH);
}
