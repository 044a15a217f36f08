import type { ReadinessBody } from './health-schemas';
import pTimeout from 'p-timeout';

/** A named dependency check: resolves when the dependency works, throws (with a useful message) when not. */
export type ReadinessCheck = () => Promise<void>;

export interface ReadinessReport {
  ready: boolean;
  body: ReadinessBody;
}

/** Runs every check at once, each bounded by timeoutMs, and names each one that failed with its message. */
export async function evaluateReadiness(
  checks: Record<string, ReadinessCheck>,
  timeoutMs = 2_000,
): Promise<ReadinessReport> {
  const names = Object.keys(checks);
  const outcomes = await Promise.allSettled(
    names.map((name) =>
      pTimeout(checks[name]!(), { milliseconds: timeoutMs, message: `${name} check timed out after ${timeoutMs} ms` }),
    ),
  );
  const failures: { check: string; message: string }[] = [];
  const results: Record<string, 'ok' | 'failed'> = {};
  outcomes.forEach((outcome, i) => {
    const check = names[i]!;
    results[check] = outcome.status === 'fulfilled' ? 'ok' : 'failed';
    if (outcome.status === 'rejected') failures.push({ check, message: messageOf(outcome.reason) });
  });
  if (failures.length === 0) return { ready: true, body: { status: 'ready', checks: results } };
  const summary = failures.map((f) => `${f.check}: ${f.message}`).join('; ');
  return {
    ready: false,
    body: {
      status: 'not_ready',
      checks: results,
      error: `Not ready: ${summary}`,
      code: 'NOT_READY',
      details: failures,
    },
  };
}

function messageOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}
