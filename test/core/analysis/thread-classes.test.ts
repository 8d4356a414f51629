// The replay groups a block's threads into classes that behave alike (protocol-run.ts), keeps the classes
// per inputs across analyses, and evaluates expressions through closures kept per expression (threads.ts).
// What reaches the classes — a constant, a derived variable, the block size — must change the result at
// once, in whatever order kernels are analysed.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEngine, type Engine } from '../../../core/index';

let engine: Engine;
beforeAll(async () => {
  engine = await loadEngine({});
});

/** Consumer warps 1..consumers each arrive once per phase on a barrier initialised for 8 arrivals. */
function kernel({ consumers = 8, warpOf = 'threadIdx.x / 32', block = 288 }: { consumers?: number; warpOf?: string; block?: number }): string {
  return `#include <cuda/ptx>
#include <cstdint>
__global__ void __launch_bounds__(${block}) k(float* dst, int n_tiles) {
  constexpr int CONSUMERS = ${consumers};
  __shared__ uint64_t empty_bar;
  const int warp = ${warpOf};
  const int lane = threadIdx.x % 32;
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&empty_bar, 8);
  __syncthreads();
  uint32_t phase = 0;
  for (int t = 0; t < n_tiles; ++t) {
    if (warp == 0) {
      while (!cuda::ptx::mbarrier_try_wait_parity(&empty_bar, phase)) {}
    } else if (warp <= CONSUMERS) {
      if (lane == 0) (void)cuda::ptx::mbarrier_arrive(&empty_bar);
    }
    phase ^= 1;
  }
}
`;
}

const codes = (text: string): string[] => engine.analyze(text, 'cuda').findings.map((f) => f.code);

describe('thread classes kept across analyses', () => {
  it('follow a constant, a derived variable and the block size, back and forth', () => {
    const cases: Array<[Parameters<typeof kernel>[0], string[]]> = [
      [{}, []],
      [{ consumers: 7 }, ['PF401']],
      [{}, []],
      // Warps of 64 threads: warps 1..3 exist in 288 threads (warp 4 is partial but has a lane 0): 4 arrive.
      [{ warpOf: 'threadIdx.x / 64' }, ['PF401']],
      [{}, []],
      // 160 threads: 4 consumer warps.
      [{ block: 160 }, ['PF401']],
      [{}, []],
    ];
    for (const [options, expected] of cases) expect(codes(kernel(options)), JSON.stringify(options)).toEqual(expected);
  });
});
