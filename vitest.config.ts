import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    exclude: ['dist/**', 'node_modules/**', '.bench/**'],
    testTimeout: 30_000,
    hookTimeout: 30_000,
  },
});
