import fs from 'node:fs';
import { createPageExtractor } from '@docshelf/crawler';
import {
  DEBIAN_DOCS,
  hashOf,
  readSnapshot,
  recallOf,
  snapshotPages,
  SNAPSHOT_FILE,
  wordsOf,
  writeSnapshot,
  type PageWords,
  type WordSnapshot,
} from './debian-word-snapshot';

/** A page may lose this share of its words against the snapshot (a reworded permalink, a dropped badge), no more. */
const MAX_WORDS_LOST = 0.02;
const updating = process.env.UPDATE_EXTRACTION_SNAPSHOT === '1';
const pages = snapshotPages();
/**
 * Extraction is CPU work, and most of this test's time: pages are extracted in two threads at once (the crawler's own
 * thread pool), the largest first so neither thread ends with one long page left. The time limit is the whole test's.
 */
const THREADS = 2;
const bySizeDescending = [...pages].sort((a, b) => fs.statSync(b.file).size - fs.statSync(a.file).size);

if (pages.length === 0) {
  console.warn(
    `Skipping the extraction word snapshot: ${DEBIAN_DOCS} is missing (run bash scripts/fetch-debian-docs.sh)`,
  );
}

(pages.length > 0 ? describe : describe.skip)(
  'extraction of the Debian documentation sites against the word snapshot',
  () => {
    jest.setTimeout(600_000);

    it(`loses no more than ${MAX_WORDS_LOST * 100}% of any page's words`, async () => {
      const snapshot: WordSnapshot = fs.existsSync(SNAPSHOT_FILE) ? readSnapshot() : {};
      const extracted = new Map<string, PageWords>();
      const extractor = createPageExtractor(THREADS, { timeoutMs: 600_000 });
      try {
        // Each thread is handed its next page as it finishes one, so only a few pages' HTML is held at a time.
        let taken = 0;
        const extractNext = async (): Promise<void> => {
          const page = bySizeDescending[taken++];
          if (!page) return;
          const html = fs.readFileSync(page.file, 'utf8');
          const outcome = await extractor.extract({ html, url: page.url });
          if (!('page' in outcome)) throw new Error(`${page.key}: no page extracted`);
          extracted.set(page.key, { html: hashOf(html), words: wordsOf(outcome.page.markdown) });
          return extractNext();
        };
        await Promise.all(Array.from({ length: THREADS }, extractNext));
      } finally {
        await extractor.close();
      }
      const next: WordSnapshot = {};
      const losses: string[] = [];
      let compared = 0;
      let changedHtml = 0;
      for (const page of pages) {
        next[page.key] = extracted.get(page.key)!;
        const before = snapshot[page.key];
        if (!before) continue;
        if (before.html !== next[page.key]!.html) {
          changedHtml += 1;
          continue;
        }
        compared += 1;
        const { recall, lost } = recallOf(before.words, next[page.key]!.words);
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
