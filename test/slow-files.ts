/**
 * The test files of `npm run test:slow` (vitest.slow.config.ts): each has a scale or soak case, or a process-heavy
 * variant, that `npm test` runs at a quick size or leaves out (test/scale.ts). test/unit/slow-suite.test.ts checks
 * that every file importing test/scale.ts is here and nothing else.
 */
export const SLOW_FILES: readonly string[] = [
  'test/cli/ack.test.ts',
  'test/cli/delivery.test.ts',
  'test/cli/report-reading.test.ts',
  'test/integration/ack-in-silence.test.ts',
  'test/integration/cycle-memory.test.ts',
  'test/integration/digest-week.test.ts',
  'test/integration/incident-contract.test.ts',
  'test/integration/incidents-cycle.test.ts',
  'test/integration/rules-cycle.test.ts',
];
