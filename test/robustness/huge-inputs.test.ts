// Regression tests for issue 14's huge inputs: time linear in the size of a file of many kernels (one line or
// many), and a per-file analysis budget that answers with an information note instead of hanging.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type Engine, loadEngine } from '../../core/index';

let engine: Engine;
beforeAll(async () => {
  engine = await loadEngine({});
});
afterEach(() => {
  delete process.env.PHASEFLIP_ANALYSIS_BUDGET_MS;
});

/** A realistic kernel (a ring of mbarriers with a parity bug) without comments or preprocessor lines. */
const KERNEL = readFileSync(join(__dirname, '../../examples/bugs/ring_phase_never_flips.cu'), 'utf8')
  .split('\n')
  .filter((l) => !l.trimStart().startsWith('#'))
  .map((l) => l.replace(/\/\/.*$/, ''))
  .join('\n');

/** About `bytes` of copies of the kernel, each in a namespace of its own, on one line or on many. */
function manyKernels(bytes: number, oneLine: boolean): string {
  const body = oneLine ? KERNEL.replace(/\n/g, ' ') : KERNEL;
  const parts = ['#include <cstdint>\n'];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const copy = `namespace k${i} { ${body} }${oneLine ? ' ' : '\n'}`;
    parts.push(copy);
    size += copy.length;
  }
  return parts.join('');
}

function analyse(text: string, file: string) {
  const t0 = performance.now();
  const result = engine.analyze(text, 'cuda', {}, file);
  return { result, ms: performance.now() - t0 };
}

const budgetNotes = (r: ReturnType<typeof analyse>) => (r.result.notes ?? []).filter((n) => n.kind === 'analysis-budget');

describe('huge CUDA inputs', () => {
  for (const oneLine of [false, true]) {
    it(`${oneLine ? 'one line' : 'many lines'} of repeated kernels: 4x the input costs about 4x the time, every kernel analysed`, () => {
      process.env.PHASEFLIP_ANALYSIS_BUDGET_MS = '600000';
      analyse(manyKernels(20_000, oneLine), 'warm.cu');
      const small = analyse(manyKernels(150_000, oneLine), 'small.cu');
      const large = analyse(manyKernels(600_000, oneLine), 'large.cu');
      for (const r of [small, large]) {
        expect(r.result.syntaxProblems).toEqual([]);
        expect(budgetNotes(r)).toEqual([]);
      }
      // One finding per kernel copy (PF103 on the consumer's wait): all were analysed.
      expect(large.result.kernels!.length).toBeGreaterThan(3.5 * small.result.kernels!.length);
      if (!oneLine) expect(large.result.findings.length).toBe(large.result.kernels!.length);
      // Per-kernel work that grows with the file (a cache key naming every namespace's helpers) breaks this bound.
      expect(large.ms / small.ms).toBeLessThan(8);
    }, 20_000);
  }

  it('thousands of namespaces defining the same helper: time linear in their number', () => {
    process.env.PHASEFLIP_ANALYSIS_BUDGET_MS = '600000';
    const tiny = (n: number): string =>
      Array.from({ length: n }, (_, i) => `namespace t${i} { __device__ void arrive(unsigned long long* b) { asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "l"(b)); } __global__ void k(unsigned long long* b) { arrive(b); } }`).join('\n');
    analyse(tiny(200), 'warm.cu');
    const small = analyse(tiny(1000), 'small.cu');
    const large = analyse(tiny(4000), 'large.cu');
    expect(large.result.kernels!.length).toBe(4000);
    expect(budgetNotes(large)).toEqual([]);
    // Every kernel's cache key named every namespace's `arrive` (quadratic: a ratio above 7 here; about 2 to 4 when linear).
    expect(large.ms / small.ms).toBeLessThan(6);
  }, 20_000);

  it('past the file budget the remaining kernels are skipped with an information note, and the answer comes back', () => {
    // The budget is a third of what the whole file takes on this machine (a fixed number passed on one
    // machine and not on a faster one), so the analysis certainly runs out of it part-way.
    const text = manyKernels(2_000_000, false);
    process.env.PHASEFLIP_ANALYSIS_BUDGET_MS = '600000';
    const whole = analyse(text, 'budget-whole.cu');
    process.env.PHASEFLIP_ANALYSIS_BUDGET_MS = String(Math.max(50, Math.round(whole.ms / 3)));
    const r = analyse(text, 'budget.cu');
    const notes = budgetNotes(r);
    const skipped = notes.find((n) => /^analysis skipped for kernel 'ring_sum' and \d+ more: too large/.test(n.message));
    expect(skipped, JSON.stringify(notes)).toBeDefined();
    // The kernels analysed before the budget ran out keep their findings and symbols (documentSymbol answers).
    expect(r.result.findings.length).toBeGreaterThan(0);
    expect(r.result.symbols.length).toBeGreaterThan(0);
    expect(r.result.kernels!.length).toBeLessThan(text.split('__global__').length - 1);
    expect(r.ms).toBeLessThan(15_000);
  }, 40_000);

  it('an open document of 1 MB analysed again after a one-character edit costs a fraction of the first analysis', () => {
    process.env.PHASEFLIP_ANALYSIS_BUDGET_MS = '600000';
    const doc = engine.openDocument('cuda', manyKernels(1_000_000, false), '/tmp/huge-open.cu');
    try {
      let t0 = performance.now();
      const first = doc.analyze({});
      const firstMs = performance.now() - t0;
      // A comment typed at the end: every kernel is reused from the cache and only the last chunk re-parsed.
      const end = doc.analyze({}).kernels!.length;
      const lines = manyKernels(1_000_000, false).split('\n').length;
      doc.update([{ range: { start: { line: lines - 1, character: 0 }, end: { line: lines - 1, character: 0 } }, text: '// x' }]);
      t0 = performance.now();
      const again = doc.analyze({});
      const againMs = performance.now() - t0;
      expect(again.kernels!.length).toBe(end);
      expect(again.findings.length).toBe(first.findings.length);
      expect(againMs).toBeLessThan(firstMs / 3);
    } finally {
      doc.dispose();
    }
  }, 20_000);
});
