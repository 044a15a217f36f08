/**
 * The sites the crawl benchmarks crawl, served on 127.0.0.1: the generated 150-page site and Debian's nodejs-doc,
 * git-doc and sphinx-doc (unpacked by `scripts/fetch-debian-docs.sh`), each with the URL list every tool gets.
 */
import fs from 'node:fs';
import path from 'node:path';
import { extractPage } from '@docshelf/crawler';
import { generateDocsSite } from '../test/fixtures/generated-docs-site';
import { serveFixtures, type FixtureServer } from '@docshelf/testing/e2e/fixture-site';

const MAX_PAGES = 150;
const DOCS = path.resolve(__dirname, '../.cache/debian-docs/usr/share/doc');

export interface BenchSite {
  name: string;
  server: FixtureServer;
  seed: string;
  excludePaths: string[];
  urls: string[];
}

/** A loaded machine may reset a kept-alive connection: a page is asked for up to three times. */
async function fetchText(url: string): Promise<string | null> {
  for (let attempt = 1; ; attempt++) {
    try {
      const response = await fetch(url);
      return response.ok ? await response.text() : null;
    } catch (error) {
      if (attempt === 3) throw error;
    }
  }
}

/** Breadth-first over HTTP with Docshelf's own link rules, two levels deep, up to 150 pages: the list every tool gets. */
async function listUrls(seed: string, excludePaths: string[]): Promise<string[]> {
  const found = [seed];
  const seen = new Set(found);
  let level = [seed];
  for (let depth = 0; depth < 2 && found.length < MAX_PAGES; depth++) {
    const next: string[] = [];
    for (const url of level) {
      const html = await fetchText(url);
      if (html === null) continue;
      for (const link of extractPage(html, url).links) {
        if (seen.has(link) || excludePaths.some((p) => new URL(link).pathname === p)) continue;
        seen.add(link);
        next.push(link);
      }
    }
    found.push(...next.slice(0, MAX_PAGES - found.length));
    level = next;
  }
  return found;
}

const DEBIAN_SITES = [
  { name: 'nodejs-doc', root: 'nodejs/api', seedPath: '/index.html', excludePaths: ['/all.html'] },
  { name: 'git-doc', root: 'git-doc', seedPath: '/git.html', excludePaths: [] },
  { name: 'sphinx-doc', root: 'sphinx-doc/html', seedPath: '/index.html', excludePaths: [] },
];

/** The sites named in `only` (all when it is undefined), served and listed; the caller closes their servers. */
export async function serveBenchSites(only?: string[]): Promise<BenchSite[]> {
  const wanted = (name: string) => !only || only.includes(name);
  const sites: Array<Omit<BenchSite, 'urls'>> = [];
  if (wanted('generated-150')) {
    const generated = generateDocsSite();
    const server = await serveFixtures({ routes: generated.route });
    sites.push({ name: 'generated-150', server, seed: `${server.origin}${generated.indexPath}`, excludePaths: [] });
  }
  let missing = false;
  for (const { name, root, seedPath, excludePaths } of DEBIAN_SITES.filter((s) => wanted(s.name))) {
    const dir = path.join(DOCS, root);
    if (!fs.existsSync(path.join(dir, seedPath))) {
      missing = true;
      continue;
    }
    const server = await serveFixtures({ root: dir });
    sites.push({ name, server, seed: `${server.origin}${seedPath}`, excludePaths });
  }
  if (missing) console.warn(`Debian docs missing under ${DOCS}: run \`bash scripts/fetch-debian-docs.sh\``);
  const listed: BenchSite[] = [];
  for (const site of sites) listed.push({ ...site, urls: await listUrls(site.seed, site.excludePaths) });
  return listed;
}
