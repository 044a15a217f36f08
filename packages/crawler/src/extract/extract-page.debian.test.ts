import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractPage, type ExtractedPage } from './extract-page';

// Real pages from Debian's nodejs-doc and git-doc; `bash scripts/fetch-debian-docs.sh` unpacks them.
const DOCS_DIR = join(__dirname, '../../../../.cache/debian-docs/usr/share/doc');
const NODE_DIR = join(DOCS_DIR, 'nodejs/api');
const GIT_DIR = join(DOCS_DIR, 'git-doc');

function describeWithDir(dir: string, name: string, body: () => void): void {
  if (existsSync(dir)) {
    describe(name, body);
    return;
  }
  describe(name, () => {
    it.skip(`skipped: ${dir} is missing (run bash scripts/fetch-debian-docs.sh)`, () => undefined);
  });
  console.warn(`Skipping "${name}": ${dir} is missing (run bash scripts/fetch-debian-docs.sh)`);
}

const extract = (dir: string, file: string, base: string): ExtractedPage =>
  extractPage(readFileSync(join(dir, file), 'utf8'), `${base}${file}`);

const NODE_BASE = 'https://nodejs.org/docs/latest-v18.x/api/';
const NODE_CHROME = [
  'Table of contents',
  'Other versions',
  'View on single page',
  'View as JSON',
  'Edit on GitHub',
  'Toggle dark mode',
  '[Index](',
  'Node.js v18.20.4 documentation',
  'Asynchronous context tracking', // sidebar entry
  '](#', // fragment-only links were made absolute, and the TOC is gone
];

describeWithDir(NODE_DIR, 'extractPage on Node.js API docs', () => {
  const fs = extract(NODE_DIR, 'fs.html', NODE_BASE);
  const http = extract(NODE_DIR, 'http.html', NODE_BASE);
  const index = extract(NODE_DIR, 'index.html', NODE_BASE);

  it('titles the pages from <title> without the site suffix', () => {
    expect([fs.title, http.title, index.title]).toEqual(['File system', 'HTTP', 'Index']);
  });

  it('keeps fs.html headings, prose and code samples with their language', () => {
    expect(fs.markdown).toMatch(/^## File system\n/);
    expect(fs.markdown).toContain('\n### Promise example\n');
    expect(fs.markdown).toContain('\n##### `filehandle.appendFile(data[, options])`\n');
    expect(fs.markdown).toContain(
      "```mjs\nimport { unlink } from 'node:fs/promises';\n\ntry {\n  await unlink('/tmp/hello');\n",
    );
    expect(fs.markdown).toContain(
      'The `node:fs` module enables interacting with the file system in a way modeled on standard POSIX functions.',
    );
    expect(fs.markdown).toContain('| Version | Changes |\n| --- | --- |');
  });

  it('keeps http.html classes and its header sample', () => {
    expect(http.markdown).toContain('\n### Class: `http.Agent`\n');
    expect(http.markdown).toContain("```js\n{ 'content-length': '123',\n  'content-type': 'text/plain',");
  });

  it('keeps the module list of index.html as absolute links', () => {
    expect(index.markdown).toContain(`- [File system](${NODE_BASE}fs.html)`);
    expect(index.markdown).toContain(
      '- [Worker threads](https://nodejs.org/docs/latest-v18.x/api/worker_threads.html)',
    );
  });

  it.each(NODE_CHROME)('drops the chrome "%s" from fs.html and http.html', (text) => {
    expect(fs.markdown).not.toContain(text);
    expect(http.markdown).not.toContain(text);
  });

  it('drops the heading permalink marks', () => {
    expect(fs.markdown).not.toMatch(/^#+ .*#$/m);
  });

  it('still discovers the sibling pages from the sidebar', () => {
    expect(fs.links).toContain(`${NODE_BASE}http.html`);
    expect(fs.links).toContain(`${NODE_BASE}all.html`);
    expect(fs.links).not.toContain(`${NODE_BASE}fs.html`);
    expect(fs.links.every((link) => link.startsWith('https://nodejs.org/'))).toBe(true);
  });
});

const GIT_BASE = 'https://git-scm.com/docs/';

describeWithDir(GIT_DIR, 'extractPage on git manual pages', () => {
  const commit = extract(GIT_DIR, 'git-commit.html', GIT_BASE);
  const git = extract(GIT_DIR, 'git.html', GIT_BASE);
  const manual = extract(GIT_DIR, 'user-manual.html', GIT_BASE);

  it('titles the pages', () => {
    expect([commit.title, git.title, manual.title]).toEqual(['git-commit(1)', 'git(1)', 'Git User Manual']);
  });

  it('keeps the asciidoc header: the page h1 and the NAME section', () => {
    expect(commit.markdown).toMatch(
      /^# git-commit\(1\) Manual Page\n\n## NAME\n\ngit-commit - Record changes to the repository\n/,
    );
    expect(git.markdown).toContain('git - the stupid content tracker');
  });

  it('keeps the SYNOPSIS of git-commit as a code block', () => {
    expect(commit.markdown).toContain(
      '## SYNOPSIS\n\n```\ngit commit [-a | --interactive | --patch] [-s] [-v] [-u<mode>] [--amend]\n',
    );
    expect(commit.markdown).toContain('\n## EXAMPLES\n');
    expect(commit.markdown).toContain('$ git add hello.c\n$ git commit\n```');
  });

  it('drops the footer "Last updated" block', () => {
    for (const page of [commit, git, manual]) expect(page.markdown).not.toContain('Last updated');
    expect(commit.markdown).toMatch(/Part of the \[git\(1\)\]\(https:\/\/git-scm\.com\/docs\/git\.html\) suite$/);
  });

  it('keeps the user manual chapters and drops its DocBook tables of contents', () => {
    expect(manual.markdown).toMatch(/^# Git User Manual\n/);
    expect(manual.markdown).toContain('\n# Chapter 1. Repositories and Branches\n\n## How to get a Git repository\n');
    expect(manual.markdown).toContain('$ git clone git://git.kernel.org/pub/scm/git/git.git');
    expect(manual.markdown).not.toContain('Table of Contents');
  });
});

// Python's manual names sections and signatures after their headings and APIs: cookies, search, menus.
const PYTHON_DIR = join(DOCS_DIR, 'python3.11/html');
const PYTHON_BASE = 'https://docs.python.org/3.11/';

describeWithDir(PYTHON_DIR, "extractPage on Python's manual", () => {
  it.each([
    ['library/http.cookies.html', '## Cookie Objects', 'module defines classes for abstracting the concept of cookies'],
    ['library/sys_path_init.html', '## Virtual environments', 'module search path'],
    ['howto/regex.html', '### Search and Replace', '### match() versus search()'],
    ['library/idle.html', '### File menu (Shell and Editor)', 'Create a new file editing window.'],
  ])('keeps the sections of %s named like chrome', (file, heading, text) => {
    const { markdown } = extract(PYTHON_DIR, file, PYTHON_BASE);
    expect(markdown).toContain(heading);
    expect(markdown).toContain(text);
  });

  it('keeps the signatures of re.search and http.cookiejar.CookieJar', () => {
    expect(extract(PYTHON_DIR, 'library/re.html', PYTHON_BASE).markdown).toMatch(/^re\.search\(_pattern_, _string_/m);
    expect(extract(PYTHON_DIR, 'library/http.cookiejar.html', PYTHON_BASE).markdown).toMatch(
      /^_class_ http\.cookiejar\.CookieJar\(_policy\\=None_\)/m,
    );
  });
});

// MkDocs' own manual (mkdocs theme): its 404 page's only text is under a paragraph's length, beside a footer.
const MKDOCS_DIR = join(DOCS_DIR, 'mkdocs/html');

describeWithDir(MKDOCS_DIR, "extractPage on MkDocs' manual", () => {
  it('keeps the 404 page\'s "Page not found", without its footer or search dialog', () => {
    const { markdown } = extract(MKDOCS_DIR, '404.html', 'https://www.mkdocs.org/');
    expect(markdown).toContain('# 404');
    expect(markdown).toContain('Page not found');
    expect(markdown).not.toContain('Copyright');
    expect(markdown).not.toContain('search these documents');
  });
});
