import { load, type Cheerio, type CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { applyAsciidocFootnotes } from './asciidoc-footnotes';
import { removeAuthorBox } from './author-boxes';
import { selectContentBlock } from './content-blocks';
import { selectContentRoot } from './content-root';
import { removeCreditLines } from './credit-lines';
import { removeDatelines } from './datelines';
import { removeDuplicateBlocks } from './duplicate-blocks';
import { removeFigureCaptions, removeNamedCaptionBlocks } from './figure-captions';
import { removeRepeatedLabels } from './repeated-labels';
import { removeRepeatingWidgets } from './repeating-widgets';
import { indexDocument, type DocumentIndex } from './document-index';
import { convertContentToMarkdown } from './html-to-markdown';
import { normalizeCodeBlocks } from './normalize-code-blocks';
import { normalizeInline } from './normalize-inline';
import { normalizeTables } from './normalize-tables';
import { limitNesting } from './limit-nesting';
import { extractTitle } from './page-title';
import { removeArticleLinkLists } from './link-lists';
import { collectIndexedLinks, resolveDocumentBase } from './page-links';
import { applyReaderView, findAccordionPanels, readerViewJudges } from './reader-view';
import { removeChrome } from './remove-chrome';
import { removeSignUpBoxes } from './sign-up-boxes';
import { removeStandfirst } from './standfirsts';
import { measureTextAmounts, wordsOf, type TextAmount } from './text-amounts';

export interface ExtractedPage {
  title: string;
  markdown: string;
  /** Same-origin page links of the whole document, navigation included, for discovery. */
  links: string[];
  /** True when the content came from a content landmark (`<main>`, `<article>`, a generator's root), not the whole body. */
  landmark: boolean;
  /** Set when the page's body holds text but next to none of it came out as content: says how much was there. */
  lostContent?: string;
}

/**
 * Text outside links the body must hold (characters that are not white space) before an extraction giving next to
 * none of it is called a loss: about 40 words. A page of links (an index) or a title alone is not one.
 */
const BODY_PROSE_FLOOR = 250;
/** An extraction holding less than this share of the body's text outside links is tried again with looser rules… */
const THIN_SHARE = 0.15;
/**
 * …when it is tiny too (characters that are not white space, about 80 words): a short article chosen from a page of
 * dates, labels and legal footers is content, not a loss.
 */
const THIN_MAX_CHARS = 500;

/**
 * How a try finds the content: from the content root (content-root.ts); from the body's own prose block, when the
 * root the first try chose held next to nothing (a teaser's `<article>` in a related-stories box); or from the whole
 * body with looser rules (loose in RemoveChromeOptions).
 */
type Try = 'root' | 'body' | 'loose';

/** Turns a rendered documentation page into its title, its content as Markdown and its page links. */
export function extractPage(page: string, pageUrl: string): ExtractedPage {
  const html = limitNesting(page);
  const first = extractOnce(html, pageUrl, 'root');
  if (!first.thin) return first.page;
  let best = first;
  // The first try kept next to nothing of a page with text. A landmark root may be the wrong one: the body's prose
  // block next, then the whole body, believing names only for link lists.
  const tries: Try[] = first.page.landmark ? ['body', 'loose'] : ['loose'];
  for (const next of tries) {
    const attempt = extractOnce(html, pageUrl, next);
    if (attempt.contentChars > best.contentChars) best = attempt;
    if (!best.thin) return best.page;
  }
  const words = Math.round(first.bodyProseChars / 6);
  return { ...best.page, lostContent: `no content found in a page whose body holds about ${words} words of text` };
}

interface Attempt {
  page: ExtractedPage;
  /** The content's text (Markdown without link targets), characters that are not white space. */
  contentChars: number;
  /** The body's text outside links, before anything was removed. */
  bodyProseChars: number;
  thin: boolean;
}

function extractOnce(html: string, pageUrl: string, how: Try): Attempt {
  const $ = load(html);
  const loose = how === 'loose';
  let index = indexDocument($);
  // Links come from the untouched document: menus and sidebars are how a crawler finds the other pages.
  const baseUrl = resolveDocumentBase(index, pageUrl);
  const links = collectIndexedLinks(index, pageUrl, baseUrl);
  // What a generator's own script would change in a browser, done here too, so fetched and rendered pages agree.
  if (applyAsciidocFootnotes($, index)) index = indexDocument($);
  const body = index.tags.get('body')?.[0];
  const amounts = body ? measureTextAmounts(body) : new Map<AnyNode, TextAmount>();
  const root = !body || how === 'root' ? selectContentRoot($, index) : loose ? $(body) : selectContentBlock($, $(body));
  const landmark = root[0] !== body;
  // A news or blog article (reader-view.ts): its accordions' answers, which the reader view does not judge, are found
  // before chrome removal takes their buttons.
  const article =
    root[0] && readerViewJudges($, root, index)
      ? { top: root[0], panels: findAccordionPanels(root[0], index.controlled) }
      : null;
  if (article) {
    removeSignUpBoxes(article.top);
    removeFigureCaptions(article.top);
  }
  removeChrome($, root, { landmark, loose, amounts, names: index.names, controlled: index.controlled });
  removeDuplicateBlocks($, root);
  if (article) {
    removeRepeatingWidgets($, article.top);
    removeNamedCaptionBlocks(article.top);
    removeDatelines(article.top);
    removeRepeatedLabels(article.top);
    removeCreditLines(article.top);
    removeAuthorBox(article.top);
    removeArticleLinkLists(article.top);
    removeStandfirst(article.top);
    applyReaderView($, root, html, article.panels);
  }
  normalizeCodeBlocks($, root);
  normalizeTables($, root);
  normalizeInline($, root, baseUrl);
  const title = extractTitle($, root, index.tags.get('head')?.[0]);
  const markdown = withHeadline(convertContentToMarkdown($, root), headlineOutside($, root, index, title));
  const bodyAmount = body ? amounts.get(body) : undefined;
  const bodyProseChars = bodyAmount ? bodyAmount.chars - bodyAmount.linkChars : 0;
  const contentChars = countTextChars(markdown);
  const thin =
    bodyProseChars >= BODY_PROSE_FLOOR && contentChars < THIN_MAX_CHARS && contentChars < bodyProseChars * THIN_SHARE;
  return { page: { title, markdown, links, landmark }, contentChars, bodyProseChars, thin };
}

/** Markdown's text without link and image targets, characters that are not white space. */
function countTextChars(markdown: string): number {
  return markdown.replace(/\]\([^)]*\)/g, ']').replace(/\s+/g, '').length;
}

/**
 * The page's headline when the content root left it out (a news page's `<h1>` above the article, Starlight's above
 * its Markdown): the one `<h1>` of the document with text, outside the root, saying what the title says word for
 * word (a typographic apostrophe in one and a straight one in the other are the same words). Null when there is none.
 */
function headlineOutside($: CheerioAPI, root: Cheerio<Element>, index: DocumentIndex, title: string): string | null {
  const headings = (index.tags.get('h1') ?? []).filter((h1) => wordsOf($(h1).text()).length > 0);
  if (headings.length !== 1 || title === '') return null;
  const heading = headings[0]!;
  for (let node: AnyNode | null = heading; node; node = node.parent) if (node === root[0]) return null;
  const text = $(heading).text().replace(/\s+/g, ' ').trim();
  return wordsOf(text).join(' ') === wordsOf(title).join(' ') ? text : null;
}

function withHeadline(markdown: string, headline: string | null): string {
  return headline ? `# ${headline}\n\n${markdown}` : markdown;
}
