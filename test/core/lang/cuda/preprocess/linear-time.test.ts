// Hostile inputs stay linear: the work on inputs four times larger grows about four times, not sixteen.
// Ratios of best-of-several timings at two sizes, so the test does not depend on the machine's speed.
import { describe, expect, it } from 'vitest';
import { preprocessFile } from '../../../../../core/lang/cuda/preprocess/directives';
import { clearScanCache } from '../../../../../core/lang/cuda/preprocess/file-scan';
import { predefinedMacros } from '../../../../../core/lang/cuda/preprocess/predefined';

function bestTime(text: string): number {
  let best = Infinity;
  for (let k = 0; k < 3; k++) {
    clearScanCache();
    const t0 = performance.now();
    const pre = preprocessFile(text, predefinedMacros(), () => {}, 'hostile.cu');
    best = Math.min(best, performance.now() - t0);
    expect(pre.parseText.length).toBe(text.length);
  }
  return best;
}

/** Time at size 4n over time at size n; linear work gives about 4, quadratic 16. */
function growth(make: (n: number) => string, n: number): number {
  bestTime(make(n)); // warm up the JIT
  return bestTime(make(4 * n)) / Math.max(bestTime(make(n)), 0.05);
}

const HOSTILE: Array<[string, (n: number) => string, number]> = [
  ['spaces', (n) => ' '.repeat(n), 2_500_000],
  ['one long line of code', (n) => 'CUTE_HOST_DEVICE x'.repeat(n / 18), 500_000],
  ['one long directive', (n) => `#define X ${'a + '.repeat(n / 4)}\nX\n`, 100_000],
  ['splices', (n) => `#if 1 \\\n${'\\\n'.repeat(n / 2)}\nint a;\n#endif\n`, 100_000],
  ['unclosed comments', (n) => '/*'.repeat(n / 2), 500_000],
  ['unclosed quotes', (n) => '"\'\n'.repeat(n / 3), 500_000],
  ['nested conditionals', (n) => '#if 1\n'.repeat(n / 12) + 'int a;\n' + '#endif\n'.repeat(n / 12), 100_000],
  ['alternating branches', (n) => '#if 0\nx\n#else\ny\n#endif\n'.repeat(n / 23), 100_000],
  ['many defines', (n) => Array.from({ length: n / 20 }, (_, k) => `#define M${k} M${k - 1}`).join('\n'), 100_000],
];

describe('preprocessFile stays linear on hostile inputs', () => {
  it.each(HOSTILE)('%s', (_name, make, n) => {
    const g = growth(make, n);
    expect(g).toBeLessThan(10);
  });
});
