import { defineConfig } from 'vitest/config';
import { SLOW_FILES } from './test/slow-files.ts';

/**
 * `npm run test:slow`: the scale and soak cases at full size (test/scale.ts; SHIELDWATCH_TEST_FULL=1), in the files
 * of test/slow-files.ts, whose other cases run again here unchanged. `npm test` runs each of these cases at a
 * quick size; CI (.ci/run) runs this suite after it.
 */
export default defineConfig({
  test: {
    include: [...SLOW_FILES],
    testTimeout: 600_000,
    hookTimeout: 600_000,
    pool: 'forks',
    maxWorkers: 2,
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true', SHIELDWATCH_TEST_FULL: '1' },
    setupFiles: ['test/quiet-output.ts'],
  },
});
