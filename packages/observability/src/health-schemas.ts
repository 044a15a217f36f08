import { z } from 'zod';

/** Bodies of /healthz and /readyz, as the API and the worker's health server answer them. */
export const healthBodySchema = z.object({ status: z.literal('ok') }).meta({ id: 'Health' });
export type HealthBody = z.infer<typeof healthBodySchema>;

export const readinessBodySchema = z
  .object({
    status: z.enum(['ready', 'not_ready']),
    checks: z.record(z.string(), z.enum(['ok', 'failed'])).describe('redis and records; shutdown while stopping'),
    /** The project's error shape, present when not ready. */
    error: z.string().optional(),
    code: z.literal('NOT_READY').optional(),
    details: z.array(z.object({ check: z.string(), message: z.string() })).optional(),
  })
  .meta({ id: 'Readiness' });
export type ReadinessBody = z.infer<typeof readinessBodySchema>;
