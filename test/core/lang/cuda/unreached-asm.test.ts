// The asm checks also read functions no kernel reaches: a header of barrier wrappers linted alone is checked
// for PTX spelling (PF307; CUTLASS shipped `mbarrier.ival` in such a wrapper) and for probes whose answer the
// asm throws away (PF105; CCCL shipped try_wait wrappers that returned void), and a wrapper a kernel inlines is
// reported once.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEngine, type Engine } from '../../../../core/index';

let engine: Engine;
beforeAll(async () => {
  engine = await loadEngine({});
});

const wrapper = (mnemonic: string): string => `#pragma once
#include <cstdint>
struct Barrier {
  uint64_t storage;
  __device__ void invalidate() {
    uint32_t addr = static_cast<uint32_t>(__cvta_generic_to_shared(&storage));
    asm volatile("{\\n\\t${mnemonic}.shared::cta.b64 [%0];\\n\\t}" :: "r"(addr));
  }
};
`;

const pf307 = (text: string, path: string): number[] =>
  engine.analyze(text, 'cuda', {}, path).findings.filter((f) => f.code === 'PF307').map((f) => f.range.start.line + 1);

describe('asm of functions no kernel reaches', () => {
  it('is checked in a header of wrappers', () => {
    expect(pf307(wrapper('mbarrier.ival'), '/virtual/barrier.h')).toEqual([7]);
    expect(pf307(wrapper('mbarrier.inval'), '/virtual/barrier.h')).toEqual([]);
  });

  it('reports a wrapper a kernel inlines once', () => {
    const kernel = `${wrapper('mbarrier.ival')}
__global__ void k() {
  __shared__ Barrier bar;
  bar.invalidate();
}
`;
    expect(pf307(kernel, '/virtual/k.cu')).toEqual([7]);
  });

  it('flags a probe wrapper whose asm never reads the probe result', () => {
    const probe = (tail: string, out: string): string => `#include <cstdint>
__device__ static inline ${out ? 'bool' : 'void'} try_wait(uint64_t* addr, uint64_t state) {
  ${out ? 'uint32_t done;' : ''}
  asm volatile("{\\n\\t .reg .pred P_OUT; \\n\\t"
               "mbarrier.try_wait.shared::cta.b64 P_OUT, [%${out ? 1 : 0}], %${out ? 2 : 1};\\n\\t"
               ${tail}
               "}"
               : ${out}
               : "r"(static_cast<uint32_t>(__cvta_generic_to_shared(addr))), "l"(state)
               : "memory");
  ${out ? 'return done;' : ''}
}
`;
    const codes = (text: string): string[] => engine.analyze(text, 'cuda', {}, '/virtual/wait.h').findings.map((f) => f.code);
    expect(codes(probe('', ''))).toEqual(['PF105']);
    expect(codes(probe('"selp.b32 %0, 1, 0, P_OUT;\\n\\t"', '"=r"(done)'))).toEqual([]);
    // A retry loop inside the asm reads the predicate too.
    expect(codes(probe('"@!P_OUT bra.uni 0;\\n\\t"', ''))).toEqual([]);
  });
});
