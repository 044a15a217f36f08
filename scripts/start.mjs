// `npm start`: the API and one worker in the foreground; Ctrl-C (or SIGTERM) stops both.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

// Variables already in the environment win over the file.
if (existsSync('.env')) process.loadEnvFile('.env');

const root = (relative) => fileURLToPath(new URL(`../${relative}`, import.meta.url));
const tsx = import.meta.resolve('tsx');
const processes = {
  api: root('apps/api/src/main.ts'),
  worker: root('apps/worker/src/main.ts'),
};

let stopping = false;
let exitCode = 0;
const children = Object.entries(processes).map(([name, entry]) => {
  const child = spawn(process.execPath, ['--import', tsx, entry], { stdio: 'inherit', env: process.env });
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

await Promise.all(children.map((c) => new Promise((resolve) => (c.exitCode !== null ? resolve() : c.on('exit', resolve)))));
process.exit(exitCode);
