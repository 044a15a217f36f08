import type { Cheerio, CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { findDescendants } from './find-descendants';

const BLOCKS_THAT_BREAK_CELLS = 'pre, table, h1, h2, h3, h4, h5, h6';
const CELL_BLOCKS = 'p, div, li, ul, ol, dl, dt, dd, blockquote';

/**
 * Shapes tables so the GFM plugin can write them: layout tables (one row or column, or cells holding code
 * or headings, as in asciidoc admonitions) are unwrapped into plain blocks, cell contents are made inline
 * (a GFM cell is one line), and a table without a header row gets its first row promoted.
 */
export function normalizeTables($: CheerioAPI, root: Cheerio<Element>): void {
  // Innermost first, so an outer table sees its nested tables already unwrapped.
  const tables = findDescendants($, root, 'table').toArray().reverse();
  for (const element of tables) {
    const table = $(element);
    const rows = ownRows($, table);
    if (isLayoutTable($, rows)) {
      unwrapTable($, table, rows);
      continue;
    }
    rows.forEach((row) => flattenCells($, row));
    promoteHeaderRow($, table, rows);
  }
}

function ownRows($: CheerioAPI, table: Cheerio<Element>): Cheerio<Element>[] {
  return table
    .children('thead, tbody, tfoot')
    .children('tr')
    .add(table.children('tr'))
    .toArray()
    .map((row) => $(row));
}

function isLayoutTable($: CheerioAPI, rows: Cheerio<Element>[]): boolean {
  if (rows.length < 2) return true;
  if (rows.every((row) => row.children('td, th').length <= 1)) return true;
  return rows.some((row) => findDescendants($, row.children('td, th'), BLOCKS_THAT_BREAK_CELLS).length > 0);
}

function unwrapTable($: CheerioAPI, table: Cheerio<Element>, rows: Cheerio<Element>[]): void {
  const blocks = rows.flatMap((row) =>
    row
      .children('td, th')
      .toArray()
      .map((cell) => $('<div></div>').append($(cell).contents())),
  );
  const caption = table.children('caption').first();
  if (caption.length > 0) blocks.unshift($('<p></p>').append(caption.contents()));
  table.replaceWith(blocks.map((block) => block[0] as Element));
}

function flattenCells($: CheerioAPI, row: Cheerio<Element>): void {
  row.children('td, th').each((_, cell) => {
    const $cell = $(cell);
    findDescendants($, $cell, 'br').replaceWith(' ');
    const blocks = findDescendants($, $cell, CELL_BLOCKS).toArray().reverse();
    for (const block of blocks) $(block).replaceWith([...$(block).contents().toArray(), $('<span> </span>')[0]!]);
  });
}

function promoteHeaderRow($: CheerioAPI, table: Cheerio<Element>, rows: Cheerio<Element>[]): void {
  const first = rows[0];
  if (!first || first.parent().is('thead')) return;
  first.children('td').each((_, cell) => {
    cell.tagName = 'th';
  });
  // The GFM plugin recognises a header row reliably only inside <thead>.
  table.children('thead').remove();
  table.prepend($('<thead></thead>').append(first));
}
