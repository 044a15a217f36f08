/**
 * Holds extraction still while it is rewritten: `write` runs extractPage over every page bench/extract-pages.ts finds
 * and stores each output (title, Markdown, links, landmark) in a JSON file; `compare` runs it again and lists the pages
 * whose output differs from the file's, with the first differing line. `render` stores Chromium's rendering of every
 * file site under .cache/rendered-pages, so browser-rendered HTML is part of the snapshot too.
 *
 *   npx tsx --conditions=@docshelf/source bench/extract-snapshot.ts render
 *   npx tsx --conditions=@docshelf/source bench/extract-snapshot.ts write [.cache/extract-snapshot.json]
 *   npx tsx --conditions=@docshelf/source bench/extract-snapshot.ts compare [.cache/extract-snapshot.json]
 */
import fs from 'node:fs';
import path from 'node:path';
import { BrowserPool, createAddressPolicy, extractPage, findChromium, type ExtractedPage } from '@docshelf/crawler';
import { serveFixtures } from '@docshelf/testing/e2e/fixture-site';
import { allSites, FILE_SITES, RENDERED_DIR, sitePages } from './extract-pages';

const DEFAULT_FILE = path.resolve(__dirname, '../.cache/extract-snapshot.json');

type Snapshot = Record<string, ExtractedPage>;

function extractAll(onPage: (key: string, page: ExtractedPage) => void): number {
  let count = 0;
  for (const site of allSites()) {
    for (const page of sitePages(site)) {
      onPage(`${site}/${page.path}`, extractPage(page.html, page.url));
      count += 1;
    }
  }
  return count;
}

function firstDifference(field: string, before: string, after: string): string {
  const a = before.split('\n');
  const b = after.split('\n');
  for (let i = 0; i < Math.max(a.length, b.length); i++) {
    if (a[i] !== b[i])
      return `  ${field} line ${i + 1}\n    before: ${JSON.stringify(a[i]?.slice(0, 200))}\n    after:  ${JSON.stringify(b[i]?.slice(0, 200))}`;
  }
  return `  ${field}: same lines`;
}

function differences(before: ExtractedPage, after: ExtractedPage): string[] {
  const found: string[] = [];
  if (before.title !== after.title) found.push(firstDifference('title', before.title, after.title));
  if (before.markdown !== after.markdown) found.push(firstDifference('markdown', before.markdown, after.markdown));
  if (before.links.join('\n') !== after.links.join('\n'))
    found.push(firstDifference('links', before.links.join('\n'), after.links.join('\n')));
  if (before.landmark !== after.landmark) found.push(`  landmark: ${before.landmark} → ${after.landmark}`);
  return found;
}

function write(file: string): void {
  const snapshot: Snapshot = {};
  const count = extractAll((key, page) => (snapshot[key] = page));
  fs.mkdirSync(path.dirname(file), { recursive: true });
  fs.writeFileSync(file, JSON.stringify(snapshot));
  console.log(`${count} pages written to ${file}`);
}

function compare(file: string): boolean {
  const snapshot = JSON.parse(fs.readFileSync(file, 'utf8')) as Snapshot;
  const seen = new Set<string>();
  let differing = 0;
  const count = extractAll((key, page) => {
    seen.add(key);
    const before = snapshot[key];
    if (!before) {
      console.log(`${key}: not in the snapshot`);
      differing += 1;
      return;
    }
    const found = differences(before, page);
    if (found.length === 0) return;
    differing += 1;
    console.log(`${key}:\n${found.join('\n')}`);
  });
  const missing = Object.keys(snapshot).filter((key) => !seen.has(key));
  for (const key of missing) console.log(`${key}: in the snapshot, not found now`);
  console.log(
    `${count} pages compared, ${count - differing} identical, ${differing} differ, ${missing.length} missing`,
  );
  return differing === 0 && missing.length === 0;
}

/** Stores Chromium's rendering of every page of the file sites, served on 127.0.0.1 as the crawler would load them. */
async function render(): Promise<void> {
  const pool = new BrowserPool({
    chromiumPath: findChromium(process.env.CHROMIUM_PATH)!,
    maxPages: 2,
    policy: createAddressPolicy({ allowlist: ['127.0.0.1'] }),
  });
  try {
    for (const [site, root] of Object.entries(FILE_SITES)) {
      if (!fs.existsSync(root)) continue;
      // Served from the real directory, so relative symlinks to scripts (sphinx-doc's) resolve.
      const server = await serveFixtures({ root: fs.realpathSync(root) });
      try {
        const pages = sitePages(site);
        let stored = 0;
        await Promise.all(
          [0, 1].map(async (lane) => {
            for (let i = lane; i < pages.length; i += 2) {
              const page = pages[i]!;
              try {
                const rendered = await pool.render(`${server.origin}/${page.path}`, { timeoutMs: 60_000 });
                const target = path.join(RENDERED_DIR, site, page.path);
                fs.mkdirSync(path.dirname(target), { recursive: true });
                fs.writeFileSync(target, rendered.html);
                stored += 1;
              } catch (error) {
                console.log(`${site}/${page.path}: not rendered (${(error as Error).message})`);
              }
            }
          }),
        );
        console.log(`${site}: ${stored} of ${pages.length} pages rendered`);
      } finally {
        await server.close();
      }
    }
  } finally {
    await pool.close();
  }
}

async function main(): Promise<void> {
  const [mode, file = DEFAULT_FILE] = process.argv.slice(2);
  if (mode === 'write') write(file);
  else if (mode === 'compare') process.exitCode = compare(file) ? 0 : 1;
  else if (mode === 'render') await render();
  else throw new Error('usage: extract-snapshot.ts render | write [file] | compare [file]');
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
