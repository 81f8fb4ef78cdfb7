import { defineConfig } from 'vitest/config';

/** The files of the `shared` project: tests that leave nothing running and no module state another file reads. */
const SHARED = ['test/unit/**/*.test.ts', 'test/infra/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Vitest's default on a 2-core machine is one worker; most suites wait on child processes and loopback
    // servers, so two workers halve the wall time (268 s -> 157 s for 1777 tests, when it was measured).
    maxWorkers: 2,
    // The SDK's own switch for its "versions from 2027 need Node 22" warning, printed once per worker on Node 20;
    // child processes that inherit this environment are quiet too.
    env: { AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED: 'true' },
    setupFiles: ['test/quiet-output.ts'],
    projects: [
      {
        // The unit and stack tests, several files to a worker process (`isolate: false`): a file's import of the
        // core, aws-cdk-lib and the SDK was most of its time (CPU of test/unit 87 s isolated, 37 s shared; of
        // test/infra without cdk-synth 95 s and 40 s). test/shared-worker.ts undoes what a file changed in the
        // environment, its stubs and spies. A test here that needs a process of its own goes to `isolated`.
        extends: true,
        test: {
          name: 'shared',
          include: SHARED,
          isolate: false,
          setupFiles: ['test/shared-worker.ts'],
        },
      },
      {
        // Integration, CLI and browser tests: a fresh process per file. They set the environment, start servers and
        // keep state in the lambda and cli modules (shared, test/integration/incident-contract.test.ts failed).
        extends: true,
        test: {
          name: 'isolated',
          include: ['test/**/*.test.ts'],
          // The deploy test has its own script (npm run test:deploy, docs/deploy-test.md), run by CI after npm test.
          exclude: [...SHARED, 'test/chaos/**', 'test/deploy/**', 'node_modules/**'],
        },
      },
    ],
  },
});
