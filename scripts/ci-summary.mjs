import { existsSync, readFileSync } from 'node:fs';

// Prints vitest's JSON reports (one or more: the whole suite, then the part run through
// PgBouncer) as the one plain "N passed, N failed" line CI reads. A missing report is a failure.
const files = process.argv.length > 2 ? process.argv.slice(2) : ['.vitest-results.json'];
let passed = 0;
let failed = 0;
let skipped = 0;
for (const file of files) {
  if (!existsSync(file)) {
    console.log(`${file}: no report`);
    failed += 1;
    continue;
  }
  const r = JSON.parse(readFileSync(file, 'utf8'));
  passed += r.numPassedTests ?? 0;
  failed += (r.numFailedTests ?? 0) + (r.numFailedTestSuites && !r.numFailedTests ? r.numFailedTestSuites : 0);
  skipped += (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
}
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
