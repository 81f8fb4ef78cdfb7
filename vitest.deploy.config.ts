import { defineConfig } from 'vitest/config';

/**
 * `npm run test:deploy`: the stack deployed by the CDK CLI to moto_server and the deployed function run
 * (test/deploy, docs/deploy-test.md). Apart from `npm test`: it needs moto and takes about a minute.
 */
export default defineConfig({
  test: {
    include: ['test/deploy/**/*.test.ts'],
    testTimeout: 120_000,
    hookTimeout: 240_000,
    pool: 'forks',
    maxWorkers: 1,
    // The tests of one file share one deployment, in order.
    sequence: { concurrent: false },
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
  },
});
