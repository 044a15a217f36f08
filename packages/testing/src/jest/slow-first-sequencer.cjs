// Jest's order of suites: the ones known to take the longest first. With timings of its own (a second run in the same
// folder) jest starts the slowest first by itself; a fresh clone has none, and jest then goes by file size, which put a
// minute-long suite with a small file last and left the other worker idle while it ran. Listed from CI's times on its
// two cores, slowest first; every other suite follows in jest's own order.
const Sequencer = require('@jest/test-sequencer').default;

const SLOWEST_FIRST = [
  'test/reliability/hostile-pages.rel.test.ts',
  'test/extraction/debian-words.test.ts',
  'test/crawl-whole-site.e2e.test.ts',
  'test/ingest-archive.e2e.test.ts',
  'test/reliability/process-faults.rel.test.ts',
  'packages/crawler/src/browser/browser-pool.test.ts',
  'test/crawl-boilerplate.e2e.test.ts',
  'packages/crawler/src/extract/page-extractor.test.ts',
  'test/ops-shutdown.e2e.test.ts',
  'test/jobs-durability.e2e.test.ts',
  'test/ops-stall.e2e.test.ts',
  'test/reliability/ssrf-matrix.rel.test.ts',
  'test/reliability/crawl-limits.rel.test.ts',
  'test/debian-docs.e2e.test.ts',
];

class SlowestFirst extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    const rank = (test) => {
      const index = SLOWEST_FIRST.findIndex((suffix) => test.path.endsWith(suffix));
      return index === -1 ? SLOWEST_FIRST.length : index;
    };
    // Array.prototype.sort is stable: the suites not listed keep jest's order.
    return [...sorted].sort((a, b) => rank(a) - rank(b));
  }
}

module.exports = SlowestFirst;
