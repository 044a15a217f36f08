import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { extractPage } from './extract-page';

const fixture = (name: string): string => readFileSync(join(__dirname, 'fixtures', name), 'utf8');

describe('extractPage on a hand-written docs page', () => {
  const page = extractPage(fixture('docs-page.html'), 'https://docs.example.com/docs/workers');

  it('takes the title from <title> without the site name', () => {
    expect(page.title).toBe('Configuring workers');
  });

  it.each([
    ['skip link', 'Skip to content'],
    ['cookie banner', 'biscuits'],
    ['cookie button', 'Accept all'],
    ['site header', 'Brandname'],
    ['header navigation', 'Pricing plans'],
    ['search form', 'Search the docs'],
    ['sidebar', 'Sidebar entry'],
    ['breadcrumbs', 'crumb'],
    ['table of contents', 'Toc options entry'],
    ['"on this page" heading', 'On this page'],
    ['previous/next links', 'Previous: Getting started'],
    ['previous/next links', 'Next: Retries'],
    ['edit link', 'Edit this page'],
    ['footer', 'Footer Incorporated'],
    ['footer link', 'Privacy policy'],
    ['hidden paragraph', 'hidden from readers'],
    ['display:none element', 'Invisible inline note'],
    ['code copy button', 'Copy to clipboard'],
    ['script', 'analytics'],
    ['heading permalink', '¶'],
  ])('drops the %s (%s)', (_, text) => {
    expect(page.markdown).not.toContain(text);
  });

  it('keeps headings and body text with inline code and absolute links', () => {
    expect(page.markdown).toMatch(/^# Configuring workers\n/);
    expect(page.markdown).toContain('## Options');
    expect(page.markdown).toContain(
      'A **worker** pulls jobs from a queue and runs them. Start one with `acme.Worker` and give it a ' +
        '[processor function](https://docs.example.com/reference/worker.html).',
    );
  });

  it('keeps a link that merely mentions "next" inside prose', () => {
    expect(page.markdown).toContain('[next section about retries](https://docs.example.com/docs/retries)');
  });

  it('writes the table as a GFM table with a promoted header row and escaped pipes', () => {
    expect(page.markdown).toContain(
      [
        '| Option | Default | Meaning |',
        '| --- | --- | --- |',
        '| `concurrency` | 1 | Jobs processed at once. |',
        '| `lockDuration` | 30000 | Milliseconds before a job lock \\| expires. |',
      ].join('\n'),
    );
  });

  it('writes the Sphinx-highlighted code block as a python fence with its exact text', () => {
    expect(page.markdown).toContain(
      [
        '```python',
        'from acme import Worker',
        '',
        'def process(job):',
        '    return job.data',
        '',
        'worker = Worker("emails", process)',
        '```',
      ].join('\n'),
    );
  });

  it('keeps the nested list with "-" bullets', () => {
    expect(page.markdown).toContain(
      ['- Set the connection', '  - host and port', '  - password from the environment', '- Pick a concurrency'].join(
        '\n',
      ),
    );
  });

  it('replaces images by their alt text', () => {
    expect(page.markdown).toContain('Worker lifecycle diagram');
    expect(page.markdown).not.toContain('diagram.png');
  });

  it('collects links from the whole page, navigation included, before chrome removal', () => {
    expect(page.links).toEqual([
      'https://docs.example.com/',
      'https://docs.example.com/docs/',
      'https://docs.example.com/pricing',
      'https://docs.example.com/blog/',
      'https://docs.example.com/docs/getting-started',
      'https://docs.example.com/docs/retries',
      'https://docs.example.com/reference/worker.html',
      'https://docs.example.com/privacy',
    ]);
  });

  it('collapses blank lines and leaves no HTML behind', () => {
    expect(page.markdown).not.toMatch(/\n{3,}/);
    expect(page.markdown).not.toMatch(/<\/?(div|span|table|p|a)\b/);
  });
});

describe('extractPage on a Docusaurus-like page', () => {
  const page = extractPage(fixture('docusaurus-page.html'), 'https://rocket.example/docs/installation');

  it('keeps the article header h1, the headings without hash links, and every tab of code', () => {
    expect(page.title).toBe('Installation');
    expect(page.markdown).toMatch(/^# Installation\n/);
    expect(page.markdown).toContain('## Install the CLI\n');
    expect(page.markdown).toContain('```bash\nnpm install --global rocket-cli\nrocket --version\n```');
    expect(page.markdown).toContain('```bash\nyarn global add rocket-cli\n```');
    expect(page.markdown).toContain('Run `rocket doctor` to check your setup.');
  });

  it.each([
    'Skip to main content',
    'announcement',
    'Navbar Title',
    'Sidebar Introduction',
    'Breadcrumb home',
    'On this page mobile',
    'Copy code button',
    'Edit this page',
    'Last updated',
    'Pagination Introduction',
    'Pagination Configuration',
    'Desktop toc install',
    'Footer Project',
    'Direct link',
  ])('drops "%s"', (text) => {
    expect(page.markdown).not.toContain(text);
  });
});

describe('extractPage on an MkDocs Material page', () => {
  const page = extractPage(fixture('mkdocs-page.html'), 'https://lantern.example/caching/');

  it('keeps the article: headings, table, admonition and the python code block', () => {
    expect(page.title).toBe('Caching');
    expect(page.markdown).toMatch(/^# Caching\n/);
    expect(page.markdown).toContain('## Backends\n');
    expect(page.markdown).toContain('| Backend | Persistence |\n| --- | --- |\n| memory | none |\n| redis | durable |');
    expect(page.markdown).toContain('Never share a cache between tenants.');
    expect(page.markdown).toContain('```python\nCACHE_BACKEND = "redis"\nCACHE_TTL = 300\n```');
  });

  it.each([
    'header logo',
    'header title',
    'Tab guide entry',
    'Primary nav',
    'Table of contents',
    'Secondary toc',
    'Footer prev routing',
    'copyright',
    'Skip to content',
    '¶',
  ])('drops "%s"', (text) => {
    expect(page.markdown).not.toContain(text);
  });

  it('does not link the edit button or the code line anchors', () => {
    expect(page.markdown).not.toContain('/edit/');
    expect(page.markdown).not.toContain('__codelineno');
  });
});

describe('extractPage edge cases', () => {
  it('falls back to <body> and to the first h1 when there is no <title>', () => {
    const page = extractPage('<body><h1>Only heading</h1><p>Some text.</p></body>', 'https://x.test/a');
    expect(page).toEqual({
      title: 'Only heading',
      markdown: '# Only heading\n\nSome text.',
      links: [],
      landmark: false,
    });
  });

  it('reads the code language from data-lang, lang- and the parent div', () => {
    const html =
      '<main><pre data-lang="rust"><code>fn main() {}</code></pre>' +
      '<pre class="lang-go"><code>package main</code></pre>' +
      '<div class="highlight-ruby"><pre>puts 1</pre></div>' +
      '<pre><code class="language-none">plain</code></pre></main>';
    const { markdown } = extractPage(html, 'https://x.test/a');
    expect(markdown).toBe(
      '```rust\nfn main() {}\n```\n\n```go\npackage main\n```\n\n```ruby\nputs 1\n```\n\n```\nplain\n```',
    );
  });

  it('unwraps layout tables instead of writing them as GFM tables', () => {
    const html = '<main><table><tr><td>Note</td><td><p>Commit often.</p><pre>git commit</pre></td></tr></table></main>';
    expect(extractPage(html, 'https://x.test/a').markdown).toBe('Note\n\nCommit often.\n\n```\ngit commit\n```');
  });

  it('takes <main> rather than one of several articles on a listing page', () => {
    const html =
      '<nav>Menu</nav><main><h1>Blog</h1><article><p>First post.</p></article><article><p>Second post.</p></article></main>';
    expect(extractPage(html, 'https://x.test/blog').markdown).toBe('# Blog\n\nFirst post.\n\nSecond post.');
  });

  it('keeps a Starlight-style callout aside but drops a sidebar aside of links', () => {
    const html =
      '<main><p>Text.</p><aside class="starlight-aside starlight-aside--caution"><p>Back up first.</p></aside>' +
      '<aside class="right-rail"><p>Related</p><ul><li><a href="/b">Installing the server</a></li>' +
      '<li><a href="/c">Deploying to production</a></li></ul></aside></main>';
    expect(extractPage(html, 'https://x.test/a').markdown).toBe('Text.\n\nBack up first.');
  });

  it("keeps a landmark's footnotes and side notes, which Sphinx renders as <aside>", () => {
    const html =
      '<main><h1>asyncio</h1><aside class="sidebar"><p class="sidebar-title">Hello World!</p>' +
      '<pre>asyncio.run(main())</pre></aside><p>Text.</p><aside class="footnote-list brackets">' +
      '<aside class="footnote brackets" id="id2" role="note"><span class="label"><a href="#id1">1</a></span>' +
      '<p>See <a href="https://html.spec.whatwg.org/">https://html.spec.whatwg.org/</a></p></aside></aside></main>';
    const { markdown } = extractPage(html, 'https://x.test/a');
    expect(markdown).toContain('Hello World!');
    expect(markdown).toContain('asyncio.run(main())');
    expect(markdown).toContain('See [https://html.spec.whatwg.org/]');
  });

  it('keeps a site-first title segment that matches the h1', () => {
    const html = '<title>Rocket Docs · Getting started</title><main><h1>Getting started</h1></main>';
    expect(extractPage(html, 'https://x.test/a').title).toBe('Getting started');
  });

  it("puts back the headline above the content, as the page shows it, though its apostrophe is not the title's", () => {
    const html =
      '<title>Why Hasn\'t Tutoring Been More Effective?</title><body><div class="hero"><h1>Why Hasn’t Tutoring ' +
      'Been More Effective?</h1><h1 class="sr-only"></h1></div><main class="story">' +
      '<p>The prescription was everywhere as the full extent of the damage became clear, and districts spent.</p>'.repeat(
        4,
      ) +
      '</main></body>';
    const { markdown } = extractPage(html, 'https://x.test/a');
    expect(markdown.startsWith('# Why Hasn’t Tutoring Been More Effective?\n\nThe prescription')).toBe(true);
  });
});
