import { estimateTokens } from '@docshelf/core';
import { LocalEmbedder } from '@docshelf/adapters';
import { startJsonServer, type JsonRequest, type JsonResponse } from './json-http-server';

/** The limits OpenAI documents for POST /v1/embeddings. */
export const OPENAI_FAKE_LIMITS = { maxInputs: 2_048, maxTokensPerRequest: 300_000, maxTokensPerInput: 8_192 };

const MODEL_DIMENSIONS: Record<string, number> = {
  'text-embedding-3-small': 1536,
  'text-embedding-3-large': 3072,
  'text-embedding-ada-002': 1536,
};

export interface SeenEmbeddingRequest {
  /** When the request arrived (ms since epoch). */
  at: number;
  inputs: number;
  tokens: number;
  dimensions?: number;
  status: number;
}

export interface OpenAiFake {
  /** Base URL to give the SDK (ends in /v1). */
  baseUrl: string;
  apiKey: string;
  requests: SeenEmbeddingRequest[];
  /** The next `count` requests answer `status` with these headers (e.g. 429 with retry-after-ms). */
  failNext(count: number, status: number, headers?: Record<string, string>): void;
  /** Drops the failures still queued: the server is healthy again. */
  recover(): void;
  /** Holds every answer this long, so concurrent requests overlap. */
  setDelay(ms: number): void;
  /** Most requests that were being answered at the same time. */
  readonly maxInFlight: number;
  close(): Promise<void>;
}

const apiError = (status: number, message: string, type = 'invalid_request_error'): JsonResponse => ({
  status,
  body: { error: { message, type, param: null, code: null } },
});

/**
 * HTTP fake of OpenAI's embeddings endpoint on 127.0.0.1: checks the bearer key and enforces the documented request
 * limits, rejecting what the real API rejects. Vectors come from the local hashing embedder, so similar texts score
 * similarly and every vector has unit length. Tokens are counted with Docshelf's own estimate.
 */
export async function startOpenAiFake(apiKey = 'sk-fake-test-key'): Promise<OpenAiFake> {
  const requests: SeenEmbeddingRequest[] = [];
  const failures: { status: number; headers: Record<string, string> }[] = [];
  const embedders = new Map<number, LocalEmbedder>();
  let delayMs = 0;
  let inFlight = 0;
  let maxInFlight = 0;

  const handle = async (req: JsonRequest): Promise<JsonResponse> => {
    if (req.method !== 'POST' || req.path !== '/v1/embeddings')
      return apiError(404, `Unknown request URL: ${req.method} ${req.path}`);
    const at = Date.now();
    if (req.headers.authorization !== `Bearer ${apiKey}`)
      return apiError(401, 'Incorrect API key provided.', 'invalid_api_key');
    const failure = failures.shift();
    if (failure) {
      requests.push({ at, inputs: 0, tokens: 0, status: failure.status });
      return {
        ...apiError(failure.status, `Injected failure ${failure.status}`, 'rate_limit_exceeded'),
        headers: failure.headers,
      };
    }
    inFlight++;
    maxInFlight = Math.max(maxInFlight, inFlight);
    try {
      if (delayMs > 0) await new Promise((resolve) => setTimeout(resolve, delayMs));
      const reply = await answerEmbeddings(req.body, embedders);
      requests.push({ at, ...reply.seen, status: reply.response.status });
      return reply.response;
    } finally {
      inFlight--;
    }
  };

  const server = await startJsonServer(handle);
  return {
    baseUrl: `${server.url}/v1`,
    apiKey,
    requests,
    failNext: (count, status, headers = {}) => {
      for (let i = 0; i < count; i++) failures.push({ status, headers });
    },
    recover: () => {
      failures.length = 0;
    },
    setDelay: (ms) => {
      delayMs = ms;
    },
    get maxInFlight() {
      return maxInFlight;
    },
    close: () => server.close(),
  };
}

async function answerEmbeddings(
  body: unknown,
  embedders: Map<number, LocalEmbedder>,
): Promise<{ response: JsonResponse; seen: Omit<SeenEmbeddingRequest, 'at' | 'status'> }> {
  const request = (body ?? {}) as { model?: unknown; input?: unknown; dimensions?: unknown; encoding_format?: unknown };
  const inputs = typeof request.input === 'string' ? [request.input] : request.input;
  const seen = {
    inputs: Array.isArray(inputs) ? inputs.length : 0,
    tokens: 0,
    dimensions: request.dimensions as number | undefined,
  };
  const reject = (message: string) => ({ response: apiError(400, message), seen });
  const native = typeof request.model === 'string' ? MODEL_DIMENSIONS[request.model] : undefined;
  if (!native) return reject(`The model \`${String(request.model)}\` does not exist or you do not have access to it.`);
  if (!Array.isArray(inputs) || inputs.length === 0) return reject("'$.input' is invalid.");
  if (inputs.length > OPENAI_FAKE_LIMITS.maxInputs)
    return reject(`'$.input' is invalid: at most ${OPENAI_FAKE_LIMITS.maxInputs} inputs per request.`);
  if (inputs.some((input) => typeof input !== 'string' || input === ''))
    return reject("'$.input' is invalid: empty strings are not accepted.");
  const tokens = (inputs as string[]).map(estimateTokens);
  seen.tokens = tokens.reduce((a, b) => a + b, 0);
  const longest = Math.max(...tokens);
  if (longest > OPENAI_FAKE_LIMITS.maxTokensPerInput) {
    return reject(
      `This model's maximum context length is ${OPENAI_FAKE_LIMITS.maxTokensPerInput} tokens, however you requested ${longest} tokens.`,
    );
  }
  if (seen.tokens > OPENAI_FAKE_LIMITS.maxTokensPerRequest) {
    return reject(`Requested ${seen.tokens} tokens, max ${OPENAI_FAKE_LIMITS.maxTokensPerRequest} tokens per request`);
  }
  let dimensions = native;
  if (request.dimensions !== undefined) {
    if (!String(request.model).startsWith('text-embedding-3'))
      return reject('This model does not support specifying dimensions.');
    if (
      !Number.isInteger(request.dimensions) ||
      (request.dimensions as number) < 1 ||
      (request.dimensions as number) > native
    ) {
      return reject(`'$.dimensions' must be between 1 and ${native}.`);
    }
    dimensions = request.dimensions as number;
  }
  if (
    request.encoding_format !== undefined &&
    request.encoding_format !== 'float' &&
    request.encoding_format !== 'base64'
  ) {
    return reject("'$.encoding_format' must be 'float' or 'base64'.");
  }
  let embedder = embedders.get(dimensions);
  if (!embedder) embedders.set(dimensions, (embedder = new LocalEmbedder(dimensions)));
  const vectors = await embedder.embed(inputs as string[]);
  return {
    response: {
      status: 200,
      body: toResponse(vectors, String(request.model), seen.tokens, request.encoding_format === 'base64'),
    },
    seen,
  };
}

function toResponse(vectors: number[][], model: string, tokens: number, base64: boolean) {
  return {
    object: 'list',
    data: vectors.map((vector, index) => ({
      object: 'embedding',
      index,
      embedding: base64 ? Buffer.from(new Float32Array(vector).buffer).toString('base64') : vector,
    })),
    model,
    usage: { prompt_tokens: tokens, total_tokens: tokens },
  };
}
