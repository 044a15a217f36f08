/**
 * The schedules the dashboard offers for crawling a library again (`refreshEvery` on POST /api/crawl, `every` on
 * POST /api/refresh), as the API writes them; the API takes any number of hours or days.
 */
export const REFRESH_CHOICES = ['12h', '1d', '7d'] as const;

/** "12h" → "every 12 hours", "1d" → "daily", "7d" → "weekly", "3d" → "every 3 days". */
export function everyText(every: string): string {
  if (every === '1d') return 'daily';
  if (every === '7d') return 'weekly';
  const match = /^(\d+)([hd])$/.exec(every);
  if (!match) return `every ${every}`;
  const count = Number(match[1]);
  const unit = match[2] === 'h' ? 'hour' : 'day';
  return count === 1 ? `every ${unit}` : `every ${count} ${unit}s`;
}
