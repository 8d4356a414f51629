// End to end over the repository's kernels: every seed and every examples/good kernel completes
// with the values its meaning implies (computed here by small JS references), and every
// examples/bugs kernel ends the way its header and the GPU observations say (hang → deadlock
// naming the barrier, over-arrival → misuse, silent bugs → completed or a race/misuse report).
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArg } from '../../../../core/sim/args';
import { coerce } from '../../../../core/sim/dtypes';
import { rng } from '../../../../core/sim/machine';
import type { SimulateRequest, SimulateResult } from '../../../../core/sim/run';
import { simulate } from '../../../../core/simulate';
import { values } from './helpers';

const examples = path.join(__dirname, '../../../../examples');
const f32 = Math.fround;

async function run(file: string, block: number, args: string[], extra: Partial<SimulateRequest> = {}): Promise<SimulateResult> {
  return simulate({ file, text: readFileSync(path.join(examples, file), 'utf8'), block: [block, 1, 1], args: args.map(parseArg), maxSteps: 20_000_000, ...extra });
}

// The tile kernels: `(in, out, num_tiles)`, each block streams num_tiles tiles of 1024 floats.
const GRID = 2;
const TILES = 8;
const tileArgs = (init = 'iota') => [`in=f32[${2 * GRID * TILES * 1024}]:${init}`, `out=f32[${GRID * 128}]`, `num_tiles=${TILES}`];
const iota = (i: number) => i;

/** out[b*128+c] = Σ_k Σ_{j≡c mod 128} in[(b*T+k)*1024 + j], accumulated in f32 like the kernel. */
function tileSums(input: (i: number) => number, skipEmpty = false): number[] {
  const out: number[] = [];
  for (let b = 0; b < GRID; b++)
    for (let c = 0; c < 128; c++) {
      let acc = 0;
      for (let k = 0; k < TILES; k++) {
        const base = (b * TILES + k) * 1024;
        if (skipEmpty && input(base) === 0) continue;
        for (let j = c; j < 1024; j += 128) acc = f32(acc + input(base + j));
      }
      out.push(acc);
    }
  return out;
}

const sumKernels: [string, number][] = [
  ['bootstrap_a_producer_parity1', 160],
  ['bootstrap_b_prologue_fill', 160],
  ['bootstrap_c_consumer_prearrive', 160],
  ['every_thread_arrives_on_count1', 160],
  ['init_by_every_thread', 160],
  ['init_without_syncthreads', 128],
  ['producer_missing_bootstrap', 160],
  ['ring_phase_flips_every_iter', 160],
  ['ring_phase_never_flips', 160],
  ['tma_plain_arrive', 160],
  ['token_wrong_barrier', 160],
  ['try_wait_result_ignored', 160],
];

describe('examples/good kernels complete with the right values', () => {
  for (const [name, block] of sumKernels)
    it(name, async () => {
      const r = await run(`good/${name}.cu`, block, tileArgs(), { grid: [GRID, 1, 1] });
      expect(r.status, r.message).toBe('completed');
      expect(values(r, 'out')).toEqual(tileSums(iota));
    });

  it('continue_skips_release (empty blocks contribute nothing)', async () => {
    const r = await run('good/continue_skips_release.cu', 160, tileArgs(), { grid: [GRID, 1, 1] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual(tileSums(iota, true));
  });

  it('expect_tx_bytes_mismatch (weighted sums over two copies per stage)', async () => {
    const r = await run('good/expect_tx_bytes_mismatch.cu', 160, tileArgs('random(5)'), { grid: [GRID, 1, 1] });
    expect(r.status, r.message).toBe('completed');
    const rand = rng(5);
    const input = Array.from({ length: 2 * GRID * TILES * 1024 }, () => f32(rand() * 2 - 1));
    const want: number[] = [];
    for (let b = 0; b < GRID; b++)
      for (let c = 0; c < 128; c++) {
        let acc = 0;
        for (let k = 0; k < TILES; k++) {
          const x = (b * TILES + k) * 1024;
          const w = GRID * TILES * 1024 + (b * TILES + k) * 128;
          for (let j = c; j < 1024; j += 128) acc = f32(acc + f32(input[x + j] * input[w + c]));
        }
        want.push(acc);
      }
    expect(values(r, 'out')).toEqual(want);
  });

  it('early_return_no_drop (ragged sequences leave with arrive_and_drop)', async () => {
    const r = await run('good/early_return_no_drop.cu', 128, tileArgs(), { grid: [GRID, 1, 1] });
    expect(r.status, r.message).toBe('completed');
    const want: number[] = [];
    const len = (t: number) => TILES - (t % 4) * (TILES / 4);
    for (let b = 0; b < GRID; b++)
      for (let t = 0; t < 128; t++) {
        let acc = 0;
        const u = (t + 1) % 128;
        for (let k = 0; k < len(t); k++) {
          // slot[k & 1][u] holds u's latest item of that parity (0 if it never wrote one).
          let v = 0;
          for (let kk = k; kk >= 0; kk -= 2)
            if (kk < len(u)) {
              v = (b * TILES + kk) * 128 + u;
              break;
            }
          acc = f32(acc + v);
        }
        want.push(acc);
      }
    expect(values(r, 'out')).toEqual(want);
  });

  it('umma_missing_commit (tcgen05 MMA into tensor memory, bf16 K-major operands)', async () => {
    const K = 3;
    const r = await run('good/umma_missing_commit.cu', 192, [`a=bf16[${K * 2048}]:random(1)`, `b=bf16[${K * 2048}]:random(2)`, 'd=f32[16384]', `num_k_blocks=${K}`]);
    expect(r.status, r.message).toBe('completed');
    const gen = (seed: number) => {
      const g = rng(seed);
      return Array.from({ length: K * 2048 }, () => coerce('bf16', g() * 2 - 1));
    };
    const a = gen(1);
    const b = gen(2);
    // No-swizzle K-major core matrices: LBO 128 B along K, SBO 256 B per 8 rows.
    const at = (row: number, k: number) => ((row >> 3) * 256 + (k >> 3) * 128 + (row & 7) * 16 + (k & 7) * 2) / 2;
    const want: number[] = [];
    for (let m = 0; m < 128; m++)
      for (let n = 0; n < 128; n++) {
        let acc = 0;
        for (let kb = 0; kb < K; kb++) {
          let s = 0;
          for (let k = 0; k < 16; k++) s += a[kb * 2048 + at(m, k)] * b[kb * 2048 + at(n, k)];
          acc = f32(acc + s);
        }
        want.push(acc);
      }
    expect(values(r, 'd')).toEqual(want);
  });
});

describe('examples/seeds complete', () => {
  it('completion_function_psum: the completion function sums once per phase', async () => {
    const r = await run('seeds/completion_function_psum.cu', 128, ['data=s32[512]:iota', 'n=512', 'acc=s32[1]']);
    expect(r.status, r.message).toBe('completed');
    let acc = 0;
    for (let i = 0; i < 512; i += 128) acc += 128 * (i + acc);
    expect(values(r, 'acc')).toEqual([acc]);
    expect(r.phaseFlips).toBe(4);
  });

  for (const api of ['cuda_barrier', 'cuda_ptx', 'primitives'])
    it(`split_arrive_wait_${api}: one phase per iteration`, async () => {
      const r = await run(`seeds/split_arrive_wait_${api}.cu`, 128, ['iteration_count=5', 'data=f32[128]:iota']);
      expect(r.status, r.message).toBe('completed');
      expect(values(r, 'data')).toEqual(Array.from({ length: 128 }, (_, t) => t + 0 + 1 + 2 + 3 + 4));
      expect(r.phaseFlips).toBe(5);
    });

  for (const api of ['cuda_barrier', 'cuda_ptx', 'primitives'])
    it(`producer_consumer_${api}: two phases per buffer round`, async () => {
      const r = await run(`seeds/producer_consumer_${api}.cu`, 128, ['N=512', 'in=f32[512]', 'out=f32[512]', 'buffer_len=64'], { dynamicSmem: 2 * 64 * 4 });
      expect(r.status, r.message).toBe('completed');
      expect(r.phaseFlips).toBe(2 * (512 / 64));
    });

  for (const api of ['cuda_barrier', 'primitives'])
    it(`early_exit_${api}: arrive_and_drop keeps the phases going`, async () => {
      const r = await run(`seeds/early_exit_${api}.cu`, 128, ['N=6']);
      expect(r.status, r.message).toBe('completed');
      expect(r.phaseFlips).toBe(6);
      expect(r.barriers[0].state.expected).toBe(128 - Array.from({ length: 128 }, (_, t) => t % 7 === 3).filter(Boolean).length);
    });

  for (const f of ['init_barrier_cuda_barrier', 'init_barrier_cuda_ptx', 'init_barrier_primitives', 'track_kernel_cuda_barrier', 'track_kernel_cuda_ptx'])
    it(f, async () => {
      const r = await run(`seeds/${f}.cu`, 128, []);
      expect(r.status, r.message).toBe('completed');
      expect(r.barriers).toHaveLength(1);
      expect(r.barriers[0].state).toMatchObject({ initialized: true, expected: 128, phase: f.startsWith('track') ? 1 : 0 });
    });
});

describe('examples/bugs end the way their headers say', () => {
  const bug = (name: string, block = 160, init = 'iota', extra: Partial<SimulateRequest> = {}) => run(`bugs/${name}.cu`, block, tileArgs(init), { grid: [GRID, 1, 1], ...extra });

  it('producer_missing_bootstrap hangs: producer on slot_free[0], consumers on slot_ready[0]', async () => {
    const r = await bug('producer_missing_bootstrap');
    expect(r.status).toBe('deadlock');
    const waits = r.report!.blocked!.map((b) => `${b.barrier}@${b.label.replace(/ · lane \d+.*/, '')}`);
    expect(new Set(waits)).toEqual(new Set(['slot_free[0]@block 0 · warp 0', 'slot_free[0]@block 1 · warp 0', ...[0, 1].flatMap((b) => [1, 2, 3, 4].map((w) => `slot_ready[0]@block ${b} · warp ${w}`))]));
    expect(r.message).toMatch(/slot_free\[0\].*4 more arrivals/s);
  });

  it('token_wrong_barrier hangs: the producer waits on full[0] with empty[0]’s token', async () => {
    const r = await bug('token_wrong_barrier');
    expect(r.status).toBe('deadlock');
    expect(r.report!.blocked!.filter((b) => /warp 0/.test(b.label)).every((b) => b.barrier === 'full[0]' && b.loc.line === 36)).toBe(true);
  });

  it('early_return_no_drop hangs on bar', async () => {
    const r = await bug('early_return_no_drop', 128);
    expect(r.status).toBe('deadlock');
    expect(new Set(r.report!.blocked!.map((b) => b.barrier))).toEqual(new Set(['bar']));
  });

  it('continue_skips_release hangs when a tile is empty', async () => {
    const r = await bug('continue_skips_release');
    expect(r.status).toBe('deadlock');
    expect(r.report!.blocked!.some((b) => /producer/.test(b.label) && /^empty\[/.test(b.barrier ?? ''))).toBe(true);
  });

  it('expect_tx_bytes_mismatch hangs: full[0] waits for bytes that never come', async () => {
    const r = await bug('expect_tx_bytes_mismatch');
    expect(r.status).toBe('deadlock');
    const full = r.report!.missing!.find((m) => m.barrier === 'full[0]');
    expect(full?.tx).toBe(2 * 4096 - (4096 + 512));
  });

  it('ring_phase_flips_every_iter never finishes (deadlock, not the step limit)', async () => {
    const r = await bug('ring_phase_flips_every_iter');
    expect(r.status).toBe('deadlock');
  });

  it('umma_missing_commit hangs on mma_done', async () => {
    const r = await run('bugs/umma_missing_commit.cu', 192, ['a=bf16[4096]:random(1)', 'b=bf16[4096]:random(2)', 'd=f32[16384]', 'num_k_blocks=2']);
    expect(r.status).toBe('deadlock');
    expect(r.report!.blocked!.filter((b) => b.barrier === 'mma_done')).toHaveLength(128);
  });

  it('every_thread_arrives_on_count1 over-arrives (a converged warp overshoots a count-1 phase)', async () => {
    const r = await bug('every_thread_arrives_on_count1');
    expect(r.status).toBe('misuse');
    expect(r.report!.misuse?.kind).toBe('over-arrival');
    expect(r.message).toMatch(/empty\[0\].*line 45/);
  });

  it('try_wait_result_ignored: silent while copies are fast, over-arrival when they are slow', async () => {
    const fast = await bug('try_wait_result_ignored');
    expect(fast.status).toBe('completed');
    expect(values(fast, 'out')).toEqual(tileSums(iota));
    const slow = await bug('try_wait_result_ignored', 160, 'iota', { latencies: { bulkCopy: 5000 } });
    expect(slow.status).toBe('misuse');
    expect(slow.report!.misuse?.kind).toBe('over-arrival');
  });

  it('ring_phase_never_flips and tma_plain_arrive: consumers read tiles before they land', async () => {
    for (const name of ['ring_phase_never_flips', 'tma_plain_arrive']) {
      const r = await bug(name);
      expect(r.status, name).toBe('race');
      expect(r.message).toMatch(/write by cp\.async\.bulk .* is not ordered by any barrier with the read/);
    }
    const silent = await bug('ring_phase_never_flips', 160, 'iota', { detectRaces: false });
    expect(silent.status).toBe('completed');
    expect(values(silent, 'out')).not.toEqual(tileSums(iota));
  });

  it('init_by_every_thread is silent; init_without_syncthreads races with its init in every schedule (the missing sync also shows as a use before init under a random one)', async () => {
    const every = await bug('init_by_every_thread', 160);
    expect(every.status).toBe('completed');
    expect(values(every, 'out')).toEqual(tileSums(iota));
    // In order, thread 0's init runs first, but nothing orders the other threads' waits after it.
    const inOrder = await bug('init_without_syncthreads', 128);
    expect(inOrder.status).toBe('race');
    expect(inOrder.message).toMatch(/^data race on mbarrier bar \(shared 'bar'\): wait by block 0 · warp 0 · lane 1 · consumer at line 35 is not ordered after its init by block 0 · warp 0 · lane 0 · producer at line 25 /);
    const silent = await bug('init_without_syncthreads', 128, 'iota', { detectRaces: false });
    expect(silent.status).toBe('completed');
    expect(values(silent, 'out')).toEqual(tileSums(iota));
    const shuffled = await bug('init_without_syncthreads', 128, 'iota', { schedule: 'random', seed: 2 });
    expect(shuffled.status).toBe('misuse');
    expect(shuffled.report!.misuse).toEqual({ kind: 'not-initialized', operation: 'wait' });
    const good = await run('good/init_without_syncthreads.cu', 128, tileArgs(), { grid: [GRID, 1, 1], schedule: 'random', seed: 2 });
    expect(good.status).toBe('completed');
  });
});
