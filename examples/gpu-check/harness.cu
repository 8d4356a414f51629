// Host harness used to run the examples/bugs and examples/good kernels on a real GPU.
// Every runnable example has the signature (const float* in, float* out, int num_tiles), writes
// 128 floats per block and uses __launch_bounds__(BLOCK). Build one binary per kernel:
//   nvcc -std=c++17 -arch=sm_90a -O2 -DKFILE='"../bugs/ring_phase_never_flips.cu"' \
//        -DKERNEL=ring_sum -DBLOCK=160 harness.cu -o bug_ring_phase_never_flips
// run it under `timeout` (a hang is the expected symptom of most bugs), and compare the output
// file with the one of the corrected kernel. run.sh does all of that.
#ifndef KFILE
#define KFILE "../good/ring_phase_never_flips.cu"
#define KERNEL ring_sum
#define BLOCK 160
#endif
#include KFILE
#include <cstdio>
#include <vector>

int main(int argc, char** argv)
{
  const int grid = 264, num_tiles = 128;                        // two blocks per SM on H100/H200
  const size_t n = 2 * (size_t)grid * num_tiles * 1024;         // x tiles, then weight rows
  std::vector<float> h(n);
  for (size_t i = 0; i < n; ++i) h[i] = (float)((i * 7) % 13); // small integers: exact float sums
  float *din, *dout;
  cudaMalloc(&din, n * sizeof(float));
  cudaMemcpy(din, h.data(), n * sizeof(float), cudaMemcpyHostToDevice);
  const int nout = grid * 128;
  cudaMalloc(&dout, nout * sizeof(float));
  cudaMemset(dout, 0xFF, nout * sizeof(float));
  KERNEL<<<grid, BLOCK>>>(din, dout, num_tiles);
  cudaError_t e = cudaDeviceSynchronize();
  if (e != cudaSuccess) { printf("CUDA_ERROR %s\n", cudaGetErrorString(e)); return 3; }
  std::vector<float> o(nout);
  cudaMemcpy(o.data(), dout, nout * sizeof(float), cudaMemcpyDeviceToHost);
  // Reference for the plain "sum of every tile" kernels; the weighted, sparse and ragged
  // examples compute something else and are compared with their corrected version instead.
  int mismatches = 0;
  for (int b = 0; b < grid; ++b)
    for (int c = 0; c < 128; ++c) {
      double r = 0;
      for (int k = 0; k < num_tiles; ++k)
        for (int j = c; j < 1024; j += 128) r += h[((size_t)b * num_tiles + k) * 1024 + j];
      if (o[b * 128 + c] != (float)r) ++mismatches;
    }
  printf("DONE mismatches_vs_plain_sum=%d/%d\n", mismatches, nout);
  if (argc > 1) { FILE* f = fopen(argv[1], "wb"); fwrite(o.data(), sizeof(float), nout, f); fclose(f); }
  return 0;
}
