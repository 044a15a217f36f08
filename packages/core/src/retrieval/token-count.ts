import type { EncodeOptions } from 'gpt-tokenizer/cjs/GptEncoding';

type Encoding = typeof import('gpt-tokenizer/cjs/encoding/o200k_base');

/** Text that looks like a special token (`<|endoftext|>`) in a fetched page is counted as the plain text it is. */
const PLAIN_TEXT: EncodeOptions = { disallowedSpecial: new Set() };

let encoding: Encoding | undefined;
// Loaded on first use: its tables take about 200 ms to load, which processes that never count tokens should not pay.
const o200k = (): Encoding => (encoding ??= require('gpt-tokenizer/cjs/encoding/o200k_base') as Encoding);

/** The BPE tokenizer every budget and count of the read side uses: o200k_base, the encoding of current OpenAI models. */
export const TOKENIZER = 'o200k_base';

export function countTokens(text: string): number {
  return text === '' ? 0 : o200k().countTokens(text, PLAIN_TEXT);
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
