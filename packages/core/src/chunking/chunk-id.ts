import { createHash } from 'node:crypto';

const CHUNK_ID_LENGTH = 24;

/**
 * Deterministic chunk id: the same page, position and content give the same id on every crawl,
 * and any change to the content gives a new one.
 */
export function computeChunkId(pageUrl: string, position: number, content: string): string {
  const contentHash = sha256(content);
  return sha256(`${pageUrl}#${position}:${contentHash}`).slice(0, CHUNK_ID_LENGTH);
}

function sha256(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}
