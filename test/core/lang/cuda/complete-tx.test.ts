// mbarrier.complete_tx end to end, the proof that an mbarrier instruction is one catalogue entry plus
// its doc and simulator handler (all under core/lang/cuda/): the fixture (accepted by
// `nvcc -std=c++17 -arch=sm_90a`) lints clean, lowers to a complete-tx operation, simulates to
// completion with the right data, and hovers show the doc; cuda::ptx::mbarrier_complete_tx (CCCL's
// wrapper) is recognised too, and its bytes count in expect_tx byte accounting like a copy's.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { getEngine, lintCuda } from '../../../helpers/engine';
import { runKernel, values } from '../../sim/cuda/helpers';

const fixture = readFileSync(path.join(__dirname, '../../../fixtures/cuda/api/mbarrier-complete-tx.cu'), 'utf8');

const CUDA_PTX = `#include <cuda/ptx>
__global__ void k(float* out) {
  __shared__ alignas(8) uint64_t full;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&full, 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    (void)cuda::ptx::mbarrier_arrive_expect_tx(cuda::ptx::sem_release, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full, BYTES);
    cuda::ptx::mbarrier_complete_tx(cuda::ptx::sem_relaxed, cuda::ptx::scope_cta, cuda::ptx::space_shared, &full, 512);
  }
  while (!cuda::ptx::mbarrier_try_wait_parity(&full, 0)) {}
}`;

function positionOf(text: string, needle: string): { line: number; character: number } {
  const lines = text.split('\n');
  const line = lines.findIndex((l) => l.includes(needle));
  return { line, character: lines[line].indexOf(needle) + 2 };
}

describe('mbarrier.complete_tx', () => {
  it('lints clean and lowers to a complete-tx operation of 256 bytes', async () => {
    expect(await lintCuda(fixture)).toEqual([]);
    const ir = (await getEngine()).openDocument('cuda', fixture).irText();
    expect(ir).toMatch(/complete-tx.*full.*256|complete-tx.*256.*full/);
  });

  it('simulates to completion: the bytes settled by the thread complete the phase', async () => {
    const r = await runKernel(fixture, { block: [64, 1, 1], args: ['out=f32[64]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual(Array.from({ length: 64 }, (_, i) => i));
    expect(r.phaseFlips).toBeGreaterThanOrEqual(1);
  });

  it('hangs the waiters when fewer bytes are settled than announced', async () => {
    const short = fixture.replace('"r"(bar), "r"(256) : "memory");\n  }', '"r"(bar), "r"(128) : "memory");\n  }');
    expect(short).not.toBe(fixture);
    const r = await runKernel(short, { block: [64, 1, 1], args: ['out=f32[64]'] });
    expect(r.status).toBe('deadlock');
  });

  it('hovers show the PTX doc', async () => {
    const doc = (await getEngine()).openDocument('cuda', fixture);
    const h = doc.hover(positionOf(fixture, 'mbarrier.complete_tx.relaxed'));
    expect(h?.markdown).toContain('mbarrier.complete_tx{.relaxed}');
    expect(h?.markdown).toContain('Counts as an arrival: no');
  });

  it('recognises cuda::ptx::mbarrier_complete_tx in lint and hover', async () => {
    const text = CUDA_PTX.replace('BYTES', '512');
    expect(await lintCuda(text)).toEqual([]);
    const doc = (await getEngine()).openDocument('cuda', text);
    expect(doc.irText()).toMatch(/complete-tx/);
    const h = doc.hover(positionOf(text, 'mbarrier_complete_tx'));
    expect(h?.markdown).toContain('cuda::ptx::mbarrier_complete_tx(');
  });

  it('counts settled bytes against the announced ones (expect-tx-byte-mismatch)', async () => {
    const findings = await lintCuda(CUDA_PTX.replace('BYTES', '1024'));
    expect(findings.map((f) => f.ruleId)).toEqual(['expect-tx-byte-mismatch']);
    expect(findings[0].message).toContain('1024');
  });
});
