import { chunkGitFiles, gitPageUrl } from './git-chunks';

describe('gitPageUrl', () => {
  it("puts the file's path without its extension in the template, or answers the path itself", () => {
    expect(gitPageUrl('docs/guide/install.md', 'https://example.com/{path}')).toBe(
      'https://example.com/docs/guide/install',
    );
    expect(gitPageUrl('docs/a b.rst', 'https://example.com/{path}.html')).toBe('https://example.com/docs/a%20b.html');
    expect(gitPageUrl('docs/guide/install.md', undefined)).toBe('docs/guide/install.md');
  });
});

describe('chunkGitFiles', () => {
  it('chunks each file by section under its title and URL, and counts the files that gave chunks', async () => {
    const fetchedAt = new Date('2026-01-01T00:00:00Z');
    const { chunks, filesIngested } = await chunkGitFiles(
      [
        { path: 'docs/install.md', title: 'Install', markdown: '# Install\n\n## Linux\n\nRun it.', text: 'x' },
        { path: 'docs/empty.md', title: 'empty', markdown: '', text: '' },
      ],
      { pageUrlTemplate: 'https://docs.example.com/{path}', fetchedAt },
    );
    expect(filesIngested).toBe(1);
    expect(chunks).toEqual([
      expect.objectContaining({
        title: 'Install › Linux',
        url: 'https://docs.example.com/docs/install',
        fetchedAt: '2026-01-01T00:00:00.000Z',
        contentHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      }),
    ]);
  });
});
