import { describe, expect, it } from 'vitest';
import { getEngine } from '../helpers/engine';

const KERNEL = `#include <cuda/ptx>
#define S 2
__device__ void wait(uint64_t* b, int p) {
  asm volatile("{\\n.reg .pred q;\\nW: mbarrier.try_wait.parity.shared::cta.b64 q, [%0], %1;\\n@!q bra W;\\n}" :: "r"((uint32_t)__cvta_generic_to_shared(b)), "r"(p));
}
__global__ void k(int n) {
  __shared__ uint64_t full[S], empty[S];
  if (threadIdx.x < S) {
    cuda::ptx::mbarrier_init(&full[threadIdx.x], 1);
    cuda::ptx::mbarrier_init(&empty[threadIdx.x], 4);
  }
  __syncthreads();
  if (threadIdx.x == 0) {
    for (int i = 0; i < n; ++i) {
      wait(&empty[i % S], ((i / S) & 1) ^ 1);
      (void)cuda::ptx::mbarrier_arrive(&full[i % S]);
    }
  } else if (threadIdx.x >= 32 && threadIdx.x % 32 == 0) {
    for (int i = 0; i < n; ++i) {
      wait(&full[i % S], (i / S) & 1);
      (void)cuda::ptx::mbarrier_arrive(&empty[i % S]);
    }
  }
}`;

function at(text: string, needle: string, offset = 0): { line: number; character: number } {
  const idx = text.indexOf(needle) + offset;
  const before = text.slice(0, idx).split('\n');
  return { line: before.length - 1, character: before[before.length - 1].length };
}

describe('hover', () => {
  it('documents a cuda::ptx call with its signature and barrier effect', async () => {
    const doc = (await getEngine()).openDocument('cuda', KERNEL);
    doc.analyze();
    const h = doc.hover(at(KERNEL, 'mbarrier_arrive(&full', 3));
    expect(h?.markdown).toMatch(/mbarrier_arrive/);
    expect(h?.markdown).toMatch(/Counts as an arrival: yes/);
  });
  it('documents a PTX mnemonic inside an asm string', async () => {
    const doc = (await getEngine()).openDocument('cuda', KERNEL);
    const h = doc.hover(at(KERNEL, 'try_wait.parity', 2));
    expect(h?.markdown).toMatch(/try_wait\.parity/);
    expect(h?.range.start.character).toBe(at(KERNEL, 'mbarrier.try_wait').character);
  });
  it('shows the inferred protocol of a barrier variable', async () => {
    const doc = (await getEngine()).openDocument('cuda', KERNEL);
    doc.analyze();
    const h = doc.hover(at(KERNEL, 'empty[S]'));
    expect(h?.markdown).toMatch(/\*\*empty\*\*\[2\]/);
    expect(h?.markdown).toMatch(/count `4` = 4 by threads 0–1/);
    expect(h?.markdown).toMatch(/a ring of 2 slots/);
    // One section per role, each op with its slot, parity schedule and loop.
    expect(h?.markdown).toMatch(/- lane 0 of warps 1–3:\n {2}- arrive slot `i % S` on line 21, in the loop on line 19/);
    expect(h?.markdown).toMatch(/- thread 0:\n {2}- wait \(parity\) parity `\(\(i \/ S\) & 1\) \^ 1` slot `i % S` on line 15, in the loop on line 14/);
  });
  it('shows the phase schedule the replay found, and the cluster the barrier lives in', async () => {
    const text = KERNEL.replace('__global__ void k(int n) {', '__global__ void __cluster_dims__(2, 1, 1) __launch_bounds__(128) k() {\n  const int n = 4;');
    const doc = (await getEngine()).openDocument('cuda', text);
    doc.analyze();
    const h = doc.hover(at(text, 'full[S]'));
    // The consumers wait for parity 0 on each slot's first round, then 1: the schedule a hover reader checks.
    expect(h?.markdown).toMatch(/- phase schedule \(the replay's first waits, `slot: parity`\):\n {2}- lane 0 of warps 1–3: `full\[0\]: 0`, `full\[1\]: 0`, `full\[0\]: 1`, `full\[1\]: 1`/);
    expect(h?.markdown).toMatch(/- cluster of 2×1×1 CTAs, each with its own copy; no operation here reaches a peer CTA's copy/);
  });
  it('returns nothing on plain code', async () => {
    const doc = (await getEngine()).openDocument('cuda', KERNEL);
    expect(doc.hover(at(KERNEL, 'int n'))).toBeNull();
  });
});

describe('croqtile hover', () => {
  const CO = `__co__ void k(global f16 [M, K] a) {
  parallel {bm} by [cdiv(M, 64)] : block {
    shared event full[2], empty[2] = ready;
    parallel p by 2 : group-4 {
      inthreads.async (p == 0) {
        foreach {iv} in [cdiv(K, 64)] { wait empty.at(iv); trigger full.at(iv); }
      }
      inthreads.async (p == 1) {
        foreach {iv} in [cdiv(K, 64)] { wait full.at(iv); trigger empty.at(iv); }
      }
    }
  }
}`;
  it('documents sync keywords with their era semantics', async () => {
    const doc = (await getEngine()).openDocument('croqtile', CO);
    const h = doc.hover(at(CO, 'trigger full', 2));
    expect(h?.markdown).toMatch(/trigger/);
    expect(doc.hover(at(CO, 'inthreads.async', 3))?.markdown).toMatch(/inthreads/);
  });
  it('shows the protocol of an event', async () => {
    const doc = (await getEngine()).openDocument('croqtile', CO);
    doc.analyze();
    const h = doc.hover(at(CO, 'full[2]', 1));
    expect(h?.markdown).toMatch(/\*\*full\*\*\[2\]/);
    expect(h?.markdown).toMatch(/- warps 4–7 \(threads 128–255\):\n {2}- wait \(parity\) parity `\(iv \/ 2\) & 1` slot `iv % 2`/);
  });
});

describe('hover on a kernel name: the block size its analysis used', () => {
  const hoverAt = async (text: string, needle: string, offset = 0) => {
    const doc = (await getEngine()).openDocument('cuda', text);
    doc.analyze();
    return doc.hover(at(text, needle, offset))?.markdown;
  };

  it('names the candidate sizes when nothing in the file says', async () => {
    const md = await hoverAt(KERNEL, 'k(int n)');
    expect(md).toMatch(/\*\*kernel `k`\*\*: the block size is not known here/);
    expect(md).toMatch(/tries 128, 256 and 384 threads/);
  });

  it('names __launch_bounds__ when the kernel has it', async () => {
    const text = KERNEL.replace('__global__ void k(', '__global__ void __launch_bounds__(160) k(');
    expect(await hoverAt(text, 'k(int n)')).toMatch(/block of 160 threads, from `__launch_bounds__\(160\)`/);
  });

  it('names the launch site, at the definition and at the launch', async () => {
    const text = `${KERNEL}\nvoid run(int n) { k<<<1, 96>>>(n); }\n`;
    expect(await hoverAt(text, 'k(int n)')).toMatch(/block of 96 threads, the size its launch in this file uses/);
    expect(await hoverAt(text, 'k<<<')).toMatch(/block of 96 threads/);
  });

  it('says nothing on a name that is only a call of another function', async () => {
    const text = `${KERNEL}\nvoid k2() {}\nvoid run() { k2(); }\n`;
    expect(await hoverAt(text, 'k2();')).toBeUndefined();
  });
});
