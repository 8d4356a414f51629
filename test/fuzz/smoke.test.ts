// CI's bounded fuzz smoke: the harness (scripts/fuzz.mjs) with its smoke preset and a fixed seed over
// every surface (lint, sim, lsp, dap), about a minute on two cores. Any internal error, crash or hang
// fails the test; the minimised reproducer lands in a temporary folder named in the output.
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, rmSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';

const root = path.join(__dirname, '..', '..');
const built = existsSync(path.join(root, 'dist', 'cli.js'));

describe('fuzz smoke (seed 1, smoke preset)', () => {
  it('finds no internal error, crash or hang on any surface', (ctx) => {
    if (!built) {
      console.log('fuzz smoke skipped: dist/cli.js is missing (npm test builds it first)');
      ctx.skip();
    }
    const out = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-fuzz-smoke-'));
    try {
      const run = spawnSync(process.execPath, ['scripts/fuzz.mjs', '--preset', 'smoke', '--seed', '1', '--out', out], { cwd: root, encoding: 'utf8', timeout: 170_000 });
      const output = `${run.stdout}${run.stderr}`;
      // Every surface ran and reported its line of the table.
      for (const surface of ['lint', 'sim', 'lsp', 'dap']) expect(output, output).toMatch(new RegExp(`^${surface}\\s+\\d+\\s`, 'm'));
      expect(run.status, output).toBe(0);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  }, 180_000);
});
