import type { EncodeOptions } from 'gpt-tokenizer/cjs/GptEncoding';

type Encoding = typeof import('gpt-tokenizer/cjs/encoding/o200k_base');

/** Text that looks like a special token (`<|endoftext|>`) in a fetched page is counted as the plain text it is. */
const PLAIN_TEXT: EncodeOptions = { disallowedSpecial: new Set() };

let encoding: Encoding | undefined;
// Loaded on first use: its tables take about 200 ms to load, which processes that never count tokens should not pay.
// A synchronous `require`, because counting is synchronous wherever it is called.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const o200k = (): Encoding => (encoding ??= require('gpt-tokenizer/cjs/encoding/o200k_base') as Encoding);

/** The BPE tokenizer every budget and count of the read side uses: o200k_base, the encoding of current OpenAI models. */
export const TOKENIZER = 'o200k_base';

export function countTokens(text: string): number {
  if (text === '') return 0;
  // Chunks are counted again each time a search returns them; a count is cached by a hash of the text.
  const key = `${text.length}:${fnv1a(text)}`;
  let count = counted.get(key);
  if (count === undefined) {
    count = o200k().countTokens(text, PLAIN_TEXT);
    if (counted.size >= MAX_CACHED_COUNTS) counted.delete(counted.keys().next().value!);
    counted.set(key, count);
  } else {
    // Most recently used last, so the oldest entry is the one dropped.
    counted.delete(key);
    counted.set(key, count);
  }
  return count;
}

const MAX_CACHED_COUNTS = 50_000;
const counted = new Map<string, number>();

/** 32-bit FNV-1a over UTF-16 code units: with the length, a collision between two texts is vanishingly rare. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let i = 0; i < text.length; i++) {
    hash ^= text.charCodeAt(i);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/**
 * The longest prefix of `text` within `maxTokens` tokens, cut back to the last line or sentence end when one is
 * near, so a truncated piece ends cleanly.
 */
export function truncateToTokens(text: string, maxTokens: number): string {
  if (maxTokens <= 0) return '';
  const tokens = o200k().encode(text, PLAIN_TEXT);
  if (tokens.length <= maxTokens) return text;
  const prefix = o200k().decode(tokens.slice(0, maxTokens));
  // Decoding a prefix can end inside a multi-byte character; drop the replacement character it leaves.
  const clean = prefix.replace(/\uFFFD+$/u, '');
  const cut = Math.max(clean.lastIndexOf('\n'), clean.search(/[.!?]\s[^.!?]*$/u) + 1);
  return cut >= clean.length * 0.6 ? clean.slice(0, cut).trimEnd() : clean.trimEnd();
}
