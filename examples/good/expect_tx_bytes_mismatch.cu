// Corrected version of examples/bugs/expect_tx_bytes_mismatch.cu.
// Each stage carries two operands: a 1024-float x tile and its 128-float weight row w. Two
// cp.async.bulk copies complete on the same full[s] barrier, so the producer's expect_tx is the
// sum of both sizes, X_BYTES + W_BYTES = 4608 bytes.
#include <cstdint>

constexpr int STAGES = 2;
constexpr int TILE = 1024;
constexpr int WROW = 128;
constexpr uint32_t X_BYTES = TILE * sizeof(float);            // 4096
constexpr uint32_t W_BYTES = WROW * sizeof(float);            // 512
constexpr int CONSUMER_WARPS = 4;

__device__ __forceinline__ uint32_t to_smem(const void* p) { return (uint32_t)__cvta_generic_to_shared(p); }
__device__ __forceinline__ void init_bar(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(to_smem(bar)), "r"(count) : "memory");
}
__device__ __forceinline__ void arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(to_smem(bar)) : "memory");
}
__device__ __forceinline__ void expect_bytes(uint64_t* bar, uint32_t bytes) {
  asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(to_smem(bar)), "r"(bytes) : "memory");
}
__device__ __forceinline__ void wait(uint64_t* bar, uint32_t phase) {
  asm volatile("{\n .reg .pred p;\n again:\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n @!p bra again;\n}" :: "r"(to_smem(bar)), "r"(phase) : "memory");
}
__device__ __forceinline__ void load_async(void* dst, const void* src, uint32_t bytes, uint64_t* bar) {
  asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];" :: "r"(to_smem(dst)), "l"(src), "r"(bytes), "r"(to_smem(bar)) : "memory");
}

__global__ void __launch_bounds__(160) weighted_sum(const float* __restrict__ in, float* __restrict__ out, int num_tiles)
{
  __shared__ alignas(128) float x_s[STAGES][TILE];
  __shared__ alignas(128) float w_s[STAGES][WROW];
  __shared__ uint64_t full[STAGES], empty[STAGES];
  const int warp = threadIdx.x / 32, lane = threadIdx.x % 32;

  if (threadIdx.x == 0) {
    for (int s = 0; s < STAGES; ++s) { init_bar(&full[s], 1); init_bar(&empty[s], CONSUMER_WARPS); }
  }
  __syncthreads();

  const size_t first = (size_t)blockIdx.x * num_tiles;
  const float* x = in + first * TILE;
  const float* w = in + (size_t)gridDim.x * num_tiles * TILE + first * WROW;
  if (warp == 0) {
    if (lane == 0) {
      for (int k = 0; k < num_tiles; ++k) {
        const int s = k % STAGES;
        wait(&empty[s], ((k / STAGES) & 1) ^ 1);
        expect_bytes(&full[s], X_BYTES + W_BYTES);
        load_async(x_s[s], x + (size_t)k * TILE, X_BYTES, &full[s]);
        load_async(w_s[s], w + (size_t)k * WROW, W_BYTES, &full[s]);
      }
    }
  } else {
    const int c = threadIdx.x - 32;
    float acc = 0.f;
    for (int k = 0; k < num_tiles; ++k) {
      const int s = k % STAGES;
      wait(&full[s], (k / STAGES) & 1);
      for (int j = c; j < TILE; j += CONSUMER_WARPS * 32) acc += x_s[s][j] * w_s[s][c];
      __syncwarp();
      if (lane == 0) arrive(&empty[s]);
    }
    out[blockIdx.x * CONSUMER_WARPS * 32 + c] = acc;
  }
}
