import { buildTar } from '@docshelf/testing/targets/build-archive';
import { convertArchiveFiles } from './archive-documents';
import { readArchive } from './read-archive';

describe('convertArchiveFiles', () => {
  it("answers each documentation file's title and Markdown beside its text, and the pages as they are", async () => {
    const page = Buffer.from('<meta charset="windows-1252"><h1>Caf\xe9</h1>', 'latin1');
    const read = await readArchive(
      await buildTar({
        'README.md': '\uFEFF---\ntitle: Guide\n---\n\nWelcome.\n',
        'docs/tabs.mdx': "import Tabs from './tabs';\n\n# Tabs\n\n<Tabs>Pick one.</Tabs>\n",
        'docs/api.rst': 'API\n===\n\nCall it::\n\n    api()\n',
        'docs/install.md': 'No heading here.\n',
        'site/index.html': page,
        'docs/big.md': { symlink: 'README.md' },
      }),
    );
    const documents = await convertArchiveFiles(read);
    expect(documents.files.map(({ path, title, markdown }) => ({ path, title, markdown }))).toEqual([
      { path: 'README.md', title: 'Guide', markdown: 'Welcome.' },
      { path: 'docs/api.rst', title: 'API', markdown: '# API\n\nCall it:\n\n```\napi()\n```' },
      { path: 'docs/install.md', title: 'install', markdown: 'No heading here.' },
      { path: 'docs/tabs.mdx', title: 'Tabs', markdown: '# Tabs\n\nPick one.' },
    ]);
    expect(documents.files[0]!.text).toBe('---\ntitle: Guide\n---\n\nWelcome.\n');
    expect(documents.pages).toEqual([{ path: 'site/index.html', bytes: page }]);
    expect(documents.skipped).toEqual([{ path: 'docs/big.md', reason: 'a symbolic link, never followed' }]);
  });
});
