// The PTX spelling check (PF307) also reads the asm of functions no kernel reaches: a header of barrier
// wrappers linted alone (CUTLASS shipped `mbarrier.ival` in such a wrapper) is checked, and a wrapper a kernel
// inlines is reported once, not once per path.
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
});
