// CTA pairs for the tcgen05 `.cta_group::2` forms (PTX ISA 9.7.16, "CTA pair"): the two CTAs of a
// cluster whose %cluster_ctarank differ only in bit 0. One thread of the pair issues a pair MMA, copy
// or commit for both CTAs (ISA 9.7.16.5, Table 46; the peer must not have exited); the allocation
// instructions are collective, one warp in each CTA, the first blocking until the other arrives. The
// pair MMA splits M across the pair: A's and D's first M/2 rows in the even CTA, the rest in the odd
// one, and B's first N/2 columns in the even CTA (CUTLASS's SM100_MMA_*_2x1SM traits: ThrID 2 over
// (M/2, K), (N/2, K) and (M/2, N)); the accumulator layouts in tensor memory are CUTLASS's
// tmem_frg_1sm / tmem_frg_2sm. Misuse the ISA leaves undefined is reported as misuse at the line.
import { lineOf } from '../../../sim/reports';
import type { BlockCtx, ThreadCtx } from './runtime';

/** The executing CTA's pair: its own and its peer's rank, block index and shared window. */
export interface CtaPair {
  rank: number;
  peer: number;
  /** 0 in the even CTA, 1 in the odd one. */
  self: 0 | 1;
  /** The pair's CTAs, even first: block index and shared/tensor memory. */
  ctas: [{ index: number; blk: BlockCtx }, { index: number; blk: BlockCtx }];
}

/**
 * The CTA pair of the executing thread for `.cta_group::2` instruction `what`; undefined (after a
 * misuse report) when the CTA has no peer: outside a cluster, or the last CTA of an odd-sized one.
 * With `live`, a peer that already exited is an error (an MMA, copy or commit of the pair needs it
 * active, ISA Table 46); the collective allocation instructions pass false: a warp may exit right
 * after its dealloc (the ISA's Table 47 example), before the peer's lanes have finished theirs.
 */
export function ctaPair(ts: ThreadCtx, what: string, live = true): CtaPair | undefined {
  const { m, t } = ts;
  const rank = m.blockAt(t.block)!.rank;
  const size = m.clusters.size;
  const peer = rank ^ 1;
  if (peer >= size) {
    const where = size === 1 ? 'the kernel is not launched in clusters of an even number of CTAs' : `the cluster has ${size} CTAs, so CTA rank ${rank} has no peer (rank ${peer})`;
    m.reportMisuse(t, `${what}: .cta_group::2 runs on a CTA pair, the CTAs whose %cluster_ctarank differ only in bit 0, but ${where}`);
    return undefined;
  }
  const other = live ? m.clusterPeer(t, peer, `${what} (the peer CTA must not have exited)`) : m.blockAt(m.clusters.blockOf(m.blockAt(t.block)!.cluster, peer))!;
  const own = { index: t.block, blk: ts.blk };
  const theirs = { index: other.index, blk: other.state as BlockCtx };
  const self = (rank & 1) as 0 | 1;
  return { rank, peer, self, ctas: self === 0 ? [own, theirs] : [theirs, own] };
}

/** One side's arrival at a collective pair instruction: its warp, line and operand. */
interface Side {
  thread: number;
  warp: number;
  value: number;
}

/** The k-th execution of a collective pair instruction by the pair's two warps. */
export interface PairRound {
  sides: [Side | undefined, Side | undefined];
  /** Set by the first lane that finds both sides there (the allocation's first column). */
  result?: number;
  /** Whether each side's warp already wrote the result to its shared memory (one lane does). */
  written: [boolean, boolean];
}

/** The rounds of each collective instruction kind, on the pair's even CTA. */
const rounds = new WeakMap<BlockCtx, Map<string, PairRound[]>>();
/** Per CTA, by `kind:thread`: how often the thread executed the kind, and the round a blocked lane waits at. */
const progress = new WeakMap<BlockCtx, Map<string, { executed: number; waiting?: number }>>();

/**
 * The rendezvous of tcgen05.alloc / dealloc / relinquish_alloc_permit (`kind`) with `.cta_group::2`:
 * a warp in each CTA of the pair executes it, and a warp blocks until the peer's warp arrived (ISA
 * Table 46). Each thread's k-th execution of the kind, wherever in the code, meets the peer's k-th.
 * Returns the round once both warps arrived, else undefined with `t` blocked on it.
 */
export function meetPair(ts: ThreadCtx, pair: CtaPair, kind: string, value: number, what: string): PairRound | undefined {
  const { m, t } = ts;
  const mine = progress.get(ts.blk) ?? new Map<string, { executed: number; waiting?: number }>();
  progress.set(ts.blk, mine);
  const key = `${kind}:${t.index}`;
  const p = mine.get(key) ?? { executed: 0 };
  mine.set(key, p);
  const k = p.waiting ?? p.executed++;
  const even = pair.ctas[0].blk;
  const byKind = rounds.get(even) ?? new Map<string, PairRound[]>();
  rounds.set(even, byKind);
  const list = byKind.get(kind) ?? [];
  byKind.set(kind, list);
  const round = (list[k] ??= { sides: [undefined, undefined], written: [false, false] });
  if (!round.sides[pair.self]) {
    round.sides[pair.self] = { thread: t.index, warp: t.warp, value };
    m.notify(round);
  }
  const ready = () => !!(round.sides[0] && round.sides[1]);
  const describe = () => `${what} (.cta_group::2 is collective: it waits for a warp of the peer CTA, rank ${pair.peer}, to execute it too)`;
  if (m.blockOn(t, { kind: 'other', on: round, ready, describe })) {
    p.waiting = undefined;
    return round;
  }
  p.waiting = k;
  return undefined;
}

/** The allocation of block `blk` that holds column `col`, if any. */
export function tmemAllocationAt(blk: BlockCtx, col: number): NonNullable<BlockCtx['tmemAllocs']>[number] | undefined {
  return blk.tmemAllocs?.find((a) => col >= a.col && col < a.col + a.cols);
}

/**
 * Reports (and returns true for) a `.cta_group::N` instruction `what` on tensor-memory column `col`
 * of `blk` allocated with the other `.cta_group`: the ISA pairs allocations and the operations on
 * them by the same `.cta_group`.
 */
export function mixedGroup(ts: ThreadCtx, blk: BlockCtx, col: number, group: 1 | 2, what: string): boolean {
  const a = tmemAllocationAt(blk, col);
  if (!a || a.group === group) return false;
  ts.m.reportMisuse(ts.t, `${what}: tensor-memory column ${col} was allocated with tcgen05.alloc.cta_group::${a.group}${a.loc ? ` at ${lineOf(a.loc)}` : ''}, but this instruction uses .cta_group::${group}; an allocation and the tcgen05 operations on it must use the same .cta_group`);
  return true;
}

/**
 * Where row `i`, column `j` of an M x N accumulator at lane `dl`, column `dc` lands: the CTA of the
 * pair (0 for `.cta_group::1`) and the tensor-memory lane and column there. `.cta_group::1`: M = 128
 * fills lanes dl..dl+127; M = 64 uses lanes 0-15 of each 32-lane subpartition from `dl` (CUTLASS's
 * tmem_frg_1sm half-subpartition atom, (16,4):(1,32)). `.cta_group::2`: M = 256 puts 128 rows in
 * each CTA's lanes; M = 128 puts 64 rows in each CTA, columns 0..N/2-1 in lanes 0-63 and N/2..N-1
 * in lanes 64-127 (tmem_frg_2sm's "2x2" atom, (64,(N/2,2)):(1,(128,64))).
 */
export function accumulatorCell(group: 1 | 2, M: number, N: number, dl: number, dc: number, i: number, j: number): { cta: 0 | 1; lane: number; col: number } {
  if (group === 1) return M === 64 ? { cta: 0, lane: dl + (i & 15) + 32 * (i >> 4), col: dc + j } : { cta: 0, lane: dl + i, col: dc + j };
  const half = M / 2;
  const cta = (i >= half ? 1 : 0) as 0 | 1;
  const r = i - cta * half;
  if (M === 256) return { cta, lane: dl + r, col: dc + j };
  const h = N / 2;
  return { cta, lane: dl + r + (j >= h ? 64 : 0), col: dc + (j % h) };
}
