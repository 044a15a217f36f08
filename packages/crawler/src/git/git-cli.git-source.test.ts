import { createTempDir } from '@docshelf/testing/targets/temp-dir';
import { buildGitRepository, startGitHttpServer, type GitHttpServer } from '@docshelf/testing/targets/git-http-server';
import { createAddressPolicy } from '../fetch/address-policy';
import { GitCliGitSource } from './git-cli.git-source';

const { dir: root, removeDir } = createTempDir('docshelf-git-source-');
let server: GitHttpServer;

beforeAll(async () => {
  buildGitRepository(root, 'guide', [
    {
      files: {
        'README.md': '---\ntitle: Guide\n---\n\nWelcome.\n',
        'docs/tabs.mdx': "import Tabs from './tabs';\n\n# Tabs\n\n<Tabs>Pick one.</Tabs>\n",
        'docs/api.rst': 'API\n===\n\nCall it::\n\n    api()\n',
      },
    },
  ]);
  server = await startGitHttpServer({ root });
});
afterAll(async () => {
  await server?.close();
  removeDir();
});

describe('GitCliGitSource', () => {
  it("answers each file's title and Markdown beside its text", async () => {
    const source = new GitCliGitSource({ policy: createAddressPolicy({ allowlist: ['127.0.0.1'] }) });
    const read = await source.read({ repoUrl: server.repoUrl('guide') });
    expect(read.files.map(({ path, title, markdown }) => ({ path, title, markdown }))).toEqual([
      { path: 'README.md', title: 'Guide', markdown: 'Welcome.' },
      { path: 'docs/api.rst', title: 'API', markdown: '# API\n\nCall it:\n\n```\napi()\n```' },
      { path: 'docs/tabs.mdx', title: 'Tabs', markdown: '# Tabs\n\nPick one.' },
    ]);
    expect(read.files[0]!.text).toContain('title: Guide');
    expect(read.skipped).toEqual([]);
  });
});
