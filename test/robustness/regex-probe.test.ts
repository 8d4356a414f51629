// Issue 14: no regular-expression literal in core/ may take time that grows faster than its input. Runs
// scripts/regex-probe.mjs over every literal (each in a worker with a time limit) and fails on any super-linear one.
import { describe, expect, it } from 'vitest';
import { classArguments } from '../../core/lang/cuda/call-targets';
import { parseShapeComment } from '../../core/lang/cuda/shape-comments';
import { waitName } from '../../core/sim/trace';
import { probeRegex, regexLiterals, slowRegexes } from '../../scripts/regex-probe.mjs';

/**
 * Literals allowed to stay super-linear because the only input they ever see is short, each with the reason.
 * Keyed by file and pattern source (line numbers move).
 */
const BOUNDED: { file: string; source: string; reason: string }[] = [
  {
    file: 'core/lang/croqtile/sim/values.ts',
    source: '0+$',
    reason: 'trims a number printed by toExponential/toFixed (at most about 25 characters)',
  },
];

const allowed = (lit: { file: string; source: string }): boolean => BOUNDED.some((b) => b.file === lit.file.split('\\').join('/') && b.source === lit.source);

describe('regex probe', () => {
  it('tells a quadratic and an exponential pattern from a linear one', async () => {
    expect(probeRegex({ source: '\\s*,', flags: 'g' }).superLinear).toBe(true);
    expect(probeRegex({ source: '\\[.*$', flags: '' }).superLinear).toBe(true);
    expect(probeRegex({ source: '(?<!\\s)\\s*,|,', flags: 'g' }).superLinear).toBe(false);
    expect(probeRegex({ source: '^\\s*(\\w+)', flags: '' }).superLinear).toBe(false);
    const exponential = { file: 'example.ts', line: 1, source: '^(a|aa)+$', flags: '' };
    const [slow] = await slowRegexes({ literals: [exponential], timeoutMs: 500 });
    expect(slow).toMatchObject({ source: '^(a|aa)+$', superLinear: true });
  });

  it('every allow-listed literal still exists', () => {
    const literals = regexLiterals(['core']);
    for (const b of BOUNDED) expect(literals.some((l) => allowed(l) && l.file.split('\\').join('/') === b.file), `${b.file} /${b.source}/`).toBe(true);
  });

  it('no regex literal under core/ grows super-linearly on long adversarial inputs', async () => {
    const slow = (await slowRegexes({ dirs: ['core'] })).filter((s) => !allowed(s));
    const described = slow.map((s) => `${s.file}:${s.line} /${s.source}/${s.flags}: ${s.smallMs.toFixed(1)} -> ${s.largeMs.toFixed(1)} ms (x${s.ratio.toFixed(1)}) on ${s.input}`);
    expect(described).toEqual([]);
  }, 180_000);
});

/** Milliseconds `f` takes. */
function msOf(f: () => unknown): number {
  const t0 = performance.now();
  f();
  return performance.now() - t0;
}

describe('hand-written replacements of super-linear patterns', () => {
  const none = new Map<string, number>();

  it('a `phaseflip:` comment: same fields, and 100,000 blanks in linear time (the pattern did not finish in 3 s at 2,000)', () => {
    expect(parseShapeComment('/* phaseflip:   block = 32 , 4 grid=2  */  ', none)).toEqual({ block: [32, 4, 1], grid: [2, 1, 1] });
    expect(parseShapeComment('/* phaseflip: smem=0*/', none)).toEqual({ smem: 0 });
    expect(parseShapeComment('// no shape here', none)).toBeUndefined();
    expect(msOf(() => parseShapeComment(`// phaseflip:${' '.repeat(100_000)}x`, none))).toBeLessThan(200);
    expect(msOf(() => parseShapeComment(`// phaseflip: a${' '.repeat(100_000)}=${' '.repeat(100_000)},`, none))).toBeLessThan(200);
  });

  it('template arguments: first `<` to last `>`, and 100,000 unclosed `<` in linear time', () => {
    expect(classArguments('Ring<4, Pair<1, 2>>')).toEqual(['4', 'Pair<1, 2>']);
    expect(classArguments('Ring')).toEqual([]);
    expect(classArguments('a>b<')).toEqual([]);
    expect(msOf(() => classArguments('<'.repeat(100_000)))).toBeLessThan(200);
  });

  it('wait names drop the arrival counts, and 100,000 blanks or digits take linear time', () => {
    expect(waitName('__syncthreads (3 of 32 arrived)')).toBe('__syncthreads');
    expect(waitName('bar.sync 1, 64 of 128 lanes')).toBe('bar.sync 1');
    expect(msOf(() => waitName(`a${' '.repeat(100_000)}b`))).toBeLessThan(200);
    expect(msOf(() => waitName(`a${'1'.repeat(100_000)} of b`))).toBeLessThan(200);
  });
});
