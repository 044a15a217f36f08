import { load } from 'cheerio';
import { applyAsciidocFootnotes } from './asciidoc-footnotes';
import { selectContentRoot } from './content-root';
import { indexDocument } from './document-index';
import { convertContentToMarkdown } from './html-to-markdown';
import { normalizeCodeBlocks } from './normalize-code-blocks';
import { normalizeInline } from './normalize-inline';
import { normalizeTables } from './normalize-tables';
import { extractTitle } from './page-title';
import { collectIndexedLinks, resolveDocumentBase } from './page-links';
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
  let index = indexDocument($);
  // Links come from the untouched document: menus and sidebars are how a crawler finds the other pages.
  const baseUrl = resolveDocumentBase(index, pageUrl);
  const links = collectIndexedLinks(index, pageUrl, baseUrl);
  // What a generator's own script would change in a browser, done here too, so fetched and rendered pages agree.
  if (applyAsciidocFootnotes($, index)) index = indexDocument($);
  const root = selectContentRoot($, index);
  const landmark = root[0] !== index.tags.get('body')?.[0];
  removeChrome($, root);
  normalizeCodeBlocks($, root);
  normalizeTables($, root);
  normalizeInline($, root, baseUrl);
  const title = extractTitle($, root, index.tags.get('head')?.[0]);
  const markdown = convertContentToMarkdown($, root);
  return { title, markdown, links, landmark };
}
