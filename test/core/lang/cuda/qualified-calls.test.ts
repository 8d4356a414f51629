// A call of a helper through nested namespaces with template arguments (`detail::tc::commit<1>(bar)`,
// how ThunderKittens calls its tcgen05 commit) reaches the helper with its template arguments bound,
// those left out taking their defaults (`int ncta = 1`): its barrier operations are seen, and the kernel
// is fully understood.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEngine, type Engine } from '../../../../core/index';

let engine: Engine;
beforeAll(async () => {
  engine = await loadEngine({});
});

const kernel = (call: string): string => `#include <cstdint>
namespace lib { namespace detail { namespace tc {
template <int ncta = 1>
__device__ static inline void commit(uint64_t& bar, uint16_t mask = 0b11) {
  if constexpr (ncta == 1) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
  }
}
} } }
__global__ void __launch_bounds__(32) k() {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
  __syncthreads();
  if (threadIdx.x == 0) ${call};
  asm volatile("{\\n .reg .pred p;\\n W:\\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n @!p bra W;\\n }" :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
}
`;

describe('qualified template calls', () => {
  for (const call of ['lib::detail::tc::commit<1>(bar)', 'detail::tc::commit<1>(bar)', 'tc::commit<1>(bar)', 'tc::commit(bar)', 'tc::commit<>(bar)']) {
    it(`inlines ${call}`, () => {
      const result = engine.analyze(kernel(call), 'cuda');
      // One arrive for a barrier initialised for 2: the phase never completes.
      expect(result.findings.map((f) => f.code)).toEqual(['PF401']);
      expect(result.kernels?.map((k) => k.notUnderstood)).toEqual([0]);
    });
  }

  it('takes what the call gives over the default', () => {
    // commit<2> does not arrive here: no arrival at all, a different finding than the one-arrival case.
    const two = engine.analyze(kernel('tc::commit<2>(bar)'), 'cuda').findings.map((f) => f.code);
    const one = engine.analyze(kernel('tc::commit<1>(bar)'), 'cuda').findings.map((f) => f.code);
    expect(two).not.toEqual(one);
  });

  it('passes a template parameter on (`commit<ncta>`) and instantiates only the if constexpr branch taken', () => {
    // mm -> mma<0, D, 0> (ncta left to its default) -> commit<ncta>: a cluster-remote arrive only when ncta != 1.
    const chain = (ncta: number): string => `#include <cstdint>
namespace detail { namespace tc {
template <int ncta>
__device__ static inline void commit(uint64_t& bar) {
  if constexpr (ncta == 1) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
  } else {
    asm volatile("mbarrier.arrive.shared::cluster.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
  }
}
} }
template <int trans_a, typename D, int acc = 1, int ncta = ${ncta}>
__device__ static inline void mma(D& d, uint64_t& sem) { detail::tc::commit<ncta>(sem); }
template <typename D>
__device__ static inline void mm(D& d, uint64_t& sem) { mma<0, D, 0>(d, sem); }
__global__ void __launch_bounds__(32) k() {
  __shared__ uint64_t bar;
  int d = 0;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
  __syncthreads();
  if (threadIdx.x == 0) mm(d, bar);
  asm volatile("{\\n .reg .pred p;\\n W:\\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n @!p bra W;\\n }" :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
}
`;
    expect(engine.analyze(chain(1), 'cuda').findings.map((f) => f.code)).toEqual([]);
    // ncta = 2: the remote arrive is what runs, and no cluster sync follows the init.
    expect(engine.analyze(chain(2), 'cuda').findings.map((f) => f.code)).toContain('PF202');
  });
});
