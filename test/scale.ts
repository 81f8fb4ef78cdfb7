/**
 * The two sizes of a scale or soak case (CONTRIBUTING.md, Tests): `npm test` runs it at its quick size, enough to
 * take every path the case is about; `npm run test:slow` (vitest.slow.config.ts, run by CI) sets
 * SHIELDWATCH_TEST_FULL=1 and runs the files that have such a case at full size. A file that imports this one is
 * listed in test/slow-files.ts (test/unit/slow-suite.test.ts checks it).
 */
import { it } from 'vitest';

export const FULL_SIZE = process.env['SHIELDWATCH_TEST_FULL'] === '1';

/** `quick` under `npm test`, `full` under `npm run test:slow`. */
export function bySize<T>(quick: T, full: T): T {
  return FULL_SIZE ? full : quick;
}

/**
 * `it` for a case that only `npm run test:slow` runs (`npm test` lists it as skipped): one more process-heavy
 * variant of a case whose quick version `npm test` runs, named in a comment beside it.
 */
export const itFullSize = it.runIf(FULL_SIZE);
