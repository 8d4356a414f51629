// BUG (PF103 parity-never-flips): the consumer advances its ring slot with
// `stage = (stage + 1) % STAGES` but never flips `phase`, so it waits for parity 0 on every pass.
// Warp 0 (one elected lane) streams tiles into a 4-slot ring with cp.async.bulk; warps 1..4 sum them.
// On the GPU: on the 1st, 3rd, 5th... pass the wait is correct; on the 2nd, 4th... pass full[stage]
// has already completed a parity-0 phase, so the wait returns at once: the consumers read the
// previous tile and release the slot early. The producer then re-arms full[stage] (arrive.expect_tx)
// while the previous phase is still waiting for its bytes, an arrival the barrier does not
// expect. Observed on an H200 (264 blocks x 160 threads, 128 tiles each): "unspecified launch
// failure" in 3 of 3 runs.
// Expected finding: PF103 on the consumer's wait. Fix: examples/good/ring_phase_never_flips.cu.
#include <cstdint>

constexpr int STAGES = 4;
constexpr int TILE = 1024;                                   // floats per slot
constexpr uint32_t TILE_BYTES = TILE * sizeof(float);
constexpr int CONSUMER_WARPS = 4;
constexpr int CONSUMERS = CONSUMER_WARPS * 32;

__device__ __forceinline__ uint32_t smem_u32(const void* p) {
  return static_cast<uint32_t>(__cvta_generic_to_shared(p));
}
__device__ __forceinline__ void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_u32(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void mbar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(smem_u32(bar)) : "memory");
}
__device__ __forceinline__ void mbar_arrive_expect_tx(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(smem_u32(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ bool mbar_try_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done;
  asm volatile("{\n .reg .pred p;\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\n selp.u32 %0, 1, 0, p;\n}" : "=r"(done) : "r"(smem_u32(bar)), "r"(parity) : "memory");
  return done != 0;
}
__device__ __forceinline__ void mbar_wait(uint64_t* bar, uint32_t parity) {
  while (!mbar_try_wait(bar, parity)) {}
}
__device__ __forceinline__ void bulk_load(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(smem_u32(dst)), "l"(src), "r"(bytes), "r"(smem_u32(bar)) : "memory");
}

__global__ void __launch_bounds__(160) ring_sum(const float* __restrict__ in, float* __restrict__ out, int num_tiles)
{
  __shared__ alignas(128) float tiles[STAGES][TILE];
  __shared__ uint64_t full[STAGES], empty[STAGES];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) {
      mbar_init(&full[s], 1);
      mbar_init(&empty[s], CONSUMER_WARPS);
    }
  }
  __syncthreads();

  const float* src = in + (size_t)blockIdx.x * num_tiles * TILE;
  if (warp == 0) {
    if (lane == 0) {
      int stage = 0;
      uint32_t phase = 0;
      for (int k = 0; k < num_tiles; ++k) {
        mbar_wait(&empty[stage], phase ^ 1);                 // first pass: parity 1 passes at once
        mbar_arrive_expect_tx(&full[stage], TILE_BYTES);
        bulk_load(tiles[stage], src + (size_t)k * TILE, TILE_BYTES, &full[stage]);
        if (++stage == STAGES) { stage = 0; phase ^= 1; }
      }
    }
  } else {
    const int c = threadIdx.x - 32;
    float acc = 0.f;
    int stage = 0;
    uint32_t phase = 0;
    for (int k = 0; k < num_tiles; ++k) {
      mbar_wait(&full[stage], phase);                        // expect: PF103
      for (int j = c; j < TILE; j += CONSUMERS) acc += tiles[stage][j];
      __syncwarp();
      if (lane == 0) mbar_arrive(&empty[stage]);
      stage = (stage + 1) % STAGES;
    }
    out[blockIdx.x * CONSUMERS + c] = acc;
  }
}
