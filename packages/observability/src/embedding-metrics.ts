import { Counter, Histogram, type Registry } from 'prom-client';

export interface EmbeddingMetrics {
  requests: Counter<'model' | 'outcome'>;
  inputs: Counter<'model'>;
  tokens: Counter<'model'>;
  duration: Histogram<'model'>;
}

export function createEmbeddingMetrics(registry: Registry): EmbeddingMetrics {
  return {
    requests: new Counter({
      name: 'embedding_requests_total',
      help: 'Calls to the embedding model (one per batch of texts)',
      labelNames: ['model', 'outcome'] as const,
      registers: [registry],
    }),
    inputs: new Counter({
      name: 'embedding_inputs_total',
      help: 'Texts sent to the embedding model',
      labelNames: ['model'] as const,
      registers: [registry],
    }),
    tokens: new Counter({
      name: 'embedding_tokens_total',
      help: 'Estimated tokens sent to the embedding model (the tokenizer-free estimate Docshelf uses everywhere)',
      labelNames: ['model'] as const,
      registers: [registry],
    }),
    duration: new Histogram({
      name: 'embedding_request_duration_seconds',
      help: 'Time one embedding call took',
      labelNames: ['model'] as const,
      buckets: [0.005, 0.01, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30],
      registers: [registry],
    }),
  };
}
