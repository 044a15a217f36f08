/**
 * Refresh: a first crawl of the 150-page fixture site against a re-crawl of the unchanged site, per renderer, in one
 * run on one service (API, worker, SQLite and Redis in one process, the site on 127.0.0.1 with ETag and
 * Last-Modified). Embedding calls are counted on the worker's embedder.
 */
import request from 'supertest';
import { generateDocsSite } from '../test/fixtures/generated-docs-site';
import { serveFixtures } from '../test/support/fixture-server';
import { startHarness } from '../test/support/harness';

const RENDERERS = ['browser', 'http'] as const;

export async function benchRecrawl(): Promise<void> {
  const h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1', CRAWL_WAIT_TIMEOUT_MS: '600000', JOB_WAIT_TIMEOUT_MS: '600000' });
  const docs = generateDocsSite();
  const site = await serveFixtures({ routes: docs.route });
  let calls = 0;
  let texts = 0;
  const embed = h.adapters.embedder.embed.bind(h.adapters.embedder);
  h.adapters.embedder.embed = async (batch, scope) => {
    if (scope?.kind === 'document') {
      calls += 1;
      texts += batch.length;
    }
    return embed(batch, scope);
  };
  try {
    const auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    console.log('\nre-crawl of the unchanged 150-page fixture site (replace: true) against its first crawl');
    for (const renderer of RENDERERS) {
      const crawl = async () => {
        calls = 0;
        texts = 0;
        const started = process.hrtime.bigint();
        const body = { libraryId: `bench/recrawl-${renderer}`, name: 'Widgetry', urls: [`${site.origin}${docs.indexPath}`], replace: true, renderer };
        const res = await request(h.app).post('/api/crawl').set(auth).send(body).expect(200);
        return { ms: Number(process.hrtime.bigint() - started) / 1e6, body: res.body, calls, texts };
      };
      const first = await crawl();
      const again = await crawl();
      const line = (name: string, r: typeof first) =>
        `${name.padEnd(34)} ${(r.ms / 1000).toFixed(2).padStart(7)} s  pages ${r.body.pagesCrawled}  unchanged ${String(r.body.pagesUnchanged).padStart(3)}  ` +
        `chunks ${r.body.chunksIngested}  embedding calls ${r.calls} (${r.texts} texts)`;
      console.log(line(`renderer ${renderer}: first crawl`, first));
      console.log(`${line(`renderer ${renderer}: unchanged re-crawl`, again)} | ${(first.ms / again.ms).toFixed(1)}x faster (target ≥ 5x)`);
    }
  } finally {
    await site.close();
    await h.close();
  }
}

if (require.main === module) {
  benchRecrawl().then(
    () => process.exit(0),
    (error) => {
      console.error(error);
      process.exit(1);
    },
  );
}
