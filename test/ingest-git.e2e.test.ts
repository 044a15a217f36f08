import fs from 'node:fs';
import path from 'node:path';
import request from 'supertest';
import { startHarness, type Harness } from '@docshelf/testing/e2e/harness';
import { createTempDir } from '@docshelf/testing/targets/temp-dir';
import { buildGitRepository, startGitHttpServer, type GitHttpServer } from '@docshelf/testing/targets/git-http-server';

const GUIDE_MD = [
  '---',
  'title: Getting started',
  '---',
  '',
  'Install the widget with npm.',
  '',
  'Configuration',
  '-------------',
  '',
  'Set WIDGET_PORT before starting the widget server.',
  '',
  '    widget serve --port 8080',
].join('\n');
const TABS_MDX = [
  "import Tabs from '@theme/Tabs';",
  '',
  '# Deploying',
  '',
  '<Tabs><Tab label="Docker">Run the widget image with a data volume.</Tab></Tabs>',
].join('\n');
const QUEUES_RST = [
  'Queues',
  '======',
  '',
  'Widgets queue their renders.',
  '',
  'Retries',
  '-------',
  '',
  'Each render is retried three times::',
  '',
  '    widget.render(retries=3)',
].join('\n');

describe('POST /api/ingest-git (admin key or session)', () => {
  const { dir: root, removeDir } = createTempDir('docshelf-git-e2e-');
  let git: GitHttpServer;
  let elsewhere: GitHttpServer;
  let h: Harness;
  let auth: { Authorization: string };
  let commits: string[];

  beforeAll(async () => {
    commits = buildGitRepository(root, 'widget', [
      {
        files: {
          'README.md': '# Widget\n\nA widget for dashboards.\n',
          'docs/guide.md': GUIDE_MD,
          'docs/deploying.mdx': TABS_MDX,
          'docs/api/queues.rst': QUEUES_RST,
          'src/widget.ts': 'export const widget = 1;\n',
        },
        tag: 'v1.0.0',
      },
      { files: { 'README.md': '# Widget\n\nVersion two of the widget.\n' } },
    ]);
    buildGitRepository(root, 'huge', [
      {
        files: {
          'docs/small.md': '# Small\n\nA small page.\n',
          'docs/huge.md': `# Huge\n\n${'word '.repeat(500_000)}`,
        },
      },
    ]);
    git = await startGitHttpServer({ root });
    elsewhere = await startGitHttpServer({ root });
    // Only the first server's port is allowed: the second stands for a private address.
    h = await startHarness({ PRIVATE_HOST_ALLOWLIST: `127.0.0.1:${git.port}` });
    auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
  });
  afterAll(async () => {
    await h?.close();
    await Promise.all([git?.close(), elsewhere?.close()]);
    removeDir();
  });

  const ingestGit = (body: object) => request(h.app).post('/api/ingest-git').set(auth).send(body);
  const chunksOf = (libraryId: string) => h.adapters.libraries.listChunks(libraryId, { offset: 0, limit: 1_000 });

  it('reads the Markdown, MDX and reStructuredText files of a tag into chunks by section, under the URL template', async () => {
    const res = await ingestGit({
      libraryId: 'git/widget',
      name: 'Widget',
      repoUrl: git.repoUrl('widget'),
      ref: 'v1.0.0',
      pageUrlTemplate: 'https://widget.test/{path}.html',
    }).expect(200);
    expect(res.body).toEqual({
      success: true,
      libraryId: 'git/widget',
      filesIngested: 4,
      chunksIngested: 4,
      vectorized: true,
      commit: commits[0],
    });
    const chunks = await chunksOf('git/widget');
    expect(chunks.map((chunk) => [chunk.url, chunk.title]).sort()).toEqual([
      ['https://widget.test/README.html', 'Widget'],
      ['https://widget.test/docs/api/queues.html', 'Queues'],
      ['https://widget.test/docs/deploying.html', 'Deploying'],
      ['https://widget.test/docs/guide.html', 'Getting started'],
    ]);
    const guide = chunks.find((chunk) => chunk.url?.endsWith('/guide.html'))!;
    expect(guide.content).toContain('## Configuration');
    expect(guide.content).toContain('```\nwidget serve --port 8080\n```');
    const deploying = chunks.find((chunk) => chunk.url?.endsWith('/deploying.html'))!;
    expect(deploying.content).toContain('Run the widget image with a data volume.');
    expect(deploying.content).not.toMatch(/import|Tabs/);
    const queues = chunks.find((chunk) => chunk.url?.endsWith('/queues.html'))!;
    expect(queues.content).toContain('```\nwidget.render(retries=3)\n```');
    const library = (await request(h.app).get('/api/libraries/git/widget').expect(200)).body.library;
    expect(library).toMatchObject({ sourceType: 'git', sourceUrl: git.repoUrl('widget'), chunkCount: 4 });
    const search = await request(h.app)
      .get('/api/search')
      .set(auth)
      .query({ q: 'WIDGET_PORT', libraryId: 'git/widget' });
    expect(search.body.results[0]).toMatchObject({ url: 'https://widget.test/docs/guide.html' });
  });

  it("replaces the library with the default branch's files, chunk URLs the files' paths without a template", async () => {
    const res = await ingestGit({ libraryId: 'git/widget', name: 'Widget', repoUrl: git.repoUrl('widget') });
    expect(res.status).toBe(200);
    const chunks = await chunksOf('git/widget');
    expect(chunks.find((chunk) => chunk.url === 'README.md')?.content).toContain('Version two');
    expect(chunks).toHaveLength(1);
    expect(commits).toHaveLength(2);
  });

  it('reads a commit by its id and the paths asked for, and lists a file over the size limit in errors', async () => {
    const old = await ingestGit({
      libraryId: 'git/old',
      name: 'Old',
      repoUrl: git.repoUrl('widget'),
      ref: commits[0],
      paths: ['docs/api/**'],
    }).expect(200);
    expect(old.body).toMatchObject({ filesIngested: 1, chunksIngested: 1 });
    const huge = await ingestGit({ libraryId: 'git/huge', name: 'Huge', repoUrl: git.repoUrl('huge') }).expect(200);
    expect(huge.body).toMatchObject({
      filesIngested: 1,
      errors: [expect.stringMatching(/^docs\/huge\.md: larger than \d+ bytes/)],
    });
  });

  it('answers a clear 400 and writes nothing for an unknown ref, a URL that is not a repository and a private remote', async () => {
    const cases: [object, string][] = [
      [{ repoUrl: git.repoUrl('widget'), ref: 'no-such-branch' }, 'REF_NOT_FOUND'],
      [{ repoUrl: git.repoUrl('missing') }, 'NOT_A_REPOSITORY'],
      [{ repoUrl: elsewhere.repoUrl('widget') }, 'URL_BLOCKED'],
      [{ repoUrl: git.repoUrl('widget'), paths: ['nothing/**'] }, 'NO_CONTENT'],
    ];
    for (const [fields, code] of cases) {
      const res = await ingestGit({ libraryId: 'git/bad', name: 'Bad', ...fields });
      expect([res.status, res.body.code]).toEqual([400, code]);
    }
    expect(elsewhere.hits).toEqual([]);
    await request(h.app).get('/api/libraries/git/bad').expect(404);
  });

  it('refreshes a git library on its schedule or when asked: the ref looked at, a new commit read in, the same one left alone', async () => {
    const docs = (text: string) => ({ files: { 'docs/news.md': `# News\n\n${text}\n` } });
    buildGitRepository(root, 'news', [docs('The first release is out.')]);
    const first = await ingestGit({
      libraryId: 'git/news',
      name: 'News',
      repoUrl: git.repoUrl('news'),
      ref: 'main',
      refreshEvery: '7d',
    }).expect(200);
    expect(first.body).toMatchObject({ filesIngested: 1, commit: expect.stringMatching(/^[0-9a-f]{40}$/) });
    const library = (await request(h.app).get('/api/libraries/git/news').expect(200)).body.library;
    expect(library.refresh).toMatchObject({ every: '7d', nextRefreshAt: expect.any(String) });

    const refresh = () => request(h.app).post('/api/refresh').set(auth).send({ libraryId: 'git/news' });
    const same = await refresh().expect(200);
    expect(same.body).toMatchObject({
      unchanged: true,
      filesIngested: 0,
      chunksIngested: 1,
      commit: first.body.commit,
    });
    expect((await chunksOf('git/news'))[0]!.content).toContain('The first release is out.');

    fs.rmSync(path.join(root, 'news.git'), { recursive: true });
    buildGitRepository(root, 'news', [docs('The first release is out.'), docs('The second release is out.')]);
    const moved = await refresh().expect(200);
    expect(moved.body).toMatchObject({ filesIngested: 1, chunksIngested: 1 });
    expect(moved.body.unchanged).toBeUndefined();
    expect(moved.body.commit).not.toBe(first.body.commit);
    expect((await chunksOf('git/news'))[0]!.content).toContain('The second release is out.');
    expect((await refresh().expect(200)).body).toMatchObject({ unchanged: true, commit: moved.body.commit });
  });

  it('validates its body and needs an admin key or a session', async () => {
    const body = { libraryId: 'git/v', name: 'V', repoUrl: git.repoUrl('widget') };
    await request(h.app).post('/api/ingest-git').send(body).expect(401);
    const read = { Authorization: `Bearer ${await h.createKey('read')}` };
    await request(h.app).post('/api/ingest-git').set(read).send(body).expect(403);
    for (const bad of [{ repoUrl: 'file:///etc' }, { ref: '--upload-pack=touch' }, { pageUrlTemplate: 'https://x/' }]) {
      const res = await ingestGit({ ...body, ...bad }).expect(400);
      expect(res.body.code).toBe('VALIDATION_FAILED');
    }
    const cookie = await h.login();
    const accepted = await request(h.app)
      .post('/api/ingest-git')
      .set('Cookie', cookie)
      .set('Prefer', 'respond-async')
      .send(body)
      .expect(202);
    const job = await request(h.app).get(`/api/jobs/${accepted.body.jobId}`).set('Cookie', cookie).expect(200);
    expect(job.body).toMatchObject({ type: 'ingest-git', libraryId: 'git/v' });
  });
});
