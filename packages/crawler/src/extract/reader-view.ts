import type * as ReadabilityModule from '@mozilla/readability';
import type { Cheerio, CheerioAPI } from 'cheerio';
import type { AnyNode, Element } from 'domhandler';
import { BLOCK_TAGS } from './block-measures';
import type { DocumentIndex } from './document-index';
import { isElementNode, isHiddenAtLoad, isTextNode, pushAll } from './dom-nodes';
import { isFrameworkRoot } from './frameworks';
import { linkDensity, measureTextAmounts, wordsOf } from './text-amounts';

/**
 * A second opinion on news and blog articles: Mozilla Readability's reading of the same page. Such pages put bylines,
 * datelines, photo captions, "Advertisement" labels and "Continue reading" links between the story's paragraphs,
 * inside the block chosen as the content, where no rule of structure tells them from a short paragraph of the story.
 * Readability, scoring the page its own way, leaves most of them out, and loses more of the story than this
 * extraction does (a block it drops is not always chrome). So it only judges what is cheap to lose: a short prose
 * block of ours whose words its article mostly lacks is dropped, when it read the same story (its words cover at
 * least half of ours). Headings, tables, code, quotations, accordions' answers, longer paragraphs, runs of paragraphs
 * and lists of sentences are never dropped this way.
 *
 * Documentation is not judged: a page is asked about only when it says it is an article (Open Graph's `og:type`, or a
 * JSON-LD article type) and its content is not a documentation generator's root; on documentation a caption or a
 * one-line note is content.
 */

/** A block of more words than this is the page's own text whatever Readability kept. */
const MAX_JUDGED_WORDS = 80;
/** A judged block stays when this share of its words is in Readability's article. */
const KEEP_SHARE = 0.9;
/** Readability's article is a reading of the same story when its words cover this share of ours. */
const SAME_STORY_SHARE = 0.5;
/** The reader view drops at most this share of the content's words, or nothing… */
const MAX_DROPPED_SHARE = 0.5;
/** …and at most this many blocks, or nothing. */
const MAX_DROPPED_BLOCKS = 30;
/** A run of this many paragraphs the reader view would drop, one after another, is a section of the story… */
const MIN_RUN = 5;
/** …when each is a sentence or more (words). */
const RUN_MIN_WORDS = 15;
/** Readability walks the whole document more than once: a page of more elements than this is not asked. */
const MAX_ELEMENTS = 20_000;
const HEADING_TAGS = new Set(['h1', 'h2', 'h3', 'h4', 'h5', 'h6']);
/** A `<blockquote>` with less link text than this share of its text is a quotation, never judged. */
const QUOTE_MAX_LINK_DENSITY = 0.5;
/** Blocks whose text is never judged, nor any block inside them. */
const KEPT_TAGS = new Set([...HEADING_TAGS, 'pre', 'code', 'table']);
const ARTICLE_LD_TYPE = /"@type"\s*:\s*\[?\s*"(?:\w*Article|BlogPosting|Report)"/;

/** Whether the page gets the reader view's second opinion: it says it is an article, and its root is no generator's. */
export function readerViewJudges($: CheerioAPI, root: Cheerio<Element>, index: DocumentIndex): boolean {
  return root.length > 0 && saysArticle($, index) && !isFrameworkRoot($, root);
}

/**
 * Drops the short blocks of an article's content that Readability's reading of the page leaves out; never one inside
 * an accordion's answer (`panels`, findAccordionPanels).
 */
export function applyReaderView(
  $: CheerioAPI,
  root: Cheerio<Element>,
  html: string,
  panels: ReadonlySet<Element>,
): void {
  const top = root[0];
  if (!top) return;
  const blocks = judgedBlocks(top, panels);
  if (blocks.length === 0) return;
  const theirs = readabilityWords(html);
  const ours = shownWords(top);
  if (!theirs || coverage(ours, theirs) < SAME_STORY_SHARE) return;
  const dropped: Element[] = [];
  let droppedWords = 0;
  for (const block of blocks) {
    const words = shownWords(block);
    if (words.length === 0 || words.length > MAX_JUDGED_WORDS) continue;
    if (words.filter((word) => theirs.has(word)).length >= words.length * KEEP_SHARE) continue;
    dropped.push(block);
    droppedWords += words.length;
  }
  // Bylines, captions and labels are a small part of a story: when the blocks Readability lacks add up to more, it
  // missed part of the story (a checklist of short items, a table of cards), and nothing is dropped.
  // So are they when they are many: a page has a handful of them, and more blocks than MAX_DROPPED_BLOCKS are the
  // entries of a ranking or a guide (a name, a short description, a list of figures each) Readability passed over.
  if (droppedWords > ours.length * MAX_DROPPED_SHARE || dropped.length > MAX_DROPPED_BLOCKS) return;
  const sections = findProseRuns(dropped);
  for (const item of findSentenceLists(dropped)) sections.add(item);
  for (const block of dropped) if (!sections.has(block)) $(block).remove();
}

/**
 * The paragraphs among `dropped` that stand in a run of MIN_RUN or more in a row, each of RUN_MIN_WORDS words or more,
 * with nothing but headings between them: a section of the story Readability missed (a page builder's first
 * container), not bylines, captions and labels, which stand alone or in twos and threes (a three-paragraph appeal to
 * readers).
 */
function findProseRuns(dropped: Element[]): Set<Element> {
  const judged = new Set(dropped.filter((block) => block.name === 'p' && shownWords(block).length >= RUN_MIN_WORDS));
  const runs = new Set<Element>();
  for (const block of judged) {
    if (runs.has(block)) continue;
    const run: Element[] = [block];
    for (let next = block.next; next; next = next.next) {
      if ((isTextNode(next) && !/\S/.test(next.data)) || (isElementNode(next) && HEADING_TAGS.has(next.name))) continue;
      if (!isElementNode(next) || !judged.has(next)) break;
      run.push(next);
    }
    if (run.length >= MIN_RUN) for (const paragraph of run) runs.add(paragraph);
  }
  return runs;
}

/** A list of this many items or more, each a sentence (LIST_SENTENCE_WORDS words or more), is the story's list… */
const MIN_SENTENCE_ITEMS = 3;
const LIST_SENTENCE_WORDS = 10;
/** …and less of its text than this share is link text: a list of links is a rail, judged as any block is. */
const LIST_MAX_LINK_DENSITY = 0.5;

/**
 * The items among `dropped` of a list of sentences: MIN_SENTENCE_ITEMS items or more of LIST_SENTENCE_WORDS words,
 * not links. A story's list of points or steps, which Readability misses with the block around it; a byline, a
 * caption or a label is never one.
 */
function findSentenceLists(dropped: Element[]): Element[] {
  const lists = new Map<Element, Element[]>();
  for (const block of dropped) {
    const list = block.parent;
    if (block.name !== 'li' || !list || !isElementNode(list)) continue;
    const items = lists.get(list);
    if (items) items.push(block);
    else lists.set(list, [block]);
  }
  const kept: Element[] = [];
  for (const [list, items] of lists) {
    const sentences = items.filter((item) => shownWords(item).length >= LIST_SENTENCE_WORDS);
    const amount = measureTextAmounts(list).get(list);
    if (sentences.length >= MIN_SENTENCE_ITEMS && amount && linkDensity(amount) < LIST_MAX_LINK_DENSITY)
      pushAll(kept, items);
  }
  return kept;
}

/**
 * A block's words as its Markdown shows them, read text node by text node as Readability's are: a `<br>` or a tag
 * between two words never joins them into one ("Bench<br>Price" is two words); an image counts by its alternative text.
 */
function shownWords(block: Element): string[] {
  const words: string[] = [];
  const stack: AnyNode[] = [block];
  while (stack.length > 0) {
    const node = stack.pop()!;
    if (isTextNode(node)) pushAll(words, wordsOf(node.data));
    else if (isElementNode(node)) {
      if (node.name === 'img' && node.attribs.alt) pushAll(words, wordsOf(node.attribs.alt));
      for (let i = node.children.length - 1; i >= 0; i--) stack.push(node.children[i]!);
    }
  }
  return words;
}

function saysArticle($: CheerioAPI, index: DocumentIndex): boolean {
  for (const meta of index.tags.get('meta') ?? []) {
    if (meta.attribs.property === 'og:type' && /^\s*article\s*$/i.test(meta.attribs.content ?? '')) return true;
  }
  for (const script of index.tags.get('script') ?? []) {
    if (script.attribs.type === 'application/ld+json' && ARTICLE_LD_TYPE.test($(script).text())) return true;
  }
  return false;
}

/** The innermost blocks under `top` (blocks holding no other block), outside headings, lists, tables and code. */
function judgedBlocks(top: Element, panels: ReadonlySet<Element>): Element[] {
  const found: Element[] = [];
  const visit = (element: Element): boolean => {
    let holdsBlock = false;
    for (const child of element.children) {
      if (!isElementNode(child)) continue;
      if (KEPT_TAGS.has(child.name) || panels.has(child) || isQuote(child)) {
        holdsBlock = true;
        continue;
      }
      const childHoldsBlock = visit(child);
      if (BLOCK_TAGS.has(child.name)) {
        holdsBlock = true;
        if (!childHoldsBlock) found.push(child);
      } else if (childHoldsBlock) holdsBlock = true;
    }
    return holdsBlock;
  };
  visit(top);
  return found;
}

/**
 * A quotation (an embedded post, a reader's letter): the story quotes it, whatever Readability kept. A `<blockquote>`
 * mostly of link text ("Related reading: …") is a pointer to another page, judged as any block is.
 */
function isQuote(element: Element): boolean {
  if (element.name !== 'blockquote') return false;
  return linkDensity(measureTextAmounts(element).get(element) ?? { chars: 0, linkChars: 0 }) < QUOTE_MAX_LINK_DENSITY;
}

/**
 * Accordions' answers under `top`, shown when their question is clicked: a `<details>`, a block a control names
 * (`controlled`, document-index.ts), or the block after a button or after a heading holding one (a FAQ, a buyer's
 * guide's "Monthly pricing"). Readability may miss them, and they are the page's text: the reader view does not judge
 * them. Found before chrome removal takes the buttons.
 */
export function findAccordionPanels(top: Element, controlled: Set<string>): Set<Element> {
  const panels = new Set<Element>();
  const stack: Element[] = [top];
  while (stack.length > 0) {
    const element = stack.pop()!;
    let previous: Element | null = null;
    for (const child of element.children) {
      if (!isElementNode(child)) continue;
      // A block a control shows and hides counts when hidden at load: what Readability drops without reading it.
      const shown = child.attribs.id !== undefined && controlled.has(child.attribs.id) && isHiddenAtLoad(child);
      if (child.name === 'details' || shown || (previous && isAccordionQuestion(previous))) panels.add(child);
      else stack.push(child);
      previous = child;
    }
  }
  return panels;
}

function isAccordionQuestion(element: Element): boolean {
  if (element.name === 'button') return true;
  return (
    HEADING_TAGS.has(element.name) && element.children.some((child) => isElementNode(child) && child.name === 'button')
  );
}

/** The last page asked about: a page extracted again by a looser try (extract-page.ts) is not read twice. */
let lastRead: { html: string; words: Set<string> | null } | undefined;

/** The words of Readability's article of the page, or null when it finds none (or the page is too big to ask). */
function readabilityWords(html: string): Set<string> | null {
  if (lastRead?.html !== html) lastRead = { html, words: readWords(html) };
  return lastRead.words;
}

function readWords(html: string): Set<string> | null {
  const { Readability, parseHTML } = readerLibraries();
  try {
    const { document } = parseHTML(html);
    if (document.getElementsByTagName('*').length > MAX_ELEMENTS) return null;
    const article = new Readability(document, { serializer: (node: unknown) => node as ReadNode }).parse();
    if (!article?.content) return null;
    // Word by word from each text node: the article's textContent joins adjacent blocks' words where no space was.
    const words = new Set<string>();
    const stack: ReadNode[] = [article.content];
    while (stack.length > 0) {
      const node = stack.pop()!;
      if (node.nodeType === TEXT_NODE) for (const word of wordsOf(node.nodeValue ?? '')) words.add(word);
      else for (const child of Array.from(node.childNodes)) stack.push(child);
    }
    return words;
  } catch {
    // A page Readability cannot read gets no second opinion: the extraction stands as it is.
    return null;
  }
}

/**
 * Readability and the DOM it reads, loaded on the first article: a crawl of documentation never asks for them, and an
 * extraction thread starts without their weight.
 */
function readerLibraries(): {
  Readability: typeof ReadabilityModule.Readability;
  parseHTML: (html: string) => { document: ReadDocument };
} {
  /* eslint-disable @typescript-eslint/no-require-imports */
  const { Readability } = require('@mozilla/readability') as typeof ReadabilityModule;
  const { parseHTML } = require('linkedom') as { parseHTML: (html: string) => { document: ReadDocument } };
  /* eslint-enable @typescript-eslint/no-require-imports */
  return { Readability, parseHTML };
}

/**
 * The little of linkedom's DOM used here, declared: its own types are written against the DOM library, which the
 * project's type check leaves out (its global `fetch` and `Response` would shadow Node's).
 */
interface ReadDocument {
  getElementsByTagName(name: string): { length: number };
}
interface ReadNode {
  nodeType: number;
  nodeValue: string | null;
  childNodes: ArrayLike<ReadNode>;
}
const TEXT_NODE = 3;

function coverage(ours: string[], theirs: Set<string>): number {
  if (ours.length === 0) return 0;
  return ours.filter((word) => theirs.has(word)).length / ours.length;
}
