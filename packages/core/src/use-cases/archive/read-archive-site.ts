import { boundLinks } from '../../crawl/link-bounds';
import { repeatableKeysInTurns } from '../../crawl/repeated-blocks';
import { sha256Hex } from '../../domain/chunk-provenance';
import type { JobContext } from '../../jobs/workflow';
import type { StagingStore } from '../../ports';
import type { ArchiveContents } from '../../sources/archive-source';
import type { CrawledPages } from '../crawl/commit-crawl';

/** Pages reached from no other page are named in `errors` up to this many, then counted. */
const UNREACHED_NAMED = 20;

interface StagedArchivePage {
  finalUrl: string;
  title: string;
  markdown: string;
  /** The page or file as stored, for its content hash. */
  text: string;
  /** Documentation files are content as a whole, as a crawl's text files are. */
  landmark: boolean;
  links: string[];
}

/**
 * Stages an uploaded archive as a crawl stages the pages it fetched, so the crawl's commit (lines repeated across the
 * pages dropped, each page chunked) writes it: the site's pages breadth-first from its root page, following the links
 * extraction finds to pages the archive has (as a crawl follows same-origin links, whatever their depth); or, in an
 * archive without pages, its documentation files. A page no link reaches is left out, as a crawl would never see it,
 * and named in `errors`.
 */
export async function stageArchive(
  deps: { staging: Pick<StagingStore, 'stagePage'>; now: () => Date },
  archive: {
    stagingId: string;
    contents: ArchiveContents;
    /** The URL the archive's top folder is read under (the base URL asked for, or the placeholder). */
    rootUrl: string;
    maxPages: number;
    publicUrls: (text: string) => string;
  },
  ctx: JobContext,
): Promise<CrawledPages> {
  const { stagingId, contents, rootUrl, maxPages, publicUrls } = archive;
  const errors = contents.skipped.map((file) => `${file.path}: ${file.reason}`);
  const crawled: string[] = [];
  let failed = 0;
  const stage = async (url: string, page: StagedArchivePage) => {
    const fetchedAt = deps.now();
    const markdown = publicUrls(page.markdown);
    const content = {
      finalUrl: publicUrls(page.finalUrl),
      title: page.title,
      markdown,
      landmark: page.landmark,
      links: page.links.map(publicUrls),
      lineKeys: await repeatableKeysInTurns({ markdown, landmark: page.landmark }),
      validators: { contentHash: sha256Hex(page.text) },
      fetchedAt: fetchedAt.toISOString(),
    };
    await deps.staging.stagePage({ stagingId, url, chunks: [], page: content, now: fetchedAt });
    crawled.push(url);
  };
  const site = contents.site;
  const total = Math.min(maxPages, site ? site.pages.length : contents.files.length);
  await ctx.reportProgress({ phase: 'crawling', set: { done: 0, total } });
  if (site) {
    const order = [...site.seeds];
    const found = new Set(order);
    for (let i = 0; i < order.length && crawled.length < maxPages; i++) {
      const url = order[i]!;
      let page;
      try {
        page = await site.load(url, ctx.signal);
      } catch (error) {
        if (ctx.signal.aborted) throw error;
        failed += 1;
        errors.push(`${publicUrls(url)}: ${(error as Error).message}`);
        continue;
      }
      if (!page) continue;
      const bounded = boundLinks(page.links);
      await stage(url, { ...page, finalUrl: page.url, landmark: page.landmark ?? false, links: bounded.links });
      const notes = [...(page.lostContent ? [page.lostContent] : []), ...bounded.notes];
      errors.push(...notes.map((note) => `${publicUrls(url)}: ${note}`));
      for (const link of bounded.links) {
        if (found.has(link) || !site.has(link)) continue;
        found.add(link);
        order.push(link);
      }
      await ctx.reportProgress({ add: { done: 1, pagesCrawled: 1 } });
    }
    const unreached = site.pages.filter((url) => !found.has(url));
    if (crawled.length < maxPages && unreached.length > 0) {
      const named = unreached.slice(0, UNREACHED_NAMED).map(publicUrls).join(', ');
      const more = unreached.length > UNREACHED_NAMED ? ` and ${unreached.length - UNREACHED_NAMED} more` : '';
      const pages =
        unreached.length === 1
          ? '1 page reached by no link from the root page was'
          : `${unreached.length} pages reached by no link from the root page were`;
      errors.push(`${pages} left out: ${named}${more}`);
    }
  }
  // A built site's Markdown files are the sources of its pages (nodejs-doc ships some beside its HTML): read, they would
  // say the pages' text twice.
  const files = site ? [] : contents.files;
  if (site && contents.files.length > 0) {
    errors.push(
      `${contents.files.length} Markdown, MDX or reStructuredText files beside the site's pages were not read (a built site's sources): ${contents.files
        .slice(0, UNREACHED_NAMED)
        .map((file) => file.path)
        .join(', ')}`,
    );
  }
  for (const file of files) {
    if (crawled.length >= maxPages) break;
    const url = new URL(file.path.split('/').map(encodeURIComponent).join('/'), rootUrl).href;
    await stage(url, { ...file, finalUrl: url, landmark: true, links: [] });
    await ctx.reportProgress({ add: { done: 1, pagesCrawled: 1 } });
  }
  const left = (site ? site.pages.length : contents.files.length) - crawled.length;
  if (crawled.length >= maxPages && left > 0)
    errors.push(
      `the page limit of ${maxPages.toLocaleString('en')} was reached: ${left} more pages and files were not read`,
    );
  return { crawled, unchanged: 0, failed, gone: [], errors };
}
