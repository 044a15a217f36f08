import type { StoredChunk } from '@docshelf/core';
import request from 'supertest';
import { DOCS_SITE, serveFixtures, type FixtureServer } from './fixture-site';
import { startHarness, type Harness } from './harness';

/** What the tests of a docs-site crawl suite reach, read when a test runs. */
export interface DocsSiteCrawl {
  readonly h: Harness;
  /** The docs fixture site, served afresh for each test: its `requests` are that test's alone. */
  readonly site: FixtureServer;
  /** POST /api/crawl with an admin key. */
  crawl(body: object): request.Test;
  /** A library's chunks, in order. */
  chunksOf(libraryId: string): Promise<StoredChunk[]>;
}

/**
 * A suite of crawls of the docs fixture site through the API (real Chromium, real worker): one harness that may crawl
 * 127.0.0.1 and an admin key for the suite, the site for each test. `concern` says what the suite's tests are about.
 */
export function describeDocsSiteCrawl(concern: string, tests: (suite: DocsSiteCrawl) => void): void {
  describe(`POST /api/crawl on a fixture docs site: ${concern} (real Chromium, real worker)`, () => {
    let h: Harness;
    let site: FixtureServer;
    let auth: { Authorization: string };

    beforeAll(async () => {
      h = await startHarness({ PRIVATE_HOST_ALLOWLIST: '127.0.0.1' });
      auth = { Authorization: `Bearer ${await h.createKey('admin')}` };
    });
    beforeEach(async () => {
      site = await serveFixtures({ root: DOCS_SITE });
    });
    afterEach(async () => site.close());
    afterAll(async () => h.close());

    tests({
      get h() {
        return h;
      },
      get site() {
        return site;
      },
      crawl: (body) => request(h.app).post('/api/crawl').set(auth).send(body),
      chunksOf: (libraryId) => h.adapters.libraries.listChunks(libraryId, { offset: 0, limit: 10_000 }),
    });
  });
}
