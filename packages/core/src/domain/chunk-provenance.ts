import { createHash } from 'node:crypto';
import type { ChunkInput, ChunkToStore } from './types';

/** When a page was fetched and what its content hashed to: stored with each of its chunks. */
export interface PageProvenance {
  fetchedAt: string;
  contentHash: string;
}

/** SHA-256 of a text's UTF-8 bytes, as lowercase hex. */
export function sha256Hex(text: string): string {
  return createHash('sha256').update(text, 'utf8').digest('hex');
}

/** The chunks of one fetched page, each stamped with the page's fetch time and hash. */
export function stampPageChunks(chunks: ChunkInput[], page: PageProvenance): ChunkToStore[] {
  return chunks.map((chunk) => ({ ...chunk, fetchedAt: page.fetchedAt, contentHash: page.contentHash }));
}

/**
 * Pre-chunked chunks stamped with the time of their ingest and their page's hash: the SHA-256 of the page's text as
 * sent, the contents of the payload's chunks with that `url` in payload order joined by a blank line (a chunk without
 * a `url` is a page of its own), so every chunk of a page carries the same hash, as a crawled page's chunks do.
 */
export function stampIngestedChunks(chunks: ChunkInput[], now: Date): ChunkToStore[] {
  const pages = new Map<string, string[]>();
  for (const chunk of chunks) {
    if (chunk.url === undefined) continue;
    const texts = pages.get(chunk.url);
    if (texts) texts.push(chunk.content);
    else pages.set(chunk.url, [chunk.content]);
  }
  const hashes = new Map([...pages].map(([url, texts]) => [url, sha256Hex(texts.join('\n\n'))]));
  const fetchedAt = now.toISOString();
  return chunks.map((chunk) => ({
    ...chunk,
    fetchedAt,
    contentHash: chunk.url === undefined ? sha256Hex(chunk.content) : hashes.get(chunk.url)!,
  }));
}
