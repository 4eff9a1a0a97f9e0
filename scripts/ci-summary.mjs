// Prints vitest's JSON report as the plain "N passed, N failed" line CI reads.
import { existsSync, readFileSync } from 'node:fs';

const file = process.argv[2] ?? '.vitest-results.json';
if (!existsSync(file)) {
  console.log('0 passed, 1 failed');
  process.exit(1);
}
const r = JSON.parse(readFileSync(file, 'utf8'));
const passed = r.numPassedTests ?? 0;
const failed = (r.numFailedTests ?? 0) + (r.numFailedTestSuites && !r.numFailedTests ? r.numFailedTestSuites : 0);
const skipped = (r.numPendingTests ?? 0) + (r.numTodoTests ?? 0);
console.log(`${passed} passed, ${failed} failed${skipped ? `, ${skipped} skipped` : ''}`);
process.exit(failed > 0 || passed === 0 ? 1 : 0);
