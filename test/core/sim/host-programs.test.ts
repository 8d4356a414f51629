// Whole programs beyond the GPU-recorded ones (programs.test.ts): glibc's printf and rand, the CUDA
// runtime's error rules, a race in a kernel of a program that completes, cudaLaunchKernelEx's cluster
// attribute, cuTensorMapEncodeTiled writing the map, assert's message, and unsupported host code.
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { formatPrintf } from '../../../core/lang/cuda/sim/printf-format';
import { GlibcRand } from '../../../core/lang/cuda/sim/host-runtime';
import { CudaProgram } from '../../../core/lang/cuda/sim/host-program';
import { simulate } from '../../../core/simulate';
import { HOST_LIBRARY } from '../../../core/lang/cuda/sim/host-hooks';
import { SIMULATED_BUILTINS } from '../../../core/lang/cuda/sim/builtins';
import { CUDA_CATALOGUE } from '../../../core/lang/cuda/catalogue';

const run = (text: string, file = '/tmp/prog.cu') => simulate({ file, text });

describe('printf as glibc formats it', () => {
  // Expected strings printed by glibc 2.36's printf for the same formats and arguments.
  it.each([
    ['%e %E %g %G %.3g %10.2e %-10.1f| %.0f %.0f %.0f %#x %o', [12345.678, 0.000123, 1e-5, 1e20, 2 / 3, -1 / 7, 2.5, 0.5, 1.5, 2.5, 255, 8], '1.234568e+04 1.230000E-04 1e-05 1E+20 0.667  -1.43e-01 2.5       | 0 2 2 0xff 10'],
    ['%zu %lld %llx %u %05d|%-5d|%5s|%c', [10, 81000000567, 81000000567, 4000000000, 42, 42, 'ab', 90], '10 81000000567 12dbf9ec37 4000000000 00042|42   |   ab|Z'],
    ['%.2f %.2f %g %g %g %.4f %+d % d %x', [0.125, 0.375, 100000, 1000000, 0.0001, -18.5, 5, 5, -1], '0.12 0.38 100000 1e+06 0.0001 -18.5000 +5  5 ffffffff'],
    ['%3d|%-3d|%03d|%+.2e|%.10g|%#g|%g|%p|%%', [-5, -5, -5, 0, 1 / 3, 1, 0, 0], ' -5|-5 |-05|+0.00e+00|0.3333333333|1.00000|0|(nil)|%'],
  ])('%s', (fmt, args, want) => {
    expect(formatPrintf(fmt, args as number[])).toBe(want);
  });
});

describe("glibc's rand()", () => {
  it('srand(1) gives the sequence Linux prints', () => {
    const g = new GlibcRand(1);
    expect([1, 2, 3, 4, 5].map(() => g.next())).toEqual([1804289383, 846930886, 1681692777, 1714636915, 1957747793]);
    g.seed(0); // srand(0) seeds as srand(1)
    expect(g.next()).toBe(1804289383);
  });
});

describe('the host library', () => {
  // Catalogue parity's rule, for host code: the host library is the C library and the CUDA runtime's
  // host API, never a barrier or asynchronous device API (those are the catalogue's, for device code).
  it('implements no API of the CUDA catalogue, and host-only names are not device builtins', () => {
    expect(HOST_LIBRARY.filter((n) => n in CUDA_CATALOGUE)).toEqual([]);
    expect(HOST_LIBRARY.filter((n) => n.startsWith('cuda') || n.startsWith('cu')).filter((n) => SIMULATED_BUILTINS.includes(n))).toEqual([]);
  });
});

describe('whole programs', () => {
  it("a local 'T x(args);' that the grammar reads as a prototype is the constructor call, in host and device code", async () => {
    // C++'s most vexing parse: `a(M * K)` reads as a parameter `K` of pointer-to-`M` type, `b(N)` as one of type `N`.
    const r = await run(`#include <cstdio>
#include <vector>
struct Acc { int v; __device__ Acc(int x) : v(x * 2) {} };
__global__ void k(int n, int* out) { Acc acc(n); out[threadIdx.x] = acc.v; }
int main() {
  const int M = 4, K = 3, N = 5;
  std::vector<float> a(M * K), b(N);
  a[1] = 2.5f;
  int* d = nullptr;
  cudaMalloc(&d, 2 * sizeof(int));
  k<<<1, 2>>>(N, d);
  int h[2];
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  printf("%d %d %.1f %d %d\\n", (int)a.size(), (int)b.size(), a[1], h[0], h[1]);
  return 0;
}
`);
    expect(r.status, r.message).toBe('completed');
    expect(r.stdout).toBe('12 5 2.5 10 10\n');
  });

  it('a race in a kernel lets the program run to its end, then reports the race', async () => {
    const r = await run(`#include <cstdio>
__global__ void racy(int* out) {
  __shared__ int x;
  x = threadIdx.x;
  __syncthreads();
  if (threadIdx.x == 0) out[0] = x >= 0;
}
int main() {
  int* d; int h = 0;
  cudaMalloc(&d, sizeof(int));
  racy<<<1, 64>>>(d);
  cudaMemcpy(&h, d, sizeof(int), cudaMemcpyDeviceToHost);
  printf("out = %d\\n", h);
  return 0;
}
`);
    expect(r.stdout).toBe('out = 1\n');
    expect(r.status).toBe('race');
    expect(r.exitCode).toBe(0);
    expect(r.message).toMatch(/^data race on shared 'x'.* at line 4[\s\S]*the program exited with code 0/);
  });

  it('cudaMemcpy with the wrong direction is an invalid argument; a failed assert prints glibc\'s message and exits 134', async () => {
    const r = await run(`#include <cstdio>
#include <cassert>
__global__ void k(float* p) { p[threadIdx.x] = 1.0f; }
int main() {
  float h[32];
  float* d;
  cudaMalloc(&d, sizeof(h));
  k<<<1, 32>>>(d);
  cudaError_t e = cudaMemcpy(h, d, sizeof(h), cudaMemcpyHostToDevice);
  printf("wrong kind: %s\\n", cudaGetErrorString(e));
  e = cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  printf("right kind: %s %.1f\\n", cudaGetErrorString(e), h[5]);
  assert(h[0] == 2.0f);
  printf("not reached\\n");
  return 0;
}
`, '/tmp/check.cu');
    expect(r.stdout).toBe('wrong kind: invalid argument\nright kind: no error 1.0\n');
    expect(r.status).toBe('completed');
    expect(r.exitCode).toBe(134);
    expect(r.stderr).toBe("check: /tmp/check.cu:13: int main(): Assertion `h[0] == 2.0f' failed.\n");
  });

  it('cudaLaunchKernelEx records the cluster dimensions with the launch, and runs the kernel', async () => {
    const text = `#include <cstdio>
__global__ void fill(int* out) { out[blockIdx.x * blockDim.x + threadIdx.x] = blockIdx.x; }
int main() {
  int* d;
  cudaMalloc(&d, 4 * 32 * sizeof(int));
  cudaLaunchConfig_t config = {};
  config.gridDim = dim3(4);
  config.blockDim = dim3(32);
  cudaLaunchAttribute attr[1];
  attr[0].id = cudaLaunchAttributeClusterDimension;
  attr[0].val.clusterDim.x = 2;
  attr[0].val.clusterDim.y = 1;
  attr[0].val.clusterDim.z = 1;
  config.attrs = attr;
  config.numAttrs = 1;
  cudaError_t e = cudaLaunchKernelEx(&config, fill, d);
  int h[128];
  cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
  printf("%d %d %d\\n", (int)e, h[31], h[127]);
  return 0;
}
`;
    const p = await CudaProgram.create({ file: '/tmp/ex.cu', text });
    const kernels: unknown[] = [];
    for (let s = p.next(); s; s = p.next()) {
      if (s.kind === 'kernel') kernels.push(s.machine.options.cluster);
      p.endLaunch(s.machine.run());
    }
    expect(p.result().stdout).toBe('0 0 3\n');
    expect(kernels).toEqual([[2, 1, 1]]);
  });

  it('cuTensorMapEncodeTiled writes the map for a valid description and refuses an invalid one', async () => {
    const r = await run(`#include <cuda.h>
#include <cstdio>
int main() {
  void* d;
  cudaMalloc(&d, 64 * 64 * 4);
  CUtensorMap map;
  cuuint64_t dims[2] = {64, 64};
  cuuint64_t strides[1] = {256};
  cuuint32_t box[2] = {32, 16};
  cuuint32_t es[2] = {1, 1};
  CUresult ok = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  unsigned magic = (unsigned)(map.opaque[0] & 0xffffffffull);
  box[0] = 64;
  CUresult bad = cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_FLOAT32, 2, d, dims, strides, box, es, CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_128B, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
  printf("%d %x %d\\n", (int)ok, magic, (int)bad);
  return 0;
}
`);
    // 32 floats = 128 bytes fit the 128B swizzle span; 64 floats do not.
    expect(r.stdout).toBe('0 5046544d 1\n');
  });

  it('cuTensorMapEncodeTiled with interleave: accepts and refuses as the H200 driver did, stops past the recorded box sizes', async () => {
    const program = (box: string) => `#include <cuda.h>
#include <cstdio>
int main() {
  void* d;
  cudaMalloc(&d, 8192);
  CUtensorMap map;
  cuuint64_t dims[3] = {5, 6, 4};
  cuuint64_t strides[2] = {144, 896};
  cuuint32_t es[3] = {1, 1, 1};
  cuuint32_t ok[3] = {8, 2, 3}, narrow[3] = {4, 2, 3}, big[3] = {${box}};
  printf("%d", (int)cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 3, d, dims, strides, ok, es, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  printf(" %d", (int)cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 3, d, dims, strides, narrow, es, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  printf(" %d\\n", (int)cuTensorMapEncodeTiled(&map, CU_TENSOR_MAP_DATA_TYPE_UINT16, 3, d, dims, strides, big, es, CU_TENSOR_MAP_INTERLEAVE_16B, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_NONE, CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE));
  return 0;
}
`;
    // test/fixtures/sim/gpu/interleave/encode-probe: an 8-byte inner box is refused with interleave too.
    expect((await run(program('8, 4, 8'), '/tmp/il.cu')).stdout).toBe('0 1 0\n');
    const r = await run(program('8, 256, 256'), '/tmp/il.cu');
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/^not supported by the simulator: cuTensorMapEncodeTiled: an interleaved tensor map whose box spans 8388608 bytes .* at line 13$/);
  });

  it('host code the simulator cannot run stops with "not supported by the simulator: X at FILE:LINE"', async () => {
    const r = await run(`#include <string>
int main() {
  std::string s = "abc";
  return 0;
}
`, '/tmp/strings.cu');
    expect(r.status).toBe('error');
    expect(r.message).toBe("not supported by the simulator: type 'std::string' at strings.cu:3");
  });

  it('a launch with a host pointer faults like the GPU (illegal address), and the error is sticky', async () => {
    const r = await run(`#include <cstdio>
#include <cstdlib>
__global__ void touch(int* p) { p[0] = 1; }
int main() {
  int* h = (int*)malloc(4);
  touch<<<1, 1>>>(h);
  printf("launch %d\\n", (int)cudaGetLastError());
  printf("sync %d\\n", (int)cudaDeviceSynchronize());
  touch<<<1, 1>>>(h);
  printf("again %d\\n", (int)cudaGetLastError());
  printf("sync %d\\n", (int)cudaDeviceSynchronize());
  return 0;
}
`);
    expect(r.stdout).toBe('launch 0\nsync 700\nagain 700\nsync 700\n');
    expect(r.launchFailures).toHaveLength(1);
  });

  it('main(argc, argv), cudaMemcpyToSymbol/FromSymbol on __constant__ and __device__ variables, cudaGetDeviceProperties, atoi/strlen/strcmp', async () => {
    const r = await run(`#include <cstdio>
#include <cstdlib>
#include <cstring>
__constant__ float coef[4];
__device__ int counter;
__global__ void k(float* out) { out[threadIdx.x] = coef[threadIdx.x] * 2.0f; atomicAdd(&counter, 1); }
int main(int argc, char** argv) {
  int n = argc > 1 ? atoi(argv[1]) : 4;
  float h[4] = {1, 2, 3, 4};
  cudaMemcpyToSymbol(coef, h, sizeof(h));
  float* d;
  cudaMalloc(&d, sizeof(h));
  k<<<1, n>>>(d);
  float o[4];
  int cnt = 0;
  cudaMemcpy(o, d, sizeof(o), cudaMemcpyDeviceToHost);
  cudaMemcpyFromSymbol(&cnt, counter, sizeof(int));
  cudaDeviceProp prop;
  cudaGetDeviceProperties(&prop, 0);
  printf("%s %d %s sm_%d%d %d SMs\\n", argv[0], argc, prop.name, prop.major, prop.minor, prop.multiProcessorCount);
  printf("%.1f %.1f %d %d %d %d\\n", o[0], o[3], cnt, (int)strlen(argv[0]), strcmp("abc", "abd"), atoi(" -42x"));
  return 0;
}
`, '/tmp/symbols.cu');
    expect(r.stdout).toBe('./symbols 1 NVIDIA H200 sm_90 132 SMs\n2.0 8.0 4 9 -1 -42\n');
  });

  it('host helpers and macros from a project header (an error check with #x and __LINE__)', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-program-'));
    writeFileSync(path.join(dir, 'check.h'), `#pragma once
#include <cstdio>
#define CUDA_CHECK(x) check_cuda((x), #x, __LINE__)
inline int check_cuda(cudaError_t e, const char* what, int line) {
  if (e != cudaSuccess) printf("%s failed at line %d: %s\\n", what, line, cudaGetErrorString(e));
  return e != cudaSuccess;
}
`);
    const file = path.join(dir, 'main.cu');
    const text = `#include "check.h"
__global__ void k(int* p) { p[threadIdx.x] = threadIdx.x; }
int main() {
  int* d;
  CUDA_CHECK(cudaMalloc(&d, 64 * sizeof(int)));
  k<<<1, 2048>>>(d);
  int bad = CUDA_CHECK(cudaGetLastError());
  return bad;
}
`;
    writeFileSync(file, text);
    const r = await simulate({ file, text });
    expect(r.stdout).toBe('cudaGetLastError() failed at line 7: invalid argument\n');
    expect(r.exitCode).toBe(1);
  });

  it('pinned host memory (cudaMallocHost) is mapped for kernels, unlike malloc', async () => {
    const r = await run(`#include <cstdio>
__global__ void k(int* p) { p[threadIdx.x] = threadIdx.x * 2; }
int main() {
  int* h;
  cudaMallocHost(&h, 32 * sizeof(int));
  k<<<1, 32>>>(h);
  cudaError_t e = cudaDeviceSynchronize();
  printf("%s %d\\n", cudaGetErrorString(e), h[31]);
  return cudaFreeHost(h);
}
`);
    expect(r.stdout).toBe('no error 62\n');
    expect(r.exitCode).toBe(0);
  });

  it('a __host__ __device__ function runs in host code and in kernels, printing from both', async () => {
    const r = await run(`#include <cstdio>
__host__ __device__ int twice(int x) { printf("twice %d\\n", x); return 2 * x; }
__global__ void k(int* o) { o[0] = twice(21); }
int main() {
  int* d; int h = 0;
  cudaMalloc(&d, 4);
  printf("host %d\\n", twice(5));
  k<<<1, 1>>>(d);
  cudaMemcpy(&h, d, 4, cudaMemcpyDeviceToHost);
  printf("device %d\\n", h);
  return 0;
}
`);
    expect(r.stdout).toBe('twice 5\nhost 10\ntwice 21\ndevice 42\n');
  });
});
