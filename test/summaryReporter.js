/**
 * Jest reporter that ends the run with one plain line, `Tests: N passed, N failed[, N skipped]`, the closing line
 * CI tooling reads in any language.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const skipped = results.numPendingTests + results.numTodoTests;
    // A suite that failed to run counts as a failure too.
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    process.stdout.write(
      `\nTests: ${results.numPassedTests} passed, ${failed} failed${skipped > 0 ? `, ${skipped} skipped` : ''}\n`,
    );
  }
}
module.exports = SummaryReporter;
