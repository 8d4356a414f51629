// Hostile inputs stay linear: the work on inputs four times larger grows about four times, not sixteen.
// Ratios of best-of-several CPU times at two sizes, so the test depends neither on the machine's speed nor
// (much) on its load; a ratio is measured again before it counts as a failure, as a quadratic stays quadratic.
import { describe, expect, it } from 'vitest';
import { preprocessFile } from '../../../../../core/lang/cuda/preprocess/directives';
import { clearScanCache } from '../../../../../core/lang/cuda/preprocess/file-scan';
import { clearGrammarGapCache } from '../../../../../core/lang/cuda/preprocess/grammar-gaps';
import { predefinedMacros } from '../../../../../core/lang/cuda/preprocess/predefined';

function bestTime(text: string): number {
  let best = Infinity;
  for (let k = 0; k < 3; k++) {
    clearScanCache();
    clearGrammarGapCache();
    const t0 = process.cpuUsage();
    const pre = preprocessFile(text, predefinedMacros(), () => {}, 'hostile.cu');
    const used = process.cpuUsage(t0);
    best = Math.min(best, (used.user + used.system) / 1000);
    expect(pre.parseText.length).toBe(text.length);
  }
  return best;
}

/** Time at size 4n over time at size n; linear work gives about 4, quadratic 16. The least of up to three tries. */
function growth(make: (n: number) => string, n: number): number {
  const small = make(n);
  const large = make(4 * n);
  bestTime(small); // warm up the JIT
  let least = Infinity;
  for (let attempt = 0; attempt < 3 && least >= 10; attempt++) {
    least = Math.min(least, bestTime(large) / Math.max(bestTime(small), 0.5));
  }
  return least;
}

const HOSTILE: Array<[string, (n: number) => string, number]> = [
  ['spaces', (n) => ' '.repeat(n), 2_500_000],
  ['one long line of code', (n) => 'CUTE_HOST_DEVICE x'.repeat(n / 18), 500_000],
  ['one long directive', (n) => `#define X ${'a + '.repeat(n / 4)}\nX\n`, 100_000],
  ['splices', (n) => `#if 1 \\\n${'\\\n'.repeat(n / 2)}\nint a;\n#endif\n`, 400_000],
  ['unclosed comments', (n) => '/*'.repeat(n / 2), 500_000],
  ['unclosed quotes', (n) => '"\'\n'.repeat(n / 3), 500_000],
  ['nested conditionals', (n) => '#if 1\n'.repeat(n / 12) + 'int a;\n' + '#endif\n'.repeat(n / 12), 100_000],
  ['alternating branches', (n) => '#if 0\nx\n#else\ny\n#endif\n'.repeat(n / 23), 100_000],
  // Function-like macros whose invocations the parse text may blank (./macro-uses.ts), used in hostile ways.
  ['unclosed invocations', (n) => `#define A(...)\n${'A('.repeat(n / 2)}`, 200_000],
  ['deeply nested parentheses', (n) => `#define A(...)\nA${'('.repeat(n / 2)}${')'.repeat(n / 2)}`, 200_000],
  ['nested invocations', (n) => `#define A(...)\n#define F(x) g(x)\n${`${'F('.repeat(300)}A(x)${')'.repeat(300)}`.repeat(n / 1000)}`, 100_000],
  ['huge argument list', (n) => `#define A(...)\nA(${'x, '.repeat(n / 3)})`, 300_000],
  ['many small invocations', (n) => `#define A(...)\n#define B(x) static_assert(x, "b");\n${'A(x) B(1)\n'.repeat(n / 11)}`, 200_000],
  // The grammar's gaps (./grammar-gaps.ts): constructs looked for forwards, never closed.
  ['unclosed template arguments after typename', (n) => 'x = typename a::b<c, '.repeat(n / 22), 200_000],
  ['unclosed template heads', (n) => 'template <class T = int* '.repeat(n / 25), 200_000],
  ['unclosed brace defaults and attributes', (n) => 'f(int a = { [[x]] static '.repeat(n / 26), 200_000],
  ['lambda introducers and friends', (n) => 'a[i] __device__ __host__ static friend '.repeat(n / 39), 200_000],
  ['many defines', (n) => Array.from({ length: n / 20 }, (_, k) => `#define M${k} M${k - 1}`).join('\n'), 100_000],
];

describe('preprocessFile stays linear on hostile inputs', () => {
  it.each(HOSTILE)('%s', (_name, make, n) => {
    const g = growth(make, n);
    if (g >= 6) console.log(`${_name}: ${g.toFixed(1)}x for 4x the input`);
    expect(g).toBeLessThan(10);
  });
});
