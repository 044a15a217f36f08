import type { SafeResponse } from '../fetch/safe-fetch';

export interface SubresourceCacheOptions {
  /** Total bytes of bodies kept; the least recently used go first. */
  maxBytes?: number;
  /** Largest single body kept. */
  maxEntryBytes?: number;
  /** How long an entry is served, from when it was fetched: about one crawl. */
  ttlMs?: number;
}

interface Entry {
  response: SafeResponse;
  expiresAt: number;
}

/**
 * Stylesheets and scripts shared by the pages of a crawl, fetched once through the checked fetch (so checked by the
 * address policy once) and handed to every page that asks for the same URL while fresh. Only plain public answers are
 * kept: GET 200 without cookies sent or set, not `no-store`/`private`. Concurrent requests for one URL share one fetch.
 */
export class SubresourceCache {
  private readonly entries = new Map<string, Entry>();
  private readonly inFlight = new Map<string, Promise<SafeResponse>>();
  private bytes = 0;
  private readonly maxBytes: number;
  private readonly maxEntryBytes: number;
  private readonly ttlMs: number;
  hits = 0;
  misses = 0;

  constructor(options: SubresourceCacheOptions = {}) {
    this.maxBytes = options.maxBytes ?? 64 * 2 ** 20;
    this.maxEntryBytes = options.maxEntryBytes ?? 2 * 2 ** 20;
    this.ttlMs = options.ttlMs ?? 5 * 60_000;
  }

  /** Answers from the cache, joins a fetch of the same URL in flight, or fetches and keeps what may be kept. */
  async get(url: string, fetchIt: () => Promise<SafeResponse>): Promise<SafeResponse> {
    const entry = this.entries.get(url);
    if (entry && entry.expiresAt > Date.now()) {
      this.entries.delete(url);
      this.entries.set(url, entry);
      this.hits += 1;
      return entry.response;
    }
    if (entry) this.remove(url);
    const pending = this.inFlight.get(url);
    if (pending) {
      this.hits += 1;
      return pending;
    }
    this.misses += 1;
    const fetching = fetchIt().finally(() => this.inFlight.delete(url));
    this.inFlight.set(url, fetching);
    const response = await fetching;
    if (this.mayKeep(response)) this.put(url, response);
    return response;
  }

  private mayKeep(response: SafeResponse): boolean {
    const cacheControl = response.headers['cache-control'] ?? '';
    return (
      response.status === 200 &&
      response.redirects.length === 0 &&
      !response.headers['set-cookie'] &&
      !/no-store|private/i.test(cacheControl) &&
      response.body.length <= this.maxEntryBytes
    );
  }

  private put(url: string, response: SafeResponse): void {
    this.remove(url);
    this.entries.set(url, { response, expiresAt: Date.now() + this.ttlMs });
    this.bytes += response.body.length;
    for (const [oldest] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.remove(oldest);
    }
  }

  private remove(url: string): void {
    const entry = this.entries.get(url);
    if (!entry) return;
    this.entries.delete(url);
    this.bytes -= entry.response.body.length;
  }
}
