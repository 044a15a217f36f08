import {
  createEmbeddingMetrics,
  createJobMetrics,
  Registry,
  type EmbeddingMetrics,
  type JobMetrics,
} from '@docshelf/observability';

export interface WorkerMetrics {
  registry: Registry;
  jobs: JobMetrics;
  embedding: EmbeddingMetrics;
}

/** The worker's metrics; without a registry (tests, embedded use) they go to a private one nobody scrapes. */
export function createWorkerMetrics(registry: Registry = new Registry()): WorkerMetrics {
  return { registry, jobs: createJobMetrics(registry), embedding: createEmbeddingMetrics(registry) };
}
