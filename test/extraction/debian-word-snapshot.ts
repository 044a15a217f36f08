/**
 * The words each page of the Debian documentation sites gives, kept so a change to extraction that loses a page's
 * content fails a test. A page is stored as the hash of its HTML and the count of each word of its extracted text;
 * a page whose HTML changed (a newer Debian package) is not compared.
 *
 *   UPDATE_EXTRACTION_SNAPSHOT=1 npx jest test/extraction/debian-words.test.ts   rewrites the snapshot
 */
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import zlib from 'node:zlib';

export const DEBIAN_DOCS = path.resolve(__dirname, '../../.cache/debian-docs/usr/share/doc');
export const SNAPSHOT_FILE = path.join(__dirname, 'debian-words.json.gz');

/** The sites the tests crawl, and the manuals extraction bugs were found on. */
export const SNAPSHOT_SITES: Record<string, string> = {
  'nodejs-doc': 'nodejs/api',
  'git-doc': 'git-doc',
  'sphinx-doc': 'sphinx-doc/html',
  'python3.11-doc': 'python3.11/html',
  'mkdocs-doc': 'mkdocs/html',
};

export interface PageWords {
  /** sha256 of the page's HTML, first 16 hex digits. */
  html: string;
  /** Each word of the extracted text with its count. */
  words: Record<string, number>;
}

export type WordSnapshot = Record<string, PageWords>;

export const hashOf = (html: string) => createHash('sha256').update(html).digest('hex').slice(0, 16);

/** The words a reader sees in extracted Markdown: link and image targets left out, lower-cased runs of letters and digits. */
export function wordsOf(markdown: string): Record<string, number> {
  const counts: Record<string, number> = {};
  const text = markdown.replace(/\]\([^)]*\)/g, ']').toLowerCase();
  for (const word of text.match(/[\p{L}\p{N}]+/gu) ?? []) counts[word] = (counts[word] ?? 0) + 1;
  return counts;
}

/** The share of the snapshot's words (with their counts) the new extraction still has. */
export function recallOf(
  before: Record<string, number>,
  after: Record<string, number>,
): { recall: number; lost: string[] } {
  let total = 0;
  let kept = 0;
  const lost: [string, number][] = [];
  for (const [word, count] of Object.entries(before)) {
    total += count;
    const now = Math.min(count, after[word] ?? 0);
    kept += now;
    if (now < count) lost.push([word, count - now]);
  }
  lost.sort((a, b) => b[1] - a[1]);
  return { recall: total === 0 ? 1 : kept / total, lost: lost.slice(0, 12).map(([word, n]) => `${word}×${n}`) };
}

/** Every HTML page of the snapshot's sites found here, by key `site/path`. */
export function snapshotPages(): { key: string; file: string; url: string }[] {
  const pages: { key: string; file: string; url: string }[] = [];
  for (const [site, dir] of Object.entries(SNAPSHOT_SITES)) {
    const root = path.join(DEBIAN_DOCS, dir);
    if (!fs.existsSync(root)) continue;
    const visit = (at: string) => {
      for (const entry of fs.readdirSync(at, { withFileTypes: true }).sort((a, b) => a.name.localeCompare(b.name))) {
        const full = path.join(at, entry.name);
        if (entry.isDirectory()) visit(full);
        else if (/\.html?$/.test(entry.name) && fs.statSync(full).isFile()) {
          const pagePath = path.relative(root, full).split(path.sep).join('/');
          pages.push({ key: `${site}/${pagePath}`, file: full, url: `http://${site}.docs.test/${pagePath}` });
        }
      }
    };
    visit(root);
  }
  return pages;
}

export function readSnapshot(): WordSnapshot {
  return JSON.parse(zlib.gunzipSync(fs.readFileSync(SNAPSHOT_FILE)).toString('utf8')) as WordSnapshot;
}

export function writeSnapshot(snapshot: WordSnapshot): void {
  const sorted = Object.fromEntries(Object.entries(snapshot).sort(([a], [b]) => a.localeCompare(b)));
  fs.writeFileSync(SNAPSHOT_FILE, zlib.gzipSync(JSON.stringify(sorted), { level: 9 }));
}
