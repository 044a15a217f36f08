import { execFileSync, spawn } from 'node:child_process';
import fs from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { startFixtureServer, type FixtureServer } from './fixture-server';

export interface GitHttpServer extends FixtureServer {
  /** The folder whose bare repositories are served, `<name>.git` each. */
  root: string;
  /** `http://127.0.0.1:<port>/<name>.git` */
  repoUrl(name: string): string;
}

/** Answers a request itself (true) before git does, e.g. a redirect or a page that is not a repository. */
export type GitRoute = (request: IncomingMessage, response: ServerResponse) => boolean;

/** Same author and dates every run, and no configuration of the machine's user, so commit ids are stable. */
const GIT_ENV = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'Docs Writer',
  GIT_AUTHOR_EMAIL: 'docs@example.com',
  GIT_COMMITTER_NAME: 'Docs Writer',
  GIT_COMMITTER_EMAIL: 'docs@example.com',
  GIT_AUTHOR_DATE: '2026-01-01T00:00:00Z',
  GIT_COMMITTER_DATE: '2026-01-01T00:00:00Z',
};

function git(args: string[], cwd: string): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_ENV }, encoding: 'utf8' }).trim();
}

/**
 * Serves the bare repositories under `root` over git's smart HTTP on a loopback address, with git's own
 * `http-backend` run as CGI for each request, as a web server would.
 */
export async function startGitHttpServer(options: {
  root: string;
  host?: string;
  route?: GitRoute;
}): Promise<GitHttpServer> {
  const backend = path.join(git(['--exec-path'], os.tmpdir()), 'git-http-backend');
  const server = await startFixtureServer(options.host ?? '127.0.0.1', (request, response) => {
    if (options.route?.(request, response)) return;
    runBackend(backend, options.root, request, response);
  });
  return Object.assign(server, { root: options.root, repoUrl: (name: string) => `${server.origin}/${name}.git` });
}

function runBackend(backend: string, root: string, request: IncomingMessage, response: ServerResponse): void {
  const url = new URL(request.url ?? '/', 'http://git.test');
  const header = (name: string) => {
    const value = request.headers[name];
    return Array.isArray(value) ? value.join(', ') : (value ?? '');
  };
  const cgi = spawn(backend, [], {
    env: {
      PATH: process.env.PATH ?? '/usr/bin:/bin',
      ...GIT_ENV,
      GIT_PROJECT_ROOT: root,
      GIT_HTTP_EXPORT_ALL: '1',
      PATH_INFO: decodeURIComponent(url.pathname),
      QUERY_STRING: url.search.slice(1),
      REQUEST_METHOD: request.method ?? 'GET',
      CONTENT_TYPE: header('content-type'),
      ...(request.headers['content-length'] ? { CONTENT_LENGTH: header('content-length') } : {}),
      HTTP_CONTENT_ENCODING: header('content-encoding'),
      GIT_PROTOCOL: header('git-protocol'),
      REMOTE_ADDR: request.socket.remoteAddress ?? '127.0.0.1',
    },
  });
  request.pipe(cgi.stdin);
  cgi.stdin.on('error', () => undefined);
  let head = Buffer.alloc(0);
  let headersSent = false;
  cgi.stdout.on('data', (data: Buffer) => {
    if (headersSent) return void response.write(data);
    head = Buffer.concat([head, data]);
    const end = head.indexOf('\r\n\r\n');
    if (end < 0) return;
    headersSent = true;
    let status = 200;
    for (const line of head.toString('latin1', 0, end).split('\r\n')) {
      const colon = line.indexOf(':');
      const [name, value] = [line.slice(0, colon).trim(), line.slice(colon + 1).trim()];
      if (name.toLowerCase() === 'status') status = Number.parseInt(value, 10);
      else response.setHeader(name, value);
    }
    response.writeHead(status);
    response.write(head.subarray(end + 4));
  });
  cgi.on('close', () => {
    if (!headersSent) response.writeHead(502).end('git http-backend failed');
    else response.end();
  });
}

/** One commit of a test repository: its whole tree (paths to contents), and the names that point at it. */
export interface RepositoryCommit {
  files: Record<string, string | Buffer>;
  /** Paths of executable files among `files` (hooks, scripts). */
  executables?: string[];
  /** Symbolic links: path → target. */
  symlinks?: Record<string, string>;
  /** Submodules (gitlinks) with no .gitmodules: path → the commit id they point at. */
  submodules?: Record<string, string>;
  message?: string;
  /** A tag made at this commit. */
  tag?: string;
  /** A branch made at this commit (`main` always follows the last commit). */
  branch?: string;
}

/**
 * Builds `<root>/<name>.git`, a bare repository with one commit per entry on `main` (each commit's tree is exactly
 * its `files`), and answers the commit ids in order.
 */
export function buildGitRepository(root: string, name: string, commits: RepositoryCommit[]): string[] {
  const work = fs.mkdtempSync(path.join(os.tmpdir(), 'docshelf-git-build-'));
  try {
    git(['init', '--quiet', '--initial-branch=main'], work);
    const ids: string[] = [];
    for (const [index, commit] of commits.entries()) {
      for (const entry of fs.readdirSync(work))
        if (entry !== '.git') fs.rmSync(path.join(work, entry), { recursive: true });
      for (const [file, content] of Object.entries(commit.files)) {
        fs.mkdirSync(path.dirname(path.join(work, file)), { recursive: true });
        fs.writeFileSync(path.join(work, file), content);
        if (commit.executables?.includes(file)) fs.chmodSync(path.join(work, file), 0o755);
      }
      for (const [link, target] of Object.entries(commit.symlinks ?? {})) {
        fs.mkdirSync(path.dirname(path.join(work, link)), { recursive: true });
        fs.symlinkSync(target, path.join(work, link));
      }
      git(['add', '--all'], work);
      for (const [sub, id] of Object.entries(commit.submodules ?? {})) {
        git(['update-index', '--add', '--cacheinfo', `160000,${id},${sub}`], work);
      }
      git(['commit', '--quiet', '--allow-empty', '-m', commit.message ?? `Commit ${index + 1}`], work);
      ids.push(git(['rev-parse', 'HEAD'], work));
      if (commit.tag) git(['tag', commit.tag], work);
      if (commit.branch) git(['branch', commit.branch], work);
    }
    const bare = path.join(root, `${name}.git`);
    git(['clone', '--quiet', '--bare', work, bare], root);
    return ids;
  } finally {
    fs.rmSync(work, { recursive: true, force: true });
  }
}
