// Returned call frames are reused (runtime.ts Frame.enter/release): a function whose frames no
// lambda captures and no pointer reaches keeps them for its next calls. What must hold: every call
// starts from a fresh frame (its own arguments, no value left by an earlier call, another thread's
// or another block's), recursion and calls in loops give the values the GPU gives, frames a lambda
// captures are never reused, and the same program run again (a cached compile) is unaffected.
import { describe, expect, it } from 'vitest';
import { runKernel, values } from './helpers';

const KERNEL = `
__device__ int twice(int x) { int y = x * 2; return y; }
__device__ int sum_to(int n) {
  int s = 0;
  if (n > 0) s = n + sum_to(n - 1);
  return s;
}
// Its local is set on one path only: a fresh frame reads what the path wrote, never a stale value.
__device__ int pick(int c, int v) {
  int r = -1;
  if (c) r = v;
  return r;
}
__device__ int apply(int k) {
  // The lambda captures this frame: apply's frames are never reused.
  auto add = [&](int a) { return a + k; };
  return add(1) + add(2);
}
__global__ void k(int *out) {
  int t = blockIdx.x * blockDim.x + threadIdx.x;
  int acc = 0;
  for (int i = 0; i < 4; i++) acc += twice(i + t) + pick((t + i) & 1, i);
  out[t] = acc + sum_to(threadIdx.x % 7) + apply(t);
}`;

function expected(n: number, blockDim: number): number[] {
  const sumTo = (m: number): number => (m > 0 ? m + sumTo(m - 1) : 0);
  const out: number[] = [];
  for (let t = 0; t < n; t++) {
    let acc = 0;
    for (let i = 0; i < 4; i++) acc += 2 * (i + t) + ((t + i) & 1 ? i : -1);
    out.push(acc + sumTo((t % blockDim) % 7) + (1 + t) + (2 + t));
  }
  return out;
}

describe('reused call frames', () => {
  it('start fresh for every call, thread and block, in recursion and loops, and a cached program runs the same again', async () => {
    for (const lockstep of [true, false]) {
      for (let run = 0; run < 2; run++) {
        const r = await runKernel(KERNEL, { grid: [3, 1, 1], block: [64, 1, 1], args: ['out=s32[192]'], lockstep });
        expect(r.status, r.message).toBe('completed');
        expect(values(r, 'out')).toEqual(expected(192, 64));
      }
    }
  });
});
