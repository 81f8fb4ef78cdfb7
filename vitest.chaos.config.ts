import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/chaos/**/*.test.ts'],
    testTimeout: 600_000,
    pool: 'forks',
  },
});
