import { spawn } from 'node:child_process';
import path from 'node:path';
import { stripVTControlCharacters } from 'node:util';

/** The docshelf command as npx runs it: its bin script over the compiled CLI (apps/cli/dist, built by `pretest`). */
export const DOCSHELF_BIN = path.resolve(__dirname, '../../../../apps/cli/bin/docshelf.cjs');

export interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs `docshelf <args>` with pipes (no terminal), `input` on stdin, and resolves when it exits. */
export function runCli(args: string[], env: Record<string, string>, input?: string): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [DOCSHELF_BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code: code ?? -1, stdout, stderr }));
    child.stdin.end(input);
  });
}

const quote = (word: string) => `'${word.replace(/'/g, `'\\''`)}'`;

export interface TerminalRun {
  /** Everything the command wrote to the terminal so far, escape sequences and all. */
  raw(): string;
  /** The same without escape sequences, carriage returns as line ends. */
  text(): string;
  /** Resolves with the text once it matches (it rejects if the command exits first). */
  waitFor(pattern: RegExp): Promise<string>;
  /** Types into the terminal: "\x03" is Ctrl-C. */
  type(keys: string): void;
  exited: Promise<number>;
}

/**
 * Runs `docshelf <args>` in a pseudo-terminal of 160 columns (util-linux `script`), as a person at a terminal would:
 * stdout and stderr are a TTY, keys typed go through the terminal's line discipline (Ctrl-C becomes SIGINT).
 */
export function runInTerminal(args: string[], env: Record<string, string>): TerminalRun {
  const command = `stty cols 160 rows 40; exec ${[process.execPath, DOCSHELF_BIN, ...args].map(quote).join(' ')}`;
  const child = spawn('script', ['--quiet', '--flush', '--return', '--command', command, '/dev/null'], {
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', TERM: 'xterm-256color', ...env },
    stdio: ['pipe', 'pipe', 'pipe'],
  });
  let raw = '';
  const waiters = new Set<() => void>();
  const text = () => stripVTControlCharacters(raw).replace(/\r\n?/g, '\n');
  child.stdout.on('data', (chunk: Buffer) => {
    raw += chunk.toString();
    for (const check of waiters) check();
  });
  child.stderr.on('data', (chunk: Buffer) => (raw += chunk.toString()));
  const exited = new Promise<number>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => {
      child.stdin.end();
      for (const check of waiters) check();
      resolve(code ?? -1);
    });
  });
  let ended = false;
  void exited.then(() => (ended = true));
  return {
    raw: () => raw,
    text,
    exited,
    type: (keys) => child.stdin.write(keys),
    waitFor: (pattern) =>
      new Promise((resolve, reject) => {
        const check = () => {
          if (pattern.test(text())) {
            waiters.delete(check);
            resolve(text());
          } else if (ended || child.exitCode !== null) {
            waiters.delete(check);
            reject(new Error(`docshelf exited before its output matched ${pattern}:\n${text()}`));
          }
        };
        waiters.add(check);
        check();
      }),
  };
}
