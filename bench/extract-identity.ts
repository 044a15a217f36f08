/**
 * Where HTTP extraction and browser extraction part ways: every page of a site is fetched over HTTP and rendered in
 * Chromium (BrowserPool, as the worker renders), both are extracted and chunked as a crawl does, and the chunk texts
 * are compared page by page. Prints the share of identical chunk texts and, for each page that differs, the first
 * differing lines of its Markdown. `npx tsx --conditions=@docshelf/source bench/extract-identity.ts <site> [pages]`
 * with site = generated | nodejs-doc | git-doc | sphinx-doc.
 */
import path from 'node:path';
import { chunkMarkdown } from '@docshelf/core';
import { BrowserPool, createAddressPolicy, extractPage, findChromium } from '@docshelf/crawler';
import { generateDocsSite } from '../test/fixtures/generated-docs-site';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';

const DOCS = path.resolve(__dirname, '../.cache/debian-docs/usr/share/doc');
const SITES: Record<string, { root: string; seed: string; exclude: string[] }> = {
  'nodejs-doc': { root: path.join(DOCS, 'nodejs/api'), seed: '/index.html', exclude: ['/all.html'] },
  'git-doc': { root: path.join(DOCS, 'git-doc'), seed: '/git.html', exclude: [] },
  'sphinx-doc': { root: path.join(DOCS, 'sphinx-doc/html'), seed: '/index.html', exclude: [] },
};

async function serve(which: string): Promise<{ server: FixtureServer; seed: string; exclude: string[] }> {
  if (which === 'generated') {
    const site = generateDocsSite();
    const server = await serveFixtures({ routes: site.route });
    return { server, seed: `${server.origin}${site.indexPath}`, exclude: [] };
  }
  const site = SITES[which];
  if (!site) throw new Error(`unknown site ${which}`);
  const server = await serveFixtures({ root: site.root });
  return { server, seed: `${server.origin}${site.seed}`, exclude: site.exclude };
}

/** Breadth-first, two levels, up to `max` pages: the list the crawl benchmark gives every tool. */
async function listUrls(seed: string, exclude: string[], max: number): Promise<string[]> {
  const found = [seed];
  const seen = new Set(found);
  let level = [seed];
  for (let depth = 0; depth < 2 && found.length < max; depth++) {
    const next: string[] = [];
    for (const url of level) {
      const response = await fetch(url);
      if (!response.ok) continue;
      for (const link of extractPage(await response.text(), url).links) {
        if (seen.has(link) || exclude.includes(new URL(link).pathname)) continue;
        seen.add(link);
        next.push(link);
      }
    }
    found.push(...next.slice(0, max - found.length));
    level = next;
  }
  return found;
}

function chunksOf(html: string, url: string): { markdown: string; texts: string[] } {
  const page = extractPage(html, url);
  const texts = chunkMarkdown(page.markdown, { pageUrl: url, pageTitle: page.title || url }).map((c) => c.content);
  return { markdown: page.markdown, texts };
}

function firstDifference(a: string, b: string): string {
  const al = a.split('\n');
  const bl = b.split('\n');
  for (let i = 0; i < Math.max(al.length, bl.length); i++) {
    if (al[i] !== bl[i])
      return `    line ${i + 1}\n    http:    ${JSON.stringify(al[i]?.slice(0, 200))}\n    browser: ${JSON.stringify(bl[i]?.slice(0, 200))}`;
  }
  return '    (same lines)';
}

async function main(): Promise<void> {
  const which = process.argv[2] ?? 'nodejs-doc';
  const max = Number(process.argv[3] ?? 150);
  const { server, seed, exclude } = await serve(which);
  const urls = await listUrls(seed, exclude, max);
  const pool = new BrowserPool({
    chromiumPath: findChromium(process.env.CHROMIUM_PATH)!,
    maxPages: 2,
    policy: createAddressPolicy({ allowlist: ['127.0.0.1'] }),
  });
  let same = 0;
  let total = 0;
  let pagesDiffering = 0;
  try {
    for (const url of urls) {
      const response = await fetch(url);
      if (!response.ok) continue;
      const http = chunksOf(await response.text(), url);
      const rendered = await pool.render(url, { timeoutMs: 60_000 });
      const browser = chunksOf(rendered.html, url);
      const left = new Map<string, number>();
      browser.texts.forEach((t) => left.set(t, (left.get(t) ?? 0) + 1));
      let pageSame = 0;
      for (const t of http.texts) {
        const n = left.get(t) ?? 0;
        if (n > 0) {
          pageSame++;
          left.set(t, n - 1);
        }
      }
      same += pageSame;
      total += Math.max(http.texts.length, browser.texts.length);
      if (pageSame !== Math.max(http.texts.length, browser.texts.length)) {
        pagesDiffering++;
        console.log(
          `${new URL(url).pathname}: ${pageSame} of ${http.texts.length} (http) / ${browser.texts.length} (browser) chunks identical`,
        );
        console.log(firstDifference(http.markdown, browser.markdown));
      }
    }
  } finally {
    await pool.close();
    await server.close();
  }
  console.log(
    `${which}: ${urls.length} pages, ${pagesDiffering} differ; chunk texts identical ${((100 * same) / Math.max(total, 1)).toFixed(1)}% (${same} of ${total})`,
  );
}

main().then(
  () => process.exit(0),
  (error) => {
    console.error(error);
    process.exit(1);
  },
);
