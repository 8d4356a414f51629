// Function-local type aliases (`using Arriver = conditional_t<kPeers == 1, One, Two>;`, `typedef`): a
// temporary of the alias type reaches the chosen class's member function. A condition the kernel's launch
// folds picks one class; one that does not fold keeps both, as the two branches of an unknown condition.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEngine, type Engine } from '../../../../core/index';

let engine: Engine;
beforeAll(async () => {
  engine = await loadEngine({});
});

const source = (alias: string, launch: string): string => `#include <cstdint>
namespace lib {
template <bool B, class T, class F> struct conditional { using type = T; };
template <class T, class F> struct conditional<false, T, F> { using type = F; };
template <bool B, class T, class F> using conditional_t = typename conditional<B, T, F>::type;
struct One {
  __device__ void arrive(uint64_t* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(bar)));
  }
};
struct Two {
  __device__ void arrive(uint64_t* bar) {
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(bar)));
    asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(bar)));
  }
};
}
template <int kPeers>
__global__ void __launch_bounds__(32) k() {
  ${alias}
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], 2;" :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
  __syncthreads();
  if (threadIdx.x == 0) Arriver().arrive(&bar);
  asm volatile("{\\n .reg .pred p;\\n W:\\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n @!p bra W;\\n }" :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
}
int main() { ${launch} }
`;

const USING = 'using Arriver = lib::conditional_t<kPeers == 1, lib::One, lib::Two>;';
const TYPEDEF = 'typedef typename lib::conditional<(kPeers > 1), lib::Two, lib::One>::type Arriver;';

describe('local type aliases', () => {
  for (const [name, alias] of [['using', USING], ['typedef', TYPEDEF]] as const) {
    it(`${name}: a launch that picks the one-arrive class leaves the phase of 2 incomplete`, () => {
      const result = engine.analyze(source(alias, 'k<1><<<1, 32>>>();'), 'cuda');
      expect(result.findings.map((f) => f.code)).toEqual(['PF401']);
      expect(result.kernels?.map((k) => k.notUnderstood)).toEqual([0]);
    });
    it(`${name}: a launch that picks the two-arrive class completes it`, () => {
      const result = engine.analyze(source(alias, 'k<2><<<1, 32>>>();'), 'cuda');
      expect(result.findings.map((f) => f.code)).toEqual([]);
      expect(result.kernels?.map((k) => k.notUnderstood)).toEqual([0]);
    });
  }
  it('an unknown condition keeps both classes: understood, and silent where they disagree', () => {
    const result = engine.analyze(source(USING, ''), 'cuda');
    expect(result.findings.map((f) => f.code)).toEqual([]);
    expect(result.kernels?.map((k) => k.notUnderstood)).toEqual([0]);
  });
});
