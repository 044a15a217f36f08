import type { DocFile } from './doc-file';
import { convertRstInline } from './rst-inline';

/** Directives whose content is code, in the language of their argument. */
const CODE_DIRECTIVES = new Set(['code-block', 'code', 'sourcecode']);
/** Directives that say nothing a reader of the text needs: navigation, images, includes, settings. */
const SKIPPED_DIRECTIVES = new Set([
  'toctree',
  'image',
  'figure',
  'include',
  'literalinclude',
  'index',
  'contents',
  'raw',
  'highlight',
  'meta',
  'sectnum',
  'autosummary',
  'currentmodule',
  'module',
]);
/** Directives shown as a bold label before their content. */
const ADMONITIONS = new Set([
  'note',
  'warning',
  'tip',
  'hint',
  'important',
  'caution',
  'attention',
  'danger',
  'error',
  'seealso',
  'admonition',
  'topic',
  'sidebar',
  'rubric',
  'versionadded',
  'versionchanged',
  'deprecated',
]);

const ADORNMENT = /^([!-/:-@[-`{-~])\1+\s*$/;
const DIRECTIVE = /^\.\.\s+([\w.:+-]+)::(?:\s+(.*))?$/;
const OPTION = /^:[\w -]+:/;
const MAX_HEADING_LEVEL = 6;

/**
 * A reStructuredText file as Markdown: section titles (underlined, or over- and underlined) as ATX headings, their
 * level by the order in which each adornment style first appears; literal blocks (`::`), doctest blocks and
 * `code-block`/`code` directives as fenced code; admonitions and other directives as their content; comments,
 * targets and navigation directives dropped. Its title is its first section title.
 * Written here: npm has no reStructuredText parser kept as remark is (`restructured` is the closest), and a
 * document's sections, paragraphs and code are all the chunker needs of it.
 */
export function convertRstFile(source: string): DocFile {
  const lines = source.replace(/\r\n?/g, '\n').replace(/\t/g, '        ').split('\n');
  const state: RstState = { styles: [], title: '' };
  const blocks = convertBlocks(lines, state);
  return { title: state.title, markdown: blocks.join('\n\n') };
}

interface RstState {
  /** Adornment styles (overline flag + character) in order of first appearance: a style's index is its level. */
  styles: string[];
  title: string;
}

const isBlank = (line: string | undefined) => line === undefined || line.trim() === '';
const indentOf = (line: string) => line.length - line.trimStart().length;

function isAdornment(line: string | undefined, titleLength = 0): boolean {
  if (line === undefined || !ADORNMENT.test(line)) return false;
  const length = line.trimEnd().length;
  return length >= 3 || length >= titleLength;
}

/** The lines from `start` indented deeper than `indent` (blank lines within kept), and the index after them. */
function takeIndented(lines: string[], start: number, indent: number): { body: string[]; next: number } {
  let end = start;
  while (end < lines.length && (isBlank(lines[end]) || indentOf(lines[end]!) > indent)) end += 1;
  while (end > start && isBlank(lines[end - 1])) end -= 1;
  return { body: dedent(lines.slice(start, end)), next: end };
}

function dedent(lines: string[]): string[] {
  const indents = lines.filter((line) => !isBlank(line)).map(indentOf);
  const cut = indents.length === 0 ? 0 : Math.min(...indents);
  while (lines.length > 0 && isBlank(lines[0])) lines = lines.slice(1);
  return lines.map((line) => line.slice(cut).trimEnd());
}

function fence(code: string[], language = ''): string {
  const longest = Math.max(2, ...code.map((line) => Math.max(0, ...(line.match(/`+/g) ?? []).map((r) => r.length))));
  const marks = '`'.repeat(longest + 1);
  return `${marks}${language}\n${code.join('\n')}\n${marks}`;
}

function heading(title: string, style: string, state: RstState): string {
  if (!state.styles.includes(style)) state.styles.push(style);
  if (state.title === '') state.title = title;
  const level = Math.min(state.styles.indexOf(style) + 1, MAX_HEADING_LEVEL);
  return `${'#'.repeat(level)} ${convertRstInline(title)}`;
}

function convertBlocks(lines: string[], state: RstState): string[] {
  const blocks: string[] = [];
  let i = 0;
  while (i < lines.length) {
    const line = lines[i]!;
    if (isBlank(line)) {
      i += 1;
      continue;
    }
    const next = lines[i + 1];
    const title = next?.trim() ?? '';
    if (isAdornment(line) && title && !isAdornment(next) && lines[i + 2]?.trimEnd() === line.trimEnd()) {
      blocks.push(heading(title, `o${line[0]}`, state));
      i += 3;
      continue;
    }
    if (indentOf(line) === 0 && !isAdornment(line) && isAdornment(next, line.trim().length) && isBlank(lines[i - 1])) {
      blocks.push(heading(line.trim(), `u${next![0]}`, state));
      i += 2;
      continue;
    }
    if (isAdornment(line) && isBlank(next)) {
      i += 1; // a transition
      continue;
    }
    const directive = DIRECTIVE.exec(line.trim());
    if (directive) {
      const { body, next: after } = takeIndented(lines, i + 1, indentOf(line));
      blocks.push(...convertDirective(directive[1]!.toLowerCase(), directive[2]?.trim() ?? '', body, state));
      i = after;
      continue;
    }
    if (/^\.\.(\s|$)/.test(line.trim())) {
      i = takeIndented(lines, i + 1, indentOf(line)).next; // a comment, a target or a substitution
      continue;
    }
    if (indentOf(line) > 0) {
      const { body, next: after } = takeIndented(lines, i, indentOf(line) - 1);
      blocks.push(...convertBlocks(body, state)); // a block quote
      i = after;
      continue;
    }
    let end = i;
    while (end < lines.length && !isBlank(lines[end])) end += 1;
    const paragraph = lines.slice(i, end);
    i = end;
    if (paragraph[0]!.startsWith('>>>')) {
      blocks.push(fence(paragraph, 'python'));
      continue;
    }
    const last = paragraph[paragraph.length - 1]!.trimEnd();
    if (last.endsWith('::')) {
      paragraph[paragraph.length - 1] = last === '::' ? '' : last.replace(/\s*::$/, /\s::$/.test(last) ? '' : ':');
      const text = paragraph.join('\n').trim();
      if (text) blocks.push(convertRstInline(text));
      let start = i;
      while (start < lines.length && isBlank(lines[start])) start += 1;
      if (start < lines.length && indentOf(lines[start]!) > 0) {
        const { body, next: after } = takeIndented(lines, start, 0);
        blocks.push(fence(body));
        i = after;
      }
      continue;
    }
    blocks.push(convertRstInline(paragraph.map((l) => l.replace(/^#\.(\s)/, '1.$1')).join('\n')));
  }
  return blocks;
}

function convertDirective(name: string, argument: string, body: string[], state: RstState): string[] {
  let start = 0;
  while (start < body.length && OPTION.test(body[start]!)) start += 1;
  const content = body.slice(start);
  if (CODE_DIRECTIVES.has(name)) return content.length > 0 ? [fence(dedent(content), argument.split(/\s/)[0])] : [];
  if (SKIPPED_DIRECTIVES.has(name)) return [];
  const label = ADMONITIONS.has(name)
    ? `**${name === 'admonition' ? argument : capitalize(name)}${argument && name !== 'admonition' ? ` ${argument}` : ''}**`
    : argument
      ? `\`${argument}\``
      : '';
  const inner = convertBlocks(dedent(content), state);
  return label ? [label, ...inner] : inner;
}

function capitalize(word: string): string {
  return word.charAt(0).toUpperCase() + word.slice(1);
}
