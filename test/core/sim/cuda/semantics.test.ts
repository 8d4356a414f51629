// The CUDA executor's language semantics on small kernels: exact integer and float arithmetic,
// control flow, functions/templates/lambdas/structs, shared memory, warp collectives, atomics,
// printf, error reports and the debugger's frames/locals view.
import { describe, expect, it } from 'vitest';
import { toHalfBits, fromHalfBits } from '../../../../core/sim/dtypes';
import { prepareCudaLaunch, CudaExecutor } from '../../../../core/lang/cuda/sim';
import { parseArg } from '../../../../core/sim/args';
import { runKernel, values } from './helpers';

const f32 = Math.fround;
const half = (x: number) => fromHalfBits(toHalfBits(x));

describe('CUDA executor: integer and float semantics', () => {
  it('wraps 32-bit arithmetic, compares unsigned, truncates division, clamps shifts', async () => {
    const r = await runKernel(
      `__global__ void k(int* o, unsigned* u, int big, int sh) {
        if (threadIdx.x != 0) return;
        o[0] = big + 1;                 // signed wrap
        o[1] = big * 3;                 // imul
        o[2] = -7 / 2;                  // truncation toward zero
        o[3] = -7 % 3;                  // sign of the dividend
        o[4] = (-1 < 1u) ? 1 : 0;       // -1 converts to 0xffffffff
        o[5] = (int)(1u << sh);         // shift by 31
        o[6] = -16 >> 2;                // arithmetic shift
        o[7] = (char)300;               // narrowing conversion
        o[8] = (unsigned short)-1;
        o[9] = (int)3.99f + (int)-3.99f;
        u[0] = 0u - 1u;
        u[1] = 0xF0000000u >> 28;
        u[2] = (unsigned)(-5);
        u[3] = ~0u / 3u;
      }`,
      { block: [1, 1, 1], args: ['o=s32[10]', 'u=u32[4]', `big=${0x7fffffff}`, 'sh=31'] },
    );
    expect(r.status).toBe('completed');
    expect(values(r, 'o')).toEqual([(0x7fffffff + 1) | 0, Math.imul(0x7fffffff, 3), Math.trunc(-7 / 2), -7 % 3, 0, (1 << 31) | 0, -16 >> 2, (300 << 24) >> 24, 0xffff, 0]);
    expect(values(r, 'u')).toEqual([0xffffffff, 0xf, (-5 >>> 0), Math.floor(0xffffffff / 3)]);
  });

  it('keeps 64-bit integers exact, beyond 2^53 too (wgmma descriptors keep their swizzle in bits 62-63)', async () => {
    const ok = await runKernel(
      `__global__ void k(long long* o, int n) { if (threadIdx.x) return; size_t a = (size_t)n * n * n; o[0] = a; o[1] = (1ull << 46) | 5; o[2] = -(long long)a / 7; }`,
      { block: [1, 1, 1], args: ['o=s64[3]', 'n=100000'] },
    );
    expect(ok.status).toBe('completed');
    expect(values(ok, 'o')).toEqual([1e15, 2 ** 46 + 5, Math.trunc(-1e15 / 7)]);
    const wide = await runKernel(
      `__global__ void k(long long* o, unsigned long long* u) {
        unsigned long long d = (1ull << 62) | ((unsigned long long)(1024 >> 4) << 32) | 0x1234;
        unsigned long long e = d + 32;             // a descriptor advanced by 512 bytes
        o[0] = (long long)(d >> 62);
        o[1] = (long long)(e & 0x3fff);
        o[2] = (long long)((e >> 32) & 0x3fff);
        o[3] = (long long)(e - d);
        o[4] = ~0ull;                              // -1 as long long
        o[5] = (long long)((0ull - 1) >> 32);      // unsigned wrap
        o[6] = (long long)(0xC000000000000000ull >> 60);
        o[7] = (unsigned)(e);                      // the low word
        o[8] = -(long long)(1ull << 62) / (1ll << 61);
        u[0] = d; u[1] = 5;
        unsigned long long back = u[0];
        o[9] = back == d && back != e && back > e - 33 && d < e;
        long long big = (1ll << 40) + 5;           // narrowing keeps the low bits, for exact and wide values alike
        o[10] = (int)big + (unsigned short)big + (signed char)(big - 6) + (int)(d | 0xffffffffull);
      }`,
      { block: [1, 1, 1], args: ['o=s64[11]', 'u=u64[2]'] },
    );
    expect(wide.status, wide.message).toBe('completed');
    expect(values(wide, 'o')).toEqual([1, 0x1234 + 32, 64, 32, -1, 0xffffffff, 12, 0x1234 + 32, -2, 1, 5 + 5 - 1 - 1]);
  });

  it('rounds float, double and half like the GPU', async () => {
    const r = await runKernel(
      `#include <cuda_fp16.h>
      __global__ void k(float* f, double* d, __half* h) {
        if (threadIdx.x) return;
        float a = 0.1f, b = 0.2f;
        f[0] = a + b;
        d[0] = 0.1 + 0.2;
        f[1] = 16777216.0f + 1.0f;
        __half x = __float2half(1.0f / 3.0f);
        h[0] = __hadd(x, x);
        f[2] = __half2float(__float2half(65519.0f));
        f[3] = __fdividef(1.0f, 3.0f);
        f[4] = sqrtf(2.0f);
      }`,
      { block: [1, 1, 1], args: ['f=f32[5]', 'd=f64[1]', 'h=f16[1]'] },
    );
    expect(r.status).toBe('completed');
    expect(values(r, 'f')).toEqual([f32(f32(0.1) + f32(0.2)), f32(16777216 + 1), half(65519), f32(1 / 3), f32(Math.sqrt(2))]);
    expect(values(r, 'd')).toEqual([0.1 + 0.2]);
    const x = half(f32(1 / 3));
    expect(values(r, 'h')).toEqual([half(x + x)]);
  });
});

describe('CUDA executor: control flow and functions', () => {
  it('runs loops, switch, break/continue, do-while, ternary and short-circuit calls', async () => {
    const r = await runKernel(
      `__device__ int calls = 0;
      __device__ bool touch(int* c) { c[0] += 1; return true; }
      __global__ void k(int* o, int* c, int n) {
        if (threadIdx.x) return;
        int s = 0;
        for (int i = 0; i < n; ++i) { if (i == 3) continue; if (i == 7) break; s += i; }
        o[0] = s;
        int j = 0; do { j += 2; } while (j < 9);
        o[1] = j;
        switch (n) { case 1: o[2] = 1; break; case 10: o[2] = 10; // fall through
          case 11: o[3] = 11; break; default: o[2] = -1; }
        o[4] = n > 5 ? n * 2 : n;
        bool t = (n < 0) && touch(c);   // right side not evaluated
        bool u = (n > 0) || touch(c);   // right side not evaluated
        bool v = (n > 0) && touch(c);   // evaluated once
        o[5] = t + u + v;
        int w = 0; while (true) { if (++w >= 4) break; }
        o[6] = w;
      }`,
      { block: [1, 1, 1], args: ['o=s32[7]', 'c=s32[1]', 'n=10'] },
    );
    expect(r.status).toBe('completed');
    let s = 0;
    for (let i = 0; i < 10; ++i) {
      if (i === 3) continue;
      if (i === 7) break;
      s += i;
    }
    expect(values(r, 'o')).toEqual([s, 10, 10, 11, 20, 2, 4]);
    expect(values(r, 'c')).toEqual([1]);
  });

  it('calls device functions, templates (deduced and explicit), lambdas, struct methods and references', async () => {
    const r = await runKernel(
      `template <int N, typename T> __device__ T scale(T x) { return x * N; }
      template <typename T> __device__ void swap2(T& a, T& b) { T t = a; a = b; b = t; }
      __device__ int fact(int n) { return n <= 1 ? 1 : n * fact(n - 1); }
      struct Ring { int stage; unsigned phase; __device__ void advance() { if (++stage == 3) { stage = 0; phase ^= 1; } } };
      __global__ void k(int* o) {
        if (threadIdx.x) return;
        o[0] = scale<3>(7);
        float f = scale<2, float>(1.25f);
        o[1] = (int)(f * 100);
        int a = 1, b = 2; swap2(a, b); o[2] = a * 10 + b;
        o[3] = fact(6);
        int base = 5;
        auto add = [&](int x) { return x + base; };
        base = 7;
        o[4] = add(1);
        auto bump = [&] { base += 10; };
        bump();
        o[5] = base;
        Ring r{0, 0};
        for (int i = 0; i < 7; ++i) r.advance();
        o[6] = r.stage * 10 + r.phase;
        int arr[2][3] = {{1, 2, 3}, {4, 5, 6}};
        int& ref = arr[1][2];
        ref += 100;
        o[7] = arr[1][2];
      }`,
      { block: [1, 1, 1], args: ['o=s32[8]'] },
    );
    expect(r.status).toBe('completed');
    let stage = 0;
    let phase = 0;
    for (let i = 0; i < 7; i++) if (++stage === 3) [stage, phase] = [0, phase ^ 1];
    expect(values(r, 'o')).toEqual([21, 250, 21, 720, 8, 17, stage * 10 + phase, 106]);
  });

  it('limits recursion depth', async () => {
    const r = await runKernel(`__device__ int f(int n) { return f(n + 1); } __global__ void k(int* o) { o[0] = f(0); }`, { block: [1, 1, 1], args: ['o=s32[1]'] });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/call depth exceeds 64/);
  });
});

describe('CUDA executor: memory, synchronisation and warp collectives', () => {
  it('shares memory within a block across __syncthreads', async () => {
    const r = await runKernel(
      `__global__ void k(const int* in, int* out) {
        __shared__ int s[64];
        int t = threadIdx.x;
        s[t] = in[blockIdx.x * 64 + t];
        __syncthreads();
        out[blockIdx.x * 64 + t] = s[63 - t] + blockIdx.x * 1000;
      }`,
      { block: [64, 1, 1], grid: [2, 1, 1], args: ['in=s32[128]:iota', 'out=s32[128]'] },
    );
    expect(r.status).toBe('completed');
    const want = Array.from({ length: 128 }, (_, i) => {
      const b = Math.floor(i / 64);
      return b * 64 + (63 - (i % 64)) + b * 1000;
    });
    expect(values(r, 'out')).toEqual(want);
  });

  it('reports an unsynchronised shared-memory exchange as a race', async () => {
    const r = await runKernel(`__global__ void k(int* out) { __shared__ int s[32]; s[threadIdx.x] = 1; out[threadIdx.x] = s[(threadIdx.x + 1) % 32]; }`, { args: ['out=s32[32]'] });
    expect(r.status).toBe('race');
    expect(r.message).toMatch(/data race on shared 's'/);
  });

  it('shuffles and votes through the warp', async () => {
    const r = await runKernel(
      `__global__ void k(int* o) {
        int lane = threadIdx.x & 31;
        int v = lane * 10;
        int a = __shfl_sync(0xffffffff, v, 3);
        int b = __shfl_xor_sync(0xffffffff, v, 1);
        int c = __shfl_down_sync(0xffffffff, v, 4);
        int d = __shfl_up_sync(0xffffffff, v, 1);
        unsigned bal = __ballot_sync(0xffffffff, lane % 3 == 0);
        int all = __all_sync(0xffffffff, lane < 40);
        int any = __any_sync(0xffffffff, lane == 31);
        int sum = v;
        for (int off = 16; off > 0; off /= 2) sum += __shfl_xor_sync(0xffffffff, sum, off);
        o[lane * 8 + 0] = a; o[lane * 8 + 1] = b; o[lane * 8 + 2] = c; o[lane * 8 + 3] = d;
        o[lane * 8 + 4] = (int)bal; o[lane * 8 + 5] = all; o[lane * 8 + 6] = any; o[lane * 8 + 7] = sum;
      }`,
      { args: ['o=s32[256]'] },
    );
    expect(r.status).toBe('completed');
    let bal = 0;
    for (let l = 0; l < 32; l++) if (l % 3 === 0) bal |= 1 << l;
    const total = Array.from({ length: 32 }, (_, l) => l * 10).reduce((x, y) => x + y, 0);
    const want: number[] = [];
    for (let l = 0; l < 32; l++) want.push(30, (l ^ 1) * 10, l + 4 < 32 ? (l + 4) * 10 : l * 10, l >= 1 ? (l - 1) * 10 : 0, bal | 0, 1, 1, total);
    expect(values(r, 'o')).toEqual(want);
  });

  it('applies atomics on global and shared memory without reporting races', async () => {
    const r = await runKernel(
      `__global__ void k(int* g, float* f) {
        __shared__ int s;
        if (threadIdx.x == 0) s = 0;
        __syncthreads();
        atomicAdd(&s, (int)threadIdx.x);
        atomicMax(&g[1], (int)threadIdx.x * 3);
        atomicAdd(&f[0], 0.5f);
        int old = atomicCAS(&g[2], 0, 99);
        if (old == 0) atomicAdd(&g[3], 1);
        __syncthreads();
        if (threadIdx.x == 0) g[0] = s;
      }`,
      { block: [64, 1, 1], args: ['g=s32[4]', 'f=f32[1]'] },
    );
    expect(r.status).toBe('completed');
    expect(values(r, 'g')).toEqual([(63 * 64) / 2, 63 * 3, 99, 1]);
    expect(values(r, 'f')).toEqual([32]);
  });

  it('prints with printf', async () => {
    const lines: string[] = [];
    const r = await runKernel(`__global__ void k(float x) { if (threadIdx.x < 2) printf("t=%d x=%.2f hex=%x %s\\n", threadIdx.x, x, 255, "ok"); }`, { args: ['x=1.5'], onPrint: (s) => lines.push(s) });
    expect(r.status).toBe('completed');
    expect(lines).toEqual(['t=0 x=1.50 hex=ff ok\n', 't=1 x=1.50 hex=ff ok\n']);
    expect(r.stdout).toBe(lines.join(''));
  });

  it('prints 64-bit integers exactly, beyond 2^53 too (a wgmma descriptor)', async () => {
    const r = await runKernel(`#include <cstdint>
      __global__ void k() { if (threadIdx.x) return; uint64_t d = (1ull << 62) | 0x1234; long long n = -5; printf("%llu %llx %#llX %lld %+lld %llx %5lu\\n", d, d, d, n, 7ll, n, 42ul); }`);
    expect(r.status, r.message).toBe('completed');
    expect(r.stdout).toBe('4611686018427392564 4000000000001234 0X4000000000001234 -5 +7 fffffffffffffffb    42\n');
  });
});

describe('CUDA executor: errors', () => {
  it('stops on an unsupported construct with its line', async () => {
    const r = await runKernel(`__global__ void k(int* o) {\n  int i = 0;\nagain:\n  if (++i < 3) goto again;\n  o[0] = i;\n}`, { args: ['o=s32[1]'] });
    expect(r.status).toBe('error');
    expect(r.message).toBe('not supported by the simulator: goto at line 4');
  });

  it('stops a runaway loop at the step limit', async () => {
    const r = await runKernel(`__global__ void k(int* o) { int i = 0; while (o[0] == 0) { i++; } }`, { args: ['o=s32[1]'], maxSteps: 100_000 });
    expect(r.status).toBe('step-limit');
  });

  it('rejects a bad launch configuration', async () => {
    await expect(runKernel(`__global__ void k() {}`, { block: [2048, 1, 1] })).rejects.toThrow(/2048 threads per block exceeds the hardware limit of 1024/);
  });

  it('reports out-of-bounds global and shared indexing naming the buffer', async () => {
    const g = await runKernel(`__global__ void k(float* out) { out[threadIdx.x + 2] = 1.0f; }`, { block: [4, 1, 1], args: ['out=f32[4]'] });
    expect(g.status).toBe('error');
    expect(g.report?.kind).toBe('oob');
    expect(g.message).toMatch(/out-of-bounds global access: .* of 'out'.*line 1/);
    const s = await runKernel(`__global__ void k(float* out) {\n  __shared__ float tile[4];\n  tile[threadIdx.x] = 1.0f;\n}`, { block: [8, 1, 1], args: ['out=f32[4]'] });
    expect(s.status).toBe('error');
    expect(s.report?.kind).toBe('oob');
    expect(s.message).toMatch(/'tile'.*line 3/);
  });

  it('names a missing, unknown or mistyped argument', async () => {
    const src = `__global__ void k(const float* in, int n) {}`;
    await expect(runKernel(src, { args: ['in=f32[4]'] })).rejects.toThrow(/missing argument 'n'/);
    await expect(runKernel(src, { args: ['in=f32[4]', 'n=1', 'zz=2'] })).rejects.toThrow(/'zz' is not a parameter of k\(in, n\)/);
    await expect(runKernel(src, { args: ['in=3', 'n=1'] })).rejects.toThrow(/argument 'in' is a pointer/);
    await expect(runKernel(src, { args: ['in=s32[4]', 'n=1'] })).rejects.toThrow(/'in' points to f32 but was given s32/);
    await expect(runKernel(src, { args: ['in=f32[4]', 'n=1.5'] })).rejects.toThrow(/'n' is an integer/);
    await expect(runKernel(`__global__ void a() {} __global__ void b() {}`)).rejects.toThrow(/2 kernels.*a, b/);
    await expect(runKernel(`__global__ void a() {}`, { kernel: 'zz' })).rejects.toThrow(/no __global__ kernel named 'zz' \(kernels: a\)/);
  });
});

describe('CUDA executor: debugger view', () => {
  it('lists call frames and locals of a paused thread', async () => {
    const text = `__device__ int inner(int x) {\n  int y = x * 2;\n  return y + 1;\n}\n__global__ void k(int* o) {\n  int a = 20 + threadIdx.x;\n  o[threadIdx.x] = inner(a);\n}`;
    const launch = await prepareCudaLaunch({ file: 'k.cu', text, block: [2, 1, 1], args: [parseArg('o=s32[2]')] });
    const m = launch.machine;
    m.lineHook = (t, loc) => {
      if (t.index === 1 && loc.line === 2) {
        m.pause();
        return true;
      }
      return false;
    };
    expect(m.run().status).toBe('paused');
    const ex = m.executor as CudaExecutor;
    const t = m.threads[1];
    expect(ex.frames(t)).toEqual([
      { name: 'inner', loc: expect.objectContaining({ line: 2 }) },
      { name: 'k', loc: expect.objectContaining({ line: 6 }) },
    ]);
    expect(ex.locals(t, 0)).toEqual([
      { name: 'x', type: 's32', value: '21' },
      { name: 'y', type: 's32', value: '42' },
    ]);
    expect(ex.locals(t, 1)).toEqual([
      { name: 'o', type: 's32*', value: '&o' },
      { name: 'a', type: 's32', value: '21' },
    ]);
  });
});
