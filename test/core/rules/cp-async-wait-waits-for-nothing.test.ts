// PF312 on self-written kernels: cp.async wait_group counts that wait for nothing, bad and fixed.
import { describe, expect, it } from 'vitest';
import { lint } from '../../helpers/engine';

async function pf312(src: string): Promise<string[]> {
  return (await lint(src, 'cuda')).filter((f) => f.code === 'PF312').map((f) => `${f.range.start.line + 1}: ${f.message}`);
}

const COPY = 'asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"((unsigned)__cvta_generic_to_shared(&tile[threadIdx.x])), "l"(src + threadIdx.x));';
const COMMIT = 'asm volatile("cp.async.commit_group;");';
const wait = (n: number | string): string => `asm volatile("cp.async.wait_group %0;" :: "n"(${n}));`;
const kernel = (body: string[]): string =>
  ['__global__ void k(const float4* src, float* out, int n) {', '  __shared__ float4 tile[256];', ...body.map((l) => `  ${l}`), '}'].join('\n');
const USE = ['__syncthreads();', 'out[threadIdx.x] = tile[255 - threadIdx.x].x;'];

describe('cp-async-wait-waits-for-nothing', () => {
  it('flags wait_group N with no more than N groups committed, and not wait_group 0', async () => {
    const bad = await pf312(kernel([COPY, COMMIT, wait(1), ...USE]));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/^5: .*N = 1 .*at most 1 group has been committed \(line 4\).*cp\.async at line 3.*line 6/);
    expect(await pf312(kernel([COPY, COMMIT, wait(0), ...USE]))).toEqual([]);
  });

  it('flags a commit issued after the wait meant to cover it', async () => {
    const bad = await pf312(kernel([COPY, wait(0), ...USE, COMMIT]));
    expect(bad).toHaveLength(1);
    expect(bad[0]).toMatch(/no group has been committed.*not committed into any group/);
    expect(await pf312(kernel([COPY, COMMIT, wait(0), ...USE]))).toEqual([]);
  });

  it('treats cp.async.wait_all as commit + wait 0', async () => {
    expect(await pf312(kernel([COPY, 'asm volatile("cp.async.wait_all;");', ...USE]))).toEqual([]);
  });

  it('keeps a double-buffered loop with a prologue quiet, and flags it without the prologue', async () => {
    const loop = ['for (int i = 0; i < n; ++i) {', `  ${COPY}`, `  ${COMMIT}`, `  ${wait(1)}`, '  __syncthreads();', '  out[i] = tile[i % 256].x;', '}'];
    expect(await pf312(kernel([COPY, COMMIT, ...loop]))).toEqual([]);
    expect(await pf312(kernel(loop))).toHaveLength(1);
  });

  it('stays silent when the data is used only under a condition or the count does not fold', async () => {
    expect(await pf312(kernel([COPY, COMMIT, wait(1), 'if (n > 0) out[0] = tile[0].x;']))).toEqual([]);
    expect(await pf312(kernel([COPY, COMMIT, wait('n'), ...USE]))).toEqual([]);
  });

  it('reads the pipeline primitives and a CuTe-style template wrapper', async () => {
    const prim = ['__pipeline_memcpy_async(&tile[threadIdx.x], src + threadIdx.x, 16);', '__pipeline_commit();', '__pipeline_wait_prior(1);', ...USE];
    expect(await pf312(kernel(prim))).toHaveLength(1);
    expect(await pf312(kernel(prim.map((l) => l.replace('wait_prior(1)', 'wait_prior(0)'))))).toEqual([]);
    const wrappers = [
      'template <int N> __device__ void cp_async_wait() {',
      '  if constexpr (N == 0) { asm volatile("cp.async.wait_all;\\n" ::); }',
      '  else { asm volatile("cp.async.wait_group %0;\\n" :: "n"(N)); }',
      '}',
      `__device__ void cp_async_fence() { ${COMMIT} }`,
    ].join('\n');
    const body = (n: number) => wrappers + '\n' + kernel([COPY, 'cp_async_fence();', `cp_async_wait<${n}>();`, ...USE]);
    expect(await pf312(body(1))).toHaveLength(1);
    expect(await pf312(body(0))).toEqual([]);
  });
});
