import { load } from 'cheerio';
import { applyAsciidocFootnotes } from './asciidoc-footnotes';
import { selectContentRoot } from './content-root';
import { convertHtmlToMarkdown } from './html-to-markdown';
import { normalizeCodeBlocks } from './normalize-code-blocks';
import { normalizeInline } from './normalize-inline';
import { normalizeTables } from './normalize-tables';
import { extractTitle } from './page-title';
import { collectPageLinks, resolveDocumentBase } from './page-links';
import { removeChrome } from './remove-chrome';

export interface ExtractedPage {
  title: string;
  markdown: string;
  /** Same-origin page links of the whole document, navigation included, for discovery. */
  links: string[];
  /** True when the content came from a content landmark (`<main>`, `<article>`, a generator's root), not the whole body. */
  landmark: boolean;
}

/** Turns a rendered documentation page into its title, its content as Markdown and its page links. */
export function extractPage(html: string, pageUrl: string): ExtractedPage {
  const $ = load(html);
  // Links come from the untouched document: menus and sidebars are how a crawler finds the other pages.
  const baseUrl = resolveDocumentBase($, pageUrl);
  const links = collectPageLinks($, pageUrl, baseUrl);
  // What a generator's own script would change in a browser, done here too, so fetched and rendered pages agree.
  applyAsciidocFootnotes($);
  const root = selectContentRoot($);
  const landmark = root[0] !== $('body')[0];
  removeChrome($, root);
  normalizeCodeBlocks($, root);
  normalizeTables($, root);
  normalizeInline($, root, baseUrl);
  const title = extractTitle($, root);
  const markdown = convertHtmlToMarkdown($.html(root));
  return { title, markdown, links, landmark };
}
