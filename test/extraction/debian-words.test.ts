import fs from 'node:fs';
import { extractPage } from '@docshelf/crawler';
import {
  DEBIAN_DOCS,
  hashOf,
  readSnapshot,
  recallOf,
  snapshotPages,
  SNAPSHOT_FILE,
  wordsOf,
  writeSnapshot,
  type WordSnapshot,
} from './debian-word-snapshot';

/** A page may lose this share of its words against the snapshot (a reworded permalink, a dropped badge), no more. */
const MAX_WORDS_LOST = 0.02;
const updating = process.env.UPDATE_EXTRACTION_SNAPSHOT === '1';
const pages = snapshotPages();

if (pages.length === 0) {
  console.warn(
    `Skipping the extraction word snapshot: ${DEBIAN_DOCS} is missing (run bash scripts/fetch-debian-docs.sh)`,
  );
}

(pages.length > 0 ? describe : describe.skip)(
  'extraction of the Debian documentation sites against the word snapshot',
  () => {
    jest.setTimeout(600_000);

    it(`loses no more than ${MAX_WORDS_LOST * 100}% of any page's words`, () => {
      const snapshot: WordSnapshot = fs.existsSync(SNAPSHOT_FILE) ? readSnapshot() : {};
      const next: WordSnapshot = {};
      const losses: string[] = [];
      let compared = 0;
      let changedHtml = 0;
      for (const page of pages) {
        const html = fs.readFileSync(page.file, 'utf8');
        const words = wordsOf(extractPage(html, page.url).markdown);
        next[page.key] = { html: hashOf(html), words };
        const before = snapshot[page.key];
        if (!before) continue;
        if (before.html !== next[page.key]!.html) {
          changedHtml += 1;
          continue;
        }
        compared += 1;
        const { recall, lost } = recallOf(before.words, words);
        if (recall < 1 - MAX_WORDS_LOST)
          losses.push(`${page.key}: ${(100 * (1 - recall)).toFixed(1)}% of its words lost (${lost.join(' ')})`);
      }
      if (updating) {
        writeSnapshot(next);
        console.log(`extraction word snapshot rewritten: ${pages.length} pages`);
        return;
      }
      console.log(
        `extraction word snapshot: ${compared} pages compared, ${changedHtml} with other HTML than the snapshot's, ` +
          `${pages.length - compared - changedHtml} not in it`,
      );
      expect(compared).toBeGreaterThan(0);
      expect(losses).toEqual([]);
    });
  },
);
