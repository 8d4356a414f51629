// BUG (PF201 missing-bootstrap-arrival): three-slot ring. `slot_ready[s]` (1 arrival + tile bytes)
// tells the consumers a tile landed, `slot_free[s]` (one arrival per consumer warp) tells the
// producer the slot may be refilled. The producer's phase starts at 0, so its very first wait
// asks for phase 0 of slot_free[0] to complete. Only the consumers arrive on slot_free, and they
// only do so after consuming a tile, which the producer has not loaded yet.
// On the GPU: deadlock. The producer spins on slot_free[0], the consumers spin on slot_ready[0];
// the kernel never finishes (observed on an H200).
// Expected finding: PF201 on the producer's first wait on slot_free. Fix: start the producer's
// phase at 1 (convention A), see examples/good/producer_missing_bootstrap.cu and the three
// examples/good/bootstrap_*.cu conventions.
#include <cstdint>

constexpr int STAGES = 3;
constexpr int TILE = 1024;
constexpr uint32_t TILE_BYTES = TILE * sizeof(float);
constexpr int CONSUMER_WARPS = 4;

__device__ __forceinline__ void bar_init(uint64_t* bar, uint32_t n) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"((uint32_t)__cvta_generic_to_shared(bar)), "r"(n) : "memory");
}
__device__ __forceinline__ void bar_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.release.cta.shared::cta.b64 _, [%0];" :: "r"((uint32_t)__cvta_generic_to_shared(bar)) : "memory");
}
__device__ __forceinline__ void bar_expect_bytes(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.release.cta.shared::cta.b64 _, [%0], %1;" :: "r"((uint32_t)__cvta_generic_to_shared(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void bar_wait(uint64_t* bar, uint32_t phase) {
  asm volatile("{\n .reg .pred ok;\n retry:\n mbarrier.try_wait.parity.acquire.cta.shared::cta.b64 ok, [%0], %1;\n @!ok bra retry;\n}" :: "r"((uint32_t)__cvta_generic_to_shared(bar)), "r"(phase) : "memory");
}
__device__ __forceinline__ void tma_load_1d(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"((uint32_t)__cvta_generic_to_shared(dst)), "l"(src), "r"(bytes), "r"((uint32_t)__cvta_generic_to_shared(bar)) : "memory");
}

__global__ void __launch_bounds__(160) stream_sum(const float* __restrict__ in, float* __restrict__ out, int num_tiles)
{
  __shared__ alignas(128) float buf[STAGES][TILE];
  __shared__ uint64_t slot_ready[STAGES], slot_free[STAGES];
  const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) { bar_init(&slot_ready[s], 1); bar_init(&slot_free[s], CONSUMER_WARPS); }
  }
  __syncthreads();

  const float* src = in + (size_t)blockIdx.x * num_tiles * TILE;
  if (warp == 0 && lane == 0) {
    int stage = 0;
    uint32_t phase = 0;
    for (int k = 0; k < num_tiles; ++k) {
      bar_wait(&slot_free[stage], phase);                      // expect: PF201
      bar_expect_bytes(&slot_ready[stage], TILE_BYTES);
      tma_load_1d(buf[stage], src + (size_t)k * TILE, TILE_BYTES, &slot_ready[stage]);
      if (++stage == STAGES) { stage = 0; phase ^= 1; }
    }
  } else if (warp > 0) {
    const int c = threadIdx.x - 32;
    float acc = 0.f;
    int stage = 0;
    uint32_t phase = 0;
    for (int k = 0; k < num_tiles; ++k) {
      bar_wait(&slot_ready[stage], phase);
      for (int j = c; j < TILE; j += CONSUMER_WARPS * 32) acc += buf[stage][j];
      __syncwarp();
      if (lane == 0) bar_arrive(&slot_free[stage]);
      if (++stage == STAGES) { stage = 0; phase ^= 1; }
    }
    out[blockIdx.x * CONSUMER_WARPS * 32 + c] = acc;
  }
}
