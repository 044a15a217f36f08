import type { Cheerio, CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import TurndownService from 'turndown';
import { strikethrough, tables, taskListItems } from 'turndown-plugin-gfm';
import { buildMarkdownDom, NeedsHtmlError } from './markdown-dom';

/** The parts of turndown's DOM nodes the custom rules read (the project compiles without DOM typings). */
interface DomNode {
  nodeName: string;
  parentNode: DomNode | null;
  nextSibling: DomNode | null;
  children: ArrayLike<DomNode>;
  childNodes: ArrayLike<DomNode>;
  getAttribute(name: string): string | null;
}

let service: TurndownService | null = null;

/** Converts cleaned content HTML to Markdown: atx headings, ``` fences with language, `-` bullets, GFM tables. */
export function convertHtmlToMarkdown(html: string): string {
  service ??= createTurndownService();
  return tidyMarkdown(service.turndown(html));
}

/** Converts a cleaned content element to Markdown, as convertHtmlToMarkdown converts its HTML. */
export function convertContentToMarkdown($: CheerioAPI, root: Cheerio<Element>): string {
  service ??= createTurndownService();
  const dom = root.length === 1 ? buildMarkdownDom(root[0]!) : null;
  if (dom) {
    try {
      return tidyMarkdown(service.turndown(dom));
    } catch (error) {
      if (!(error instanceof NeedsHtmlError)) throw error;
    }
  }
  return convertHtmlToMarkdown($.html(root));
}

function createTurndownService(): TurndownService {
  const turndown = new TurndownService({
    headingStyle: 'atx',
    codeBlockStyle: 'fenced',
    fence: '```',
    hr: '---',
    bulletListMarker: '-',
    emDelimiter: '_',
    strongDelimiter: '**',
    linkStyle: 'inlined',
  });
  turndown.use([tables, strikethrough, taskListItems]);
  turndown.remove(['script', 'style', 'noscript', 'template', 'head']);
  turndown.addRule('listItem', { filter: 'li', replacement: renderListItem });
  turndown.addRule('tableCell', { filter: ['th', 'td'], replacement: renderTableCell });
  return turndown;
}

/** Turndown's own rule writes "-   item"; one space after the marker is what people and linters expect. */
function renderListItem(content: string, node: unknown): string {
  const element = node as DomNode;
  const parent = element.parentNode;
  let prefix = '- ';
  if (parent?.nodeName === 'OL') {
    const start = Number(parent.getAttribute('start') ?? '1');
    const index = Array.prototype.indexOf.call(parent.children, element);
    prefix = `${(Number.isFinite(start) ? start : 1) + index}. `;
  }
  const endsWithParagraph = /\n$/.test(content);
  const body = content.replace(/^\n+/, '').replace(/\n+$/, '') + (endsWithParagraph ? '\n' : '');
  const indented = body.replace(/\n/g, `\n${' '.repeat(prefix.length)}`);
  return prefix + indented + (element.nextSibling ? '\n' : '');
}

/** A GFM cell is a single line and `|` ends it, so both are neutralised. */
function renderTableCell(content: string, node: unknown): string {
  const element = node as DomNode;
  const siblings = element.parentNode ? Array.from(element.parentNode.childNodes) : [];
  const prefix = siblings.indexOf(element) === 0 ? '| ' : ' ';
  const text = content
    .replace(/\s*\n\s*/g, ' ')
    .replace(/(?<!\\)\|/g, '\\|')
    .trim();
  return `${prefix}${text} |`;
}

/**
 * Removes permalink leftovers and rules left at either end, turns no-break spaces into spaces, trims trailing spaces and collapses runs of blank lines,
 * leaving fenced code untouched.
 */
export function tidyMarkdown(markdown: string): string {
  const output: string[] = [];
  let fence: string | null = null;
  for (const line of markdown.split('\n')) {
    const fenceMatch = /^\s*(`{3,}|~{3,})/.exec(line);
    if (fence !== null) {
      output.push(line);
      if (fenceMatch && fenceMatch[1]!.startsWith(fence) && line.trim() === fenceMatch[1]) fence = null;
      continue;
    }
    if (fenceMatch) {
      fence = fenceMatch[1]!;
      output.push(line);
      continue;
    }
    const tidy = tidyProseLine(line);
    if (tidy === '' && output.length > 0 && output[output.length - 1] === '') continue;
    output.push(tidy);
  }
  return output
    .join('\n')
    .trim()
    .replace(/^(?:---\n+)+|(?:\n+---)+$/g, '');
}

function tidyProseLine(line: string): string {
  let tidy = line
    // No-break spaces (DocBook's "Chapter&nbsp;1.") would make the text unsearchable by plain words.
    .replace(/\u00a0/g, ' ')
    .replace(/\[(?:¶|#|§)\]\([^)]*\)/g, '')
    .replace(/\s*Permalink to this (?:headline|heading|section|definition)/gi, '');
  if (/^#{1,6}\s/.test(tidy)) tidy = tidy.replace(/\s*[¶§]+\s*$/u, '');
  // Two trailing spaces are a Markdown line break; anything else trailing is noise.
  return / {2}$/.test(tidy) && tidy.trim() !== '' ? tidy.replace(/\s+$/, '  ') : tidy.replace(/\s+$/, '');
}
