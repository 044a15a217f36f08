import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { promisify } from 'node:util';
import { AppError } from '@docshelf/core';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';
import { buildGitRepository, startGitHttpServer, type GitHttpServer } from '@docshelf/testing/targets/git-http-server';
import { createAddressPolicy } from '../fetch/address-policy';
import { readGitRepository, type ReadGitRepositoryOptions } from './read-git-repository';

const { dir: root, removeDir: removeRoot } = createTempDir('docshelf-git-served-');
const { dir: clones, removeDir: removeClones } = createTempDir('docshelf-git-clones-');
let server: GitHttpServer;
let commits: string[];
const allowLoopback = createAddressPolicy({ allowlist: ['127.0.0.1'] });

beforeAll(async () => {
  commits = buildGitRepository(root, 'guide', [
    {
      files: { 'README.md': '# Guide\n\nThe first words.\n', 'docs/intro.md': '# Intro\n\nVersion one.\n' },
      tag: 'v1.0.0',
    },
    {
      files: {
        'README.md': '# Guide\n\nThe second words.\n',
        'docs/intro.md': '# Intro\n\nVersion two.\n',
        'docs/api/queues.rst': 'Queues\n======\n\nText.\n',
        'docs/components.mdx': '# Components\n\n<Note>Read me.</Note>\n',
        'docs/logo.png': randomBytes(64),
        'src/index.ts': 'export {};\n',
        'src/notes.md': '# Not docs by default\n',
      },
      branch: 'stable',
    },
    { files: { 'README.md': '# Guide\n\nThe third words.\n', 'docs/intro.md': '# Intro\n\nVersion three.\n' } },
  ]);
  buildGitRepository(root, 'huge', [
    { files: { 'docs/small.md': '# Small\n', 'docs/huge.md': `# Huge\n\n${'word '.repeat(300_000)}` } },
  ]);
  buildGitRepository(root, 'binary', [{ files: { 'docs/a.md': '# A\n', 'assets/noise.bin': randomBytes(600_000) } }]);
  buildGitRepository(root, 'links', [
    {
      files: { 'docs/real.md': '# Real\n' },
      symlinks: { 'docs/passwd.md': '/etc/passwd', 'docs/again.md': 'real.md' },
      submodules: { 'docs/vendor': 'a'.repeat(40) },
    },
  ]);
  buildGitRepository(root, 'many', [
    { files: Object.fromEntries(Array.from({ length: 30 }, (_, i) => [`docs/page-${i}.md`, `# Page ${i}\n`])) },
  ]);
  server = await startGitHttpServer({
    root,
    route: (request, response) => {
      if (request.url?.startsWith('/moved.git/')) {
        response.writeHead(301, { location: request.url.replace('/moved.git/', '/guide.git/') }).end();
        return true;
      }
      if (request.url?.startsWith('/stalled.git/git-upload-pack')) return true; // never answers the fetch itself
      if (request.url?.startsWith('/site/')) {
        response.writeHead(200, { 'content-type': 'text/html' }).end('<html><body>Docs</body></html>');
        return true;
      }
      return false;
    },
  });
});

afterAll(async () => {
  await server?.close();
  removeRoot();
  removeClones();
});

afterEach(() => {
  // Every read removes its temporary clone, whatever its outcome.
  expect(fs.readdirSync(clones)).toEqual([]);
});

const read = (name: string, options: Partial<ReadGitRepositoryOptions> = {}) =>
  readGitRepository({ repoUrl: server.repoUrl(name), policy: allowLoopback, tempDir: clones, ...options });

const failureOf = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the read to fail');
    },
    (error: unknown) => {
      expect(error).toBeInstanceOf(AppError);
      return { code: (error as AppError).code, status: (error as AppError).status, message: (error as Error).message };
    },
  );

describe('reading a git repository over HTTP', () => {
  it("reads the remote's HEAD by default: the docs folder and every README, documentation formats only", async () => {
    const result = await read('guide');
    expect(result.commit).toBe(commits[2]);
    expect(result.files.map((file) => [file.path, file.format, file.text])).toEqual([
      ['README.md', 'markdown', '# Guide\n\nThe third words.\n'],
      ['docs/intro.md', 'markdown', '# Intro\n\nVersion three.\n'],
    ]);
  });

  it('reads a branch, with the formats of each file', async () => {
    const result = await read('guide', { ref: 'stable' });
    expect(result.commit).toBe(commits[1]);
    expect(result.files.map((file) => [file.path, file.format])).toEqual([
      ['README.md', 'markdown'],
      ['docs/api/queues.rst', 'rst'],
      ['docs/components.mdx', 'mdx'],
      ['docs/intro.md', 'markdown'],
    ]);
  });

  it('reads a tag', async () => {
    const result = await read('guide', { ref: 'v1.0.0' });
    expect(result.commit).toBe(commits[0]);
    expect(result.files.find((file) => file.path === 'docs/intro.md')?.text).toContain('Version one.');
  });

  it('reads a commit by its id', async () => {
    const result = await read('guide', { ref: commits[1]! });
    expect(result.commit).toBe(commits[1]);
    expect(result.files.find((file) => file.path === 'docs/intro.md')?.text).toContain('Version two.');
  });

  it('fetches nothing when the ref is still at the commit a refresh names, whether HEAD, a branch, a tag or an id', async () => {
    const cases: [string | undefined, string][] = [
      [undefined, commits[2]!],
      ['stable', commits[1]!],
      ['v1.0.0', commits[0]!],
      [commits[1]!, commits[1]!],
    ];
    for (const [ref, commit] of cases) {
      const result = await read('guide', { ...(ref ? { ref } : {}), unlessCommit: commit });
      expect([ref, result.unchanged, result.commit, result.files]).toEqual([ref, true, commit, []]);
    }
    // Elsewhere, or at another commit, the ref is read.
    const moved = await read('guide', { ref: 'stable', unlessCommit: commits[0]! });
    expect([moved.unchanged, moved.commit, moved.files.length]).toEqual([undefined, commits[1], 4]);
  });

  it('reads the paths that globs select', async () => {
    const result = await read('guide', { ref: 'stable', paths: ['src/**', 'docs/api/**'] });
    expect(result.files.map((file) => file.path)).toEqual(['docs/api/queues.rst', 'src/notes.md']);
  });

  it('reads no symbolic link and fetches no submodule', async () => {
    const result = await read('links');
    expect(result.files.map((file) => [file.path, file.text])).toEqual([['docs/real.md', '# Real\n']]);
  });

  it('follows a redirect that the address policy allows, to the repository it names', async () => {
    const result = await read('moved');
    expect(result.url).toBe(server.repoUrl('guide'));
    expect(result.commit).toBe(commits[2]);
  });

  it('connects git to the address the policy checked, not to a lookup of its own', async () => {
    // docs.test resolves only through the policy's resolver: git, whose own lookup would fail, must use its answer.
    const policy = createAddressPolicy({
      allowlist: ['127.0.0.1'],
      resolve: async (hostname) => (hostname === 'docs.test' ? [{ address: '127.0.0.1', family: 4 }] : []),
    });
    const result = await read('guide', { repoUrl: `http://docs.test:${server.port}/guide.git`, policy });
    expect(result.commit).toBe(commits[2]);
  });

  it('answers REF_NOT_FOUND for a branch or a commit the repository does not have, and for a name git would misread', async () => {
    expect(await failureOf(read('guide', { ref: 'no-such-branch' }))).toMatchObject({
      code: 'REF_NOT_FOUND',
      status: 400,
    });
    expect(await failureOf(read('guide', { ref: 'f'.repeat(40) }))).toMatchObject({ code: 'REF_NOT_FOUND' });
    expect(await failureOf(read('guide', { ref: '--upload-pack=touch /tmp/x' }))).toMatchObject({
      code: 'REF_NOT_FOUND',
    });
  });

  it('answers NOT_A_REPOSITORY for a URL that is not a repository', async () => {
    expect(await failureOf(read('missing'))).toMatchObject({ code: 'NOT_A_REPOSITORY', status: 400 });
    const page = await failureOf(
      readGitRepository({ repoUrl: `${server.origin}/site/docs`, policy: allowLoopback, tempDir: clones }),
    );
    expect(page).toMatchObject({ code: 'NOT_A_REPOSITORY' });
    expect(page.message).toContain('text/html');
  });

  it('answers URL_BLOCKED for a private address without the allowlist, and git never connects', async () => {
    const hits = server.hits.length;
    const blocked = await failureOf(read('guide', { policy: createAddressPolicy({ allowlist: [] }) }));
    expect(blocked).toMatchObject({ code: 'URL_BLOCKED', status: 400 });
    expect(server.hits.length).toBe(hits);
    expect(await failureOf(read('guide', { repoUrl: 'file:///etc' }))).toMatchObject({ code: 'URL_BLOCKED' });
  });

  it('answers URL_BLOCKED for a redirect to a private address, which is never asked', async () => {
    const inner = await startGitHttpServer({ root });
    try {
      const outer = await startGitHttpServer({
        root,
        route: (request, response) => {
          response.writeHead(302, { location: `${inner.origin}${request.url}` }).end();
          return true;
        },
      });
      try {
        const onlyOuter = createAddressPolicy({ allowlist: [`127.0.0.1:${outer.port}`] });
        const blocked = await failureOf(
          readGitRepository({ repoUrl: outer.repoUrl('guide'), policy: onlyOuter, tempDir: clones }),
        );
        expect(blocked).toMatchObject({ code: 'URL_BLOCKED' });
        expect(inner.hits).toEqual([]);
      } finally {
        await outer.close();
      }
    } finally {
      await inner.close();
    }
  });

  it('skips and reports a file over the size limit of one file, and reads the others', async () => {
    const result = await read('huge', { limits: { maxFileBytes: 1024 * 1024 } });
    expect(result.files.map((file) => file.path)).toEqual(['docs/small.md']);
    expect(result.skipped).toEqual([{ path: 'docs/huge.md', reason: expect.stringContaining('larger than 1048576') }]);
  });

  it('answers REPOSITORY_TOO_LARGE for a repository over the size limit or the file-count limit', async () => {
    expect(await failureOf(read('binary', { limits: { maxBytes: 200_000 } }))).toMatchObject({
      code: 'REPOSITORY_TOO_LARGE',
      status: 400,
    });
    expect(await failureOf(read('many', { limits: { maxFiles: 10 } }))).toMatchObject({
      code: 'REPOSITORY_TOO_LARGE',
    });
    expect((await read('many', { limits: { maxFiles: 30 } })).files).toHaveLength(30);
  });

  it('answers URL_UNREACHABLE when the read takes longer than its time limit, and stops git', async () => {
    buildGitRepository(root, 'stalled', [{ files: { 'docs/a.md': '# A\n' } }]);
    const started = Date.now();
    const slow = await failureOf(read('stalled', { limits: { timeoutMs: 1_500 } }));
    expect(slow).toMatchObject({ code: 'URL_UNREACHABLE', status: 400 });
    expect(Date.now() - started).toBeLessThan(5_000);
  });

  it('ends with the cancellation of its caller, not with an error of the repository', async () => {
    const controller = new AbortController();
    const reading = read('stalled', { signal: controller.signal });
    setTimeout(() => controller.abort(new Error('job cancelled')), 300);
    await expect(reading).rejects.toThrow('job cancelled');
  });

  it("runs no hook, even those the service user's git configuration and templates would install", async () => {
    const { dir: home, removeDir } = createTempDir('docshelf-git-home-');
    const marker = path.join(home, 'hook-ran');
    const hooks = path.join(home, 'hooks');
    fs.mkdirSync(hooks);
    for (const hook of ['post-checkout', 'reference-transaction', 'post-merge', 'pre-auto-gc', 'post-index-change']) {
      fs.writeFileSync(path.join(hooks, hook), `#!/bin/sh\necho ${hook} >> '${marker}'\n`, { mode: 0o755 });
    }
    const config = path.join(home, 'gitconfig');
    // Loose objects and gc.auto = 1 make even a fetch start `gc --auto`, and with it the pre-auto-gc hook.
    const settings = `[core]\n\thooksPath = ${hooks}\n[init]\n\ttemplateDir = ${home}/template\n[gc]\n\tauto = 1\n`;
    fs.writeFileSync(config, `${settings}[fetch]\n\tunpackLimit = 100000\n[transfer]\n\tunpackLimit = 100000\n`);
    fs.cpSync(hooks, path.join(home, 'template', 'hooks'), { recursive: true });
    const saved = { HOME: process.env.HOME, GIT_CONFIG_GLOBAL: process.env.GIT_CONFIG_GLOBAL };
    Object.assign(process.env, { HOME: home, GIT_CONFIG_GLOBAL: config });
    try {
      // The same configuration makes a plain clone run the hooks: the marker shows a hook that ran.
      await promisify(execFile)('git', ['clone', '--quiet', server.repoUrl('guide'), path.join(home, 'plain')], {
        env: { ...process.env },
      });
      expect(fs.existsSync(marker)).toBe(true);
      fs.rmSync(marker);
      const result = await read('guide', { ref: 'stable' });
      expect(result.files.length).toBeGreaterThan(0);
      expect(fs.existsSync(marker)).toBe(false);
    } finally {
      Object.assign(process.env, saved);
      removeDir();
    }
  });
});
