import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { needsBrowser } from './needs-browser';

const fixture = (name: string): string => readFileSync(join(__dirname, 'fixtures', name), 'utf8');
const DOCS_DIR = join(__dirname, '../../../../.cache/debian-docs/usr/share/doc');
const DEBIAN_DIRS = [join(DOCS_DIR, 'nodejs/api'), join(DOCS_DIR, 'git-doc')];

const paragraph = 'Workers pull jobs from queues and run them with the configured concurrency. '.repeat(5);

describe('needsBrowser', () => {
  it('is true for a create-react-app style shell', () => {
    expect(needsBrowser(fixture('spa-shell.html'))).toBe(true);
  });

  it('is true for an empty mount point even with some text around it', () => {
    const html = `<body><header>${paragraph}</header><div id="__next"></div><script src="/_next/main.js"></script></body>`;
    expect(needsBrowser(html)).toBe(true);
  });

  it('is true when a short page tells the reader to enable JavaScript', () => {
    const html = `<body><noscript>Please enable JavaScript to view the docs.</noscript><p>${paragraph}</p><script>boot()</script></body>`;
    expect(needsBrowser(html)).toBe(true);
  });

  it('is false for server-rendered pages, with or without scripts', () => {
    expect(needsBrowser(`<body><main><p>${paragraph}</p></main><script>track()</script></body>`)).toBe(false);
    expect(needsBrowser(`<body><div id="root"><p>${paragraph}</p></div><script src="/app.js"></script></body>`)).toBe(
      false,
    );
    expect(needsBrowser(fixture('docs-page.html'))).toBe(false);
    expect(needsBrowser(fixture('docusaurus-page.html'))).toBe(false);
  });

  it('is false for a short page whose content landmark holds a heading and text, as rustdoc gives one constant', () => {
    const constant =
      '<body class="rustdoc constant"><nav class="sidebar"><a href="index.html">In core::arch::x86</a></nav><main>' +
      '<h1 class="fqn">Constant core::arch::x86::_CMP_EQ_OQ</h1><pre class="rust const">pub const _CMP_EQ_OQ: i32 = 0x00;</pre>' +
      '<div class="docblock"><p>Equal (ordered, non-signaling)</p></div></main>' +
      '<script defer src="../../../main1.63.0.js"></script></body>';
    expect(needsBrowser(constant)).toBe(false);
    // A title over nothing, or over a loading line, is still a shell; so is an empty mount point beside content.
    expect(needsBrowser('<body><main><h1>Nimbus Docs</h1></main><script src="/app.js"></script></body>')).toBe(true);
    expect(needsBrowser('<body><main><h1>Docs</h1><p>Loading…</p></main><script src="/a.js"></script></body>')).toBe(
      true,
    );
    expect(
      needsBrowser(
        `<body><main><h1>Docs</h1><p>${'x'.repeat(40)}</p></main><div id="root"></div><script src="/a.js"></script></body>`,
      ),
    ).toBe(true);
  });

  it('is false for a short page without scripts: there is nothing more to render', () => {
    expect(needsBrowser('<body><p>Moved.</p></body>')).toBe(false);
  });

  it('ignores JSON data scripts when deciding', () => {
    expect(needsBrowser('<body><p>Short.</p><script type="application/ld+json">{}</script></body>')).toBe(false);
  });

  const present = DEBIAN_DIRS.filter((dir) => existsSync(dir));
  if (present.length < DEBIAN_DIRS.length) {
    console.warn(
      `Skipping part of the Debian docs check: missing ${DEBIAN_DIRS.filter((d) => !present.includes(d)).join(', ')}`,
    );
  }
  (present.length > 0 ? it : it.skip)('is false for every Debian nodejs-doc and git-doc page', () => {
    const pages = present.flatMap((dir) =>
      readdirSync(dir)
        .filter((f) => f.endsWith('.html'))
        .map((f) => join(dir, f)),
    );
    expect(pages.length).toBeGreaterThan(100);
    const flagged = pages.filter((page) => needsBrowser(readFileSync(page, 'utf8')));
    expect(flagged).toEqual([]);
  });
});
