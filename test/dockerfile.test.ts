import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';

/** The Dockerfile's stages, each with its base (an image or an earlier stage) and its instructions. */
interface Stage {
  name: string;
  from: string;
  instructions: string[];
}

const root = path.join(__dirname, '..');
const text = fs.readFileSync(path.join(root, 'Dockerfile'), 'utf8');
const args = Object.fromEntries([...text.matchAll(/^ARG (\w+)=(\S+)$/gm)].map((m) => [m[1], m[2]]));

function parseStages(dockerfile: string): Stage[] {
  const lines = dockerfile
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'));
  const stages: Stage[] = [];
  for (const line of lines) {
    const from = /^FROM (?:--\S+ )*(\S+)(?: AS (\S+))?$/i.exec(line);
    if (from) {
      const base = from[1]!.replace(/\$\{(\w+)\}/g, (_, name: string) => args[name] ?? '');
      stages.push({ name: from[2] ?? `stage${stages.length}`, from: base, instructions: [] });
    } else stages.at(-1)?.instructions.push(line);
  }
  return stages;
}

const stages = parseStages(text);
/** A final image's own stage and every stage it is built on, down to its base image. */
function lineage(stages: Stage[], name: string): Stage[] {
  const byName = new Map(stages.map((stage) => [stage.name, stage]));
  const chain: Stage[] = [];
  for (let stage = byName.get(name); stage; stage = byName.get(stage.from)) chain.push(stage);
  return chain;
}

/** What puts sources, tests, fixtures, build tools or dev dependencies into the image built for `target`. */
function leaks(stages: Stage[], target: string): string[] {
  const found: string[] = [];
  for (const line of lineage(stages, target).flatMap((stage) => stage.instructions)) {
    if (/^RUN /.test(line) && /\b(g\+\+|make|python3|tsc|npm run build)\b/.test(line)) found.push(line);
    if (!/^(COPY|ADD) /.test(line)) continue;
    const parts = line.split(/\s+/).slice(1);
    const fromStage = parts.find((part) => part.startsWith('--from='))?.slice('--from='.length);
    const source = parts.find((part) => !part.startsWith('--')) ?? '';
    if (source === '/app/node_modules') {
      const installs = lineage(stages, fromStage ?? '')
        .flatMap((stage) => stage.instructions)
        .filter((l) => /npm (ci|install)/.test(l));
      if (installs.join() !== 'RUN npm ci --omit=dev --no-audit --no-fund') found.push(line);
    } else if (
      !/(^|\/)package\.json$/.test(source) &&
      // A workspace's compiled code, and the data files it reads at run time (a shipped model).
      !(/(^|\/)(dist|models)$/.test(source) && fromStage === 'build')
    ) {
      found.push(line);
    }
  }
  return found;
}

describe('Dockerfile', () => {
  it.each(['api', 'worker'])('the %s image runs compiled JavaScript on Node 26 LTS under an init process', (target) => {
    const chain = lineage(stages, target);
    expect(chain.at(-1)!.from).toMatch(/^node:26-[a-z]+-slim$/);
    const instructions = chain.flatMap((stage) => stage.instructions);
    expect(instructions).toContain(`CMD ["node", "apps/${target}/dist/main.js"]`);
    expect(instructions).toContain('ENTRYPOINT ["/usr/bin/tini", "--"]');
    expect(instructions.find((line) => line.startsWith('HEALTHCHECK'))).toContain('/healthz');
    expect(instructions.filter((line) => line.startsWith('USER')).at(-1)).toBe('USER node');
  });

  it.each(['api', 'worker'])('the %s image holds no TypeScript source, test, fixture or dev dependency', (target) => {
    expect(
      lineage(stages, target)
        .flatMap((s) => s.instructions)
        .some((l) => l.startsWith('COPY')),
    ).toBe(true);
    expect(leaks(stages, target)).toEqual([]);
  });

  it('compiles in a build stage with the lock file', () => {
    const build = lineage(stages, 'build').flatMap((stage) => stage.instructions);
    expect(build).toContain('COPY package.json package-lock.json ./');
    expect(build).toContain('RUN npm ci --no-audit --no-fund');
    expect(build).toContain('RUN npm run build');
  });

  it("installs from a lock file that `npm ci` accepts on every platform (other platforms' native builds listed)", () => {
    const check = spawnSync(process.execPath, [path.join(root, 'scripts/complete-lockfile.mjs'), '--check'], {
      encoding: 'utf8',
    });
    expect(check.stderr).toBe('');
    expect(check.status).toBe(0);
  });

  it('installs no transpiler, compiler, test or lint tool with the production dependencies', () => {
    const lock = JSON.parse(fs.readFileSync(path.join(root, 'package-lock.json'), 'utf8')) as {
      packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
    };
    // What `npm ci --omit=dev` installs: every entry of the lock file not marked dev (or dev-optional).
    const production = Object.entries(lock.packages)
      .filter(([where, entry]) => where.includes('node_modules/') && !entry.dev && !entry.devOptional)
      .map(([where]) => where.slice(where.lastIndexOf('node_modules/') + 'node_modules/'.length));
    expect(production.length).toBeGreaterThan(50);
    const tools = ['tsx', 'typescript', 'esbuild', '@swc/core', 'jest', 'eslint', 'prettier', 'vite', 'playwright'];
    expect(production.filter((name) => tools.includes(name))).toEqual([]);
  });

  it('sees a leak when there is one', () => {
    const withSources = parseStages(
      text.replace('FROM runtime AS api\n', 'FROM runtime AS api\nCOPY apps/api/src apps/api/src\n'),
    );
    expect(leaks(withSources, 'api')).toEqual(['COPY apps/api/src apps/api/src']);
    const withDevDependencies = parseStages(text.replace('npm ci --omit=dev', 'npm ci'));
    expect(leaks(withDevDependencies, 'worker')).toEqual([
      'COPY --from=production-dependencies /app/node_modules node_modules',
    ]);
    const withContext = parseStages(text.replace('FROM runtime AS worker\n', 'FROM runtime AS worker\nCOPY . .\n'));
    expect(leaks(withContext, 'worker')).toEqual(['COPY . .']);
  });
});
