// wgmma.mma_async through inline asm (core/lang/cuda/sim/ptx-wgmma.ts): the register ownership the
// ISA gives the asynchronous MMA (races on accumulators before wgmma.wait_group, the same-shape chain and
// compiler fences that are not accesses), the wgmma.fence rules, operand validation with clear errors,
// and the CuTe-style wrapper shapes (a class template's static fma, functional casts, __LINE__).
// The values themselves are checked against an H200 by test/fixtures/sim/gpu/wgmma/.
import { describe, expect, it } from 'vitest';
import { runKernel, values } from './helpers';

/**
 * One warpgroup; A (64 x 16) and B (8 x 16) all ones in f16 (so D = 16 per MMA, whatever the layout),
 * K-major without swizzle. `body` runs after the operands are in shared memory, with `d[4]` = 1.
 */
const kernel = (body: string, shape = 'm64n8k16.f32.f16.f16', dRegs = '{%0, %1, %2, %3}', extraDesc = '') => `#include <cstdint>
__device__ void mma(float* d, uint64_t da, uint64_t db) {
  asm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, %6, 0;\\nwgmma.mma_async.sync.aligned.${shape} ${dRegs}, %4, %5, p, 1, 1, 0, 0;\\n}\\n"
    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(da), "l"(db), "r"(1));
}
__device__ void fence() { asm volatile("wgmma.fence.sync.aligned;" ::: "memory"); }
__device__ void commit() { asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory"); }
__device__ void wait0() { asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory"); }
__device__ uint64_t desc(const void* p, uint32_t lbo, uint32_t sbo) {
  return (((uint32_t)__cvta_generic_to_shared(p) & 0x3FFFF) >> 4) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32)${extraDesc};
}
__global__ void k(float* out) {
  __shared__ __align__(128) uint16_t sA[1024];
  __shared__ __align__(128) uint16_t sB[128];
  for (int i = threadIdx.x; i < 1024; i += 128) sA[i] = 0x3C00;
  if (threadIdx.x < 128) sB[threadIdx.x] = 0x3C00;
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  __syncthreads();
  float d[4] = {1, 1, 1, 1};
  const uint64_t da = desc(sA, 128, 256);
  const uint64_t db = desc(sB, 128, 256);
${body}
  for (int r = 0; r < 4; r++) out[threadIdx.x * 4 + r] = d[r];
}`;

const run = (src: string) => runKernel(src, { block: [128, 1, 1], args: ['out=f32[512]'] });

describe('wgmma.mma_async: the asynchronous MMA owns its registers until wgmma.wait_group', () => {
  it('computes D = A x B + D when fenced, committed and waited for', async () => {
    const r = await run(kernel('  fence();\n  mma(d, da, db);\n  commit();\n  wait0();'));
    expect(r.status, r.message).toBe('completed');
    expect(new Set(values(r, 'out'))).toEqual(new Set([17]));
  });

  it('reads and writes f32 accumulators bound as "+r" (their bits) as well as "+f"', async () => {
    const src = kernel('  fence();\n  mmaBits(u, da, db);\n  commit();\n  wait0();\n  for (int r = 0; r < 4; r++) d[r] = __uint_as_float(u[r]);')
      .replace('__device__ void fence()', `__device__ void mmaBits(uint32_t* d, uint64_t da, uint64_t db) {
  asm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, %6, 0;\\nwgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\\n}\\n"
    : "+r"(d[0]), "+r"(d[1]), "+r"(d[2]), "+r"(d[3]) : "l"(da), "l"(db), "r"(1));
}
__device__ void fence()`)
      .replace('float d[4] = {1, 1, 1, 1};', 'float d[4] = {1, 1, 1, 1};\n  uint32_t u[4] = {0x3f800000u, 0x40000000u, 0x3f800000u, 0x3f800000u};');
    const r = await run(src);
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out').slice(0, 4)).toEqual([17, 18, 17, 17]);
  });

  it('lets same-shape MMAs chain on the accumulators and CUTLASS-style empty asm fences touch them while pending', async () => {
    const fenceOperands = '  for (int r = 0; r < 4; r++) asm volatile("" : "+f"(d[r]) :: "memory");\n';
    const r = await run(kernel(`${fenceOperands}  fence();\n  mma(d, da, db);\n  mma(d, da, db);\n  commit();\n${fenceOperands}  wait0();\n${fenceOperands}`));
    expect(r.status, r.message).toBe('completed');
    expect(new Set(values(r, 'out'))).toEqual(new Set([33]));
  });

  it('reports a write of an accumulator between the commit and the wait as a race, naming both lines', async () => {
    const r = await run(kernel('  fence();\n  mma(d, da, db);\n  commit();\n  d[2] = 0;\n  wait0();'));
    expect(r.status).toBe('race');
    expect(r.message).toMatch(/register 'd\[2\]': write by .* at line 25 while the wgmma\.mma_async at line 3 still owns it/);
  });

  it('does not retire an MMA that was never committed: the read after the wait is still a race', async () => {
    const r = await run(kernel('  fence();\n  mma(d, da, db);\n  wait0();'));
    expect(r.status).toBe('race');
    expect(r.message).toMatch(/read by .* at line 25 while the wgmma\.mma_async at line 3 still owns it/);
  });

  it('requires wgmma.fence before the first MMA and between an access of its registers and the next MMA', async () => {
    const first = await run(kernel('  mma(d, da, db);\n  commit();\n  wait0();'));
    expect(first.status).toBe('misuse');
    expect(first.message).toMatch(/without a wgmma\.fence before it/);
    const touched = await run(kernel('  fence();\n  mma(d, da, db);\n  commit();\n  wait0();\n  d[1] += 1;\n  mma(d, da, db);\n  commit();\n  wait0();'));
    expect(touched.status).toBe('misuse');
    expect(touched.message).toMatch(/uses register 'd\[1\]', which the thread accessed at line 26 with no wgmma\.fence in between/);
    const fenced = await run(kernel('  fence();\n  mma(d, da, db);\n  commit();\n  wait0();\n  d[1] += 1;\n  fence();\n  mma(d, da, db);\n  commit();\n  wait0();'));
    expect(fenced.status, fenced.message).toBe('completed');
    expect(values(fenced, 'out').slice(0, 4)).toEqual([33, 34, 33, 33]);
  });
});

describe('wgmma.mma_async: operands are checked against the ISA', () => {
  it('refuses a shape, a register count or a descriptor the hardware would not take, saying why', async () => {
    const badN = await run(kernel('  fence();\n  mma(d, da, db);', 'm64n12k16.f32.f16.f16'));
    expect(badN.status).toBe('error');
    expect(badN.message).toMatch(/N = 12 is not a multiple of 8/);
    const badK = await run(kernel('  fence();\n  mma(d, da, db);', 'm64n8k8.f32.f16.f16'));
    expect(badK.message).toMatch(/K must be 16 for \.f16/);
    const badRegs = await run(kernel('  fence();\n  mma(d, da, db);', 'm64n8k16.f32.f16.f16', '{%0, %1, %2}'));
    expect(badRegs.message).toMatch(/3 accumulator registers for m64n8 \.f32 \(each thread holds 4\)/);
    const base = await run(kernel('  fence();\n  mma(d, da, db);\n  commit();\n  wait0();', undefined, undefined, ' | (1ull << 49)'));
    expect(base.status).toBe('error');
    expect(base.message).toMatch(/not supported by the simulator: .*matrix base offset 1 in the A descriptor/);
    const outside = await run(kernel('  fence();\n  mma(d, da + 4096, db);\n  commit();\n  wait0();'));
    expect(outside.status).toBe('error');
    expect(outside.message).toMatch(/A\[\d+\]\[0\]: shared address 0x[0-9a-f]+ is not inside any __shared__ variable of this block \(descriptor start 0x[0-9a-f]+, LBO 128, SBO 256, swizzle none\)/);
  });

  it('needs a whole warpgroup', async () => {
    const r = await runKernel(kernel('  fence();\n  mma(d, da, db);'), { block: [64, 1, 1], args: ['out=f32[512]'] });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/a wgmma needs a whole warpgroup of 128 threads/);
  });
});

describe('the wrappers real kernels use', () => {
  it("runs a CuTe-style MMA atom: a class template's static fma with enum class parameters, int32_t(...) casts and __LINE__", async () => {
    const src = `#include <cstdint>
namespace cute { namespace SM90 { namespace GMMA {
enum class Major { K = 0, MN = 1 };
enum class ScaleOut { Zero = 0, One = 1 };
enum class ScaleIn { Neg = -1, One = 1 };
__device__ inline void trace_line(int line) { (void)line; }
template <GMMA::Major tnspA, GMMA::Major tnspB, GMMA::ScaleIn scaleA = GMMA::ScaleIn::One, GMMA::ScaleIn scaleB = GMMA::ScaleIn::One>
struct MMA_64x8x16_F32F16F16_SS {
  __device__ static void fma(uint64_t const& desc_a, uint64_t const& desc_b, float& d0, float& d1, float& d2, float& d3, GMMA::ScaleOut const scale_D = GMMA::ScaleOut::One) {
    trace_line(__LINE__);
    asm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, %6, 0;\\nwgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, %7, %8, %9, %10;\\n}\\n"
      : "+f"(d0), "+f"(d1), "+f"(d2), "+f"(d3)
      : "l"(desc_a), "l"(desc_b), "r"(int32_t(scale_D)), "n"(int32_t(scaleA)), "n"(int32_t(scaleB)), "n"(int32_t(tnspA)), "n"(int32_t(tnspB)));
  }
};
} } }
${kernel('').split('\n').slice(1).join('\n').replace('\n\n  for (int r', `
  asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
  using Atom = cute::SM90::GMMA::MMA_64x8x16_F32F16F16_SS<cute::SM90::GMMA::Major::K, cute::SM90::GMMA::Major::K, cute::SM90::GMMA::ScaleIn::Neg>;
  Atom::fma(da, db, d[0], d[1], d[2], d[3], cute::SM90::GMMA::ScaleOut::Zero);
  asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
  asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");
  for (int r`)}`;
    const r = await run(src);
    expect(r.status, r.message).toBe('completed');
    // ScaleOut::Zero ignores D's 1s; ScaleIn::Neg negates A.
    expect(new Set(values(r, 'out'))).toEqual(new Set([-16]));
  });
});

describe('wgmma in a warp-specialised pipeline', () => {
  // Warpgroup 0's first thread bulk-copies A (64 x 16) and B (8 x 16) tiles into a 2-stage ring
  // (full/empty mbarriers); warpgroup 1 waits on full[s], runs wgmma on the stage and releases it by
  // arriving on empty[s] (one arrival per warp) after wgmma.wait_group. Every A element is 0.5 and
  // every B element 2, so each output is 16 products of 1 per tile.
  const pipeline = (release: string) => `#include <cstdint>
#include <cuda_fp16.h>
__device__ uint32_t smem_u32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ void mbar_init(uint64_t* b, uint32_t n) { asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_u32(b)), "r"(n) : "memory"); }
__device__ void mbar_arrive(uint64_t* b) { asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem_u32(b)) : "memory"); }
__device__ void mbar_expect(uint64_t* b, uint32_t bytes) { asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_u32(b)), "r"(bytes) : "memory"); }
__device__ void mbar_wait(uint64_t* b, uint32_t parity) {
  asm volatile("{\\n.reg .pred p;\\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\\n@!p bra W;\\n}" :: "r"(smem_u32(b)), "r"(parity) : "memory");
}
__device__ void bulk(void* dst, const void* src, uint32_t bytes, uint64_t* b) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(smem_u32(dst)), "l"(src), "r"(bytes), "r"(smem_u32(b)) : "memory");
}
__device__ uint64_t desc(const void* p) { return ((smem_u32(p) & 0x3FFFF) >> 4) | (8ull << 16) | (16ull << 32); }
__global__ void k(const __half* a, const __half* b, float* out, int tiles) {
  __shared__ __align__(128) uint16_t sA[2][1024];
  __shared__ __align__(128) uint16_t sB[2][128];
  __shared__ uint64_t full[2], empty[2];
  if (threadIdx.x == 0) for (int s = 0; s < 2; s++) { mbar_init(&full[s], 1); mbar_init(&empty[s], 4); }
  __syncthreads();
  if (threadIdx.x < 128) {
    if (threadIdx.x == 0)
      for (int t = 0; t < tiles; t++) {
        const int s = t % 2;
        mbar_wait(&empty[s], ((t / 2) & 1) ^ 1);
        mbar_expect(&full[s], 2048 + 256);
        bulk(sA[s], a + t * 1024, 2048, &full[s]);
        bulk(sB[s], b + t * 128, 256, &full[s]);
      }
    return;
  }
  float d[4] = {0, 0, 0, 0};
  for (int t = 0; t < tiles; t++) {
    const int s = t % 2;
    mbar_wait(&full[s], (t / 2) & 1);
    asm volatile("wgmma.fence.sync.aligned;" ::: "memory");
    asm volatile("{\\n.reg .pred p;\\nsetp.ne.b32 p, %6, 0;\\nwgmma.mma_async.sync.aligned.m64n8k16.f32.f16.f16 {%0, %1, %2, %3}, %4, %5, p, 1, 1, 0, 0;\\n}\\n"
      : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]) : "l"(desc(sA[s])), "l"(desc(sB[s])), "r"(1));
    asm volatile("wgmma.commit_group.sync.aligned;" ::: "memory");
${release}
  }
  for (int r = 0; r < 4; r++) out[(threadIdx.x - 128) * 4 + r] = d[r];
}`;
  const args = (tiles: number) => [`a=f16[${tiles * 1024}]:fill(0.5)`, `b=f16[${tiles * 128}]:fill(2)`, 'out=f32[512]', `tiles=${tiles}`];

  it('orders the bulk copies, the MMAs and the slot reuse through the barriers and wgmma.wait_group: no race, right values, every schedule', async () => {
    const release = '    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");\n    if (threadIdx.x % 32 == 0) mbar_arrive(&empty[s]);';
    for (const [schedule, seed] of [['round-robin', 1], ['random', 3], ['adversarial', 1]] as const) {
      const r = await runKernel(pipeline(release), { block: [256, 1, 1], args: args(6), schedule, seed, maxSteps: 5_000_000 });
      expect(r.status, `${schedule}: ${r.message}`).toBe('completed');
      expect(new Set(values(r, 'out')), schedule).toEqual(new Set([6 * 16]));
    }
  });

  it('reports the producer overwriting a stage the MMA still reads when the consumers release it before wgmma.wait_group', async () => {
    const early = '    if (threadIdx.x % 32 == 0) mbar_arrive(&empty[s]);\n    asm volatile("wgmma.wait_group.sync.aligned 0;" ::: "memory");';
    const r = await runKernel(pipeline(early), { block: [256, 1, 1], args: args(6), maxSteps: 5_000_000 });
    expect(r.status, r.message).toBe('race');
    // The next tile's copy into the stage against the MMA's read of it (line 36: the mma_async).
    expect(r.message).toMatch(/^data race on shared 'sA' byte \d+: write by cp\.async\.bulk .* is not ordered by any barrier with the read by an async operation issued by .* at line 36$/);
  });
});

describe('tcgen05.mma operands (sm_100a; not runnable on the Hopper that records ground truth)', () => {
  // One 128 x 32 x 16 bf16 MMA into tensor memory with A K-major in the 128B swizzle and B N-major in
  // the 64B swizzle: the same canonical layouts as wgmma's (checked on the GPU there), in the sm_100
  // descriptor (layout type in bits 61-63, version 1 in bit 46) and B's major bit in the instruction descriptor.
  const src = `#include <cstdint>
#include <cuda_bf16.h>
__device__ uint32_t s32(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ uint32_t canon_off(int kmajor, int W, uint32_t lbo, uint32_t sbo, int es, int mn, int k) {
  uint32_t off;
  if (kmajor) { uint32_t kb = k * es; off = W == 0 ? (mn & 7) * 16 + (mn >> 3) * sbo + (kb >> 4) * lbo + (kb & 15) : (mn & 7) * 16 * W + (mn >> 3) * sbo + kb; }
  else { uint32_t mb = mn * es, c = mb >> 4; off = W == 0 ? c * sbo + (k & 7) * 16 + (k >> 3) * lbo + (mb & 15) : (c % W) * 16 + (c / W) * lbo + (k & 7) * 16 * W + (k >> 3) * sbo + (mb & 15); }
  if (W) off ^= ((off >> 7) & (uint32_t)(W - 1)) << 4;
  return off;
}
__device__ uint64_t desc(const void* p, uint32_t lbo, uint32_t sbo, uint64_t layout) {
  return ((s32(p) >> 4) & 0x3FFF) | ((uint64_t)(lbo >> 4) << 16) | ((uint64_t)(sbo >> 4) << 32) | (1ull << 46) | (layout << 61);
}
__global__ void k(float* out) {
  __shared__ __align__(1024) uint8_t sA[16384];
  __shared__ __align__(1024) uint8_t sB[2048];
  __shared__ uint64_t done;
  __shared__ uint32_t tmem;
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;
  for (int i = threadIdx.x; i < 128 * 16; i += 128) {
    const int m = i / 16, kk = i % 16;
    *(__nv_bfloat16*)(sA + canon_off(1, 8, 16, 1024, 2, m, kk)) = __float2bfloat16((float)((m * 3 + kk) % 5 - 2));
  }
  for (int i = threadIdx.x; i < 32 * 16; i += 128) {
    const int n = i / 16, kk = i % 16;
    *(__nv_bfloat16*)(sB + canon_off(0, 4, 4096, 512, 2, n, kk)) = __float2bfloat16((float)((n + 2 * kk) % 7 - 3));
  }
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(s32(&done)) : "memory");
  if (warp == 0) asm volatile("tcgen05.alloc.cta_group::1.sync.aligned.shared::cta.b32 [%0], 32;" :: "r"(s32(&tmem)) : "memory");
  asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
  asm volatile("tcgen05.fence::before_thread_sync;" ::: "memory");
  __syncthreads();
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  if (threadIdx.x == 0) {
    const uint32_t idesc = (1u << 4) | (1u << 7) | (1u << 10) | (1u << 16) | ((32u >> 3) << 17) | ((128u >> 4) << 24);
    asm volatile("{\\n.reg .pred acc;\\nsetp.ne.u32 acc, %4, 0;\\ntcgen05.mma.cta_group::1.kind::f16 [%0], %1, %2, %3, acc;\\n}"
      :: "r"(tmem), "l"(desc(sA, 16, 1024, 2)), "l"(desc(sB, 4096, 512, 4)), "r"(idesc), "r"(0) : "memory");
    asm volatile("tcgen05.commit.cta_group::1.mbarrier::arrive::one.shared::cluster.b64 [%0];" :: "r"(s32(&done)) : "memory");
  }
  asm volatile("{\\n.reg .pred p;\\nW: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n@!p bra W;\\n}" :: "r"(s32(&done)) : "memory");
  asm volatile("tcgen05.fence::after_thread_sync;" ::: "memory");
  for (int col = 0; col < 32; col += 8) {
    uint32_t r[8];
    asm volatile("tcgen05.ld.sync.aligned.32x32b.x8.b32 {%0, %1, %2, %3, %4, %5, %6, %7}, [%8];"
      : "=r"(r[0]), "=r"(r[1]), "=r"(r[2]), "=r"(r[3]), "=r"(r[4]), "=r"(r[5]), "=r"(r[6]), "=r"(r[7]) : "r"(tmem + ((uint32_t)(warp * 32) << 16) + col));
    asm volatile("tcgen05.wait::ld.sync.aligned;" ::: "memory");
    for (int j = 0; j < 8; j++) out[(warp * 32 + lane) * 32 + col + j] = __uint_as_float(r[j]);
  }
}`;

  it('reads swizzled K-major and MN-major operands through the sm_100 descriptor', async () => {
    const r = await runKernel(src, { block: [128, 1, 1], args: ['out=f32[4096]'] });
    expect(r.status, r.message).toBe('completed');
    const want: number[] = [];
    for (let m = 0; m < 128; m++)
      for (let n = 0; n < 32; n++) {
        let s = 0;
        for (let kk = 0; kk < 16; kk++) s += (((m * 3 + kk) % 5) - 2) * (((n + 2 * kk) % 7) - 3);
        want.push(s);
      }
    expect(values(r, 'out')).toEqual(want);
  });

  it('refuses the layouts it does not model, naming the field', async () => {
    const r = await runKernel(src.replace('desc(sA, 16, 1024, 2)', 'desc(sA, 16, 1024, 1)'), { block: [128, 1, 1], args: ['out=f32[4096]'] });
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/not supported by the simulator: .*layout type 1 \(128B swizzle with 32-byte atoms\) is not modelled/);
  });
});

describe('ldmatrix / stmatrix errors', () => {
  const ld = (shape: string, offset: number) => `#include <cstdint>
__global__ void k(uint32_t* out) {
  __shared__ __align__(16) uint16_t tile[512];
  for (int i = threadIdx.x; i < 512; i += 32) tile[i] = i;
  __syncwarp();
  uint32_t r0 = 0;
  const uint32_t addr = (uint32_t)__cvta_generic_to_shared(&tile[(threadIdx.x % 8) * 8]) + ${offset};
  asm volatile("ldmatrix.sync.aligned.${shape} {%0}, [%1];" : "=r"(r0) : "r"(addr));
  out[threadIdx.x] = r0;
}`;

  it('loads matrix 0 row by row for .x1 (the addresses of lanes 8-31 are ignored)', async () => {
    const r = await runKernel(ld('m8n8.x1.shared.b16', 0), { args: ['out=u32[32]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual(Array.from({ length: 32 }, (_, l) => ((l >> 2) * 8 + 2 * (l & 3)) | (((l >> 2) * 8 + 2 * (l & 3) + 1) << 16)));
  });

  it('refuses a row address that is not 16-byte aligned and the shapes it does not model', async () => {
    const bad = await runKernel(ld('m8n8.x1.shared.b16', 4), { args: ['out=u32[32]'] });
    expect(bad.status).toBe('error');
    expect(bad.message).toMatch(/ldmatrix\.sync\.aligned\.m8n8\.x1\.shared\.b16: the row address of lane \d \(0x[0-9a-f]+\) is not 16-byte aligned/);
    const shape = await runKernel(ld('m16n16.x1.trans.shared.b8', 0), { args: ['out=u32[32]'] });
    expect(shape.status).toBe('error');
    expect(shape.message).toMatch(/not supported by the simulator: PTX instruction 'ldmatrix\.sync\.aligned\.m16n16\.x1\.trans\.shared\.b8' \(only the \.m8n8 \.b16 shape is modelled\)/);
  });
});

