import { createHash, timingSafeEqual } from 'node:crypto';

/** With METRICS_TOKEN set, a scrape must send `Authorization: Bearer <token>`; without it /metrics is open. */
export function isMetricsScrapeAllowed(authorization: string | undefined, token: string | undefined): boolean {
  if (!token) return true;
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  if (!presented) return false;
  // Hashing first gives equal lengths, so the comparison takes the same time whatever was sent.
  return timingSafeEqual(sha256(presented), sha256(token));
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
