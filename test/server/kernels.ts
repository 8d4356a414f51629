// Kernels shared by the face tests (LSP and CLI). Kept inline so the tests do not depend on
// test/fixtures/, which is written separately.

/** Discards the result of mbarrier_try_wait on line 7 (index 6): PF105 once the rules land. */
export const PF105_KERNEL = `#include <cuda/ptx>
__global__ void k() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, blockDim.x);
  __syncthreads();
  uint64_t tok = cuda::ptx::mbarrier_arrive(&bar);
  cuda::ptx::mbarrier_try_wait(&bar, tok);
}
`;
export const PF105_LINE = 6;
export const TRY_WAIT_COLUMN = PF105_KERNEL.split('\n')[PF105_LINE]!.indexOf('mbarrier_try_wait');

/** The same kernel with the wait in a retry loop: no findings. */
export const CLEAN_KERNEL = `#include <cuda/ptx>
__global__ void k() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&bar, blockDim.x);
  __syncthreads();
  uint64_t tok = cuda::ptx::mbarrier_arrive(&bar);
  while (!cuda::ptx::mbarrier_try_wait(&bar, tok)) {}
}
`;

/** `depth` nested blocks inside a kernel. */
export function nestedBraces(depth: number): string {
  return `__global__ void deep() {\n${'{'.repeat(depth)}\n__syncthreads();\n${'}'.repeat(depth)}\n}\n`;
}

/** About `bytes` of plausible CUDA made of repeated kernels with distinct names. */
export function bigSource(bytes: number): string {
  const parts: string[] = [];
  let size = 0;
  for (let i = 0; size < bytes; i++) {
    const k = CLEAN_KERNEL.replace('#include <cuda/ptx>\n', '').replace('void k()', `void k${i}()`);
    parts.push(k);
    size += k.length;
  }
  return `#include <cuda/ptx>\n${parts.join('')}`;
}

/** Deterministic pseudo-random bytes (a binary file). */
export function binaryBytes(n: number, seed = 1): Buffer {
  const b = Buffer.alloc(n);
  let x = seed;
  for (let i = 0; i < n; i++) {
    x = (x * 1103515245 + 12345) & 0x7fffffff;
    b[i] = x >>> 16;
  }
  return b;
}
