// `npm start`: compile what changed (`tsc -b`), then run the API and one worker from dist/ in the foreground.
// `npm run dev`: the same pair from the TypeScript sources through tsx, restarted when a source file changes.
// Ctrl-C (or SIGTERM) stops both.
import { spawn, spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Variables already in the environment win over the file.
if (existsSync('.env')) process.loadEnvFile('.env');

const root = (relative) => fileURLToPath(new URL(`../${relative}`, import.meta.url));
const dev = process.argv.includes('--dev');
const apps = ['api', 'worker'];

let command;
if (dev) {
  // Workspace packages resolve to their sources under this condition (see their package.json "exports").
  const tsxCli = fileURLToPath(import.meta.resolve('tsx/cli'));
  command = (app) => [
    tsxCli,
    'watch',
    '--clear-screen=false',
    '--conditions=@docshelf/source',
    root(`apps/${app}/src/main.ts`),
  ];
} else {
  // Incremental: a no-op when dist/ is up to date, a rebuild of what changed when it is stale.
  const tsc = fileURLToPath(import.meta.resolve('typescript/bin/tsc'));
  const build = spawnSync(process.execPath, [tsc, '-b', root('tsconfig.build.json')], { stdio: 'inherit' });
  if (build.status !== 0) {
    console.error('docshelf: the build failed; nothing started');
    process.exit(build.status || 1);
  }
  command = (app) => [root(`apps/${app}/dist/main.js`)];
}

// The dashboard is served from its build; a fresh clone builds it once here.
if (!existsSync(root('apps/web/dist/index.html'))) {
  console.log('docshelf: building the dashboard (apps/web/dist) first');
  const build = spawnSync('npm', ['run', 'build:web'], { stdio: 'inherit', cwd: root('.') });
  if (build.status !== 0) console.error('docshelf: the dashboard build failed; the API runs without it');
}

let stopping = false;
let exitCode = 0;
const children = apps.map((name) => {
  const child = spawn(process.execPath, command(name), { stdio: 'inherit', env: process.env });
  child.on('exit', (code, signal) => {
    if (!stopping) {
      console.error(`docshelf: ${name} exited (${signal ?? code}); stopping the other process`);
      exitCode = code || 1;
      stop('SIGTERM');
    }
  });
  return child;
});

function stop(signal) {
  stopping = true;
  for (const child of children) if (child.exitCode === null && child.signalCode === null) child.kill(signal);
}

process.on('SIGINT', () => stop('SIGTERM'));
process.on('SIGTERM', () => stop('SIGTERM'));

await Promise.all(
  children.map((c) => new Promise((resolve) => (c.exitCode !== null ? resolve() : c.on('exit', resolve)))),
);
process.exit(exitCode);
