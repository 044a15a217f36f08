export { createProcessRegistry, renderMetrics } from './registry';
export { createHttpMetrics, type HttpMetrics } from './http-metrics';
export { registerQueueGauge, QUEUE_STATES, type CountableQueue } from './queue-metrics';
export { createJobMetrics, recordJobAttempt, type JobMetrics, type JobOutcome } from './job-metrics';
export { createEmbeddingMetrics, type EmbeddingMetrics } from './embedding-metrics';
export { evaluateReadiness, type ReadinessCheck, type ReadinessReport } from './readiness';
export { isMetricsScrapeAllowed } from './metrics-access';
export { Registry } from 'prom-client';
export { throttledErrorLog } from './throttled-error-log';
