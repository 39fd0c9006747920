import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['engine/**/*.test.ts', 'scenes/**/*.test.ts', 'app/**/*.test.ts'],
    testTimeout: 120_000,
    pool: 'threads',
  },
});
