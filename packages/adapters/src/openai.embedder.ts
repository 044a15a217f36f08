import type { ProductionAdapters } from '@docshelf/config';
import { AppError, type Embedder } from '@docshelf/core';
import OpenAI from 'openai';
import pLimit, { type LimitFunction } from 'p-limit';
import { z } from 'zod';
import {
  OPENAI_EMBEDDING_LIMITS,
  planEmbeddingBatches,
  prepareEmbeddingInput,
  type EmbeddingLimits,
} from './embedding-batches';

/** The settings config reads for `EMBEDDER=openai` (see packages/config), plus limits that tests may lower. */
export type OpenAiEmbedderOptions = Omit<Extract<ProductionAdapters['embedder'], { kind: 'openai' }>, 'kind'> & {
  limits?: EmbeddingLimits;
};

const embeddingResponseSchema = z.object({
  data: z.array(z.object({ index: z.number().int().min(0), embedding: z.array(z.number()) })),
});

/** Embedder on the OpenAI embeddings API (or a compatible server), batched within the API's request limits. */
export class OpenAiEmbedder implements Embedder {
  readonly model: string;
  readonly dimensions: number;
  private readonly client: OpenAI;
  private readonly limits: EmbeddingLimits;
  /** Shared by every embed call of the process: OPENAI_MAX_CONCURRENCY requests at once in all. */
  private readonly requests: LimitFunction;
  /** Only the text-embedding-3 family accepts `dimensions`; older and self-hosted models reject it. */
  private readonly sendsDimensions: boolean;

  constructor(options: OpenAiEmbedderOptions) {
    this.model = options.model;
    this.dimensions = options.dimensions;
    this.limits = options.limits ?? OPENAI_EMBEDDING_LIMITS;
    this.requests = pLimit(options.maxConcurrency);
    this.sendsDimensions = /^text-embedding-3/.test(options.model);
    // The SDK's own retry loop already backs off exponentially and obeys retry-after-ms / retry-after.
    this.client = new OpenAI({
      apiKey: options.apiKey,
      baseURL: options.baseUrl,
      maxRetries: options.maxRetries,
      timeout: options.timeoutMs,
    });
  }

  async embed(texts: string[]): Promise<number[][]> {
    if (texts.length === 0) return [];
    const inputs = texts.map((text) => prepareEmbeddingInput(text, this.limits));
    const batches = planEmbeddingBatches(inputs, this.limits);
    // Once a batch has failed, the call's batches still waiting are not sent.
    const failed = new AbortController();
    const results = await Promise.all(
      batches.map(({ start, end }) =>
        this.requests(() => {
          failed.signal.throwIfAborted();
          return this.requestEmbeddings(inputs.slice(start, end)).catch((error: unknown) => {
            failed.abort(error);
            throw error;
          });
        }),
      ),
    );
    return results.flat();
  }

  private async requestEmbeddings(input: string[]): Promise<number[][]> {
    let raw: unknown;
    try {
      raw = await this.client.embeddings.create({
        model: this.model,
        input,
        encoding_format: 'float',
        ...(this.sendsDimensions ? { dimensions: this.dimensions } : {}),
      });
    } catch (error) {
      throw toEmbeddingError(error, this.model);
    }
    return this.validateResponse(raw, input.length);
  }

  /** Another service's answer is checked, not trusted: count, order and size of every vector. */
  private validateResponse(raw: unknown, expected: number): number[][] {
    const parsed = embeddingResponseSchema.safeParse(raw);
    if (!parsed.success)
      throw invalidResponse(this.model, `unexpected shape: ${parsed.error.issues[0]?.message ?? ''}`);
    const vectors = new Array<number[] | undefined>(expected);
    for (const item of parsed.data.data) {
      if (item.index >= expected || vectors[item.index])
        throw invalidResponse(this.model, `bad or repeated index ${item.index}`);
      if (item.embedding.length !== this.dimensions) {
        throw invalidResponse(
          this.model,
          `a vector has ${item.embedding.length} dimensions, expected ${this.dimensions}`,
        );
      }
      vectors[item.index] = normalize(item.embedding, this.model);
    }
    if (parsed.data.data.length !== expected) {
      throw invalidResponse(this.model, `${parsed.data.data.length} vectors for ${expected} inputs`);
    }
    return vectors as number[][];
  }
}

/** OpenAI's vectors are unit length already; compatible servers' may not be, and the index compares by cosine. */
function normalize(vector: number[], model: string): number[] {
  const norm = Math.sqrt(vector.reduce((sum, v) => sum + v * v, 0));
  if (!Number.isFinite(norm) || norm === 0) throw invalidResponse(model, 'a vector is zero or not finite');
  return vector.map((v) => v / norm);
}

function invalidResponse(model: string, detail: string): AppError {
  return new AppError(
    'EMBEDDING_FAILED',
    `Embedding service returned an invalid response for ${model}: ${detail}`,
    502,
    {
      retryable: true,
    },
  );
}

function toEmbeddingError(error: unknown, model: string): unknown {
  if (!(error instanceof OpenAI.APIError)) return error;
  const status = error.status as number | undefined;
  // Rate limits and server errors were already retried by the SDK; a later job attempt may still succeed.
  const retryable = status === undefined || status === 408 || status === 409 || status === 429 || status >= 500;
  return new AppError(
    'EMBEDDING_FAILED',
    `Embedding request for ${model} failed (${status ?? 'no status'}): ${error.message}`,
    502,
    {
      retryable,
    },
  );
}
