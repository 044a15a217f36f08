import { z } from 'zod';

const HOUR_MS = 3_600_000;
const UNIT_MS = { h: HOUR_MS, d: 24 * HOUR_MS } as const;

/** `12h`, `1d`, `7d`: hours or days, from one hour to a year. */
export const refreshEverySchema = z
  .string()
  .regex(/^[1-9]\d{0,3}[hd]$/, 'must be a number of hours or days, e.g. "12h", "1d" or "7d"')
  .refine((every) => refreshIntervalMs(every) <= 366 * UNIT_MS.d, 'must be at most a year')
  .describe('How often the library is crawled again with these settings ("12h", "1d", "7d"; at least 1 hour)');

/** The interval a valid `refreshEvery` says, in milliseconds. */
export function refreshIntervalMs(every: string): number {
  return Number(every.slice(0, -1)) * UNIT_MS[every.slice(-1) as keyof typeof UNIT_MS];
}
