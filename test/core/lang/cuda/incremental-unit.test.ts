// An open CUDA document kept up to date edit by edit (the translation unit edited in place for plain
// edits, rebuilt for the others; the syntax trees re-parsed where the preprocessed text changed) must
// analyse exactly like the same text opened afresh. Seeded random edits over a kernel with macros,
// conditional regions and a header on the include path.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Project, loadEngine } from '../../../../core/index';
import { buildCudaUnit } from '../../../../core/lang/cuda/unit';

const HEADER = `#pragma once
#define PF_DEVICE __forceinline__ __device__
#define STAGES 4
PF_DEVICE void pf_wait(unsigned long long* bar, unsigned parity) {
  asm volatile("{\\n .reg .pred p;\\n W:\\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\\n @!p bra W;\\n }" :: "r"((unsigned)__cvta_generic_to_shared(bar)), "r"(parity));
}
PF_DEVICE void pf_arrive(unsigned long long* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(bar)));
}
PF_DEVICE void pf_init(unsigned long long* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(bar)), "r"(count));
}
`;

const KERNEL = `#include "pf.cuh"
#if __CUDA_ARCH__ >= 900
#define PARITY_FLIP 1
#else
#define PARITY_FLIP 0
#endif
__global__ void ring(float* out, int n) {
  __shared__ unsigned long long full[STAGES];
  if (threadIdx.x == 0) for (int s = 0; s < STAGES; ++s) pf_init(&full[s], 1);
  __syncthreads();
  unsigned phase = 0;
  for (int i = 0; i < n; ++i) {
    int s = i % STAGES;
    if (threadIdx.x == 0) pf_arrive(&full[s]);
    pf_wait(&full[s], phase);
#if PARITY_FLIP
    if (s == STAGES - 1) phase ^= 1;
#endif
    out[i] = 1.0f;
  }
}
int main() { ring<<<1, 128>>>(nullptr, 8); }
`;

/** Small edits people make: typing in code, deleting, new lines, directives, comments, macro names. */
const SNIPPETS = ['x', ' ', '1', 'phase', 'STAGES', ';', '\n', '#if 0\n', '#endif\n', '// c', '/*', '*/', 'PF_DEVICE ', '"', '(', ')', '{', '}', '^= 1', 'n'];

function random(seed: number): () => number {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

describe('incremental CUDA documents with a translation unit', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-incremental-unit-'));
  mkdirSync(path.join(dir, 'include'));
  writeFileSync(path.join(dir, 'include', 'pf.cuh'), HEADER);
  writeFileSync(path.join(dir, 'compile_flags.txt'), '-Iinclude\n');
  const file = path.join(dir, 'ring.cu');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('follows edits that change what the preprocessor does: a directive typed at a line start, a macro name typed in code', async () => {
    const engine = await loadEngine({ project: new Project() });
    const doc = engine.openDocument('cuda', KERNEL, file);
    doc.analyze({});
    const line = KERNEL.split('\n').findIndex((l) => l.includes('out[i] = 1.0f'));
    // `#if 0` before the store makes the rest of the file inactive; then `#endif` after it ends the region.
    doc.update([{ range: { start: { line, character: 0 }, end: { line, character: 0 } }, text: '#if 0\n' }]);
    doc.analyze({});
    doc.update([{ range: { start: { line: line + 2, character: 0 }, end: { line: line + 2, character: 0 } }, text: '#endif\n' }]);
    expect(doc.irText()).toBe(engine.openDocument('cuda', doc.text, file).irText());
    expect(doc.irText()).not.toMatch(/out = /);
    // Typing a specifier macro's name in code: it is blanked as the compiler would expand it.
    doc.update([{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: 'PF_DEVICE int helper_of_nothing() { return 0; }\n' }]);
    expect(doc.irText()).toBe(engine.openDocument('cuda', doc.text, file).irText());
    expect(doc.analyze({}).syntaxProblems).toEqual(engine.openDocument('cuda', doc.text, file).analyze({}).syntaxProblems);
    // Typing inside a macro call the parse text blanks (a static_assert wrapper) keeps it blanked.
    doc.update([{ range: { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } }, text: '#define PF_CHECK(x) static_assert(x, "")\nPF_CHECK(1 > 0);\n' }]);
    doc.analyze({});
    doc.update([{ range: { start: { line: 1, character: 10 }, end: { line: 1, character: 10 } }, text: ' + 1' }]);
    expect(doc.text.split('\n')[1]).toBe('PF_CHECK(1 + 1 > 0);');
    expect(doc.irText()).toBe(engine.openDocument('cuda', doc.text, file).irText());
    expect(doc.analyze({}).syntaxProblems).toEqual(engine.openDocument('cuda', doc.text, file).analyze({}).syntaxProblems);
  });

  it('rewrites the grammar\'s gaps (./preprocess/grammar-gaps.ts) after an in-place edit as a fresh open does', async () => {
    const project = new Project();
    const gaps = `${KERNEL}struct Tok { int s; };
struct Ring {
  void set(int v, Tok t = {1}, int w = 0) {}
  friend bool operator==(Ring a, Ring b) { return true; }
};
template <class T> __device__ int width() { return sizeof(T::A{}); }
X(2, 1, 1) __global__ void __launch_bounds__(128) clustered(float* out) {
  auto f = [=] (int i) { out[i] = 1.0f; };
  f(threadIdx.x);
}
`;
    // Each edit is plain (no directive, parenthesis or macro name) and makes or unmakes a gap somewhere.
    const edits: Array<[string, string]> = [
      ['Tok t = {1}, int', 'Tok t = {1}; int'],
      ['Tok t = {1}; int', 'Tok t = {1}, int'],
      ['sizeof(T::A{})', 'sizeof(typename T::A{})'],
      ['[=] (int i)', '[=] __device__ (int i)'],
      ['  friend bool', '  [[nodiscard]] friend bool'],
      ['X(2, 1, 1)', '__cluster_dims__(2, 1, 1)'],
      ['[[nodiscard]] friend', '[[nodiscard]] int friend'],
    ];
    const engine = await loadEngine({ project });
    const doc = engine.openDocument('cuda', gaps, file);
    doc.analyze({});
    let unit = buildCudaUnit(gaps, file, project, undefined);
    let text = gaps;
    for (const [from, to] of edits) {
      // The smallest replacement that turns `from` into `to`, as an editor sends it.
      let a = 0;
      while (from[a] === to[a]) a++;
      let b = 0;
      while (b < from.length - a && from[from.length - 1 - b] === to[to.length - 1 - b]) b++;
      const start = text.indexOf(from) + a;
      const oldEnd = text.indexOf(from) + from.length - b;
      const inserted = to.slice(a, to.length - b);
      expect(unit.isPlainEdit(text, start, oldEnd, inserted), from).toBe(true);
      const before = text;
      text = text.slice(0, start) + inserted + text.slice(oldEnd);
      unit = unit.withPlainEdit(text, start, oldEnd, inserted);
      expect(unit.parseText, to).toBe(buildCudaUnit(text, file, project, undefined).parseText);
      const pos = (offset: number) => {
        const lines = before.slice(0, offset).split('\n');
        return { line: lines.length - 1, character: lines[lines.length - 1].length };
      };
      doc.update([{ range: { start: pos(start), end: pos(oldEnd) }, text: inserted }]);
      const fresh = engine.openDocument('cuda', text, file);
      expect(doc.analyze({}).syntaxProblems, to).toEqual(fresh.analyze({}).syntaxProblems);
      expect(doc.irText(), to).toBe(fresh.irText());
      fresh.dispose();
    }
    doc.dispose();
  });

  it('analyses like a fresh document after every one of 150 seeded random edits', async () => {
    const engine = await loadEngine({ project: new Project() });
    const doc = engine.openDocument('cuda', KERNEL, file);
    const rnd = random(20261126);
    let text = KERNEL;
    expect(doc.analyze({}).findings.length + (doc.analyze({}).notes?.length ?? 0)).toBeGreaterThanOrEqual(0);
    for (let step = 0; step < 150; step++) {
      let start = Math.floor(rnd() * (text.length + 1));
      // Directives only count at the start of a line: aim there often.
      if (rnd() < 0.3) start = text.lastIndexOf('\n', start - 1) + 1;
      const end = Math.min(text.length, start + (rnd() < 0.5 ? 0 : Math.floor(rnd() * 6)));
      const insert = rnd() < 0.8 ? SNIPPETS[Math.floor(rnd() * SNIPPETS.length)] : '';
      const before = text;
      text = text.slice(0, start) + insert + text.slice(end);
      const pos = (offset: number) => {
        const lines = before.slice(0, offset).split('\n');
        return { line: lines.length - 1, character: lines[lines.length - 1].length };
      };
      doc.update([{ range: { start: pos(start), end: pos(end) }, text: insert }]);
      // Analysing after each edit keeps the unit current, so the next edit may take the in-place path.
      doc.analyze({});
      if (step % 3 !== 0) continue;
      const fresh = engine.openDocument('cuda', text, file);
      const got = doc.analyze({});
      const want = fresh.analyze({});
      expect(doc.irText(), `IR after edit ${step}`).toBe(fresh.irText());
      expect(got.findings.map((f) => `${f.range.start.line}:${f.code}:${f.message}`), `findings after edit ${step}`).toEqual(want.findings.map((f) => `${f.range.start.line}:${f.code}:${f.message}`));
      fresh.dispose();
    }
    doc.dispose();
  }, 120_000);
});
