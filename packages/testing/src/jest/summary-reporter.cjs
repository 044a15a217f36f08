// Ends every jest run with the plain line `N passed, N failed, N skipped` that CI reads; with DOCSHELF_TEST_COUNTS
// set (by `npm test`), also writes the counts there, to be added to the browser tests' into one last line.
const fs = require('node:fs');

class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests, numTodoTests, numRuntimeErrorTestSuites } = results;
    const failed = numFailedTests + numRuntimeErrorTestSuites;
    const skipped = numPendingTests + numTodoTests;
    process.stdout.write(`\n${numPassedTests} passed, ${failed} failed, ${skipped} skipped\n`);
    if (process.env.DOCSHELF_TEST_COUNTS) {
      fs.writeFileSync(process.env.DOCSHELF_TEST_COUNTS, JSON.stringify({ passed: numPassedTests, failed, skipped }));
    }
  }
}
module.exports = SummaryReporter;
