/**
 * The text side of the extraction-quality benchmark: an HTML subtree as the plain text a reader sees (the truth
 * files are made with it, and Readability's article is read with it), Markdown as plain text, and word-level
 * precision and recall of one text against another.
 */
import type { CheerioAPI } from 'cheerio';
import { isDocument, isTag, isText, type AnyNode } from 'domhandler';

/** Elements whose content is never shown as text. */
const HIDDEN = new Set([
  'script',
  'style',
  'noscript',
  'template',
  'head',
  'title',
  'meta',
  'link',
  'svg',
  'math',
  'iframe',
  'object',
  'embed',
  'canvas',
  'video',
  'audio',
  'input',
  'select',
  'textarea',
  'img',
]);

/** Elements that start and end a line of their own. */
const BLOCK = new Set([
  'address',
  'article',
  'aside',
  'blockquote',
  'body',
  'caption',
  'center',
  'dd',
  'details',
  'dialog',
  'dir',
  'div',
  'dl',
  'dt',
  'fieldset',
  'figcaption',
  'figure',
  'footer',
  'form',
  'h1',
  'h2',
  'h3',
  'h4',
  'h5',
  'h6',
  'header',
  'hgroup',
  'hr',
  'html',
  'legend',
  'li',
  'main',
  'menu',
  'nav',
  'ol',
  'p',
  'pre',
  'section',
  'summary',
  'table',
  'tbody',
  'tfoot',
  'thead',
  'tr',
  'ul',
]);

const HEADING = /^h([1-6])$/;

/**
 * The text of `root` as a reader sees it: blocks on lines of their own, table cells apart, `<pre>` kept as written,
 * other whitespace collapsed; script, style, images and elements marked `hidden` left out.
 */
export function nodeText($: CheerioAPI, root: AnyNode | AnyNode[]): string {
  const lines: string[] = [];
  let line = '';
  const flush = () => {
    const trimmed = line.replace(/[ \t]+/g, ' ').trim();
    // A list item whose first child is a block: its mark goes on that block's line.
    if (trimmed === '-') {
      line = '- ';
      return;
    }
    if (trimmed) lines.push(trimmed);
    line = '';
  };
  const visit = (node: AnyNode, pre: boolean) => {
    if (isText(node)) {
      line += pre ? node.data : node.data.replace(/\s+/g, ' ');
      return;
    }
    if (!isTag(node) && !isDocument(node)) return;
    const name = isTag(node) ? node.name.toLowerCase() : '';
    if (HIDDEN.has(name) || (isTag(node) && 'hidden' in node.attribs)) return;
    if (name === 'br') {
      flush();
      return;
    }
    if (name === 'pre') {
      flush();
      let text = '';
      const collect = (child: AnyNode) => {
        if (isText(child)) text += child.data;
        else if (isTag(child)) {
          if (HIDDEN.has(child.name) || 'hidden' in child.attribs) return;
          if (child.name === 'br') text += '\n';
          else child.children.forEach(collect);
        }
      };
      node.children.forEach(collect);
      const body = text.replace(/^\n/, '').replace(/\s+$/, '');
      if (body) lines.push('```', ...body.split('\n'), '```');
      return;
    }
    if (name === 'td' || name === 'th') {
      line += ' | ';
      node.children.forEach((child) => visit(child, pre));
      line += ' ';
      return;
    }
    const block = BLOCK.has(name);
    if (block) flush();
    const heading = HEADING.exec(name);
    if (heading) line += `${'#'.repeat(Number(heading[1]))} `;
    else if (name === 'li') line += '- ';
    node.children.forEach((child) => visit(child, pre));
    if (block) flush();
  };
  (Array.isArray(root) ? root : [root]).forEach((node) => visit(node, false));
  flush();
  return lines.join('\n');
}

const HTML_TAG =
  /<\/?(?:a|abbr|b|br|code|dd|del|details|div|dl|dt|em|i|img|ins|kbd|li|mark|ol|p|pre|q|s|samp|small|span|strong|sub|summary|sup|table|tbody|td|th|thead|tr|u|ul|var|wbr)(?:\s[^<>]*)?\/?>/g;

/**
 * Markdown as the words a reader sees: fence lines and their language tags, images, link destinations and link
 * reference definitions, raw HTML tags, and the marks `#`, `|`, backticks and `*` dropped. Code blocks keep their
 * text (a link-like `[a](b)` inside one is code, not a link).
 */
export function markdownText(markdown: string): string {
  const out: string[] = [];
  let fence: string | null = null;
  for (const raw of markdown.split('\n')) {
    const opener = /^\s*(`{3,}|~{3,})/.exec(raw);
    if (fence) {
      if (opener && opener[1]!.startsWith(fence)) fence = null;
      else out.push(raw);
      continue;
    }
    if (opener) {
      fence = opener[1]!;
      continue;
    }
    if (/^\s{0,3}\[[^\]]+\]:\s+\S+/.test(raw)) continue;
    const line = raw
      // Images: their alt text is no text on the page (the truth and Readability's textContent have none).
      .replace(/!\[[^\]]*\]\((?:\\.|[^()\s\\]|\((?:\\.|[^()\s\\])*\))*(?:\s+(?:"[^"]*"|'[^']*'))?\)/g, ' ')
      // Inline link and image destinations, with an optional title: `[text](url "title")` keeps `[text]`. A
      // destination may hold backslash-escaped characters and one level of parentheses.
      .replace(/\]\((?:<[^>]*>|(?:\\.|[^()\s\\]|\((?:\\.|[^()\s\\])*\))*)(?:\s+(?:"[^"]*"|'[^']*'))?\)/g, ']')
      // Raw HTML tags, by name, lower case as converters write them: `Option<T>` and `Vec<u8>` are text.
      .replace(HTML_TAG, ' ')
      .replace(/[#|`*]/g, ' ');
    out.push(line);
  }
  return out.join('\n');
}

/** Lower-cased word tokens: runs of letters and digits (so `fs.readFile` is two words, `read_to_string` three). */
export function tokenize(text: string): string[] {
  return text.toLowerCase().match(/[\p{L}\p{N}]+/gu) ?? [];
}

export function bagOf(tokens: string[]): Map<string, number> {
  const bag = new Map<string, number>();
  for (const token of tokens) bag.set(token, (bag.get(token) ?? 0) + 1);
  return bag;
}

export interface WordScore {
  precision: number;
  recall: number;
  f1: number;
  extractedWords: number;
  truthWords: number;
  /** Truth words the extraction lacks, most-missed first (word, how many missing). */
  missing: Array<[string, number]>;
  /** Extracted words the truth lacks, most-extra first. */
  extra: Array<[string, number]>;
}

/** Precision and recall of the extracted words against the truth's, as bags of words (multiset intersection). */
export function scoreWords(extracted: string[], truth: string[], keep = 12): WordScore {
  const got = bagOf(extracted);
  const want = bagOf(truth);
  let common = 0;
  const missing: Array<[string, number]> = [];
  const extra: Array<[string, number]> = [];
  for (const [word, count] of want) {
    const have = got.get(word) ?? 0;
    common += Math.min(count, have);
    if (have < count) missing.push([word, count - have]);
  }
  for (const [word, count] of got) {
    const need = want.get(word) ?? 0;
    if (count > need) extra.push([word, count - need]);
  }
  const byCount = (a: [string, number], b: [string, number]) => b[1] - a[1] || a[0].localeCompare(b[0]);
  const precision = extracted.length ? common / extracted.length : 0;
  const recall = truth.length ? common / truth.length : 0;
  return {
    precision,
    recall,
    f1: precision + recall ? (2 * precision * recall) / (precision + recall) : 0,
    extractedWords: extracted.length,
    truthWords: truth.length,
    missing: missing.sort(byCount).slice(0, keep),
    extra: extra.sort(byCount).slice(0, keep),
  };
}
