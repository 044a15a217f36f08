import type { ReadinessBody } from './health-schemas';

/** A named dependency check: resolves when the dependency works, throws (with a useful message) when not. */
export type ReadinessCheck = () => Promise<void>;

export interface ReadinessReport {
  ready: boolean;
  body: ReadinessBody;
}

/** Runs every check at once, each bounded by timeoutMs, and names each one that failed with its message. */
export async function evaluateReadiness(checks: Record<string, ReadinessCheck>, timeoutMs = 2_000): Promise<ReadinessReport> {
  const names = Object.keys(checks);
  const outcomes = await Promise.allSettled(names.map((name) => withTimeout(checks[name]!(), timeoutMs, name)));
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
    body: { status: 'not_ready', checks: results, error: `Not ready: ${summary}`, code: 'NOT_READY', details: failures },
  };
}

function messageOf(reason: unknown): string {
  return reason instanceof Error ? reason.message : String(reason);
}

function withTimeout(promise: Promise<void>, ms: number, name: string): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${name} check timed out after ${ms} ms`)), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}
