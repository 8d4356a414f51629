// Tensor TMA for the CUDA executor: the inline-PTX forms (cp.async.bulk.tensor loads and stores,
// cp.reduce.async.bulk.tensor, cp.async.bulk.prefetch.tensor, prefetch.tensormap,
// fence.proxy.tensormap::generic) and the issue of a tensor copy that the C++ wrappers
// (tensor-copy-builtins.ts) share. The tensor map is read from its 128 bytes when the copy issues; the
// box moves on the machine's asynchronous engine and lands at issue time + the bulk-copy latency (the
// language-free walk, fill and swizzle are core/sim/tensor-copy.ts). A load completes its box's bytes
// on the mbarrier; a store or reduction joins the thread's bulk group (cp.async.bulk.commit_group /
// wait_group, as the non-tensor bulk store does). A load with .multicast::cluster lands its box at the
// same CTA-relative offset in every CTA of its mask, each CTA's barrier at the barrier's offset getting
// complete_tx of the whole box (core/sim/cluster.ts deliverMulticast, as the non-tensor multicast).
// With .cta_group::2 the barrier may be in the peer CTA of the pair (pairBarrierCta).
import type { SyntaxNode } from '../parser';
import { deliverMulticast, type MulticastTarget } from '../../../sim/cluster';
import { type AsyncOp, type Machine, type SimBarrier, SimError } from '../../../sim/machine';
import type { Pointer } from '../../../sim/memory';
import { type ByteRanges, loadTensorBox, reduceTypeError, storeTensorBox, TENSOR_REDUCE_OPS, type TensorReduceOp, tensorBoxBytes, tensorCopyFault, tensorCopyUnmodelled } from '../../../sim/tensor-copy';
import { readTensorMap, type TensorMapSpec } from '../../../sim/tensor-map';
import { barrierAt, markProducer } from './barrier-runtime';
import { clusterPointer, peerWindow, windowAddress } from './cluster-runtime';
import { type Frame, fromGenericAddress, fromSharedAddress, sharedAddress, type ThreadCtx, toSharedPointer } from './runtime';
import type { Operand, PInstr, PtxInstrSite, Regs } from './ptx-site';
import { fail, unsupported } from './syntax';
import { ctaPair } from './tcgen05-pair';


/** One tensor instruction as ptx.ts hands it over: the mnemonic, its operands and how to read them. */

/** Compiles a tensor instruction (the catalogue keys tensor-copy entries map to). */
export function tensorPtxOp(s: PtxInstrSite): PInstr {
  const { mn, parts, n } = s;
  const next: PInstr = (_f, _r, pc) => pc + 1;
  // Hints and proxy fences: no effect on values (the simulator's maps are read where they are).
  if (parts[0] === 'prefetch' || parts[0] === 'fence' || parts.includes('prefetch')) return next;
  if (parts.includes('im2col') || parts.some((p) => p.startsWith('im2col'))) unsupported(`PTX instruction '${mn}' (im2col mode; only tile mode is modelled)`, n);
  const pairSignal = parts.includes('cta_group::2');
  if (parts.some((p) => p.startsWith('tile::'))) unsupported(`PTX instruction '${mn}' (the tile::gather4 / tile::scatter4 modes; plain tile mode is modelled)`, n);
  const dim = parts.find((p) => /^[1-5]d$/.test(p));
  if (!dim) fail(`${mn}: the tensor rank (.1d … .5d) is missing`, n);
  const rank = Number(dim[0]);
  const spaces = parts.filter((p) => p === 'global' || p.startsWith('shared'));
  const toShared = spaces[0]?.startsWith('shared') ?? true;
  const reduce = parts[1] === 'reduce' ? (TENSOR_REDUCE_OPS.find((op) => parts.includes(op)) ?? fail(`${mn}: the reduction (.add, .min, …) is missing`, n)) : undefined;
  const box = (i: number) => {
    const m = /^\[\s*([^,\]]+?)\s*,\s*\{([^}]*)\}\s*\]$/.exec(s.o[i]?.trim() ?? '');
    if (!m) fail(`${mn}: expected [tensorMap, {c0, …}] as operand ${i + 1}, got '${s.o[i] ?? ''}'`, n);
    const coords = m[2].split(',').map((x) => s.value(x.trim()));
    if (coords.length !== rank) fail(`${mn}: ${coords.length} coordinate(s) for a .${dim} copy`, n);
    return { map: s.value(m[1]), coords };
  };
  const coordsOf = (cs: Operand[], r: Regs, f: Frame) => cs.map((c) => Number(c(r, f)) | 0);
  const multicast = parts.includes('multicast::cluster');
  if (multicast && !toShared) fail(`${mn}: .multicast::cluster is a form of the load into shared memory`, n);
  if (pairSignal && !toShared) fail(`${mn}: .cta_group is a form of the load into shared memory (with an mbarrier)`, n);
  if (toShared) {
    if (reduce) fail(`${mn}: a reduction goes to global memory`, n);
    const dst = s.address(s.o[0]);
    const b = box(1);
    const bar = s.address(s.o[2] ?? fail(`${mn}: the mbarrier operand is missing`, n));
    if (multicast) {
      const mask = s.value(s.o[3] ?? fail(`${mn}: the ctaMask operand of .multicast::cluster is missing`, n));
      return (f, r, pc) => {
        const ts = f.ts;
        const dstWin = windowAddress(ts, dst.base(r, f), dst.off, mn);
        const barWin = windowAddress(ts, bar.base(r, f), bar.off, mn);
        let barrierRank: ((rank: number) => number) | undefined;
        if (pairSignal) {
          const barCta = pairBarrierCta(f, bar.base(r, f), bar.off, mn);
          if (barCta === undefined) return pc + 1;
          barrierRank = (rank) => (rank & ~1) | (barCta & 1);
        }
        issueTensorMulticast(ts, b.map(r, f), coordsOf(b.coords, r, f), dstWin, barWin, Number(mask(r, f)), 'cp.async.bulk.tensor', barrierRank);
        return pc + 1;
      };
    }
    return (f, r, pc) => {
      const blk = f.ts.blk;
      const d = shared(f, dst.base(r, f), dst.off);
      let mbar: SimBarrier;
      if (pairSignal) {
        if (pairBarrierCta(f, bar.base(r, f), bar.off, mn) === undefined) return pc + 1;
        mbar = barrierAt(f.ts.m, clusterPointer(f.ts, bar.base(r, f), bar.off, mn), mn);
      } else mbar = barrierAt(f.ts.m, offsetBy(toSharedPointer(blk, bar.base(r, f)), bar.off), mn);
      issueTensorLoad(f.ts, b.map(r, f), coordsOf(b.coords, r, f), d, mbar, 'cp.async.bulk.tensor');
      return pc + 1;
    };
  }
  const b = box(0);
  const src = s.address(s.o[1] ?? fail(`${mn}: the shared-memory source operand is missing`, n));
  return (f, r, pc) => {
    issueTensorStore(f.ts, b.map(r, f), coordsOf(b.coords, r, f), shared(f, src.base(r, f), src.off), reduce, reduce ? `cp.reduce.async.bulk.tensor .${reduce}` : 'cp.async.bulk.tensor (store)');
    return pc + 1;
  };
}

/**
 * `.cta_group::2` on a tensor load (PTX ISA, cp.async.bulk.tensor): the mbarrier may be in the
 * destination's CTA or in its peer (%cluster_ctarank ^ 1), so a copy can complete on the barrier the
 * pair's MMA waits on. Returns the barrier's CTA rank; undefined after a misuse report (no CTA pair,
 * or a barrier in a CTA outside the pair).
 */
export function pairBarrierCta(f: Frame, v: unknown, off: number, mn: string): number | undefined {
  const ts = f.ts;
  const pair = ctaPair(ts, mn);
  if (!pair) return undefined;
  // CUTLASS's SM100_TMA_2SM_LOAD names the even CTA's barrier by clearing bit 24 of its shared::cta
  // address (Sm100MmaPeerBitMask): shared addresses carry the CTA's rank from bit 24, as on the GPU
  // (core/sim/cluster.ts), so the masked address is the even CTA's barrier.
  const p = clusterPointer(ts, v, off, mn);
  const rank = p.buf.block === ts.t.block ? pair.rank : ts.blk.peerOf?.(p.buf)?.rank;
  if (rank !== pair.rank && rank !== pair.peer) {
    ts.m.reportMisuse(ts.t, `${mn}: with .cta_group::2 the mbarrier must be in the destination's CTA (rank ${pair.rank}) or its peer (rank ${pair.peer}), not in CTA rank ${rank}`);
    return undefined;
  }
  return rank;
}

/** A shared operand with its window address (the swizzle reads the address bits). */
export interface SharedAt {
  p: Pointer;
  addr: number;
}

function shared(f: Frame, v: unknown, off: number): SharedAt {
  const p = offsetBy(toSharedPointer(f.ts.blk, v), off);
  return { p, addr: sharedAddress(f.ts.blk, p, 'cp.async.bulk.tensor') };
}

function offsetBy(p: Pointer, off: number): Pointer {
  return off ? { buf: p.buf, offset: p.offset + off } : p;
}

/** The shared operand `p` with its window address. */
export function sharedAt(ts: ThreadCtx, p: Pointer | null, what: string): SharedAt {
  if (!p) throw new SimError(`${what}: null shared-memory pointer`);
  return { p, addr: sharedAddress(ts.blk, p, what) };
}

/** The tensor map a pointer or generic address points at, read from its 128 bytes. */
function tensorMapAt(ts: ThreadCtx, v: unknown, what: string): TensorMapSpec {
  const p = v && typeof v === 'object' && 'buf' in (v as Pointer) ? (v as Pointer) : typeof v === 'number' ? fromGenericAddress(ts.ex, v) : null;
  if (!p) throw new SimError(`${what}: null tensor-map pointer`);
  if (p.offset < 0 || p.offset + 128 > p.buf.size) throw new SimError(`${what}: the tensor map at byte ${p.offset} of '${p.buf.name}' runs past its ${p.buf.size} bytes`, undefined, 'oob');
  const map = readTensorMap(p.buf, p.offset, (id) => ts.ex.bufferById(id));
  if (typeof map === 'string') throw new SimError(`${what}: ${map}`);
  return map;
}

function check(map: TensorMapSpec, coords: number[], at: SharedAt, direction: 'load' | 'store' | 'reduce', what: string): void {
  const unmodelled = tensorCopyUnmodelled(map, coords, direction);
  if (unmodelled) throw new SimError(`${what}: ${unmodelled}`, undefined, 'unsupported');
  const fault = tensorCopyFault(map, coords, at.addr, direction);
  // The misaligned destination and the illegal coordinates are faults recorded on the GPU; a rank mismatch is a plain error.
  if (fault) throw new SimError(`${what}: ${fault}${/^(misaligned|illegal)/.test(fault) ? ' (the GPU faults here)' : ''}`);
}

function report(m: Machine, op: Parameters<Machine['accessAsync']>[0], buf: Pointer['buf'], ranges: ByteRanges, write: boolean): void {
  for (const [o, len] of ranges) m.accessAsync(op, buf, o, len, write);
}

/** Box coordinates: given, or read for a map of `rank` dimensions (a C++ wrapper's array). */
export type Coords = number[] | ((rank: number) => number[]);

const coordsFor = (c: Coords, map: TensorMapSpec): number[] => (typeof c === 'function' ? c(map.dims.length) : c);

/** Issues a tile-mode load of the box at `coords` into shared `dst`, completing its bytes on `bar`. */
export function issueTensorLoad(ts: ThreadCtx, mapRef: unknown, at: Coords, dst: SharedAt, bar: SimBarrier, what: string): void {
  const { m, t } = ts;
  const map = tensorMapAt(ts, mapRef, what);
  const coords = coordsFor(at, map);
  check(map, coords, dst, 'load', what);
  const bytes = tensorBoxBytes(map);
  markProducer(t, bar);
  const label = `${what} {${coords.join(', ')}} ${bytes} B → ${dst.p.buf.name} (complete_tx on ${bar.label})`;
  const op = m.asyncIssue(t, 'bulk', label, m.lat.bulkCopy, (mm) => {
    const r = loadTensorBox(map, coords, dst.p, dst.addr);
    report(mm, op, dst.p.buf, r.written, true);
    mm.mbCompleteTx(bar, bytes, op);
  });
}

/**
 * Issues a tile-mode load multicast to the CTAs of `mask`: the box at `coords` lands at shared window
 * address `dstWin` of every one of them (swizzled by that address) and each one's barrier at `barWin`
 * gets complete_tx of the box's bytes. The window addresses are CTA-relative, the same in every CTA.
 */
export function issueTensorMulticast(ts: ThreadCtx, mapRef: unknown, at: Coords, dstWin: number, barWin: number, mask: number, what: string, barrierRank: (rank: number) => number = (rank) => rank): void {
  const { m, t } = ts;
  const map = tensorMapAt(ts, mapRef, what);
  const coords = coordsFor(at, map);
  const targets: MulticastTarget[] = m.clusters.ranksOfMask(mask, what).map((rank) => {
    const w = peerWindow(ts, rank, what);
    return { rank, dst: fromSharedAddress(w, dstWin), barrier: barrierAt(m, fromSharedAddress(peerWindow(ts, barrierRank(rank), what), barWin), what) };
  });
  // The faults depend on the map, the coordinates and the window address: the same in every CTA.
  if (targets.length) check(map, coords, { p: targets[0].dst, addr: dstWin }, 'load', what);
  const bytes = tensorBoxBytes(map);
  for (const target of targets) markProducer(t, target.barrier);
  const first = targets[0];
  const label = `${what} multicast {${coords.join(', ')}} ${bytes} B → ${first.dst.buf.name} (CTA ranks ${targets.map((x) => x.rank).join(',')}; complete_tx on ${first.barrier!.label.replace(/ \(CTA rank \d+\)$/, '')})`;
  const op: AsyncOp = m.asyncIssue(t, 'bulk', label, m.lat.bulkCopy, (mm: Machine) => {
    deliverMulticast(mm, op, targets, bytes, (target) => void loadTensorBox(map, coords, target.dst, dstWin));
  });
}

/** Issues a tile-mode store (or reduction `op`) of shared `src` to the box at `coords`, in the thread's bulk group. */
export function issueTensorStore(ts: ThreadCtx, mapRef: unknown, at: Coords, src: SharedAt, op: TensorReduceOp | undefined, what: string): void {
  const { m, t } = ts;
  const map = tensorMapAt(ts, mapRef, what);
  const coords = coordsFor(at, map);
  check(map, coords, src, op ? 'reduce' : 'store', what);
  if (op) {
    const bad = reduceTypeError(map, op);
    if (bad) throw new SimError(`${what}: ${bad}`);
  }
  markProducer(t);
  const label = `${what} {${coords.join(', ')}} ${tensorBoxBytes(map)} B from ${src.p.buf.name} → ${map.global.buf.name}`;
  const issued = m.asyncIssue(t, 'cp.async', label, m.lat.bulkCopy, (mm) => {
    const r = storeTensorBox(map, coords, src.p, src.addr, op);
    report(mm, issued, src.p.buf, r.read, false);
    report(mm, issued, map.global.buf, r.written, true);
  });
}
