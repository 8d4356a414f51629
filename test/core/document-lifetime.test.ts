// What the language server relies on to stay responsive and bounded (issue 14): closing documents empties
// the caches the front ends share (headers, syntax trees) and a document's own, and a hover while the
// analysis of newer edits is pending answers from the last lowering instead of lowering the file again.
import { mkdtempSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { Project, loadEngine } from '../../core/index';

const HEADER = `#pragma once
#define PF_DEVICE __forceinline__ __device__
PF_DEVICE void pf_arrive(unsigned long long* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(bar)));
}
`;

const kernel = (name: string, block: number) => `#include "pf.cuh"
__global__ void __launch_bounds__(${block}) ${name}(float* out) {
  __shared__ unsigned long long bar;
  if (threadIdx.x == 0) pf_arrive(&bar);
  out[threadIdx.x] = 1.0f;
}
`;

describe('document lifetime', () => {
  const dir = mkdtempSync(path.join(tmpdir(), 'pf-lifetime-'));
  mkdirSync(path.join(dir, 'include'));
  writeFileSync(path.join(dir, 'include', 'pf.cuh'), HEADER);
  writeFileSync(path.join(dir, 'compile_flags.txt'), '-Iinclude\n');
  afterAll(() => rmSync(dir, { recursive: true, force: true }));

  it('closing every document empties the shared header and tree caches and the documents\' own results', async () => {
    const engine = await loadEngine({ project: new Project() });
    const docs = ['a', 'b', 'c'].map((n) => engine.openDocument('cuda', kernel(n, 128), path.join(dir, `${n}.cu`)));
    for (const d of docs) d.analyze({});
    const open = engine.cacheSizes();
    expect(open['cuda.documents']).toBe(3);
    expect(open['cuda.headers']).toBeGreaterThan(0);
    expect(open['cuda.trees']).toBe(3);
    expect(docs[0].lastAnalysis()).toBeDefined();
    // Closing some keeps what the others still read.
    docs[0].dispose();
    expect(engine.cacheSizes()).toMatchObject({ 'cuda.documents': 2, 'cuda.trees': 2 });
    expect(engine.cacheSizes()['cuda.headers']).toBeGreaterThan(0);
    expect(docs[0].lastAnalysis()).toBeUndefined();
    docs[1].dispose();
    docs[2].dispose();
    expect(engine.cacheSizes()).toEqual({ 'cuda.documents': 0, 'cuda.headers': 0, 'cuda.trees': 0 });
    // A document opened afterwards reads its headers again.
    const again = engine.openDocument('cuda', kernel('d', 128), path.join(dir, 'd.cu'));
    expect(again.analyze({}).syntaxProblems).toEqual([]);
    expect(engine.cacheSizes()['cuda.headers']).toBeGreaterThan(0);
    again.dispose();
  });

  it('a hover during a pending analysis answers from the last result; prepareHover brings it up to date', async () => {
    const engine = await loadEngine();
    const text = kernel('k', 128).replace('#include "pf.cuh"\n', '');
    const doc = engine.openDocument('cuda', text);
    const at = { line: 0, character: text.split('\n')[0].indexOf(' k(') + 1 };
    expect(doc.hover(at)?.markdown).toMatch(/128 threads/);
    // The edit changes the kernel's block size; no analysis or preparation has run since.
    doc.update([{ range: { start: { line: 0, character: text.indexOf('128') }, end: { line: 0, character: text.indexOf('128') + 3 } }, text: '256' }]);
    expect(doc.analysisCurrent).toBe(false);
    expect(doc.lastAnalysis()).toBeUndefined();
    expect(doc.hover(at)?.markdown).toMatch(/128 threads/);
    doc.prepareHover();
    expect(doc.hover(at)?.markdown).toMatch(/256 threads/);
    // Without a hover in between, preparing has nothing to refresh and the current IR answers.
    doc.update([{ range: { start: { line: 0, character: text.indexOf('128') }, end: { line: 0, character: text.indexOf('128') + 3 } }, text: '512' }]);
    const last = doc.analyze({});
    expect(doc.lastAnalysis()).toBe(last);
    doc.update([{ range: { start: { line: 3, character: 0 }, end: { line: 3, character: 0 } }, text: ' ' }]);
    expect(doc.lastAnalysis()).toBe(last);
    doc.dispose();
  });
});
