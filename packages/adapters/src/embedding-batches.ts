import { estimateTokens } from '@docshelf/core';

/** Limits of one embeddings request, as documented for OpenAI's API. */
export interface EmbeddingLimits {
  maxInputsPerRequest: number;
  maxTokensPerRequest: number;
  maxTokensPerInput: number;
}

export const OPENAI_EMBEDDING_LIMITS: EmbeddingLimits = {
  maxInputsPerRequest: 2_048,
  maxTokensPerRequest: 300_000,
  maxTokensPerInput: 8_191,
};

/** Sent instead of an empty or blank text: the API rejects empty strings, and a blank chunk still needs a vector. */
export const BLANK_INPUT = ' ';

/**
 * Upper bound of the tokens a BPE tokenizer makes of `text`. The word-based estimate is close for prose but far too
 * low for text without spaces (CJK, minified code, base64), so one token per 3 UTF-8 bytes bounds it from below.
 */
export function estimateTokensConservatively(text: string): number {
  return Math.max(estimateTokens(text), Math.ceil(Buffer.byteLength(text, 'utf8') / 3));
}

/** The text actually sent for one input: never empty, cut by characters to fit the per-input token limit. */
export function prepareEmbeddingInput(text: string, limits: EmbeddingLimits): string {
  if (text.trim() === '') return BLANK_INPUT;
  let input = text;
  let tokens = estimateTokensConservatively(input);
  // Cut proportionally with a 10% margin, and again if the estimate still says too long.
  while (tokens > limits.maxTokensPerInput) {
    const keep = Math.floor((input.length * limits.maxTokensPerInput * 0.9) / tokens);
    input = cutWithoutSplittingSurrogates(input, keep);
    tokens = estimateTokensConservatively(input);
  }
  return input;
}

/** Splits prepared inputs into request-sized groups, keeping order; returns index ranges into `inputs`. */
export function planEmbeddingBatches(inputs: string[], limits: EmbeddingLimits): { start: number; end: number }[] {
  const batches: { start: number; end: number }[] = [];
  let start = 0;
  let tokens = 0;
  inputs.forEach((input, i) => {
    const cost = estimateTokensConservatively(input);
    const full = i - start >= limits.maxInputsPerRequest || tokens + cost > limits.maxTokensPerRequest;
    if (full && i > start) {
      batches.push({ start, end: i });
      start = i;
      tokens = 0;
    }
    tokens += cost;
  });
  if (start < inputs.length) batches.push({ start, end: inputs.length });
  return batches;
}

function cutWithoutSplittingSurrogates(text: string, length: number): string {
  const code = text.charCodeAt(length - 1);
  return text.slice(0, code >= 0xd800 && code <= 0xdbff ? length - 1 : length);
}
