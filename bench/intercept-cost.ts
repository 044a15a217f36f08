/**
 * What intercepting a page's requests costs Chromium, against the bare Playwright loop (one browser, one context, 4
 * tabs, `goto` until `load` + `content()`) over a site's pages. Variants: `plain`; `continue` (every request through
 * `route.continue()`); `fulfill` (every request answered from Node with `route.fulfill`, bodies fetched once and kept,
 * as Docshelf's subresource cache does), `fulfill-lean` (no images, media or fonts) and `fulfill-nocss` (no
 * stylesheets either); `proxy` and `proxy-lean` (no route, every request through a forwarding proxy in Node, as a
 * policy-checking proxy would be); `pool` (Docshelf's BrowserPool as the worker configures it, with the wall time of
 * each stage of its renders). Each variant runs in a process of its own under `/usr/bin/time`, so the CPU printed is
 * the whole tree's (Node and every Chromium process) per page, with the Node process's own beside it; the variants
 * alternate, `INTERCEPT_ROUNDS` times (default 2); `INTERCEPT_VARIANTS=plain,pool` picks some;
 * `INTERCEPT_PROFILE=<dir>` writes a V8 CPU profile of each child there.
 * `npx tsx --conditions=@docshelf/source bench/intercept-cost.ts [sphinx-doc|nodejs-doc|git-doc|generated-150]`,
 * over the crawl benchmark's URL list of that site.
 */
import { execFile } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import { BrowserPool, createAddressPolicy, findChromium } from '@docshelf/crawler';
import { chromium, type Route } from 'playwright-core';
import { serveBenchSites } from './bench-sites';

const VARIANTS = [
  'plain',
  'continue',
  'fulfill',
  'fulfill-lean',
  'fulfill-nocss',
  'proxy',
  'proxy-lean',
  'pool',
] as const;
type Variant = (typeof VARIANTS)[number];

/** The child: one variant over the listed URLs at concurrency 4; prints pages and wall seconds. */
async function child(variant: Variant, urlsFile: string, chromiumPath: string): Promise<void> {
  const urls = JSON.parse(fs.readFileSync(urlsFile, 'utf8')) as string[];
  if (variant === 'pool') return renderInPool(urls, chromiumPath);
  const proxied = variant.startsWith('proxy');
  const lean = variant.endsWith('-lean');
  const proxy = proxied ? await startForwardingProxy() : undefined;
  const browser = await chromium.launch({
    executablePath: chromiumPath,
    args: ['--disable-gpu', ...(lean ? ['--blink-settings=imagesEnabled=false'] : [])],
    // `<-loopback>`: Chromium otherwise sends 127.0.0.1 around its proxy.
    ...(proxy ? { proxy: { server: proxy.url, bypass: '<-loopback>' } } : {}),
  });
  const context = await browser.newContext();
  const bodies = new Map<string, Promise<{ status: number; headers: Record<string, string>; body: Buffer }>>();
  if (variant === 'continue') await context.route('**/*', (route: Route) => route.continue());
  if (variant.startsWith('fulfill')) {
    await context.route('**/*', async (route: Route) => {
      const url = route.request().url();
      const type = route.request().resourceType();
      if ((lean || variant === 'fulfill-nocss') && ['image', 'media', 'font'].includes(type))
        return route.abort('aborted');
      if (variant === 'fulfill-nocss' && type === 'stylesheet') return route.abort('aborted');
      const isDocument = route.request().resourceType() === 'document';
      let entry = isDocument ? undefined : bodies.get(url);
      if (!entry) {
        entry = fetch(url).then(async (r) => ({
          status: r.status,
          headers: { 'content-type': r.headers.get('content-type') ?? 'application/octet-stream' },
          body: Buffer.from(await r.arrayBuffer()),
        }));
        if (!isDocument) bodies.set(url, entry);
      }
      await route.fulfill(await entry);
    });
  }
  const started = performance.now();
  let next = 0;
  let pages = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      const page = await context.newPage();
      while (next < urls.length) {
        const url = urls[next++]!;
        const response = await page.goto(url, { waitUntil: 'load' }).catch(() => null);
        if (response?.ok()) {
          await page.content();
          pages++;
        }
      }
    }),
  );
  console.log(JSON.stringify({ pages, seconds: (performance.now() - started) / 1000, nodeCpuMs: nodeCpuMs() }));
  await browser.close();
  proxy?.server.close();
}

/** Docshelf's BrowserPool as the worker configures it, 4 pages at a time; prints where each render's time went. */
async function renderInPool(urls: string[], chromiumPath: string): Promise<void> {
  const pool = new BrowserPool({
    chromiumPath,
    maxPages: 4,
    policy: createAddressPolicy({ allowlist: ['127.0.0.1'] }),
    recycleAfterPages: 500,
    recycleAfterMb: 768,
    pageMaxMb: 1024,
  });
  const started = performance.now();
  const stages: Record<string, number> = {};
  let next = 0;
  let pages = 0;
  await Promise.all(
    Array.from({ length: 4 }, async () => {
      while (next < urls.length) {
        const url = urls[next++]!;
        const page = await pool.render(url, { timeoutMs: 30_000 }).catch(() => null);
        if (page && page.status < 400) pages++;
        for (const [stage, ms] of Object.entries(page?.timings ?? {})) stages[stage] = (stages[stage] ?? 0) + ms;
      }
    }),
  );
  const seconds = (performance.now() - started) / 1000;
  const perPage = Object.entries(stages).map(([stage, ms]) => `${stage} ${(ms / pages).toFixed(0)}`);
  console.error(`pool wall ms/page by stage: ${perPage.join(', ')}`);
  console.log(JSON.stringify({ pages, seconds, nodeCpuMs: nodeCpuMs() }));
  await pool.close();
}

/** CPU of this Node process so far (its threads included), milliseconds. */
function nodeCpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

/** A plain HTTP forwarding proxy (absolute-URI requests only, as Chromium sends for http:// pages). */
async function startForwardingProxy(): Promise<{ url: string; server: http.Server }> {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 });
  const server = http.createServer((req, res) => {
    const target = new URL(req.url!);
    const upstream = http.request(
      target,
      { method: req.method, headers: { ...req.headers, connection: 'keep-alive' }, agent },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    upstream.on('error', () => res.destroy());
    req.pipe(upstream);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return { url: `http://127.0.0.1:${(server.address() as { port: number }).port}`, server };
}

async function main(): Promise<void> {
  const chromiumPath = findChromium(process.env.CHROMIUM_PATH)!;
  if (process.argv[2] === '--child') return child(process.argv[3] as Variant, process.argv[4]!, chromiumPath);
  const which = process.argv[2] ?? 'sphinx-doc';
  const [site] = await serveBenchSites([which]);
  if (!site) throw new Error(`no site ${which}: one of generated-150, nodejs-doc, git-doc, sphinx-doc`);
  const { server, urls } = site;
  const urlsFile = path.join(fs.mkdtempSync(path.join(os.tmpdir(), 'intercept-')), 'urls.json');
  fs.writeFileSync(urlsFile, JSON.stringify(urls));
  const rounds = Number(process.env.INTERCEPT_ROUNDS ?? 2);
  const chosen = process.env.INTERCEPT_VARIANTS
    ? (process.env.INTERCEPT_VARIANTS.split(',') as Variant[]).filter((v) => VARIANTS.includes(v))
    : VARIANTS;
  console.log(`${which}: ${urls.length} URLs, concurrency 4, ${rounds} rounds, variants alternating`);
  console.log('variant     pages   wall s  pages/s  tree CPU ms/page  of it Node');
  try {
    for (let round = 0; round < rounds; round++) {
      for (const variant of chosen) {
        const { stdout, stderr } = await promisify(execFile)(
          '/usr/bin/time',
          [
            '-f',
            'CPU %U %S',
            process.execPath,
            // INTERCEPT_PROFILE=<dir>: each child writes a V8 CPU profile there.
            ...(process.env.INTERCEPT_PROFILE ? ['--cpu-prof', `--cpu-prof-dir=${process.env.INTERCEPT_PROFILE}`] : []),
            '--conditions=@docshelf/source',
            '--import',
            'tsx',
            __filename,
            '--child',
            variant,
            urlsFile,
          ],
          { maxBuffer: 16 * 1024 * 1024 },
        );
        const run = JSON.parse(stdout.trim().split('\n').pop()!) as {
          pages: number;
          seconds: number;
          nodeCpuMs: number;
        };
        const [, user, system] = /CPU ([\d.]+) ([\d.]+)/.exec(stderr)!;
        const stages = /pool wall ms\/page by stage: .*/.exec(stderr)?.[0];
        const cpuMs = (Number(user) + Number(system)) * 1000;
        console.log(
          `${variant.padEnd(10)} ${String(run.pages).padStart(6)} ${run.seconds.toFixed(1).padStart(8)} ${(run.pages / run.seconds).toFixed(2).padStart(8)} ${(cpuMs / run.pages).toFixed(0).padStart(17)} ${(run.nodeCpuMs / run.pages).toFixed(0).padStart(12)}`,
        );
        if (stages) console.log(`  ${stages}`);
      }
    }
  } finally {
    await server.close();
  }
}

main().catch((error: unknown) => {
  console.error(error);
  process.exitCode = 1;
});
