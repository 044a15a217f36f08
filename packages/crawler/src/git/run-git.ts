import { spawn } from 'node:child_process';
import { promises as fs } from 'node:fs';
import path from 'node:path';

/** How often a watched folder's size is read while git runs. */
const WATCH_INTERVAL_MS = 100;

export interface GitSandbox {
  /** An empty folder: git's HOME, so that no user configuration, credential or template is read. */
  home: string;
  /** An empty folder given as `core.hooksPath`: no hook of any kind runs. */
  hooks: string;
  /** `host:port:address` for `http.curloptResolve`: git connects to the address the policy checked, not a new lookup. */
  pin?: string;
  /** What git gets of the service's environment (default: `PATH` `/usr/bin:/bin` alone). */
  environment?: GitEnvironment;
}

/** The parts of the service's environment git may see: where git is, and the operator's certificate authorities. */
export interface GitEnvironment {
  PATH: string;
  GIT_SSL_CAINFO?: string;
  SSL_CERT_FILE?: string;
}

export interface RunGitOptions {
  cwd: string;
  sandbox: GitSandbox;
  signal: AbortSignal;
  /** git (and every process it starts) is killed as soon as this folder holds more than `maxBytes`. */
  watch?: { dir: string; maxBytes: number };
  input?: string;
}

export class GitCommandError extends Error {
  constructor(
    readonly args: readonly string[],
    readonly exitCode: number | null,
    readonly stderr: string,
  ) {
    super(`git ${args[0]} failed (${exitCode ?? 'killed'}): ${stderr.trim().split('\n').pop() ?? ''}`);
    this.name = 'GitCommandError';
  }
}

export class GitFolderTooLargeError extends Error {
  constructor(readonly maxBytes: number) {
    super(`the repository is larger than ${maxBytes} bytes`);
    this.name = 'GitFolderTooLargeError';
  }
}

/** No system or user configuration, no prompt, no LFS download; messages in English for the error mapping. */
function buildEnvironment(sandbox: GitSandbox): Record<string, string> {
  return {
    // git and its helpers are found on the service's PATH, and https remotes checked against the operator's
    // certificate authorities when it names some; nothing else of the service's environment reaches git.
    PATH: '/usr/bin:/bin',
    ...sandbox.environment,
    HOME: sandbox.home,
    XDG_CONFIG_HOME: sandbox.home,
    GIT_CONFIG_NOSYSTEM: '1',
    GIT_CONFIG_GLOBAL: '/dev/null',
    GIT_TERMINAL_PROMPT: '0',
    GIT_ASKPASS: '/bin/false',
    GIT_LFS_SKIP_SMUDGE: '1',
    GIT_ALLOW_PROTOCOL: 'http:https',
    GIT_PROTOCOL_FROM_USER: '0',
    LC_ALL: 'C',
  };
}

/** Settings given on every command line: they win over any configuration a repository could carry. */
function buildConfig(sandbox: GitSandbox): string[] {
  const settings = [
    `core.hooksPath=${sandbox.hooks}`,
    'core.fsmonitor=false',
    'core.symlinks=false',
    // A clone read once and removed never needs housekeeping (which would run hooks of its own).
    'gc.auto=0',
    'maintenance.auto=false',
    'protocol.allow=never',
    'protocol.http.allow=always',
    'protocol.https.allow=always',
    'http.followRedirects=false',
    'credential.helper=',
    'submodule.recurse=false',
    'fetch.recurseSubmodules=false',
    'filter.lfs.smudge=',
    'filter.lfs.process=',
    'filter.lfs.required=false',
    ...(sandbox.pin ? [`http.curloptResolve=${sandbox.pin}`] : []),
  ];
  return settings.flatMap((setting) => ['-c', setting]);
}

/** Bytes of the files under `dir` (0 while it does not exist). */
async function measureFolder(dir: string): Promise<number> {
  const entries = await fs.readdir(dir, { recursive: true, withFileTypes: true }).catch(() => []);
  let total = 0;
  for (const entry of entries) {
    if (!entry.isFile()) continue;
    total += await fs
      .lstat(path.join(entry.parentPath, entry.name))
      .then((stat) => stat.size)
      .catch(() => 0);
  }
  return total;
}

/** Runs one git command in the sandbox; resolves with its output, rejects with GitCommandError when it fails. */
export function runGit(args: string[], options: RunGitOptions): Promise<{ stdout: Buffer; stderr: string }> {
  const { sandbox, signal, watch } = options;
  return new Promise((resolve, reject) => {
    if (signal.aborted) return reject(signal.reason as Error);
    // Its own process group, so that a kill reaches the helpers git starts (remote-https, index-pack).
    const child = spawn('git', [...buildConfig(sandbox), ...args], {
      cwd: options.cwd,
      env: buildEnvironment(sandbox),
      detached: true,
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    const stdout: Buffer[] = [];
    let stderr = '';
    let failure: Error | null = null;
    const kill = (reason: Error) => {
      failure ??= reason;
      try {
        process.kill(-child.pid!, 'SIGKILL');
      } catch {
        child.kill('SIGKILL');
      }
    };
    const onAbort = () => kill(signal.reason as Error);
    signal.addEventListener('abort', onAbort, { once: true });
    let measuring = false;
    const timer = watch
      ? setInterval(() => {
          if (measuring) return;
          measuring = true;
          void measureFolder(watch.dir).then((bytes) => {
            measuring = false;
            if (bytes > watch.maxBytes) kill(new GitFolderTooLargeError(watch.maxBytes));
          });
        }, WATCH_INTERVAL_MS)
      : undefined;
    child.stdout.on('data', (data: Buffer) => stdout.push(data));
    child.stderr.on('data', (data: Buffer) => (stderr += data.toString('utf8').slice(0, 64 * 1024)));
    child.stdin.on('error', () => undefined);
    child.stdin.end(options.input);
    child.on('error', (error) => (failure ??= error));
    child.on('close', (code) => {
      clearInterval(timer);
      signal.removeEventListener('abort', onAbort);
      if (failure) reject(failure);
      else if (code !== 0) reject(new GitCommandError(args, code, stderr));
      else resolve({ stdout: Buffer.concat(stdout), stderr });
    });
  });
}

export { measureFolder };
