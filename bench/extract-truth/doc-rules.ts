import { load } from 'cheerio';
import { nodeText } from '../extract-quality-text';

/** A documentation page of the truth, and its site's rule: where the content is and what inside it is none. */
export interface DocRule {
  site: string;
  /** The Debian package the page comes from, and the folder of the site inside /usr/share/doc. */
  debianPackage: string;
  siteDir: string;
  path: string;
  content: string;
  remove: string[];
  /** Inline elements shown apart from their neighbours (badges, labels): a space is put on each side. */
  separate?: string[];
}

/** The licence of each Debian package's pages. */
export const LICENCES: Record<string, string> = {
  'nodejs-doc': 'Expat (MIT), per the package copyright file',
  'git-doc': 'GPL-2, per the package copyright file',
  'sphinx-doc': 'BSD-2-clause, per the package copyright file',
  'rust-doc': 'MIT or Apache-2.0, per the package copyright file',
  'mkdocs-doc': 'BSD-2-Clause, per the package copyright file',
  'libjs-underscore': 'Expat (MIT), per the package copyright file',
};

// Per site: where the content is and what inside it is no content.
const NODE = {
  site: 'nodejs-doc',
  debianPackage: 'nodejs-doc',
  siteDir: 'nodejs/api',
  content: '#apicontent',
  // The `#` permalink after each heading, and the empty legacy anchors.
  remove: ['a.mark', 'a.legacy'],
};
const GIT = {
  site: 'git-doc',
  debianPackage: 'git-doc',
  siteDir: 'git-doc',
  content: 'body',
  // The "Last updated" footer; the footnotes block when it is empty.
  remove: ['#footer', '#footnotes:not(:has(.footnote))'],
};
const SPHINX = {
  site: 'sphinx-doc',
  debianPackage: 'sphinx-doc',
  siteDir: 'sphinx-doc/html',
  content: 'div.body',
  // The ¶ permalinks of headings, captions and definitions; the "[source]" links of API entries.
  remove: ['a.headerlink', 'a:has(> .viewcode-link)'],
};
const RUSTDOC = {
  site: 'rust-doc',
  debianPackage: 'rust-doc',
  siteDir: 'rust-doc/html',
  content: '#main-content',
  remove: [
    // "1.26.0 · source · [−]" beside the title, and "source" (with the since-version) beside each item.
    '.out-of-band',
    '.rightside',
    'a.srclink',
    '#copy-path',
    // The labels of the collapse toggles ("Expand description"); the content under them stays.
    'summary.hideme',
    // The "Run" button of examples and the ⓘ marks of examples that fail or panic.
    'a.test-arrow',
    '.tooltip',
    // The hover box of "Notable traits", hidden until pointed at, and the empty § anchors.
    '.notable-traits',
    'a.anchor',
    // The "Read more" link after the first line of a trait method's documentation.
    '.docblock a:contains("Read more")',
  ],
  // The "Experimental" and "Deprecated" badges beside item names.
  separate: ['.stab'],
};
const MDBOOK = {
  site: 'rust-doc',
  debianPackage: 'rust-doc',
  siteDir: 'rust-doc/html',
  content: 'main',
  remove: [],
};
const MKDOCS = {
  site: 'mkdocs',
  debianPackage: 'mkdocs-doc',
  siteDir: 'mkdocs/html',
  content: '[role="main"]',
  remove: ['a.headerlink'],
};
const UNDERSCORE = {
  site: 'libjs-underscore',
  debianPackage: 'libjs-underscore',
  siteDir: 'libjs-underscore',
  content: 'div.container',
  // The publisher's credit line at the end.
  remove: ['a[title="A DocumentCloud Project"]'],
  // Each function's name, set in a box of its own before its signature.
  separate: ['b.header'],
};

const doc = (base: Omit<DocRule, 'path'>, pagePath: string, extra: Partial<DocRule> = {}): DocRule => ({
  ...base,
  path: pagePath,
  ...extra,
  remove: [...base.remove, ...(extra.remove ?? [])],
});

export const DOC_RULES: DocRule[] = [
  // Node.js: the index (a list of links), short pages, long API pages, pages with tables.
  doc(NODE, 'index.html'),
  doc(NODE, 'documentation.html'),
  doc(NODE, 'synopsis.html'),
  doc(NODE, 'path.html'),
  doc(NODE, 'url.html'),
  doc(NODE, 'errors.html'),
  doc(NODE, 'readline.html'),
  doc(NODE, 'timers.html'),
  doc(NODE, 'dns.html'),
  doc(NODE, 'fs.html'),
  // git: asciidoc manual pages, guides, and the DocBook user manual (its table of contents is navigation).
  doc(GIT, 'git-add.html'),
  doc(GIT, 'git-init.html'),
  doc(GIT, 'git-commit.html'),
  doc(GIT, 'git-config.html'),
  doc(GIT, 'gittutorial.html'),
  doc(GIT, 'gitglossary.html'),
  doc(GIT, 'gitrevisions.html'),
  doc(GIT, 'howto-index.html'),
  doc(GIT, 'git-remote-helpers.html'),
  doc(GIT, 'user-manual.html', { remove: ['div.toc', 'div.navfooter', 'div.navheader'] }),
  // Sphinx's own documentation.
  doc(SPHINX, 'index.html'),
  doc(SPHINX, 'contents.html'),
  doc(SPHINX, 'usage/quickstart.html'),
  doc(SPHINX, 'usage/configuration.html'),
  doc(SPHINX, 'glossary.html'),
  doc(SPHINX, 'faq.html'),
  doc(SPHINX, 'tutorial/index.html'),
  doc(SPHINX, 'extdev/appapi.html'),
  doc(SPHINX, 'usage/restructuredtext/directives.html'),
  // rustdoc: the crate root, module indexes, short and long item pages.
  doc(RUSTDOC, 'std/index.html'),
  doc(RUSTDOC, 'std/fs/index.html'),
  doc(RUSTDOC, 'std/fs/fn.read_to_string.html'),
  doc(RUSTDOC, 'std/macro.println.html'),
  doc(RUSTDOC, 'std/thread/fn.spawn.html'),
  doc(RUSTDOC, 'std/collections/index.html'),
  doc(RUSTDOC, 'std/result/index.html'),
  doc(RUSTDOC, 'std/io/trait.Read.html'),
  doc(RUSTDOC, 'std/sync/struct.Mutex.html'),
  doc(RUSTDOC, 'std/option/enum.Option.html'),
  // The Rust book (mdBook).
  doc(MDBOOK, 'book/ch00-00-introduction.html'),
  doc(MDBOOK, 'book/ch01-01-installation.html'),
  doc(MDBOOK, 'book/ch03-02-data-types.html'),
  doc(MDBOOK, 'book/ch08-01-vectors.html'),
  doc(MDBOOK, 'book/appendix-02-operators.html'),
  // MkDocs' documentation, built with MkDocs.
  doc(MKDOCS, 'index.html'),
  doc(MKDOCS, 'getting-started.html'),
  doc(MKDOCS, 'user-guide/writing-your-docs.html'),
  doc(MKDOCS, 'user-guide/configuration.html'),
  doc(MKDOCS, 'dev-guide/themes.html'),
  doc(MKDOCS, 'about/license.html'),
  // Underscore: one long page, every function.
  doc(UNDERSCORE, 'index.html'),
];

export const docId = (rule: DocRule) =>
  `${rule.site}--${rule.path.replace(/\.html$/, '').replace(/[/]/g, '-')}`.replace(/[^A-Za-z0-9._-]/g, '_');
export const docUrl = (rule: DocRule) => `http://${rule.site}.docs.test/${rule.path}`;

/** The truth of one documentation page: its rule applied to the stored copy. */
export function docTruth(rule: DocRule, html: string): string {
  const $ = load(html);
  const root = $(rule.content).first();
  if (root.length === 0) throw new Error(`${docId(rule)}: no ${rule.content}`);
  for (const selector of rule.remove) root.find(selector).remove();
  for (const selector of rule.separate ?? []) root.find(selector).before(' ').after(' ');
  return nodeText($, root.get(0)!);
}
