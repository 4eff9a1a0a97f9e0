/**
 * Runs before every test file: fast-check draws from the run's seed (TEST_SEED, printed at the
 * start of the run by vitest.config.ts; CI pins it), so a property that fails replays with
 * `TEST_SEED=<n> npx vitest run <file>`.
 */
import fc from 'fast-check';
import { expect } from 'vitest';
import { testSeed } from './helpers/seed.ts';

fc.configureGlobal({ seed: testSeed(expect.getState().testPath ?? 'setup') });
