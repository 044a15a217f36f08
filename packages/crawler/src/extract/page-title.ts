import type { Cheerio, CheerioAPI } from 'cheerio';
import type { Element } from 'domhandler';
import { findDescendants } from './find-descendants';

const TITLE_SEPARATOR = /\s+(?:\||—|–|·|•|::|-)\s+/;
const LAST_TITLE_SEGMENT = /\s+(?:\||—|–|·|•|::|-)\s+(?:(?!\s(?:\||—|–|·|•|::|-)\s).)*$/;

/**
 * The page's title: `<title>` without its site-name segment ("File system | Node.js Docs" → "File system"),
 * else the first h1. When the title has several segments and one of them is the h1, that segment wins,
 * which also handles site-first titles ("Docs · Getting started").
 */
export function extractTitle($: CheerioAPI, root: Cheerio<Element>, head?: Element): string {
  // The parser makes one <head>: its titles are `head title`, found without a pass over the whole document.
  const headTitle = head ? findDescendants($, head, 'title').first().text() : '';
  const documentTitle = collapseSpace(headTitle || $('title').first().text());
  // Only the content's h1: a site banner's h1 ("Node.js v18 documentation") names the site, not the page.
  const heading = collapseSpace(findDescendants($, root, 'h1').first().text());
  if (documentTitle !== '') return stripSiteName(documentTitle, heading);
  return heading || collapseSpace($('h1').first().text());
}

/** Removes the site-name segment of a document title, using the page's h1 when one is known. */
export function stripSiteName(documentTitle: string, heading = ''): string {
  const segments = documentTitle.split(TITLE_SEPARATOR);
  if (segments.length < 2) return documentTitle;
  const matching = segments.find((segment) => sameText(segment, heading));
  if (matching) return matching.trim();
  const stripped = documentTitle.replace(LAST_TITLE_SEGMENT, '').trim();
  return stripped === '' ? documentTitle : stripped;
}

function sameText(a: string, b: string): boolean {
  return b !== '' && collapseSpace(a).toLowerCase() === collapseSpace(b).toLowerCase();
}

function collapseSpace(text: string): string {
  return text.replace(/[\s\u200b]+/g, ' ').trim();
}
