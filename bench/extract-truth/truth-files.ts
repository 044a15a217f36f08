/**
 * What the truth builders share: the manifest entry a page gets, gzipped files, a source's text made plain, and the
 * page's headline where its first `<h1>` is its title.
 */
import fs from 'node:fs';
import zlib from 'node:zlib';
import { load } from 'cheerio';
import { nodeText, tokenize } from '../extract-quality-text';

/** The kinds of page in the truth (listings only in the development set). */
export type Group = 'documentation' | 'articles' | 'listings';

/** One page's entry in manifest.json (and in dev/manifest.json). */
export interface ManifestPage {
  id: string;
  group: Group;
  source: string;
  sourcePath: string;
  url: string;
  html: string;
  truth: string;
  licence: string;
  method: string;
  review: string;
}

export const readGz = (file: string) => zlib.gunzipSync(fs.readFileSync(file)).toString('utf8');
export const writeGz = (file: string, text: string | Buffer) =>
  fs.writeFileSync(file, zlib.gzipSync(text, { level: 9 }));

export const articleHost = (url: string) => new URL(url).hostname.replace(/^www\./, '');

/** A source's text with its line ends made Unix ones and no more than one empty line in a row. */
export const plainBody = (text: string) =>
  text
    .replace(/\r/g, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();

/** An `<h1>` whose words are mostly in the page's `<title>` is the headline; another (a logo, a section name) is not. */
export function titledHeadline(html: string): string {
  const $ = load(html);
  const h1 = $('h1').first();
  if (h1.length === 0) return '';
  const headline = nodeText($, h1.get(0)!).replace(/^#+\s*/, '');
  const words = tokenize(headline);
  const title = new Set(tokenize($('head title').first().text()));
  const shared = words.filter((word) => title.has(word)).length;
  return words.length > 0 && shared >= words.length * 0.6 ? headline : '';
}
