import { collectDefaultMetrics, Registry } from 'prom-client';

/** One registry per process, with Node's own metrics (CPU, memory, event loop lag) and a `service` label. */
export function createProcessRegistry(service: string): Registry {
  const registry = new Registry();
  registry.setDefaultLabels({ service });
  collectDefaultMetrics({ register: registry });
  return registry;
}

/** Prometheus text format, and the content type that goes with it. */
export async function renderMetrics(registry: Registry): Promise<{ contentType: string; body: string }> {
  return { contentType: registry.contentType, body: await registry.metrics() };
}
