import { createHash, timingSafeEqual } from 'node:crypto';

export interface MetricsAccess {
  /** METRICS_TOKEN: when set, a scrape must send `Authorization: Bearer <token>`, whatever `public` says. */
  token?: string;
  /** METRICS_PUBLIC: without a token, whether anyone may scrape. */
  public: boolean;
}

export interface MetricsRefusal {
  status: 401 | 403;
  body: { error: string; code: string };
}

/**
 * Why a scrape of /metrics is refused, or null when it may go on. Metrics name routes, queues and load, so they are
 * not open by default: a METRICS_TOKEN is needed (401 without it), and without one /metrics is closed (403) unless
 * METRICS_PUBLIC=true.
 */
export function refuseMetricsScrape(authorization: string | undefined, access: MetricsAccess): MetricsRefusal | null {
  if (!access.token) {
    if (access.public) return null;
    return {
      status: 403,
      body: {
        error:
          '/metrics is closed: set METRICS_TOKEN and scrape with "Authorization: Bearer <token>", or METRICS_PUBLIC=true',
        code: 'FORBIDDEN',
      },
    };
  }
  const presented = /^Bearer\s+(\S+)\s*$/i.exec(authorization ?? '')?.[1];
  // Hashing first gives equal lengths, so the comparison takes the same time whatever was sent.
  if (presented && timingSafeEqual(sha256(presented), sha256(access.token))) return null;
  return {
    status: 401,
    body: { error: 'Send the METRICS_TOKEN as "Authorization: Bearer <token>"', code: 'UNAUTHORIZED' },
  };
}

function sha256(value: string): Buffer {
  return createHash('sha256').update(value).digest();
}
