// Writes each package's pass/fail counts, and what failed, to .test-results/, so
// `npm test` can end with one summary for the whole workspace. CI shows only the tail
// of the output, so the failures must be repeated there.
const fs = require('node:fs');
const path = require('node:path');

const MESSAGE_LINES = 12;

function firstLines(text) {
  // Jest's failure messages carry colour codes; the tail should stay readable.
  // eslint-disable-next-line no-control-regex
  const plain = String(text).replace(/\u001b\[[0-9;]*m/g, '');
  return plain.split('\n').slice(0, MESSAGE_LINES).join('\n');
}

module.exports = class SummaryReporter {
  onRunComplete(_contexts, results) {
    const dir = path.join(__dirname, '..', '.test-results');
    fs.mkdirSync(dir, { recursive: true });
    const pkg = path.basename(process.cwd());
    const failures = [];
    for (const suite of results.testResults) {
      const file = path.relative(process.cwd(), suite.testFilePath);
      if (suite.testExecError) {
        failures.push({ pkg, file, test: '(suite failed to run)', message: firstLines(suite.testExecError.message) });
      }
      for (const t of suite.testResults) {
        if (t.status !== 'failed') continue;
        failures.push({ pkg, file, test: t.fullName, message: firstLines(t.failureMessages.join('\n')) });
      }
    }
    fs.writeFileSync(
      path.join(dir, `${pkg}-${process.pid}.json`),
      JSON.stringify({
        passed: results.numPassedTests,
        failed: results.numFailedTests + results.numRuntimeErrorTestSuites,
        failures,
      }),
    );
  }
};
