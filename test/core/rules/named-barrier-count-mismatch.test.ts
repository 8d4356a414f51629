// PF406 on self-written kernels: each bug class of named barriers, bad and fixed.
import { describe, expect, it } from 'vitest';
import { lint } from '../../helpers/engine';

async function pf406(src: string): Promise<string[]> {
  return (await lint(src, 'cuda')).filter((f) => f.code === 'PF406').map((f) => `${f.range.start.line + 1}: ${f.message}`);
}

const kernel = (bounds: number, body: string): string => `__global__ void __launch_bounds__(${bounds}) k(float* out) {\n${body}\n}`;

describe('named-barrier-count-mismatch', () => {
  it('flags a thread count that is not a multiple of 32, and not its fix', async () => {
    expect(await pf406(kernel(256, '  if (threadIdx.x < 96) asm volatile("bar.sync 1, 96;");'))).toEqual([]);
    const bad = await pf406(kernel(256, '  if (threadIdx.x < 100) asm volatile("bar.sync 1, 100;");'));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/^2: .*thread count of 100.*multiple of 32/);
  });

  it('flags an id outside 0..15 (CUTLASS user ids start at 8)', async () => {
    expect(await pf406(kernel(256, '  asm volatile("barrier.cta.sync 16, 256;");'))).toHaveLength(1);
    const cutlass = await pf406(kernel(256, '  cutlass::arch::NamedBarrier::sync(256, 8);'));
    expect(cutlass).toHaveLength(1);
    expect(cutlass[0]).toMatch(/barrier id 16/);
    expect(await pf406(kernel(256, '  cutlass::arch::NamedBarrier::sync(256, 7);'))).toEqual([]);
  });

  it('flags fewer threads reaching a barrier than its count, naming them', async () => {
    const body = (n: number) => `  if (threadIdx.x < 128) asm volatile("bar.arrive 2, %0;" :: "r"(${n}));\n  else if (threadIdx.x < 192) asm volatile("bar.sync 2, %0;" :: "r"(${n}));`;
    const bad = await pf406(kernel(256, body(256)));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/waits for 256 threads, but only 192 reach it \(threads 0-191, lines 2, 3\).*hang/);
    expect(await pf406(kernel(256, body(192)))).toEqual([]);
  });

  it('flags more threads than the count (groups that do not wait for each other)', async () => {
    const bad = await pf406(kernel(256, '  cutlass::arch::NamedBarrier::sync(128, 1);'));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/completes after 128 threads, but 256 reach it/);
    // One id per warp group: each group of 128 has its own barrier.
    expect(await pf406(kernel(256, '  cutlass::arch::NamedBarrier::sync(128, threadIdx.x / 128);'))).toEqual([]);
  });

  it('flags id 0 used for part of the block next to __syncthreads', async () => {
    const bad = await pf406(kernel(256, '  __syncthreads();\n  if (threadIdx.x < 128) asm volatile("bar.sync 0, 128;");'));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/^3: .*barrier 0.*__syncthreads.*line 2/);
    expect(await pf406(kernel(256, '  __syncthreads();\n  if (threadIdx.x < 128) asm volatile("bar.sync 1, 128;");'))).toEqual([]);
  });

  it('flags one id used by two handshakes with different counts', async () => {
    const bad = await pf406(kernel(256, '  if (threadIdx.x < 64) asm volatile("bar.sync 3, 64;");\n  else asm volatile("bar.sync 3, 192;");'));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/two handshakes of different threads share one id/);
    expect(await pf406(kernel(256, '  if (threadIdx.x < 64) asm volatile("bar.sync 3, 64;");\n  else asm volatile("bar.sync 4, 192;");'))).toEqual([]);
    // The same threads using the id with one count and then another: each use has all its participants.
    expect(await pf406(kernel(256, '  if (threadIdx.x < 128) asm volatile("bar.sync 3, 128;");\n  __syncthreads();\n  asm volatile("bar.sync 3, 256;");'))).toEqual([]);
  });

  it('stays silent when the block size, a branch or the id is not known', async () => {
    expect(await pf406('__global__ void k() {\n  if (threadIdx.x < 128) asm volatile("bar.sync 1, 256;");\n}')).toEqual([]);
    expect(await pf406(kernel(256, '  if (out[0] > 0) asm volatile("bar.sync 1, 256;");'))).toEqual([]);
    expect(await pf406(kernel(256, '  int id = (int)out[1];\n  if (threadIdx.x < 128) asm volatile("bar.sync %0, 256;" :: "r"(id));'))).toEqual([]);
  });
});
