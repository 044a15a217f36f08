import { setImmediate as yieldToEventLoop } from 'node:timers/promises';
import { estimateTokens, type Embedder } from '@docshelf/core';
import type { EmbeddingMetrics } from '@docshelf/observability';

/** The Embedder port with call, input and estimated-token counts; the model behind it is unchanged. */
export function instrumentEmbedder(embedder: Embedder, metrics: EmbeddingMetrics): Embedder {
  const model = { model: embedder.model };
  return {
    model: embedder.model,
    dimensions: embedder.dimensions,
    ...(embedder.forget ? { forget: (libraryId: string) => embedder.forget!(libraryId) } : {}),
    ...(embedder.shareLearned ? { shareLearned: (from: string, to: string) => embedder.shareLearned!(from, to) } : {}),
    async embed(texts, scope) {
      // A local model embeds synchronously: without a turn of the event loop between batches, a long embed would
      // starve BullMQ's lock renewal (the job would look stalled), health probes and SIGTERM handling.
      await yieldToEventLoop();
      const stopTimer = metrics.duration.startTimer(model);
      try {
        const vectors = await embedder.embed(texts, scope);
        metrics.requests.inc({ ...model, outcome: 'ok' });
        metrics.inputs.inc(model, texts.length);
        metrics.tokens.inc(
          model,
          texts.reduce((sum, text) => sum + estimateTokens(text), 0),
        );
        return vectors;
      } catch (error) {
        metrics.requests.inc({ ...model, outcome: 'error' });
        throw error;
      } finally {
        stopTimer();
      }
    },
  };
}
