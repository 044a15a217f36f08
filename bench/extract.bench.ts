/**
 * Extraction CPU per page, per site: extractPage against cheerio's `load` of the same pages in the same run (the
 * parse every extraction starts from), each over the site in turn after a full collection, after a warm-up round. Each page's figure is its median
 * over the rounds; a site's median and total are over those. BENCH_EXTRACT_OTHER=<checkout> also runs that
 * checkout's extractPage in the same turns (a checkout of main, to compare a change with main in one run).
 * `npx tsx --conditions=@docshelf/source bench/extract.bench.ts` runs this part alone (BENCH_EXTRACT_SITES and
 * BENCH_EXTRACT_ROUNDS narrow it).
 */
import path from 'node:path';
import v8 from 'node:v8';
import vm from 'node:vm';
import { load } from 'cheerio';
import { extractPage } from '@docshelf/crawler';
import { sitePages, type HtmlPage } from './extract-pages';

const SITES = ['nodejs-doc', 'git-doc', 'sphinx-doc', 'generated'];
// As the crawl benchmark: Node's all.html (5.8 MB, every other page at once) is no page a crawl of the site loads.
const EXCLUDED = new Set(['nodejs-doc/all.html']);

type Extract = (html: string, url: string) => unknown;

v8.setFlagsFromString('--expose-gc');
const collectGarbage = vm.runInNewContext('gc') as () => void;

function cpuMs(run: () => unknown): number {
  const started = process.cpuUsage();
  run();
  const used = process.cpuUsage(started);
  return (used.user + used.system) / 1000;
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = sorted.length >> 1;
  return sorted.length % 2 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2;
};

function loadOther(): Extract | null {
  const checkout = process.env.BENCH_EXTRACT_OTHER;
  if (!checkout) return null;
  const file = path.resolve(checkout, 'packages/crawler/src/extract/extract-page.ts');
  // eslint-disable-next-line @typescript-eslint/no-require-imports
  return (require(file) as { extractPage: Extract }).extractPage;
}

export function benchExtract(): void {
  const rounds = Number(process.env.BENCH_EXTRACT_ROUNDS ?? 5);
  const sites = process.env.BENCH_EXTRACT_SITES?.split(',') ?? SITES;
  const other = loadOther();
  const runners: Array<[string, Extract]> = [
    ['cheerio load', (html) => load(html)],
    ['extractPage', extractPage],
    ...(other ? [['other extractPage', other] as [string, Extract]] : []),
  ];
  console.log(`extraction CPU ms/page (median of ${rounds} rounds per page; site median and total over its pages)`);
  for (const site of sites) {
    const pages: HtmlPage[] = sitePages(site).filter((page) => !EXCLUDED.has(`${site}/${page.path}`));
    if (pages.length === 0) {
      console.log(`${site}: no pages (run scripts/fetch-debian-docs.sh)`);
      continue;
    }
    for (const page of pages) runners.forEach(([, run]) => run(page.html, page.url));
    const samples = runners.map(() => pages.map(() => [] as number[]));
    for (let round = 0; round < rounds; round++) {
      // Each runner over the whole site in turn, from a collected heap and in a rotating order, so the garbage one
      // runner leaves is not collected on another's time.
      for (let turn = 0; turn < runners.length; turn++) {
        const r = (round + turn) % runners.length;
        collectGarbage();
        pages.forEach((page, p) => samples[r]![p]!.push(cpuMs(() => runners[r]![1](page.html, page.url))));
      }
    }
    const perPage = samples.map((byPage) => byPage.map(median));
    const baseline = perPage[0]!;
    const figures = perPage.map((values, r) => {
      const total = values.reduce((sum, v) => sum + v, 0);
      const ratio = total / baseline.reduce((sum, v) => sum + v, 0);
      return `${runners[r]![0]} median ${median(values).toFixed(1)} total ${total.toFixed(0)} (${ratio.toFixed(2)}x load)`;
    });
    console.log(`${site.padEnd(11)} ${String(pages.length).padStart(4)} pages | ${figures.join(' | ')}`);
  }
}

if (require.main === module) benchExtract();
