import { z } from 'zod';
import { libraryIdSchema } from '../domain/library-id';
import { callbackUrlSchema } from './crawl-schemas';
import { refreshEverySchema } from './refresh-every';

export { refreshEverySchema, refreshIntervalMs } from './refresh-every';

export const refreshRequestSchema = z
  .strictObject({
    libraryId: libraryIdSchema,
    every: refreshEverySchema
      .nullable()
      .optional()
      .describe('Sets the schedule (or stops it with null) instead of refreshing now'),
    callbackUrl: callbackUrlSchema,
  })
  .meta({ id: 'RefreshRequest' });
export type RefreshRequest = z.infer<typeof refreshRequestSchema>;

/** A library's refresh schedule, as its record shows it. */
export const refreshScheduleSchema = z
  .object({
    every: z.string().describe('As set by `refreshEvery` or POST /api/refresh'),
    lastRefreshedAt: z.string().nullable().describe('When the last scheduled or asked-for refresh started'),
    nextRefreshAt: z.string().nullable().describe('When the next one starts'),
  })
  .meta({ id: 'RefreshSchedule' });
export type RefreshSchedule = z.infer<typeof refreshScheduleSchema>;

export const refreshScheduleResponseSchema = z
  .object({ libraryId: z.string(), refresh: refreshScheduleSchema.nullable() })
  .meta({ id: 'RefreshScheduleResponse' });
export type RefreshScheduleResponse = z.infer<typeof refreshScheduleResponseSchema>;
