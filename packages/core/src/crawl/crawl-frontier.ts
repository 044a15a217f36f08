import { createHash } from 'node:crypto';

/** What a crawl's page jobs need to tell which of their links are in scope; fixed when the crawl starts. */
export interface FrontierScope {
  /** The seed's origin, and where the seed redirected to once the seed page is done. */
  origins: string[];
  includePaths: string[];
  excludePaths: string[];
  robotsTxt: string | null;
  /** The seed of a crawl that asked for its sitemap: its page job admits the sitemap's URLs first. */
  useSitemap: boolean;
}

export interface FrontierStart extends FrontierScope {
  /** Every URL known when the crawl starts (seeds, robots-disallowed ones too). */
  found: string[];
  /** The seeds crawled, at depth 0. */
  scheduled: string[];
  /** Pages that may still be handed out after the seeds (maxPages less the seeds). */
  budget: number;
  maxDepth: number;
  /** CRAWL_MAX_DURATION_MS as a time (ms since the epoch): pages found after it are counted, not crawled. */
  deadline?: number;
}

/** A link found on a page, in scope by origin and path; `allowed` is robots.txt's answer. */
export interface FoundLink {
  url: string;
  allowed: boolean;
}

export interface PageLinks {
  /** The page that found them (its URL as scheduled). */
  page: string;
  /** Time of the admission (ms since the epoch), against the crawl's deadline. */
  now: number;
  /** The seed's final origin: in scope from now on (before `links` are admitted). */
  finalOrigin?: string;
  /** The page's final URL when it redirected: known from now on, so a link to it is not crawled again. */
  finalUrl?: string;
  /** Taken at depth 1 whatever the page's depth (the seed's sitemap URLs), before `links`. */
  sitemap?: FoundLink[];
  /** The page's links in document order; taken when the page's depth is below maxDepth. */
  links: FoundLink[];
  /**
   * A page with many links is admitted in parts, each a call of bounded size (0, 1, 2…, the sitemap's first): each part
   * is answered once like a page (a retried part answers as before), its links kept after the earlier parts'.
   * `finalOrigin` and `finalUrl` go with part 0.
   */
  part?: number;
}

export interface Admission {
  /** The URLs this page hands out, in order: to be crawled as children of the crawl. */
  admitted: string[];
  /** URLs seen for the first time (pagesDiscovered grows by this). */
  found: number;
}

/** The key a page's part is answered under: the page's URL for part 0 (what a page admitted at once is kept under). */
export function admissionKeyOf(page: string, part = 0): string {
  return part === 0 ? page : `${page}#part-${part}`;
}

export interface FrontierSummary {
  /** Every in-scope URL found, seeds and robots-disallowed ones included. */
  found: number;
  /** Every page handed out (seeds first), in the order it was handed out, with its depth from the seed. */
  scheduled: Array<{ url: string; depth: number }>;
  /** Pages that would have been crawled but were found after the crawl's deadline. */
  late: number;
  maxDepth: number;
}

/**
 * Which pages of one crawl are known and which were handed out, shared by its page jobs on every worker: a page's
 * links are admitted as soon as the page is done, so pages fan out as they are found instead of level by level.
 * Admission is atomic and decides exactly as a breadth-first crawl would: a URL is taken once, while the budget
 * (maxPages) lasts and before the deadline, and only from a page above maxDepth. A page's depth is the length of the
 * shortest link path to it found so far: when a shorter one turns up, the page's depth drops and, if it is done
 * already, its links are admitted again from there (so a page reached late by a long path still leads the crawl on
 * as breadth-first order would have). Admitting the links of one page twice (a retried job) admits nothing new and
 * answers what the first call admitted.
 */
export interface CrawlFrontier {
  /** Starts a crawl's frontier afresh (a coordinator that runs its first step again starts over). */
  open(crawlId: string, start: FrontierStart): Promise<void>;
  scope(crawlId: string): Promise<FrontierScope | null>;
  admit(crawlId: string, links: PageLinks): Promise<Admission>;
  /** The admissions of several pages (or parts), one after the other as `admit` would make them, in one call. */
  admitEach(crawlId: string, pages: PageLinks[]): Promise<Admission[]>;
  /** What an earlier attempt of this page's job admitted (null: none), to hand out again after a crash. */
  admittedBy(crawlId: string, page: string): Promise<string[] | null>;
  summary(crawlId: string): Promise<FrontierSummary | null>;
  drop(crawlId: string): Promise<void>;
}

/** A page's key within its crawl's workflow: derived from its URL, so a URL added twice is one job. */
export function pageKeyOf(url: string): string {
  return `p${createHash('sha256').update(url).digest('hex').slice(0, 32)}`;
}
