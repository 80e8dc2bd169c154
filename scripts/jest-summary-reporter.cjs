// Writes each package's pass/fail counts to .test-results/, so `npm test` can print
// one summary line for the whole workspace.
const fs = require('node:fs');
const path = require('node:path');

module.exports = class SummaryReporter {
  onRunComplete(_contexts, results) {
    const dir = path.join(__dirname, '..', '.test-results');
    fs.mkdirSync(dir, { recursive: true });
    const name = path.basename(process.cwd()) + '-' + process.pid;
    fs.writeFileSync(
      path.join(dir, `${name}.json`),
      JSON.stringify({ passed: results.numPassedTests, failed: results.numFailedTests + results.numRuntimeErrorTestSuites }),
    );
  }
};
