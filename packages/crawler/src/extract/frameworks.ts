import type { Cheerio, CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';

/**
 * What extraction knows of documentation generators, as data: where each puts a page's content, and the chrome it
 * renders inside that content (permalink marks, source badges, copy buttons, toggles' labels). Each framework with a
 * `fixture` is checked against a page of a real build (`fixtures/frameworks/`, described in `frameworks.json`).
 */
export interface DocsFramework {
  name: string;
  /** Content containers, most specific first; a framework's roots are tried before the next framework's. */
  roots: string[];
  /** Chrome inside the content root, removed whatever its text. */
  chrome: string[];
  /**
   * What the framework puts on every page it builds, when its roots are names other sites use too: a root matches
   * only on a page bearing one of these (rustdoc's `#main-content` is also many a news site's skip-link target).
   */
  marks?: string[];
  /** The page of a real build the data was checked against, under fixtures/frameworks/. */
  fixture?: string;
}

export const DOCS_FRAMEWORKS: DocsFramework[] = [
  { name: 'Node.js API docs', roots: ['#apicontent'], chrome: ['a.mark'] },
  {
    name: 'rustdoc',
    roots: ['#main-content'],
    marks: ['meta[name=generator][content=rustdoc]', 'body.rustdoc'],
    // The version and "source" badges (`.out-of-band` beside the title, `.rightside` beside each item), the
    // collapse-all and copy-path buttons, "Expand description" labels, the "Run" link on examples and § anchors.
    chrome: [
      '.out-of-band',
      '.rightside',
      'a.srclink',
      'a.src',
      '#toggle-all-docs',
      '#copy-path',
      'summary.hideme',
      'a.test-arrow',
      'a.anchor',
    ],
    fixture: 'rustdoc.html',
  },
  {
    name: 'Docusaurus',
    roots: ['.theme-doc-markdown'],
    chrome: ['a.hash-link'],
    fixture: 'docusaurus.html',
  },
  {
    name: 'MkDocs Material',
    roots: ['.md-content article', '.md-content'],
    chrome: ['a.headerlink', 'a.md-content__button', '.md-source-file'],
    fixture: 'mkdocs-material.html',
  },
  {
    name: 'VitePress',
    roots: ['.vp-doc'],
    // A code block's language label and line numbers are drawn beside the code, not part of it.
    chrome: ['a.header-anchor', 'span.lang', '.line-numbers-wrapper'],
    fixture: 'vitepress.html',
  },
  {
    name: 'Docsify, legacy GitBook 3',
    // GitBook 3 puts a page in `section.normal.markdown-section`; the search results template beside it, the summary
    // sidebar and the prev/next arrows stand outside it.
    roots: ['.markdown-section'],
    chrome: [],
    fixture: 'gitbook.html',
  },
  { name: 'Hugo Docsy', roots: ['.td-content'], chrome: [] },
  { name: 'Nextra', roots: ['.nextra-content'], chrome: [] },
  { name: 'Pagefind-indexed sites', roots: ['[data-pagefind-body]'], chrome: [] },
  {
    name: 'MDN Web Docs',
    // Its current layout (`main.layout__content`: the header's h1 and compatibility banner, a table of contents, the
    // body). The compatibility banner ("Baseline Widely available") and the footer ("Help improve MDN", "Was this page
    // helpful?", "This page was last modified…") are MDN's, not the page's; named as MDN writes them, as chrome
    // selectors apply on every page that uses their names.
    roots: ['main#content.layout__content'],
    marks: [
      'meta[name="og:site_name"][content="MDN Web Docs"]',
      'meta[property="og:site_name"][content="MDN Web Docs"]',
    ],
    chrome: ['details.baseline-indicator', 'section.content-section.article-footer', 'mdn-survey'],
    fixture: 'mdn.html',
  },
  {
    name: 'Starlight',
    // The page's h1 stands above `.sl-markdown-content`, inside <main> (found by the generic roots).
    roots: [],
    chrome: ['a.sl-anchor-link', '.sl-markdown-content ~ footer', '.expressive-code figcaption .sr-only'],
    fixture: 'starlight.html',
  },
  {
    name: 'Sphinx',
    roots: ['.rst-content [role=main]', 'div.body[role=main]', '.document [role=main]', 'div.body'],
    chrome: ['a.headerlink'],
    fixture: 'sphinx.html',
  },
  { name: 'MkDocs', roots: ['div.col-md-9[role=main]'], chrome: ['a.headerlink'], fixture: 'mkdocs.html' },
  // GitBook 2's `section.normal` (GitBook 3's also has the markdown-section class, found above).
  { name: 'legacy GitBook 2', roots: ['.page-inner .normal'], chrome: [] },
  { name: 'Docusaurus pages outside docs', roots: ['.markdown'], chrome: [] },
  { name: 'GitHub-styled renderers', roots: ['.markdown-body'], chrome: [] },
];

/** Every framework's content roots, in the order they are tried, each with the marks its page must bear (if any). */
export const FRAMEWORK_ROOTS: { selector: string; marks?: string[] }[] = DOCS_FRAMEWORKS.flatMap((framework) =>
  framework.roots.map((selector) => ({ selector, marks: framework.marks })),
);

/** Whether the page bears one of a framework's marks, or the framework needs none. */
export function bearsMarks($: CheerioAPI, marks: string[] | undefined): boolean {
  return !marks || marks.some((mark) => $(mark).length > 0);
}

/** Whether `root` is a documentation generator's content root on a page that generator built. */
export function isFrameworkRoot($: CheerioAPI, root: Cheerio<Element>): boolean {
  return FRAMEWORK_ROOTS.some(({ selector, marks }) => root.is(selector) && bearsMarks($, marks));
}

/** Every framework's chrome selectors. */
export const FRAMEWORK_CHROME: string[] = [...new Set(DOCS_FRAMEWORKS.flatMap((framework) => framework.chrome))];
