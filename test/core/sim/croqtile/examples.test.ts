// The repository's Croqtile examples on the simulator: seeds and good kernels complete (and compute
// the right product), each bug ends the way its header says the GPU would go (deadlocks name the
// event), and the 1P1C GEMM benchmark input computes lhs · rhsᵀ exactly as its MMAs round.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArg } from '../../../../core/sim/args';
import { simulateCroqtile } from '../../../../core/lang/croqtile/sim';
import { coerce, type DType, load, sizeOf } from '../../../../core/sim/dtypes';
import type { SimulateResult } from '../../../../core/sim/run';

const EX = path.join(__dirname, '../../../../examples/croqtile');

function sim(rel: string, argv: string[], patch?: (text: string) => string): SimulateResult {
  let text = readFileSync(path.join(EX, rel), 'utf8');
  if (patch) text = patch(text);
  return simulateCroqtile({ file: rel, text, language: 'croqtile', args: argv.map(parseArg) });
}

function values(r: SimulateResult, name: string): Float64Array {
  const b = r.buffers.find((x) => x.name === name);
  if (!b) throw new Error(`no buffer ${name}`);
  const n = b.shape.reduce((a, c) => a * c, 1);
  const out = new Float64Array(n);
  for (let i = 0; i < n; i++) out[i] = load(b.buffer.view, i * sizeOf(b.dtype), b.dtype);
  return out;
}

/** C = A·Bᵀ (A [M, K], B [N, K]) accumulated per `slice`-wide MMA in `acc` precision, stored as `out`. */
function reference(A: Float64Array, B: Float64Array, M: number, N: number, K: number, slice: number, acc: DType, out: DType): Float64Array {
  const C = new Float64Array(M * N);
  for (let m = 0; m < M; m++)
    for (let n = 0; n < N; n++) {
      let c = 0;
      for (let k0 = 0; k0 < K; k0 += slice) {
        let s = 0;
        for (let k = k0; k < k0 + slice; k++) s += A[m * K + k] * B[n * K + k];
        c = coerce(acc, c + s);
      }
      C[m * N + n] = coerce(out, c);
    }
  return C;
}

function deadlockedOn(r: SimulateResult): string[] {
  return [...new Set((r.report?.blocked ?? []).map((b) => b.barrier).filter((x): x is string => !!x))].sort();
}

describe('examples/croqtile/sim/gemm_1p1c.co', () => {
  it('computes a 128x128x512 f16 GEMM exactly as its f32-accumulated MMAs round', () => {
    const r = sim('sim/gemm_1p1c.co', ['lhs=f16[128,512]:random(1)', 'rhs=f16[128,512]:random(2)', 'output=f16[128,128]']);
    expect(r.status, r.message).toBe('completed');
    const A = values(r, 'lhs');
    const B = values(r, 'rhs');
    const C = values(r, 'output');
    expect(Array.from(C)).toEqual(Array.from(reference(A, B, 128, 128, 512, 16, 'f32', 'f16')));
    // And close to the exact product (f16 output rounding only).
    const exact = reference(A, B, 128, 128, 512, 512, 'f64', 'f64');
    for (let i = 0; i < C.length; i += 97) expect(Math.abs(C[i] - exact[i])).toBeLessThanOrEqual(Math.abs(exact[i]) * 2 ** -10 + 1e-3);
    // 8 K tiles: 8 `full` and 8 `empty` phases; the copies and MMAs take simulated time.
    expect(r.phaseFlips).toBe(16);
    expect(r.cycles).toBeGreaterThan(8 * 120);
  });

  it('gives the same result under the adversarial schedule', () => {
    const args = ['lhs=f16[128,512]:random(3)', 'rhs=f16[128,512]:random(4)', 'output=f16[128,128]'];
    const text = readFileSync(path.join(EX, 'sim/gemm_1p1c.co'), 'utf8');
    const a = simulateCroqtile({ file: 'gemm_1p1c.co', text, args: args.map(parseArg) });
    const b = simulateCroqtile({ file: 'gemm_1p1c.co', text, args: args.map(parseArg), schedule: 'adversarial' });
    expect(b.status).toBe('completed');
    expect(b.buffers.find((x) => x.name === 'output')!.checksum).toBe(a.buffers.find((x) => x.name === 'output')!.checksum);
  });
});

describe('seeds and good kernels complete', () => {
  it('seeds/pipeline_1p1c.co (tutorial era) computes lhs · rhsᵀ with its f16 accumulator', () => {
    const r = sim('seeds/pipeline_1p1c.co', ['lhs=f16[64,256]:random(1)', 'rhs=f16[64,256]:random(2)', 'output=f16[64,64]']);
    expect(r.status, r.message).toBe('completed');
    expect(Array.from(values(r, 'output'))).toEqual(Array.from(reference(values(r, 'lhs'), values(r, 'rhs'), 64, 64, 256, 16, 'f16', 'f16')));
  });

  it('seeds/double_buffer_swap.co computes the product (on a one-block grid)', () => {
    // The real launch is 128 blocks x 256 threads (about 12 million statements, minutes here). On a
    // [1, 1] grid the tiles are [128, 16] and [16, 256], and the 256 threads of the one block still
    // compute output[i][j] = Σ_k lhs[i][k] · rhs[k][j] for i, j < 16 through the same swap pipeline.
    const r = sim('seeds/double_buffer_swap.co', ['lhs=s32[128,256]:random(1)', 'rhs=s32[256,256]:random(2)'], (t) => t.replace('by [8, 16] : block', 'by [1, 1] : block'));
    expect(r.status, r.message).toBe('completed');
    const A = values(r, 'lhs');
    const B = values(r, 'rhs');
    const C = values(r, 'return');
    for (let i = 0; i < 16; i++)
      for (let j = 0; j < 16; j++) {
        let s = 0;
        for (let k = 0; k < 256; k++) s += A[i * 256 + k] * B[k * 256 + j];
        expect(C[i * 256 + j]).toBe(s);
      }
    expect(C[16 * 256]).toBe(0); // outside the one block
  }, 60_000);

  it('good/tma_1p1c_ready_at.co computes lhs · rhsᵀ', () => {
    const r = sim('good/tma_1p1c_ready_at.co', ['lhs=f16[64,256]:random(1)', 'rhs=f16[128,256]:random(2)', 'output=f16[64,128]']);
    expect(r.status, r.message).toBe('completed');
    expect(Array.from(values(r, 'output'))).toEqual(Array.from(reference(values(r, 'lhs'), values(r, 'rhs'), 64, 128, 256, 16, 'f16', 'f16')));
  });

  it('good/tma_1p3c_bootstrap.co and good/tutorial_1p3c_tma_commit.co (three consumers)', () => {
    for (const f of ['good/tma_1p3c_bootstrap.co', 'good/tutorial_1p3c_tma_commit.co']) {
      const r = sim(f, ['lhs=f16[192,128]:random(1)', 'rhs=f16[128,128]:random(2)', 'output=f16[192,128]']);
      expect(r.status, `${f}: ${r.message}`).toBe('completed');
      const slice = f.includes('tutorial') ? 16 : 64;
      expect(Array.from(values(r, 'output')), f).toEqual(Array.from(reference(values(r, 'lhs'), values(r, 'rhs'), 192, 128, 128, slice, 'f16', 'f16')));
    }
  });

  it('good/persistent_1p2c_event_count.co (132 persistent blocks, event<256>)', () => {
    const r = sim('good/persistent_1p2c_event_count.co', ['lhs=f16[256,128]:random(1)', 'rhs=f16[128,128]:random(2)', 'output=f16[256,128]']);
    expect(r.status, r.message).toBe('completed');
    expect(Array.from(values(r, 'output'))).toEqual(Array.from(reference(values(r, 'lhs'), values(r, 'rhs'), 256, 128, 128, 64, 'f16', 'f16')));
    expect(r.barriers.find((b) => b.label === 'empty[0]')?.state.expected).toBe(256);
  });
});

describe('bugs end as their headers say', () => {
  const ring = ['lhs=f16[64,512]:random(1)', 'rhs=f16[128,512]:random(2)', 'output=f16[64,128]'];

  it('hangs: missing_bootstrap, partial_bootstrap, waited_never_triggered, conditional_release', () => {
    const mb = sim('bugs/missing_bootstrap.co', ['lhs=f16[64,256]', 'rhs=f16[64,256]', 'output=f16[64,64]']);
    expect(mb.status).toBe('deadlock');
    expect(deadlockedOn(mb)).toEqual(['empty[0]', 'full[0]']);
    const pb = sim('bugs/partial_bootstrap.co', ring);
    expect(pb.status).toBe('deadlock');
    expect(deadlockedOn(pb)).toEqual(['empty[2]', 'full[2]']);
    const wn = sim('bugs/waited_never_triggered.co', ['lhs=u8[64,256]', 'scale_lhs=f32[64,2]', 'rhs=u8[128,256]', 'scale_rhs=f32[1,2]', 'output=f16[64,128]']);
    expect(wn.status).toBe('deadlock');
    expect(deadlockedOn(wn)).toEqual(['sfull[0]']);
    expect(wn.message).toMatch(/sfull\[0\].*nobody has arrived/s);
    const cr = sim('bugs/conditional_release.co', [...ring, 'mask=s32[1,8]:zeros']);
    expect(cr.status).toBe('deadlock');
    expect(deadlockedOn(cr)).toEqual(['empty[0]', 'full[0]']); // tile 2: slot 0, second generation
    // The same kernel with nothing masked completes.
    expect(sim('bugs/conditional_release.co', [...ring, 'mask=s32[1,8]:fill(1)']).status).toBe('completed');
  });

  it('races (or the drift hangs): missing_mma_commit, future_never_waited, wait_read_slot_mismatch, event_count_mismatch', () => {
    for (const f of ['bugs/missing_mma_commit.co', 'bugs/future_never_waited.co', 'bugs/wait_read_slot_mismatch.co']) {
      const r = sim(f, ring);
      expect(r.status, `${f}: ${r.message}`).toBe('race');
      expect(r.message).toMatch(/data race on shared '(lhs|rhs)_s\[\d\]'/);
    }
    // Header: wrong results from a race, or a hang once the ring has drifted far enough.
    const ec = sim('bugs/event_count_mismatch.co', ['lhs=f16[128,256]', 'rhs=f16[128,256]', 'output=f16[128,128]']);
    expect(['race', 'deadlock']).toContain(ec.status);
  });

  it('drifts: double_credit and at_modulo never complete cleanly', () => {
    const dc = sim('bugs/double_credit.co', ring);
    expect(['deadlock', 'race', 'misuse']).toContain(dc.status);
    const am = sim('bugs/at_modulo.co', ring);
    expect(['race', 'misuse']).toContain(am.status);
  });

  it('mma_commit_current_era.co is rejected like the current compiler rejects it', () => {
    const r = sim('bugs/mma_commit_current_era.co', ring);
    expect(r.status).toBe('error');
    expect(r.message).toMatch(/mma\.commit in a kernel written with current-era events.*line 36\)/);
  });

  it('trip_count_mismatch.co is correct when K is a multiple of the tile', () => {
    const r = sim('bugs/trip_count_mismatch.co', ring);
    expect(r.status).toBe('completed');
  });

  it('future_read_before_wait.co races; swap_one_future.co completes with wrong values', () => {
    const one = (t: string) => t.replace('by [8, 16] : block', 'by [1, 1] : block');
    const rb = sim('bugs/future_read_before_wait.co', ['lhs=s32[128,256]:random(1)', 'rhs=s32[256,256]:random(2)'], one);
    expect(rb.status).toBe('race');
    const so = sim('bugs/swap_one_future.co', ['lhs=s32[128,256]:random(1)', 'rhs=s32[256,256]:random(2)'], one);
    expect(so.status, so.message).toBe('completed');
    const A = values(so, 'lhs');
    const B = values(so, 'rhs');
    let s = 0;
    for (let k = 0; k < 256; k++) s += A[k] * B[k * 256];
    expect(values(so, 'return')[0]).not.toBe(s);
  }, 60_000);
});
