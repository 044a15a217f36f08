import { detectArchiveFileFormat, safeEntryPath } from './archive-path';

describe('safeEntryPath', () => {
  it.each([
    ['docs/guide.md', 'docs/guide.md'],
    ['./docs/guide.md', 'docs/guide.md'],
    ['docs//./guide.md', 'docs/guide.md'],
    ['docs\\guide.md', 'docs/guide.md'],
    ['docs/', 'docs'],
    ['./', ''],
    ['docs/..hidden.md', 'docs/..hidden.md'],
  ])('reads %j as %j', (name, expected) => {
    expect(safeEntryPath(name)).toBe(expected);
  });

  it.each([
    '../evil.md',
    'docs/../../evil.md',
    'docs/../guide.md',
    '..',
    '/etc/passwd',
    '//server/share/evil.md',
    '\\\\server\\share\\evil.md',
    '..\\evil.md',
    'C:/evil.md',
    'c:evil.md',
    'docs/evil.md\0.png',
  ])('refuses %j as leading outside the archive', (name) => {
    expect(() => safeEntryPath(name)).toThrow(expect.objectContaining({ code: 'ARCHIVE_INVALID', status: 400 }));
  });
});

describe('detectArchiveFileFormat', () => {
  it.each([
    ['site/index.html', 'html'],
    ['site/INDEX.HTM', 'html'],
    ['docs/guide.md', 'markdown'],
    ['docs/guide.mdx', 'mdx'],
    ['docs/guide.rst', 'rst'],
    ['site/.html', null],
    ['site/style.css', null],
    ['site/_sources/index.rst.txt', null],
  ])('reads %j as %j', (path, format) => {
    expect(detectArchiveFileFormat(path)).toBe(format);
  });
});
