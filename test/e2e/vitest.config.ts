// Vitest configuration for the suites that need a real VS Code (code-server) and Chromium:
// `npm run test:e2e` (test/e2e/*.e2e.ts) and `npm run test:extension` (test/extension/*.e2e.ts).
// Kept apart from vitest.config.ts so `npm test` never starts a browser. One file at a time: each
// starts its own server and browser, and CI has two cores.
import * as path from 'node:path';
import { defineConfig } from 'vitest/config';

export default defineConfig({
  root: path.resolve(__dirname, '..', '..'),
  test: {
    include: ['test/e2e/**/*.e2e.ts', 'test/extension/**/*.e2e.ts'],
    testTimeout: 120_000,
    hookTimeout: 300_000,
    fileParallelism: false,
    // The scenarios share one workbench and run in order; a retry would start from a changed state.
    retry: 0,
    reporters: ['verbose'],
  },
});
