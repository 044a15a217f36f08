import {
  admissionKeyOf,
  type Admission,
  type CrawlFrontier,
  type FrontierScope,
  type FrontierStart,
  type FrontierSummary,
  type PageLinks,
} from '@docshelf/core';
import type { Redis } from 'ioredis';
import { z } from 'zod';
import { LazyConsumerRedis } from './connections';

/** A crawl's frontier outlives the crawl only if its coordinator dies for good; it then expires. */
const FRONTIER_TTL_MS = 7 * 24 * 3600_000;
const SCOPE_CACHE_SIZE = 32;
const PARTS_READ_AT_ONCE = 16;

// KEYS: meta, depth, order, by, links, ids, urls. ARGV[1]: a JSON array of PageLinks, admitted one after the other.
// Each page's admission is atomic: the same rules as MemoryCrawlFrontier (packages/testing/src/fakes), which the shared
// contract holds both to. 'x' marks a URL found but never to be crawled. A done page's links are kept (for when its
// depth drops) as numbers of URLs interned in ids/urls, negative for robots-disallowed ones: a few bytes a link
// instead of the URL, since every page of a documentation site links to the same few hundred others.
const ADMIT = `
local meta, depths, order, by, stored, ids, urls = KEYS[1], KEYS[2], KEYS[3], KEYS[4], KEYS[5], KEYS[6], KEYS[7]
local function idOf(url)
  local id = redis.call('HGET', ids, url)
  if id then return id end
  id = redis.call('RPUSH', urls, url)
  redis.call('HSET', ids, url, id)
  return id
end
local function admit(input)
  if redis.call('EXISTS', meta) == 0 then return '{"admitted":[],"found":0}' end
  local part = input.part or 0
  local key = part == 0 and input.page or (input.page .. '#part-' .. part)
  local earlier = redis.call('HGET', by, key)
  if earlier then return '{"admitted":' .. earlier .. ',"found":0}' end
  local budget = tonumber(redis.call('HGET', meta, 'budget'))
  local deadline = tonumber(redis.call('HGET', meta, 'deadline'))
  local maxDepth = tonumber(redis.call('HGET', meta, 'maxDepth'))
  local late, found, admitted, work = 0, 0, {}, {}
  local function consider(link, depth)
    local url, allowed = link[1], link[2]
    local known = redis.call('HGET', depths, url)
    if not known then
      found = found + 1
      if allowed ~= 1 or budget <= 0 then redis.call('HSET', depths, url, 'x') return end
      budget = budget - 1
      if deadline >= 0 and input.now >= deadline then
        late = late + 1
        redis.call('HSET', depths, url, 'x')
        return
      end
      redis.call('HSET', depths, url, depth)
      redis.call('RPUSH', order, url)
      admitted[#admitted + 1] = url
    elseif known ~= 'x' and tonumber(known) > depth then
      redis.call('HSET', depths, url, depth)
      if depth < maxDepth and redis.call('HEXISTS', stored, url) == 1 then work[#work + 1] = { url, depth } end
    end
  end
  if input.finalOrigin then
    local origins = cjson.decode(redis.call('HGET', meta, 'origins'))
    local present = false
    for _, o in ipairs(origins) do if o == input.finalOrigin then present = true end end
    if not present then
      origins[#origins + 1] = input.finalOrigin
      redis.call('HSET', meta, 'origins', cjson.encode(origins))
    end
  end
  local depth = tonumber(redis.call('HGET', depths, input.page)) or 0
  if input.finalUrl and redis.call('HEXISTS', depths, input.finalUrl) == 0 then
    redis.call('HSET', depths, input.finalUrl, 'x')
    found = found + 1
  end
  for _, link in ipairs(input.sitemap) do consider(link, 1) end
  if depth < maxDepth then
    for _, link in ipairs(input.links) do consider(link, depth + 1) end
  end
  if maxDepth >= 3 then
    local numbers = {}
    for n, link in ipairs(input.links) do
      local id = idOf(link[1])
      numbers[n] = link[2] == 1 and id or ('-' .. id)
    end
    local list = table.concat(numbers, ',')
    local before = part > 0 and redis.call('HGET', stored, input.page) or false
    if before and before ~= '' then list = list == '' and before or (before .. ',' .. list) end
    redis.call('HSET', stored, input.page, list)
  end
  local i = 1
  while i <= #work do
    local page, from = work[i][1], work[i][2]
    for number in string.gmatch(redis.call('HGET', stored, page), '[^,]+') do
      local id = tonumber(number)
      consider({ redis.call('LINDEX', urls, math.abs(id) - 1), id > 0 and 1 or 0 }, from + 1)
    end
    i = i + 1
  end
  redis.call('HSET', meta, 'budget', budget)
  redis.call('HINCRBY', meta, 'late', late)
  local list = #admitted == 0 and '[]' or cjson.encode(admitted)
  redis.call('HSET', by, key, list)
  return '{"admitted":' .. list .. ',"found":' .. found .. '}'
end
local answers = {}
for i, input in ipairs(cjson.decode(ARGV[1])) do answers[i] = admit(input) end
if redis.call('EXISTS', meta) == 1 then
  local ttl = tonumber(redis.call('HGET', meta, 'ttl'))
  for _, key in ipairs(KEYS) do redis.call('PEXPIRE', key, ttl) end
end
return '[' .. table.concat(answers, ',') .. ']'`;

type AdmittingRedis = Redis & { admitLinks(...keysThenInputs: string[]): Promise<unknown> };

const admissionsSchema = z.array(z.object({ admitted: z.array(z.string()), found: z.number().int().min(0) }));
const scopeSchema = z.object({
  origins: z.array(z.string()),
  includePaths: z.array(z.string()),
  excludePaths: z.array(z.string()),
  robotsTxt: z.string().nullable(),
  useSitemap: z.boolean(),
});
const urlsSchema = z.array(z.string());

/**
 * CrawlFrontier over Redis, shared by the page jobs of a crawl on every worker process: one hash of known URLs and
 * their depths, the order pages were handed out, what each page admitted, and the crawl's budget and deadline. An
 * admission is one Lua script, so two pages that find the same link at once hand it out once.
 */
export class RedisCrawlFrontier implements CrawlFrontier {
  private readonly connection: LazyConsumerRedis;
  /**
   * A crawl's scope, read once per process: only the seed's admission changes it (adding the seed's final origin),
   * and every other page of the crawl runs after that admission (the seed's retry reads it afresh).
   */
  private readonly scopes = new Map<string, FrontierScope>();

  constructor(
    redisUrl: string,
    private readonly prefix: string,
  ) {
    this.connection = new LazyConsumerRedis(redisUrl);
  }

  private redis(): AdmittingRedis {
    const redis = this.connection.get();
    // Sent by its SHA (EVALSHA), the script itself only when Redis does not have it yet.
    if (!('admitLinks' in redis)) redis.defineCommand('admitLinks', { numberOfKeys: 7, lua: ADMIT });
    return redis as AdmittingRedis;
  }

  close(): void {
    this.connection.close();
  }

  private keys(crawlId: string) {
    const base = `${this.prefix}:crawl-frontier:${crawlId}`;
    return {
      meta: `${base}:meta`,
      depth: `${base}:depth`,
      order: `${base}:order`,
      by: `${base}:by`,
      links: `${base}:links`,
      ids: `${base}:ids`,
      urls: `${base}:urls`,
    };
  }

  async open(crawlId: string, start: FrontierStart): Promise<void> {
    const keys = this.keys(crawlId);
    const depths: string[] = [];
    const scheduled = new Set(start.scheduled);
    for (const url of new Set([...start.found, ...start.scheduled])) depths.push(url, scheduled.has(url) ? '0' : 'x');
    const tx = this.redis()
      .multi()
      .unlink(...Object.values(keys));
    tx.hset(keys.meta, {
      budget: start.budget,
      deadline: start.deadline ?? -1,
      maxDepth: start.maxDepth,
      late: 0,
      ttl: FRONTIER_TTL_MS,
      origins: JSON.stringify(start.origins),
      includePaths: JSON.stringify(start.includePaths),
      excludePaths: JSON.stringify(start.excludePaths),
      robotsTxt: JSON.stringify(start.robotsTxt),
      useSitemap: JSON.stringify(start.useSitemap),
    });
    if (depths.length > 0) tx.hset(keys.depth, ...depths);
    if (start.scheduled.length > 0) tx.rpush(keys.order, ...start.scheduled);
    for (const key of [keys.meta, keys.depth, keys.order]) tx.pexpire(key, FRONTIER_TTL_MS);
    await tx.exec();
    this.scopes.delete(crawlId);
  }

  async scope(crawlId: string): Promise<FrontierScope | null> {
    const known = this.scopes.get(crawlId);
    if (known) return { ...known, origins: [...known.origins] };
    const { meta } = this.keys(crawlId);
    const fields = ['origins', 'includePaths', 'excludePaths', 'robotsTxt', 'useSitemap'] as const;
    const values = await this.redis().hmget(meta, ...fields);
    if (values.some((v) => v === null)) return null;
    const scope = scopeSchema.parse(Object.fromEntries(fields.map((f, i) => [f, JSON.parse(values[i]!)])));
    if (this.scopes.size >= SCOPE_CACHE_SIZE) this.scopes.delete(this.scopes.keys().next().value!);
    this.scopes.set(crawlId, scope);
    return { ...scope, origins: [...scope.origins] };
  }

  async admit(crawlId: string, links: PageLinks): Promise<Admission> {
    return (await this.admitEach(crawlId, [links]))[0]!;
  }

  async admitEach(crawlId: string, pages: PageLinks[]): Promise<Admission[]> {
    if (pages.length === 0) return [];
    const keys = this.keys(crawlId);
    const inputs = pages.map((links) => ({
      ...links,
      sitemap: (links.sitemap ?? []).map((l) => [l.url, l.allowed ? 1 : 0]),
      links: links.links.map((l) => [l.url, l.allowed ? 1 : 0]),
    }));
    const answer = await this.redis().admitLinks(
      keys.meta,
      keys.depth,
      keys.order,
      keys.by,
      keys.links,
      keys.ids,
      keys.urls,
      JSON.stringify(inputs),
    );
    const known = this.scopes.get(crawlId);
    for (const { finalOrigin } of pages)
      if (finalOrigin && known && !known.origins.includes(finalOrigin)) known.origins.push(finalOrigin);
    return admissionsSchema.parse(JSON.parse(String(answer)));
  }

  async admittedBy(crawlId: string, page: string): Promise<string[] | null> {
    const { by } = this.keys(crawlId);
    const earlier = await this.redis().hget(by, page);
    if (earlier === null) return null;
    const all = urlsSchema.parse(JSON.parse(earlier));
    // The later parts of a page admitted in parts, read a few at a time until one is missing.
    for (let first = 1; ; first += PARTS_READ_AT_ONCE) {
      const keys = Array.from({ length: PARTS_READ_AT_ONCE }, (_, i) => admissionKeyOf(page, first + i));
      const parts = await this.redis().hmget(by, ...keys);
      for (const part of parts) {
        if (part === null) return all;
        all.push(...urlsSchema.parse(JSON.parse(part)));
      }
    }
  }

  async summary(crawlId: string): Promise<FrontierSummary | null> {
    const keys = this.keys(crawlId);
    const [meta, found, order] = (
      (await this.redis()
        .multi()
        .hmget(keys.meta, 'late', 'maxDepth')
        .hlen(keys.depth)
        .lrange(keys.order, 0, -1)
        .exec()) ?? []
    ).map(([error, value]) => {
      if (error) throw error;
      return value;
    });
    const [late, maxDepth] = (meta ?? [null, null]) as Array<string | null>;
    if (late === null || maxDepth === null) return null;
    const urls = order as string[];
    const depths = urls.length > 0 ? await this.redis().hmget(keys.depth, ...urls) : [];
    return {
      found: Number(found),
      scheduled: urls.map((url, i) => ({ url, depth: Number(depths[i]) })),
      late: Number(late),
      maxDepth: Number(maxDepth),
    };
  }

  async drop(crawlId: string): Promise<void> {
    this.scopes.delete(crawlId);
    await this.redis().unlink(...Object.values(this.keys(crawlId)));
  }
}
