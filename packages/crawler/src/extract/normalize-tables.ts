import type { Cheerio, CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { childElements, isElementNode } from './dom-nodes';
import { findDescendants } from './find-descendants';

const BLOCKS_THAT_BREAK_CELLS = 'pre, table, h1, h2, h3, h4, h5, h6';
const CELL_BLOCKS = 'p, div, li, ul, ol, dl, dt, dd, blockquote';
const SECTIONS = new Set(['thead', 'tbody', 'tfoot']);
const ROW = new Set(['tr']);
const CELLS = new Set(['td', 'th']);
const TD = new Set(['td']);
const THEAD = new Set(['thead']);
const CAPTION = new Set(['caption']);

/**
 * Shapes tables so the GFM plugin can write them: layout tables (one row or column, or cells holding code
 * or headings, as in asciidoc admonitions) are unwrapped into plain blocks, cell contents are made inline
 * (a GFM cell is one line), and a table without a header row gets its first row promoted.
 */
export function normalizeTables($: CheerioAPI, root: Cheerio<Element>): void {
  // Innermost first, so an outer table sees its nested tables already unwrapped.
  const tables = findDescendants($, root, 'table').toArray().reverse();
  // New elements are copies of these, not parsed from markup one by one.
  const make = (html: string) => $(html)[0] as Element;
  const made = {
    div: make('<div></div>'),
    p: make('<p></p>'),
    space: make('<span> </span>'),
    thead: make('<thead></thead>'),
  };
  for (const table of tables) {
    const rows = ownRows(table);
    if (isLayoutTable($, rows)) {
      unwrapTable($, table, rows, made);
      continue;
    }
    rows.forEach((row) => flattenCells($, row, made.space));
    promoteHeaderRow($, table, rows, made.thead);
  }
}

/** The table's rows, its sections' and its own, in document order. */
function ownRows(table: Element): Element[] {
  return table.children.flatMap((child) => {
    if (!isElementNode(child)) return [];
    if (SECTIONS.has(child.name)) return childElements(child, ROW);
    return child.name === 'tr' ? [child] : [];
  });
}

function isLayoutTable($: CheerioAPI, rows: Element[]): boolean {
  if (rows.length < 2) return true;
  if (rows.every((row) => childElements(row, CELLS).length <= 1)) return true;
  return rows.some((row) => findDescendants($, childElements(row, CELLS), BLOCKS_THAT_BREAK_CELLS).length > 0);
}

function unwrapTable($: CheerioAPI, table: Element, rows: Element[], made: { div: Element; p: Element }): void {
  const blocks = rows.flatMap((row) =>
    childElements(row, CELLS).map((cell) => $(made.div.cloneNode()).append($(cell).contents())[0]!),
  );
  const caption = childElements(table, CAPTION)[0];
  if (caption) blocks.unshift($(made.p.cloneNode()).append($(caption).contents())[0]!);
  $(table).replaceWith(blocks);
}

function flattenCells($: CheerioAPI, row: Element, space: Element): void {
  for (const cell of childElements(row, CELLS)) {
    findDescendants($, cell, 'br').replaceWith(' ');
    const blocks = findDescendants($, cell, CELL_BLOCKS).toArray().reverse();
    for (const block of blocks) $(block).replaceWith([...block.children, space.cloneNode(true)]);
  }
}

function promoteHeaderRow($: CheerioAPI, table: Element, rows: Element[], thead: Element): void {
  const first = rows[0];
  if (!first || (first.parent && isElementNode(first.parent) && first.parent.name === 'thead')) return;
  for (const cell of childElements(first, TD)) cell.tagName = 'th';
  // The GFM plugin recognises a header row reliably only inside <thead>.
  $(childElements(table, THEAD)).remove();
  $(table).prepend($(thead.cloneNode()).append(first));
}
