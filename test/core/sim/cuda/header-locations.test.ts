// Reports from code that lives in a header of the kernel's translation unit name that header and its
// line (`ring.cuh:7`), not a line of the kernel's own file: an unsupported construct inside a template
// struct's member function, an unsupported inline-PTX instruction (an .im2col tensor copy) inside a
// header's helper, and the wait a deadlock is stuck in inside a header's helper.
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runKernel } from './helpers';

// The header's helpers are declared through a specifier macro, as CUTLASS's CUTE_DEVICE, so the
// header is recognised as device code from its written text.
const RING_CUH = `// A ring cursor whose advance() uses a construct the simulator does not run.
#pragma once
#define PF_DEVICE __forceinline__ __device__
template <int kStages>
struct Cursor {
  int index = 0;
  PF_DEVICE void advance() {
    if (++index < kStages) return;
    index = 0;
    goto done;
  done:
    return;
  }
};
`;
const MBAR_CUH = `// mbarrier wrappers: the try_wait loop a deadlocked thread is stuck in is on line 11.
#pragma once
#include <cstdint>
#define PF_DEVICE __forceinline__ __device__
PF_DEVICE uint32_t smem_u32(const void* p) { return static_cast<uint32_t>(__cvta_generic_to_shared(p)); }
PF_DEVICE void mbar_init(uint64_t* bar, uint32_t count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(smem_u32(bar)), "r"(count) : "memory");
}
PF_DEVICE bool mbar_try_wait(uint64_t* bar, uint32_t parity) {
  uint32_t done;
  asm volatile("{\\n .reg .pred p;\\n mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2;\\n selp.u32 %0, 1, 0, p;\\n}" : "=r"(done) : "r"(smem_u32(bar)), "r"(parity) : "memory");
  return done != 0;
}
PF_DEVICE void mbar_wait(uint64_t* bar, uint32_t parity) { while (!mbar_try_wait(bar, parity)) {} }
`;

let tmp = '';
beforeAll(() => {
  tmp = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-header-loc-'));
  mkdirSync(path.join(tmp, 'include/pf'), { recursive: true });
  writeFileSync(path.join(tmp, 'include/pf/ring.cuh'), RING_CUH);
  writeFileSync(path.join(tmp, 'include/pf/mbar.cuh'), MBAR_CUH);
});
afterAll(() => rmSync(tmp, { recursive: true, force: true }));

const compile = () => ({ includeDirs: [path.join(tmp, 'include')] });

describe('simulator reports locate lines inside headers', () => {
  it('an unsupported construct in a header template struct is reported at ring.cuh:N', async () => {
    const text = `#include "pf/ring.cuh"
__global__ void k(int* out) {
  Cursor<2> c;
  c.advance();
  c.advance();
  out[threadIdx.x] = c.index;
}
`;
    const r = await runKernel(text, { file: path.join(tmp, 'k.cu'), compile: compile(), args: ['out=s32[32]'] });
    expect(r.status, r.message).toBe('error');
    // The kernel's call (line 4, c.advance()) first, then the method's line in the header.
    expect(r.message).toBe('not supported by the simulator: goto at line 4 ← advance ring.cuh:10');
    expect(r.report?.loc?.file).toBe(path.join(tmp, 'include/pf/ring.cuh'));
  });

  it('an unsupported PTX instruction in a header helper (an .im2col tensor copy) is reported at tma_helpers.cuh:7 (its compile_flags.txt found by itself)', async () => {
    // test/fixtures/sim/unsupported-in-header: the kernel's line 5 calls the helper of include/tma_helpers.cuh.
    const fixture = path.join(__dirname, '../../../fixtures/sim/unsupported-in-header');
    const file = path.join(fixture, 'im2col_in_header.cu');
    const r = await runKernel(readFileSync(file, 'utf8'), { file, args: ['A=f32[4,8,32]', 't=tensormap(A,box=[32,1,1])', 'out=f32[32]'] });
    expect(r.status, r.message).toBe('error');
    expect(r.report?.kind).toBe('unsupported');
    expect(r.message).toBe(
      "not supported by the simulator: PTX instruction 'cp.async.bulk.tensor.3d.shared::cluster.global.im2col.mbarrier::complete_tx::bytes' (im2col mode; only tile mode is modelled) at line 5 ← tma_im2col tma_helpers.cuh:7",
    );
    expect(r.report?.loc?.file).toBe(path.join(fixture, 'include/tma_helpers.cuh'));
    expect(r.report?.loc?.line).toBe(6);
  });

  it('the same kernel without the include directory says which include was not found', async () => {
    const text = `#include "pf/ring.cuh"
__global__ void k(int* out) { Cursor<2> c; c.advance(); out[threadIdx.x] = c.index; }
`;
    const r = await runKernel(text, { file: path.join(tmp, 'k.cu'), args: ['out=s32[32]'] });
    expect(r.status).toBe('error');
    expect(r.message).toContain('"pf/ring.cuh"');
  });

  it('a deadlock names the header line the threads wait at (mbar.cuh:11)', async () => {
    const text = `#include "pf/mbar.cuh"
__global__ void k(int* out) {
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) mbar_init(&bar, 1);
  __syncthreads();
  mbar_wait(&bar, 0);   // nobody arrives
  out[threadIdx.x] = 1;
}
`;
    const r = await runKernel(text, { file: path.join(tmp, 'k.cu'), compile: compile(), args: ['out=s32[32]'] });
    expect(r.status, r.message).toBe('deadlock');
    // The kernel's call site first, then each helper's line in the header (mbar_wait calls mbar_try_wait).
    expect(r.message).toMatch(/wait on bar \(parity 0\) at line 6 ← mbar_wait mbar\.cuh:14 ← mbar_try_wait mbar\.cuh:11/);
  });
});
