// Warp-lockstep execution (machine.ts runWarp, executor.ts runLanes, lanes.ts): a warp's converged
// lanes run each instruction together, plain-number expressions as one lane-vector evaluation. What
// must hold: the vector forms compute exactly what the scalar closures compute; divergent code gives
// the same per-thread results in lockstep as thread by thread; a warp that split at a branch merges
// again at the join point; and the scheduler keeps a blocked lane from holding its warp-mates back.
import { describe, expect, it } from 'vitest';
import { prepareCudaLaunch } from '../../../../core/lang/cuda/sim/index';
import { ROW_DECLINED, vArith, vCompare, vConvert, vDivConst, vDivVar, vShift, vUnary, type VFn } from '../../../../core/lang/cuda/sim/lanes';
import type { Frame } from '../../../../core/lang/cuda/sim/runtime';
import { arith, bitNot, compare, convFn, negate, shift } from '../../../../core/lang/cuda/sim/types';
import type { DType } from '../../../../core/sim/dtypes';
import { parseArg } from '../../../../core/sim/args';
import { rng } from '../../../../core/sim/machine';
import { runKernel, values } from './helpers';

/** 32 lanes of operands: edge cases first, then seeded random values of the type's range. */
function operands(dt: DType, seed: number): number[] {
  const r = rng(seed);
  const edge: Record<string, number[]> = {
    s32: [0, 1, -1, 2147483647, -2147483648, 65536, -65536, 7],
    u32: [0, 1, 4294967295, 2147483648, 2147483647, 65536, 3, 0x80000001],
    f32: [0, -0, 1.5, -2.25, Math.fround(3.4e38), Number.NaN, Number.POSITIVE_INFINITY, Math.fround(1e-40)],
    f64: [0, -0, 1.5, -2.25, 1e308, Number.NaN, Number.NEGATIVE_INFINITY, 5e-324],
  };
  const out = [...edge[dt]];
  while (out.length < 32) {
    const x = r();
    if (dt === 's32') out.push((x * 2 ** 32) | 0);
    else if (dt === 'u32') out.push((x * 2 ** 32) >>> 0);
    else if (dt === 'f32') out.push(Math.fround((x - 0.5) * 2 ** Math.floor(r() * 60 - 30)));
    else out.push((x - 0.5) * 2 ** Math.floor(r() * 200 - 100));
  }
  return out;
}

const lanesOf = (xs: number[]): VFn => {
  const buf = Float64Array.from(xs);
  return () => buf;
};
const noFrames = [] as unknown as Frame[];

describe('lane-vector forms equal the scalar closures, lane by lane', () => {
  const same = (got: number, want: number) => (Number.isNaN(want) ? Number.isNaN(got) : Object.is(got, want));

  for (const dt of ['s32', 'u32', 'f32', 'f64'] as DType[]) {
    const a = operands(dt, 1);
    const b = operands(dt, 2).reverse();
    const ops = dt === 's32' || dt === 'u32' ? ['+', '-', '*', '&', '|', '^'] : ['+', '-', '*', '/'];
    it(`${dt}: ${ops.join(' ')}, comparisons${dt.endsWith('32') && !dt.startsWith('f') ? ', shifts' : ''}, negation`, () => {
      const mismatches: string[] = [];
      const check = (what: string, v: VFn | undefined, scalar: (i: number) => number) => {
        expect(v, what).toBeDefined();
        const got = v!(noFrames, 32);
        for (let i = 0; i < 32; i++) if (!same(got[i], scalar(i))) mismatches.push(`${what} lane ${i}: ${got[i]} vs ${scalar(i)}`);
      };
      const at = (xs: number[]) => (i: number) => () => xs[i];
      for (const op of ops) {
        const s = arith(op, dt, at(a)(0), at(b)(0));
        void s;
        check(`${op}`, vArith(op, dt, lanesOf(a), lanesOf(b)), (i) => arith(op, dt, at(a)(i), at(b)(i))(null));
      }
      for (const op of ['<', '<=', '>', '>=', '==', '!=']) check(op, vCompare(op, lanesOf(a), lanesOf(b)), (i) => compare(op, at(a)(i), at(b)(i))(null));
      if (dt === 's32' || dt === 'u32') {
        // Shift amounts across and beyond 0..31 (the clamp).
        const amounts = Array.from({ length: 32 }, (_, i) => [0, 1, 7, 31, 32, 33, -1, 100][i % 8] + (i >= 8 ? i % 5 : 0));
        for (const op of ['<<', '>>'] as const) check(op, vShift(op, dt, lanesOf(a), lanesOf(amounts)), (i) => shift(op, dt, at(a)(i), at(amounts)(i))(null));
        check('~', vUnary('~', dt, lanesOf(a)), (i) => bitNot(dt, at(a)(i))(null));
      }
      check('-', vUnary('-', dt, lanesOf(a)), (i) => negate(dt, at(a)(i))(null));
      expect(mismatches).toEqual([]);
    });
  }

  it('32-bit integer division and remainder by constant divisors', () => {
    const mismatches: string[] = [];
    for (const dt of ['s32', 'u32'] as DType[]) {
      const a = operands(dt, 4);
      for (const d of dt === 's32' ? [1, -1, 2, -2, 3, 7, -7, 64, 2147483647, -2147483648] : [1, 2, 3, 7, 64, 4294967295, 2147483648])
        for (const op of ['/', '%']) {
          const v = vDivConst(op, dt, lanesOf(a), d);
          if (!v) {
            mismatches.push(`${dt} ${op} ${d}: no vector form`);
            continue;
          }
          const got = v(noFrames, 32);
          const scalar = arith(op, dt, (f) => (f as unknown as { x: number }).x, () => d);
          for (let i = 0; i < 32; i++) {
            const want = scalar({ x: a[i] } as unknown as Frame);
            if (!Object.is(got[i], want)) mismatches.push(`${dt} ${a[i]} ${op} ${d}: ${got[i]} vs ${want}`);
          }
        }
      // A zero divisor faults: no vector form (the scalar closure reports it).
      expect(vDivConst('/', dt, lanesOf(a), 0)).toBeUndefined();
    }
    expect(mismatches).toEqual([]);
  });

  it('32-bit integer division and remainder by divisors that vary, declining where a lane divides by zero', () => {
    const mismatches: string[] = [];
    for (const dt of ['s32', 'u32'] as DType[]) {
      const a = operands(dt, 5);
      const b = operands(dt, 6).map((x, i) => (x === 0 ? i + 1 : x)).reverse();
      for (const op of ['/', '%']) {
        const v = vDivVar(op, dt, lanesOf(a), lanesOf(b));
        if (!v) {
          mismatches.push(`${dt} ${op}: no vector form`);
          continue;
        }
        const got = v(noFrames, 32);
        for (let i = 0; i < 32; i++) {
          const want = arith(op, dt, () => a[i], () => b[i])(null as unknown as Frame);
          if (!Object.is(got[i], want)) mismatches.push(`${dt} ${a[i]} ${op} ${b[i]}: ${got[i]} vs ${want}`);
        }
        // One lane's zero divisor: the row declines (the scalar closure of that lane faults).
        const withZero = b.map((x, i) => (i === 9 ? 0 : x));
        expect(() => vDivVar(op, dt, lanesOf(a), lanesOf(withZero))!(noFrames, 32)).toThrow();
        try {
          vDivVar(op, dt, lanesOf(a), lanesOf(withZero))!(noFrames, 32);
        } catch (e) {
          expect(e).toBe(ROW_DECLINED);
        }
      }
    }
    expect(mismatches).toEqual([]);
  });

  it('conversions between the plain-number types', () => {
    const mismatches: string[] = [];
    const types: DType[] = ['s32', 'u32', 'f32', 'f64', 's16', 'u16', 's8', 'u8', 'bool'];
    for (const from of ['s32', 'u32', 'f32', 'f64'] as DType[])
      for (const to of types) {
        const conv = convFn(from, to);
        if (!conv) continue;
        const a = operands(from, 3);
        const got = vConvert(conv, lanesOf(a))(noFrames, 32);
        for (let i = 0; i < 32; i++) if (!same(got[i], conv(a[i]))) mismatches.push(`${from}→${to} lane ${i}: ${got[i]} vs ${conv(a[i])}`);
      }
    expect(mismatches).toEqual([]);
  });
});

// Every lane takes its own path through branches, loops with lane-dependent trip counts, early exits,
// short-circuits and ternaries, with warp collectives inside divergent code.
const DIVERGENT = `
__global__ void divergent(unsigned *out, int n) {
  const int t = threadIdx.x;
  const int lane = t & 31;
  unsigned acc = t * 2654435761u;
  int k = 0;
  if (lane % 3 == 0) acc ^= acc >> 13;
  else if (lane % 3 == 1) { acc = acc * 7u + 1u; k = 2; }
  else k = -1;
  for (int i = 0; i < n + lane; ++i) {
    if ((i & 3) == (lane & 3)) continue;
    acc = acc * 33u + (unsigned)i;
    if (acc % 97u == 5u && lane > 20) break;
  }
  int j = lane;
  do { j -= 5; k += j > 0 ? 1 : 2; } while (j > 0 && k < 40);
  unsigned mask = __ballot_sync(0xffffffffu, (acc & 1u) != 0u);
  if (lane < 16) acc += __shfl_xor_sync(0x0000ffffu, acc, 1);
  __syncwarp();
  if (t >= 60) { out[t] = 0xdeadu; return; }
  out[t] = acc + (unsigned)k * 1000003u + (lane == 0 ? mask : 0u);
}
`;

/** The same computation in JS, per thread (the collectives computed over the warp). */
function divergentReference(threads: number, n: number): number[] {
  const acc: number[] = [];
  const ks: number[] = [];
  for (let t = 0; t < threads; t++) {
    const lane = t & 31;
    let a = Math.imul(t, 2654435761) >>> 0;
    let k = 0;
    if (lane % 3 === 0) a = (a ^ (a >>> 13)) >>> 0;
    else if (lane % 3 === 1) {
      a = (Math.imul(a, 7) + 1) >>> 0;
      k = 2;
    } else k = -1;
    for (let i = 0; i < n + lane; ++i) {
      if ((i & 3) === (lane & 3)) continue;
      a = (Math.imul(a, 33) + i) >>> 0;
      if (a % 97 === 5 && lane > 20) break;
    }
    let j = lane;
    do {
      j -= 5;
      k += j > 0 ? 1 : 2;
    } while (j > 0 && k < 40);
    acc.push(a);
    ks.push(k);
  }
  const out: number[] = [];
  for (let t = 0; t < threads; t++) {
    const lane = t & 31;
    const w = t - lane;
    let mask = 0;
    for (let l = 0; l < 32 && w + l < threads; l++) if (acc[w + l] & 1) mask |= 1 << l;
    let a = acc[t];
    if (lane < 16) a = (a + acc[w + (lane ^ 1)]) >>> 0;
    if (t >= 60) out.push(0xdead);
    else out.push((a + Math.imul(ks[t], 1000003) + (lane === 0 ? mask >>> 0 : 0)) >>> 0);
  }
  return out;
}

describe('warp-lockstep execution of divergent code', () => {
  it('gives every thread the result the reference gives, in lockstep and thread by thread, under every schedule', async () => {
    const want = divergentReference(96, 40);
    for (const lockstep of [true, false])
      for (const schedule of ['round-robin', 'random', 'adversarial'] as const) {
        const r = await runKernel(DIVERGENT, { block: [96, 1, 1], args: ['out=u32[96]', 'n=40'], lockstep, schedule });
        expect(r.status, `${schedule}, lockstep ${lockstep}: ${r.message}`).toBe('completed');
        expect(values(r, 'out'), `${schedule}, lockstep ${lockstep}`).toEqual(want);
      }
  });

  it('merges a warp that split at an if/else at the join point, so its lanes go on together', async () => {
    const text = `
__global__ void join(unsigned *out) {
  unsigned x = threadIdx.x;
  if (threadIdx.x < 16) x = x * 3u; else x = x + 100u;
  for (int i = 0; i < 2000; ++i) x = x * 5u + (unsigned)i;
  out[threadIdx.x] = x;
}`;
    const launch = await prepareCudaLaunch({ file: 'k.cu', text, block: [32, 1, 1], args: [parseArg('out=u32[32]')] });
    const m = launch.machine;
    // Partway through the loop every lane has run the same number of statements: the two halves met
    // after the if/else and ran the loop as one group.
    const mid = m.run({ untilSteps: 32 * 1500 });
    expect(mid.status).toBe('paused');
    const steps = m.threads.map((t) => t.steps);
    expect(new Set(steps).size, `statements per lane: ${[...new Set(steps)].join(', ')}`).toBe(1);
    expect(m.run().status).toBe('completed');
    const want = Array.from({ length: 32 }, (_, t) => {
      let x = t < 16 ? t * 3 : t + 100;
      for (let i = 0; i < 2000; ++i) x = (Math.imul(x, 5) + i) >>> 0;
      return x;
    });
    expect(Array.from({ length: 32 }, (_, i) => launch.buffers[0].buffer.view.getUint32(i * 4, true))).toEqual(want);
  });

  it('lets a lane that spins on a probe yield to its warp-mates and to the warp that releases it', async () => {
    // Lane 0 of warp 1 polls a flag that warp 0 sets after a long loop; the other lanes of warp 1 have
    // their own work. Nothing deadlocks or livelocks, and the probing lane sees the flag.
    const text = `
#include <cstdint>
__global__ void spin(unsigned *out) {
  __shared__ volatile unsigned flag;
  __shared__ uint64_t bar;
  if (threadIdx.x == 0) { flag = 0; asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"((unsigned)__cvta_generic_to_shared(&bar))); }
  __syncthreads();
  unsigned x = threadIdx.x;
  if (threadIdx.x < 32) {
    for (int i = 0; i < 500; ++i) x = x * 3u + 1u;
    if (threadIdx.x == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(&bar)) : "memory");
  } else if (threadIdx.x == 32) {
    unsigned ok = 0;
    while (!ok) asm volatile("{ .reg .pred p; mbarrier.test_wait.parity.shared::cta.b64 p, [%1], 0; selp.u32 %0, 1, 0, p; }" : "=r"(ok) : "r"((unsigned)__cvta_generic_to_shared(&bar)) : "memory");
    x = 7u;
  } else {
    for (int i = 0; i < 100; ++i) x = x * 5u + 2u;
  }
  out[threadIdx.x] = x;
}`;
    const r = await runKernel(text, { block: [64, 1, 1], args: ['out=u32[64]'] });
    expect(r.status, r.message).toBe('completed');
    const got = values(r, 'out');
    expect(got[32]).toBe(7);
    let x = 33;
    for (let i = 0; i < 100; ++i) x = (Math.imul(x, 5) + 2) >>> 0;
    expect(got[33]).toBe(x);
  });
});

describe('warp-lockstep faults and limits', () => {
  it('names the lane that faults inside a converged warp, with its line', async () => {
    const text = `
__global__ void oob(float *out) {
  float x = threadIdx.x * 2.0f;
  int i = threadIdx.x == 7 ? 100 : threadIdx.x;
  out[i] = x;
}`;
    const r = await runKernel(text, { block: [32, 1, 1], args: ['out=f32[32]'] });
    expect(r.status).toBe('error');
    expect(r.report?.kind).toBe('oob');
    expect(r.message).toMatch(/element 100 .* by block 0 · warp 0 · lane 7 at line 5/);
  });

  it('divides by a per-lane divisor as thread by thread does: loops bounded by n / d, a statement with an effect before its division, and the lane that divides by zero', async () => {
    const text = `
__global__ void divs(int *out, int n, int z) {
  int t = threadIdx.x;
  int d = t % 5 + 1;
  int s = 0;
  for (int i = 0; i < n / d; ++i) s += i % d;
  int k = 0;
  while (k++ < n / (d + 1)) s += 3;
  unsigned u = (unsigned)(t + 7) / (unsigned)d;
  out[t] = s * 1000 + k * 10 + (int)u;
  if (z) out[t] = n / (t - 9);
}`;
    const want = Array.from({ length: 32 }, (_, t) => {
      const d = (t % 5) + 1;
      let s = 0;
      for (let i = 0; i < Math.trunc(50 / d); ++i) s += i % d;
      let k = 0;
      while (k++ < Math.trunc(50 / (d + 1))) s += 3;
      return s * 1000 + k * 10 + Math.floor((t + 7) / d);
    });
    const reports: string[] = [];
    for (const lockstep of [true, false]) {
      const r = await runKernel(text, { block: [32, 1, 1], args: ['out=s32[32]', 'n=50', 'z=0'], lockstep });
      expect(r.status, r.message).toBe('completed');
      expect(values(r, 'out'), `lockstep ${lockstep}`).toEqual(want);
      const faulty = await runKernel(text, { block: [32, 1, 1], args: ['out=s32[32]', 'n=50', 'z=1'], lockstep });
      expect(faulty.status).toBe('error');
      expect(faulty.message).toMatch(/integer division by zero[\s\S]*lane 9/);
      reports.push(faulty.message);
    }
    expect(reports[0]).toBe(reports[1]);
  });

  it('stops a runaway converged warp at the step limit, counting every lane', async () => {
    const text = `
__global__ void spin(unsigned *out) {
  unsigned x = threadIdx.x;
  while (x != 0xffffffffu) x = x * 3u + 1u;
  out[threadIdx.x] = x;
}`;
    const r = await runKernel(text, { block: [64, 1, 1], args: ['out=u32[64]'], maxSteps: 100_000 });
    expect(r.status).toBe('step-limit');
    expect(r.steps).toBe(100_000);
  });
});
