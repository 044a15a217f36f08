import { createHash } from 'node:crypto';
import { searchableText, searchableTitle } from '@docshelf/core';
import type BetterSqlite3 from 'better-sqlite3';

/**
 * The token that marks a library's rows in the FTS index: digits only, so no stemmer or tokenizer changes it, and
 * a search of one library intersects with it instead of scanning every library's matches.
 */
export function libraryKey(libraryId: string): string {
  return BigInt(`0x${createHash('sha256').update(libraryId).digest('hex').slice(0, 15)}`).toString();
}

/** SQL functions the search index triggers call; registered on every connection before it migrates or writes. */
export function registerSearchFunctions(db: BetterSqlite3.Database): void {
  db.function('docshelf_library_key', { deterministic: true }, (id: unknown) => libraryKey(String(id)));
  db.function('docshelf_search_text', { deterministic: true }, (text: unknown) =>
    typeof text === 'string' ? searchableText(text) : null,
  );
  db.function('docshelf_search_title', { deterministic: true }, (title: unknown, pageLead: unknown, content: unknown) =>
    searchableTitle(asText(title), asText(pageLead), asText(content) ?? ''),
  );
}

const asText = (value: unknown) => (typeof value === 'string' ? value : null);
