// Inline PTX of thread-block clusters for the CUDA executor (ptx.ts dispatches here): the cluster
// special registers, mapa, ld/st/atom/red on .shared::cluster (distributed shared memory),
// mbarrier arrive/expect_tx/complete_tx on another CTA's barrier, cp.async.bulk into another CTA
// and with .multicast::cluster (core/sim/cluster.ts deliverMulticast), tcgen05.commit with
// .multicast::cluster, and barrier.cluster.arrive/wait. Addresses follow core/sim/cluster.ts: a
// shared::cluster address carries the CTA rank above the 32-bit window address.
import type { SyntaxNode } from '../parser';
import { clusterAddress, deliverMulticast, type MulticastTarget } from '../../../sim/cluster';
import { isFloat, type DType } from '../../../sim/dtypes';
import { type AsyncOp, type Machine, type SimBarrier, SimError } from '../../../sim/machine';
import { check, copyBytes, type Pointer } from '../../../sim/memory';
import { barrierAt, markProducer, threadArrive } from './barrier-runtime';
import { clusterPointer, mapToRank, peerWindow, windowAddress } from './cluster-runtime';
import type { Operand, PInstr, PtxInstrSite, Regs } from './ptx-site';
import { fail, unsupported } from './syntax';
import { ctaPair } from './tcgen05-pair';
import { type Frame, fromGenericAddress, fromSharedAddress, genericAddress, loader, storer, type ThreadCtx } from './runtime';

type Value = Operand;
const BLOCK = -1;

/** What ptx.ts hands over for one instruction: its text and its operand readers. */

const PLACE = (f: Frame) => {
  const m = f.ts.m;
  return m.clusters.placeOf(f.ts.t.blockIdx);
};

/** The cluster special registers (PTX ISA 10: %cluster_ctarank … %is_explicit_cluster), or undefined. */
export function clusterRegister(name: string): Value | undefined {
  const xyz = /^%(clusterid|nclusterid|cluster_ctaid|cluster_nctaid)\.([xyz])$/.exec(name);
  if (xyz) {
    const i = 'xyz'.indexOf(xyz[2]);
    switch (xyz[1]) {
      case 'clusterid':
        return (_r, f) => PLACE(f).clusterIdx[i];
      case 'nclusterid':
        return (_r, f) => f.ts.m.clusters.clusterGrid[i];
      case 'cluster_ctaid':
        return (_r, f) => PLACE(f).ctaid[i];
      default:
        return (_r, f) => f.ts.m.clusters.dims[i];
    }
  }
  switch (name) {
    case '%cluster_ctarank':
      return (_r, f) => f.ts.m.blockAt(f.ts.t.block)!.rank;
    case '%cluster_nctarank':
      return (_r, f) => f.ts.m.clusters.size;
    case '%is_explicit_cluster':
      return (_r, f) => (f.ts.m.clusters.explicit ? 1 : 0);
  }
  return undefined;
}

/** The instruction's cluster form, compiled; undefined when it is not one (ptx.ts goes on). */
export function clusterPtx(s: PtxInstrSite): PInstr | undefined {
  const { parts } = s;
  const head = parts[0];
  const onCluster = parts.includes('shared::cluster');
  if (head === 'mapa') return mapa(s);
  if (head === 'barrier' && parts[1] === 'cluster') return clusterBarrier(s);
  if ((head === 'ld' || head === 'st') && onCluster) return loadStore(s);
  if (head === 'atom' || head === 'red') return atomic(s);
  if (head === 'mbarrier' && onCluster) return remoteMbarrier(s);
  if (head === 'cp' && parts[1] === 'async' && parts[2] === 'bulk' && parts[3] === 'shared::cluster') return bulkToCluster(s);
  if (head === 'tcgen05' && parts[1] === 'commit' && parts.includes('multicast::cluster')) return multicastCommit(s);
  return undefined;
}

// ------------------------------------------------------------------ addressing

/** mapa(.shared::cluster).u32|u64 d, a, rank: the address of the same variable in CTA `rank`. */
function mapa(s: PtxInstrSite): PInstr {
  const { o, mn } = s;
  const d = s.dest(o[0]);
  const a = s.value(o[1]);
  const rank = s.value(o[2]);
  if (s.parts.includes('shared::cluster'))
    return (f, r, pc) => {
      const k = Number(rank(r, f));
      const m = f.ts.m;
      if (!Number.isInteger(k) || k < 0 || k >= m.clusters.size) throw new SimError(`${mn}: CTA rank ${k} is outside the cluster (ranks 0..${m.clusters.size - 1})`, undefined, 'oob');
      r[d] = clusterAddress(k, windowAddress(f.ts, a(r, f), 0, mn));
      return pc + 1;
    };
  // Generic form: a generic address into shared memory, mapped to the peer's generic address.
  return (f, r, pc) => {
    const v = a(r, f);
    const p = v && typeof v === 'object' ? (v as Pointer) : fromGenericAddress(f.ts.ex, Number(v));
    if (!p || p.buf.space !== 'shared') throw new SimError(`${mn}: the address is not in shared memory`);
    r[d] = genericAddress(f.ts.ex, mapToRank(f.ts, p, Number(rank(r, f)), mn));
    return pc + 1;
  };
}

const TYPES: Record<string, DType> = { u32: 'u32', s32: 's32', b32: 'u32', f32: 'f32', u64: 'u64', s64: 's64', b64: 'u64', f64: 'f64', u16: 'u16', s16: 's16', b16: 'u16', u8: 'u8', s8: 's8', b8: 'u8' };

function typeOf(s: PtxInstrSite): DType {
  const dt = TYPES[s.parts[s.parts.length - 1]];
  if (!dt || s.parts.some((x) => /^v\d$/.test(x))) unsupported(`PTX instruction '${s.mn}'`, s.n);
  return dt;
}

/** A shared access of thread `f`: race-checked across the cluster's CTAs; a peer must still be alive. */
function touch(f: Frame, p: Pointer, size: number, write: boolean): void {
  if (f.ts.race || p.buf.block !== f.ts.t.block) f.ts.m.access(f.ts.t, p.buf, p.offset, size, write);
}

/** ld/st.shared::cluster: distributed shared memory loads and stores. */
function loadStore(s: PtxInstrSite): PInstr {
  const dt = typeOf(s);
  const size = sizeOfDt(dt);
  if (s.parts[0] === 'ld') {
    const d = s.dest(s.o[0]);
    const a = s.address(s.o[1]);
    const ld = loader(dt);
    return (f, r, pc) => {
      const p = clusterPointer(f.ts, a.base(r, f), a.off, s.mn);
      r[d] = ld(p.buf, p.offset);
      touch(f, p, size, false);
      return pc + 1;
    };
  }
  const a = s.address(s.o[0]);
  const v = s.value(s.o[1]);
  const st = storer(dt);
  return (f, r, pc) => {
    const p = clusterPointer(f.ts, a.base(r, f), a.off, s.mn);
    st(p.buf, p.offset, Number(v(r, f)));
    touch(f, p, size, true);
    return pc + 1;
  };
}

function sizeOfDt(dt: DType): number {
  return dt === 'f64' || dt === 'u64' || dt === 's64' ? 8 : dt === 'u16' || dt === 's16' ? 2 : dt === 'u8' || dt === 's8' ? 1 : 4;
}

/** atom/red on .shared::cluster, .shared(::cta) or .global: one indivisible read-modify-write. */
function atomic(s: PtxInstrSite): PInstr {
  const { parts, o, mn } = s;
  const dt = typeOf(s);
  const op = parts.find((x) => ['add', 'min', 'max', 'inc', 'dec', 'and', 'or', 'xor', 'exch', 'cas'].includes(x));
  if (!op || (isFloat(dt) && !['add', 'exch', 'min', 'max'].includes(op)) || (op === 'cas' && parts[0] === 'red')) unsupported(`PTX instruction '${mn}'`, s.n);
  const isRed = parts[0] === 'red';
  const space = parts.includes('shared::cluster') ? 'cluster' : parts.includes('shared') || parts.includes('shared::cta') ? 'cta' : parts.includes('global') ? 'global' : undefined;
  if (!space) unsupported(`PTX instruction '${mn}' (generic-address atomics)`, s.n);
  const d = isRed ? -1 : s.dest(o[0]);
  const a = s.address(o[isRed ? 0 : 1]);
  const b = s.value(o[isRed ? 1 : 2]);
  const c = op === 'cas' ? s.value(o[3]) : undefined;
  const size = sizeOfDt(dt);
  const ld = loader(dt);
  const st = storer(dt);
  const wrap = (x: number): number => (isFloat(dt) ? (dt === 'f32' ? Math.fround(x) : x) : size === 4 ? (dt === 's32' ? x | 0 : x >>> 0) : x);
  const apply = (old: number, v: number, w: number): number => {
    switch (op) {
      case 'add':
        return wrap(old + v);
      case 'min':
        return Math.min(old, v);
      case 'max':
        return Math.max(old, v);
      case 'inc':
        return old >= v ? 0 : old + 1;
      case 'dec':
        return old === 0 || old > v ? v : old - 1;
      case 'and':
        return wrap(old & v);
      case 'or':
        return wrap(old | v);
      case 'xor':
        return wrap(old ^ v);
      case 'exch':
        return v;
      default:
        return old === v ? w : old;
    }
  };
  return (f, r, pc) => {
    const base = a.base(r, f);
    const p = space === 'cluster' ? clusterPointer(f.ts, base, a.off, mn) : space === 'cta' ? ctaPointer(f.ts, base, a.off) : globalPointer(f, base, a.off);
    const old = ld(p.buf, p.offset);
    st(p.buf, p.offset, apply(old, Number(b(r, f)), c ? Number(c(r, f)) : 0));
    // Atomics do not race with each other (nor are they race-checked against plain accesses); a peer CTA must be alive.
    if (p.buf.space === 'shared' && p.buf.block !== f.ts.t.block) f.ts.m.checkCtaAlive(p.buf.block ?? -1, mn);
    if (d >= 0) r[d] = old;
    return pc + 1;
  };
}

function ctaPointer(ts: ThreadCtx, v: unknown, off: number): Pointer {
  if (v && typeof v === 'object') {
    const p = v as Pointer;
    return { buf: p.buf, offset: p.offset + off };
  }
  return fromSharedAddress(ts.blk, Number(v) + off);
}

function globalPointer(f: Frame, v: unknown, off: number): Pointer {
  const p = v && typeof v === 'object' ? (v as Pointer) : fromGenericAddress(f.ts.ex, Number(v));
  if (!p) throw new SimError('PTX: null global address');
  return { buf: p.buf, offset: p.offset + off };
}

// ------------------------------------------------------------------ barriers

/** barrier.cluster.arrive(.release|.relaxed) / barrier.cluster.wait(.acquire): the cluster-wide split barrier. */
function clusterBarrier(s: PtxInstrSite): PInstr {
  const what = s.mn;
  if (s.parts[2] === 'arrive') {
    const release = !s.parts.includes('relaxed');
    return (f, _r, pc) => (f.ts.m.clusterArrive(f.ts.t, release, what), pc + 1);
  }
  if (s.parts[2] === 'wait') return (f, _r, pc) => (f.ts.m.clusterWait(f.ts.t, true, what) ? pc + 1 : BLOCK);
  unsupported(`PTX instruction '${what}'`, s.n);
}

/** The mbarrier at a .shared::cluster operand (this CTA's or a peer's). */
function clusterBarrierAt(f: Frame, v: unknown, off: number, what: string): SimBarrier {
  return barrierAt(f.ts.m, clusterPointer(f.ts, v, off, what), what);
}

/**
 * mbarrier.arrive(.expect_tx)/arrive_drop/expect_tx/complete_tx on .shared::cluster: the barrier may
 * be another CTA's (after mapa). A remote arrive returns no state: its destination must be the sink `_`.
 */
function remoteMbarrier(s: PtxInstrSite): PInstr {
  const { parts, o, mn } = s;
  const op = parts[1];
  switch (op) {
    case 'arrive':
    case 'arrive_drop': {
      if (o[0]?.trim() !== '_') fail(`${mn}: an arrive on a .shared::cluster barrier returns no state; its destination must be the sink '_'`, s.n);
      const expectTx = parts.includes('expect_tx');
      const a = s.address(o[1]);
      const tx = expectTx ? s.value(o[2]) : () => 0;
      const cnt = expectTx ? () => 1 : o[2] ? s.value(o[2]) : () => 1;
      return (f, r, pc) => {
        const b = clusterBarrierAt(f, a.base(r, f), a.off, mn);
        if (expectTx) markProducer(f.ts.t, b);
        threadArrive(f, b, Number(cnt(r, f)), Number(tx(r, f)), op === 'arrive_drop');
        return pc + 1;
      };
    }
    case 'expect_tx':
    case 'complete_tx': {
      const a = s.address(o[0]);
      const tx = s.value(o[1]);
      return (f, r, pc) => {
        const b = clusterBarrierAt(f, a.base(r, f), a.off, mn);
        if (op === 'expect_tx') {
          markProducer(f.ts.t, b);
          f.ts.m.mbExpectTx(f.ts.t, b, Number(tx(r, f)));
        } else f.ts.m.mbCompleteTx(b, Number(tx(r, f)));
        return pc + 1;
      };
    }
  }
  unsupported(`PTX instruction '${mn}' (a wait must be on the executing CTA's own barrier, .shared::cta)`, s.n);
}

// ------------------------------------------------------------------ bulk copies into the cluster

/**
 * cp.async.bulk.shared::cluster.{global|shared::cta}.mbarrier::complete_tx::bytes[.multicast::cluster]
 * [dst], [src], size, [mbar] [, ctaMask]. Without multicast the destination and its barrier may be
 * in a peer CTA (they must be in the same one); with it, the data and the complete_tx land at the
 * same CTA-relative offsets in every CTA of the mask.
 */
function bulkToCluster(s: PtxInstrSite): PInstr {
  const { parts, o, mn } = s;
  const fromShared = parts[4] === 'shared::cta';
  if (!fromShared && parts[4] !== 'global') unsupported(`PTX instruction '${mn}'`, s.n);
  if (!parts.some((x) => x.startsWith('mbarrier::complete_tx'))) fail(`${mn}: a bulk copy into shared::cluster completes on an mbarrier (.mbarrier::complete_tx::bytes)`, s.n);
  const multicast = parts.includes('multicast::cluster');
  if (multicast && fromShared) fail(`${mn}: .multicast::cluster copies from global memory only`, s.n);
  const dst = s.address(o[0]);
  const src = s.address(o[1]);
  const size = s.value(o[2]);
  const bar = s.address(o[3]);
  const mask = multicast ? s.value(o[4]) : undefined;
  return (f, r, pc) => {
    const ts = f.ts;
    const { m, t } = ts;
    const bytes = Number(size(r, f));
    if (!Number.isInteger(bytes) || bytes < 0 || bytes % 16 !== 0) throw new SimError(`${mn}: size ${bytes} is not a multiple of 16 bytes`);
    const sv = src.base(r, f);
    const from = fromShared ? ctaPointer(ts, sv, src.off) : globalPointer(f, sv, src.off);
    check(from.buf, from.offset, bytes);
    let targets: MulticastTarget[];
    if (mask) {
      const dstLocal = windowAddress(ts, dst.base(r, f), dst.off, mn);
      const barLocal = windowAddress(ts, bar.base(r, f), bar.off, mn);
      targets = m.clusters.ranksOfMask(Number(mask(r, f)), mn).map((rank) => {
        const w = peerWindow(ts, rank, mn);
        return { rank, dst: fromSharedAddress(w, dstLocal), barrier: barrierAt(m, fromSharedAddress(w, barLocal), mn) };
      });
    } else {
      const d = clusterPointer(ts, dst.base(r, f), dst.off, mn);
      const bp = clusterPointer(ts, bar.base(r, f), bar.off, mn);
      if (d.buf.block !== bp.buf.block) throw new SimError(`${mn}: the destination ('${d.buf.name}') and the mbarrier ('${bp.buf.name}') are in different CTAs; they must be in the same one`);
      targets = [{ rank: rankOfBlock(m, d.buf.block), dst: d, barrier: barrierAt(m, bp, mn) }];
    }
    for (const target of targets) check(target.dst.buf, target.dst.offset, bytes);
    for (const target of targets) markProducer(t, target.barrier);
    // Outside a cluster launch the label reads as for any bulk copy; in one it names the CTAs.
    const where = m.clusters.size === 1 ? '' : mask ? `CTA ranks ${targets.map((x) => x.rank).join(',')}; ` : `CTA rank ${targets[0].rank}; `;
    const label = `${multicast ? 'cp.async.bulk multicast' : 'cp.async.bulk'} ${bytes} B → ${targets[0].dst.buf.name} (${where}complete_tx on ${targets[0].barrier!.label.replace(/ \(CTA rank \d+\)$/, '')})`;
    const op: AsyncOp = m.asyncIssue(t, 'bulk', label, m.lat.bulkCopy, (mm: Machine) => {
      if (from.buf.space === 'shared') mm.accessAsync(op, from.buf, from.offset, bytes, false);
      deliverMulticast(mm, op, targets, bytes, (target) => copyBytes(target.dst, from, bytes));
    });
    return pc + 1;
  };
}

function rankOfBlock(m: Machine, block: number | undefined): number {
  return block === undefined ? 0 : (m.blockAt(block)?.rank ?? 0);
}

/**
 * tcgen05.commit.cta_group::N.mbarrier::arrive::one.shared::cluster.multicast::cluster.b64 [mbar], ctaMask:
 * once every tcgen05 operation the thread issued completed, one arrival on the barrier at the same
 * CTA-relative offset in every CTA of the mask (with N = 2 the thread must be in a CTA pair).
 */
function multicastCommit(s: PtxInstrSite): PInstr {
  const { o, mn } = s;
  if (!mn.includes('mbarrier::arrive::one')) unsupported(`PTX instruction '${mn}'`, s.n);
  const pairs = s.parts.includes('cta_group::2');
  const a = s.address(o[0]);
  const mask = s.value(o[1]);
  return (f, r, pc) => {
    const ts = f.ts;
    const { m, t } = ts;
    // .cta_group::2 (CUTLASS's umma_arrive_multicast_2x1SM): issued by one thread of a CTA pair,
    // tracking the pair MMAs and copies it issued; the arrivals are the same as with ::1.
    if (pairs && !ctaPair(ts, mn)) return pc + 1;
    const local = windowAddress(ts, a.base(r, f), a.off, mn);
    const bars = m.clusters.ranksOfMask(Number(mask(r, f)), mn).map((rank) => ({ rank, b: barrierAt(m, fromSharedAddress(peerWindow(ts, rank, mn), local), mn) }));
    m.asyncAfterAll(t, 'tcgen05', `tcgen05.commit multicast → ${bars.map((x) => x.b.label).join(', ')}`, (mm, op) => {
      for (const { rank, b } of bars) {
        mm.checkCtaAlive(b.block, `its arrival on CTA rank ${rank}`, op.loc);
        mm.mbCompleteTx(b, 0, op);
        mm.mbArrive(undefined, b, 1);
      }
    });
    return pc + 1;
  };
}
