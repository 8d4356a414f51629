// Barrier rows (barrier-runtime.ts arriveRow/waitRow, MbarrierServices.mbArriveLanes/mbWaitLanes): a
// converged warp's arrivals on one barrier are one update and its waits one call. What must hold: a
// run whose rows are taken is the run whose rows are all declined (the lanes then go one by one
// through the scalar path) — same outcome, report, outputs, per-thread statements and clocks, and
// the same trace event for event — for correct kernels, kernels that misuse barriers, and every
// schedule; and the rows are really taken.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { prepareCudaLaunch } from '../../../../core/lang/cuda/sim/index';
import { parseArg } from '../../../../core/sim/args';
import type { SimulateRequest } from '../../../../core/sim/run';

const SEEDS = path.resolve(__dirname, '../../../../examples/seeds');

interface Case {
  name: string;
  /** The lanes would report (over-arrival, the init race): every row declines and the lanes report one by one. */
  declined?: boolean;
  /** The run's outcome: 'completed' or a report's words. */
  outcome: string | RegExp;
  /** What the first buffer must hold (as u32), where the kernel's result is known. */
  want?: number[];
  text: string;
  block: number;
  args: string[];
  dynamicSmem?: number;
}

async function runOnce(c: Case, schedule: SimulateRequest['schedule'], rows: boolean) {
  const launch = await prepareCudaLaunch({ file: 'k.cu', text: c.text, block: [c.block, 1, 1], dynamicSmem: c.dynamicSmem, args: c.args.map(parseArg), trace: true, schedule, seed: 3, maxSteps: 2_000_000 });
  const m = launch.machine;
  const services = m.mbarriers;
  let arrivals = 0;
  let waits = 0;
  const arrive = services.mbArriveLanes.bind(services);
  const wait = services.mbWaitLanes.bind(services);
  services.mbArriveLanes = (...a) => {
    if (!rows) return undefined;
    const r = arrive(...a);
    if (r !== undefined) arrivals++;
    return r;
  };
  services.mbWaitLanes = (...a) => {
    if (!rows) return false;
    const r = wait(...a);
    if (r) waits++;
    return r;
  };
  const res = m.run();
  return {
    status: res.status,
    message: res.report?.message,
    steps: m.steps,
    threads: m.threads.map((t) => `${t.status} ${t.steps} ${t.time}`),
    outputs: launch.buffers.map((b) => Buffer.from(new Uint8Array(b.buffer.view.buffer, b.buffer.view.byteOffset, b.buffer.size)).toString('hex')),
    trace: JSON.stringify(m.trace),
    arrivals,
    waits,
  };
}

const seed = (file: string) => readFileSync(path.join(SEEDS, file), 'utf8');

const CASES: Case[] = [
  { name: 'the guide producer/consumer', outcome: 'completed', text: seed('producer_consumer_cuda_barrier.cu'), block: 128, dynamicSmem: 512, args: ['N=1024', 'buffer_len=64', 'in=f32[1024]:iota', 'out=f32[1024]'] },
  { name: 'a completion function summing each phase', outcome: 'completed', text: seed('completion_function_psum.cu'), block: 128, args: ['data=s32[512]:iota', 'n=512', 'acc=s32[1]'] },
  ...['cuda_ptx', 'primitives'].map((api) => ({ name: `the guide producer/consumer (${api})`, outcome: 'completed', text: seed(`producer_consumer_${api}.cu`), block: 128, dynamicSmem: 512, args: ['N=1024', 'buffer_len=64', 'in=f32[1024]:iota', 'out=f32[1024]'] })),
  ...['cuda_barrier', 'cuda_ptx', 'primitives'].map((api) => ({ name: `split arrive and wait with a retried probe (${api})`, outcome: 'completed', text: seed(`split_arrive_wait_${api}.cu`), block: 128, args: ['iteration_count=5', 'data=f32[128]:iota'] })),
  {
    name: 'inline PTX: arrivals and try_wait.parity loops (a two-stage ring)',
    outcome: 'completed',
    want: Array.from({ length: 96 }, (_, c) => Array.from({ length: 12 }, (_, i) => i * 100 + ((c + 32 + i) % 32)).reduce((a, b) => a + b, 0)),
    block: 128,
    args: ['out=u32[96]', 'rounds=12'],
    text: `
#include <cstdint>
__device__ __forceinline__ unsigned addr(uint64_t *b) { return (unsigned)__cvta_generic_to_shared(b); }
__device__ __forceinline__ void wait(uint64_t *b, int phase) {
  asm volatile("{\\n .reg .pred P1;\\n LAB_WAIT:\\n mbarrier.try_wait.parity.shared::cta.b64 P1, [%0], %1;\\n @P1 bra.uni DONE;\\n bra.uni LAB_WAIT;\\n DONE:\\n }\\n" :: "r"(addr(b)), "r"(phase) : "memory");
}
__device__ __forceinline__ void arrive(uint64_t *b) { asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(addr(b)) : "memory"); }
__device__ __forceinline__ unsigned ready(uint64_t *b, int phase) {
  unsigned ok;
  asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }" : "=r"(ok) : "r"(addr(b)), "r"(phase) : "memory");
  return ok;
}
__global__ void ring(unsigned *out, int rounds) {
  __shared__ uint64_t full[2], empty[2];
  __shared__ unsigned slot[2][32];
  if (threadIdx.x == 0)
    for (int s = 0; s < 2; ++s) {
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 32;" :: "r"(addr(&full[s])));
      asm volatile("mbarrier.init.shared::cta.b64 [%0], 96;" :: "r"(addr(&empty[s])));
    }
  __syncthreads();
  unsigned acc = 0;
  for (int i = 0; i < rounds; ++i) {
    int s = i % 2, ph = (i / 2) % 2;
    if (threadIdx.x < 32) {
      if (i >= 2) wait(&empty[s], ph ^ 1);
      slot[s][threadIdx.x] = i * 100 + threadIdx.x;
      arrive(&full[s]);
    } else {
      while (!ready(&full[s], ph)) {}
      acc += slot[s][(threadIdx.x + i) % 32];
      arrive(&empty[s]);
    }
  }
  if (threadIdx.x >= 32) out[threadIdx.x - 32] = acc;
}`,
  },
  { name: 'early exit with arrive_and_drop', outcome: 'completed', text: seed('early_exit_cuda_barrier.cu'), block: 128, args: ['N=6'] },
  {
    name: 'arrive(2), parity waits and a barrier chosen per lane',
    outcome: 'completed',
    block: 64,
    args: ['out=u32[64]'],
    text: `
#include <cuda/barrier>
using barrier_t = cuda::barrier<cuda::thread_scope_block>;
__global__ void k(unsigned *out) {
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier_t bar[4];
  __shared__ unsigned acc[64];
  // bar[0]: 64 threads × arrive(2); bar[1]: 64 threads; bar[2], bar[3]: one warp each.
  if (threadIdx.x < 4) init(bar + threadIdx.x, threadIdx.x == 0 ? 128 : threadIdx.x == 1 ? 64 : 32);
  __syncthreads();
  unsigned x = threadIdx.x;
  for (int i = 0; i < 6; ++i) {
    acc[threadIdx.x] = x;
    barrier_t::arrival_token t = bar[0].arrive(2);
    bar[0].wait(static_cast<barrier_t::arrival_token&&>(t));
    x += acc[(threadIdx.x + 1) % 64];
    bar[1].arrive_and_wait();
    (void)bar[1].arrive();
    bar[1].wait_parity(true); // the phase it arrived in is odd
    barrier_t &mine = bar[2 + threadIdx.x / 32];
    mine.arrive_and_wait();
  }
  out[threadIdx.x] = x;
}`,
  },
  {
    name: 'lanes of one warp straddling a phase (over-arrival)',
    declined: true,
    outcome: /the lanes of warp 0 arrive together \(a converged warp's arrive is one update of 17 arrivals\) but only 16 were pending/,
    block: 32,
    args: [],
    text: `
#include <cuda/barrier>
using barrier_t = cuda::barrier<cuda::thread_scope_block>;
__global__ void k() {
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier_t bar;
  if (threadIdx.x == 0) init(&bar, 16);
  __syncthreads();
  (void)bar.arrive();
}`,
  },
  {
    name: 'a barrier used before its init is ordered (init race)',
    declined: true,
    outcome: /data race on mbarrier bar/,
    block: 64,
    args: [],
    text: `
#include <cuda/barrier>
using barrier_t = cuda::barrier<cuda::thread_scope_block>;
__global__ void k() {
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier_t bar;
  if (threadIdx.x == 0) init(&bar, 64);
  for (int i = 0; i < 200; ++i) __nanosleep(1);
  bar.arrive_and_wait();
}`,
  },
  {
    name: 'a wait on a stale token',
    // The warp leaves __syncthreads converged: its three arrivals are three phases, and the first token is stale.
    outcome: /wait\(token\) on bar .* the token is from phase 0 but the barrier is in phase 3/,
    block: 32,
    args: [],
    text: `
#include <cuda/barrier>
using barrier_t = cuda::barrier<cuda::thread_scope_block>;
__global__ void k() {
  #pragma nv_diag_suppress static_var_with_dynamic_init
  __shared__ barrier_t bar;
  if (threadIdx.x == 0) init(&bar, 32);
  __syncthreads();
  barrier_t::arrival_token old = bar.arrive();
  bar.arrive_and_wait();
  bar.arrive_and_wait();
  bar.wait(static_cast<barrier_t::arrival_token&&>(old));
}`,
  },
];

describe('barrier rows equal lane-by-lane execution', () => {
  for (const c of CASES)
    it(c.name, async () => {
      let taken = 0;
      for (const schedule of ['round-robin', 'random', 'adversarial'] as const) {
        const on = await runOnce(c, schedule, true);
        const off = await runOnce(c, schedule, false);
        const { arrivals, waits, ...got } = on;
        const { arrivals: _a, waits: _w, ...want } = off;
        expect(got, `${schedule}`).toEqual(want);
        if (typeof c.outcome === 'string') expect(`${got.status} ${got.message ?? ''}`.trim(), schedule).toBe(c.outcome);
        else expect(got.message, schedule).toMatch(c.outcome);
        if (c.want) expect(Array.from(new Uint32Array(Uint8Array.from(Buffer.from(got.outputs[0], 'hex')).buffer)), schedule).toEqual(c.want);
        taken += arrivals + waits;
      }
      // Elsewhere a converged warp arrives or waits on one barrier somewhere.
      if (c.declined) expect(taken).toBe(0);
      else expect(taken).toBeGreaterThan(0);
    });

  it('takes the rows for most of the producer/consumer seed', async () => {
    const on = await runOnce(CASES[0], 'round-robin', true);
    expect(on.status).toBe('completed');
    // 16 rounds × 4 warps × (arrive_and_wait + arrive): one row each where the warp is converged.
    expect(on.arrivals).toBeGreaterThanOrEqual(16 * 4 * 2 * 0.9);
    expect(on.waits).toBeGreaterThan(16 * 4 * 0.9);
  });
});
