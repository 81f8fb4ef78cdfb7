import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    // The deploy test has its own script (npm run test:deploy, docs/deploy-test.md), run by CI after npm test.
    exclude: ['test/chaos/**', 'test/deploy/**', 'node_modules/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default on a 2-core machine is one worker; most suites wait on child processes and loopback
    // servers, so two workers halve the wall time (268 s -> 157 s for 1777 tests, README Development).
    maxWorkers: 2,
    // The SDK's own switch for its "versions from 2027 need Node 22" warning, printed once per worker on Node 20;
    // child processes that inherit this environment are quiet too.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    setupFiles: ['test/quiet-output.ts'],
  },
});
