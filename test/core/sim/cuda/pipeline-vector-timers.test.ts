// The CUDA executor's cuda::pipeline, vector values, elect.sync, timers and accepted no-op
// instructions on small kernels: protocol mistakes end as they would on the GPU (a skipped release
// hangs the producer a lap later), operators exist exactly where the CUDA headers define them, and
// bad operands stop with a clear error. Their GPU ground truth is test/fixtures/sim/gpu/memmodel/.
import { describe, expect, it } from 'vitest';
import { runKernel, values } from './helpers';

const PIPELINE = (release: string) => `
#include <cuda/pipeline>
#include <cooperative_groups.h>
__global__ void k(const float* in, float* out) {
  __shared__ float buf[2][32];
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> state;
  auto block = cooperative_groups::this_thread_block();
  auto pipe = cuda::make_pipeline(block, &state, threadIdx.x < 32 ? cuda::pipeline_role::producer : cuda::pipeline_role::consumer);
  if (threadIdx.x < 32) {
    for (int s = 0; s < 4; ++s) {
      pipe.producer_acquire();
      cuda::memcpy_async(&buf[s % 2][threadIdx.x], in + s * 32 + threadIdx.x, sizeof(float), pipe);
      pipe.producer_commit();
    }
  } else {
    float acc = 0.0f;
    for (int s = 0; s < 4; ++s) {
      pipe.consumer_wait();
      acc += buf[s % 2][threadIdx.x - 32];
      ${release}
    }
    out[threadIdx.x - 32] = acc;
  }
}`;

describe('cuda::pipeline', () => {
  it('runs a producer/consumer ring to the right sums', async () => {
    const r = await runKernel(PIPELINE('pipe.consumer_release();'), { block: [64, 1, 1], args: ['in=f32[128]:iota', 'out=f32[32]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual(Array.from({ length: 32 }, (_, c) => c + (32 + c) + (64 + c) + (96 + c)));
    expect(r.phaseFlips).toBe(8); // 4 stages produced, 4 consumed
  });

  it('keeps the tail on stage 0 when consumers never release: they read stage 1 while its copy is in flight', async () => {
    // libcu++ advances the tail (and its parity) only in consumer_release.
    const r = await runKernel(PIPELINE(''), { block: [64, 1, 1], args: ['in=f32[128]:iota', 'out=f32[32]'] });
    expect(r.status).toBe('race');
    expect(r.message).toBe("data race on shared 'buf' byte 128: read by block 0 · warp 1 · lane 0 at line 19 is not ordered by any barrier with the write by an async operation issued by block 0 · warp 0 · lane 0 · producer at line 12");
  });

  it('reports a consumer that releases before reading (the next copy overwrites the slot)', async () => {
    const early = PIPELINE('').replace('acc += buf[s % 2][threadIdx.x - 32];', 'pipe.consumer_release();\n      acc += buf[s % 2][threadIdx.x - 32];');
    const r = await runKernel(early, { block: [64, 1, 1], args: ['in=f32[128]:iota', 'out=f32[32]'], schedule: 'adversarial' });
    expect(r.status).toBe('race');
    expect(r.message).toContain("shared 'buf'");
  });
});

describe('vector values', () => {
  it('has no operator + on float4 unless the program defines one (then it is a function call)', async () => {
    const bare = `__global__ void k(float* o) { float4 a = make_float4(1, 2, 3, 4); float4 b = a + a; o[0] = b.x; }`;
    const r = await runKernel(bare, { args: ['o=f32[1]'] });
    expect(r.status).toBe('error');
    expect(r.message).toContain('operator + on float4 and float4');
    const own = `__device__ float4 operator+(float4 a, float4 b) { return make_float4(a.x + b.x, a.y + b.y, a.z + b.z, a.w * b.w); }
      __global__ void k(float* o) { float4 a = make_float4(1, 2, 3, 4); float4 b = a + a; o[0] = b.x; o[1] = b.w; }`;
    const r2 = await runKernel(own, { args: ['o=f32[2]'] });
    expect(r2.status, r2.message).toBe('completed');
    expect(values(r2, 'o')).toEqual([2, 16]);
  });

  it('rounds each half2 lane once per operation, and the fused __hfma2 once', async () => {
    const src = `#include <cuda_fp16.h>
      __global__ void k(unsigned short* o) {
        __half2 a = __floats2half2_rn(1.0009765625f, 1.0f);   // 1 + 2^-10
        __half2 c = __floats2half2_rn(-1.001953125f, 0.0f);   // -(1 + 2^-9)
        __half2 fused = __hfma2(a, a, c);   // a*a = 1 + 2^-9 + 2^-20 exactly, + c = 2^-20 (a subnormal half)
        __half2 twice = a * a + c;          // a*a rounds to 1 + 2^-9 first, + c = 0
        o[0] = __half_as_ushort(__low2half(fused));
        o[1] = __half_as_ushort(__low2half(twice));
        o[2] = __half_as_ushort(__high2half(a * a));
      }`;
    const r = await runKernel(src, { block: [1, 1, 1], args: ['o=u16[3]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'o')).toEqual([0x0010, 0x0000, 0x3c00]);
  });

  it('refuses paired intrinsics on other types', async () => {
    const r = await runKernel(`#include <cuda_fp16.h>
      __global__ void k(float* o) { float2 a = make_float2(1, 2); __half2 h = __hadd2(a, a); o[0] = __low2float(h); }`, { args: ['o=f32[1]'] });
    expect(r.status).toBe('error');
    expect(r.message).toContain('__hadd2 takes a __half2 or __nv_bfloat162');
  });
});

describe('elect.sync, timers, accepted instructions', () => {
  it('elects the lowest lane of the mask among the lanes that execute it together', async () => {
    const src = `__global__ void k(int* o) {
      if (threadIdx.x % 32 == 0) return;  // lane 0 exits: the full-warp election would wait for it
      unsigned id;
      asm volatile("elect.sync %0|_, 0xfffffffe;" : "=r"(id));
      o[threadIdx.x] = (int)id;
    }`;
    const r = await runKernel(src, { args: ['o=s32[32]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'o').slice(1)).toEqual(new Array(31).fill(1));
    const bad = await runKernel(`__global__ void k(int* o) { unsigned id; asm volatile("elect.sync %0|_, 0x1;" : "=r"(id)); o[0] = id; }`, { args: ['o=s32[1]'] });
    expect(bad.status).toBe('error');
    expect(bad.message).toContain('lane 1 executes it but is not in the member mask 0x1');
  });

  it('advances simulated time by __nanosleep, and the timers read it', async () => {
    const src = `__global__ void k(long long* o) {
      unsigned long long g0, g1; asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g0));
      __nanosleep(5000);
      asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g1));
      o[0] = (long long)(g1 - g0);
    }`;
    const r = await runKernel(src, { block: [1, 1, 1], args: ['o=s64[1]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'o')[0]).toBeGreaterThanOrEqual(5000);
  });

  it('accepts griddepcontrol and setmaxnreg, and checks setmaxnreg’s count as ptxas does', async () => {
    const ok = await runKernel(`__global__ void k(int* o) {
      asm volatile("griddepcontrol.wait;"); asm volatile("setmaxnreg.dec.sync.aligned.u32 40;");
      asm volatile("griddepcontrol.launch_dependents;"); o[threadIdx.x] = 1; }`, { args: ['o=s32[32]'] });
    expect(ok.status, ok.message).toBe('completed');
    // .sync.aligned: every thread of the warpgroup executes it; one lane alone waits for the others forever.
    const lone = await runKernel(`__global__ void k(int* o) { if (threadIdx.x == 0) asm volatile("setmaxnreg.inc.sync.aligned.u32 232;"); o[threadIdx.x] = 1; }`, { block: [128, 1, 1], args: ['o=s32[128]'] });
    expect(lone.status).toBe('deadlock');
    expect(lone.message).toContain('setmaxnreg.inc 232 (every thread of warpgroup 0 must execute it)');
    const bad = await runKernel(`__global__ void k(int* o) { asm volatile("setmaxnreg.inc.sync.aligned.u32 100;"); o[0] = 1; }`, { args: ['o=s32[1]'] });
    expect(bad.status).toBe('error');
    expect(bad.message).toContain('the register count must be an immediate in 24..256 and a multiple of 8');
  });
});
