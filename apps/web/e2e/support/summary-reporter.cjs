// Ends a Playwright run with the same plain line as jest's (`N passed, N failed, N skipped`); with
// DOCSHELF_TEST_COUNTS set, also writes the counts there so `npm test` can add both runs into one line.
const fs = require('node:fs');

class SummaryReporter {
  constructor() {
    this.counts = { passed: 0, failed: 0, skipped: 0 };
    this.setupFailed = false;
  }

  onTestEnd(test, result) {
    // Only a test's last attempt counts.
    if (result.retry < test.retries && result.status !== 'passed' && result.status !== 'skipped') return;
    if (result.status === 'passed') this.counts.passed += 1;
    else if (result.status === 'skipped') this.counts.skipped += 1;
    else this.counts.failed += 1;
  }

  onError() {
    this.setupFailed = true;
  }

  onEnd(result) {
    // A global setup that failed ran no test: count the run as one failure, never as a clean one.
    if (result.status !== 'passed' && this.counts.failed === 0) this.counts.failed = 1;
    const { passed, failed, skipped } = this.counts;
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
    if (process.env.DOCSHELF_TEST_COUNTS)
      fs.writeFileSync(process.env.DOCSHELF_TEST_COUNTS, JSON.stringify(this.counts));
  }

  printsToStdio() {
    return false;
  }
}
module.exports = SummaryReporter;
