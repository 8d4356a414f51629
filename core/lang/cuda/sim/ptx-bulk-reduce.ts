// Non-tensor bulk reductions for the CUDA executor: the inline-PTX cp.reduce.async.bulk forms and the
// issue that cuda::ptx::cp_reduce_async_bulk (bulk-reduce-builtins in tensor-copy-builtins.ts) shares.
//  - .global.shared::cta.bulk_group: `size` bytes of shared memory combined element by element into
//    global memory; completion is tracked by the thread's bulk group (cp.async.bulk.commit_group /
//    wait_group(.read)), as for the bulk store;
//  - .shared::cluster.shared::cta.mbarrier::complete_tx::bytes: combined into the shared memory of a
//    CTA of the cluster (a mapa address), whose mbarrier (in the same CTA) gets complete_tx of `size`.
// The element operations and the ISA's type tables are core/sim/bulk-reduce.ts.
import { BULK_REDUCE_OPS, type BulkReduceOp, type BulkReduceType, bulkReduceTypeError, reduceBytes } from '../../../sim/bulk-reduce';
import { deliverMulticast, type MulticastTarget } from '../../../sim/cluster';
import { type AsyncOp, type Machine, type SimBarrier, SimError } from '../../../sim/machine';
import { check, type Pointer } from '../../../sim/memory';
import { barrierAt, markProducer } from './barrier-runtime';
import { clusterPointer, windowAddress } from './cluster-runtime';
import type { PInstr, PtxInstrSite, Regs } from './ptx-site';
import { type Frame, fromGenericAddress, sharedAddress, type ThreadCtx, toSharedPointer } from './runtime';
import { fail, unsupported } from './syntax';


const TYPES: readonly BulkReduceType[] = ['b32', 'b64', 'u32', 's32', 'u64', 's64', 'f16', 'bf16', 'f32', 'f64'];


/** Where a bulk reduction lands: global memory (bulk group) or a CTA's shared memory (mbarrier). */
export type BulkReduceForm = 'global' | 'cluster';

/** Compiles `cp.reduce.async.bulk.{global|shared::cluster}.shared::cta.….{op}[.noftz].{type} [dst], [src], size[, [mbar]]`. */
export function bulkReducePtxOp(s: PtxInstrSite): PInstr {
  const { mn, parts, n } = s;
  const form: BulkReduceForm | undefined = parts[4] === 'global' ? 'global' : parts[4] === 'shared::cluster' ? 'cluster' : undefined;
  if (!form || parts[5] !== 'shared::cta') unsupported(`PTX instruction '${mn}' (the bulk reductions go from shared::cta to global or shared::cluster memory)`, n);
  const op = BULK_REDUCE_OPS.find((x) => parts.includes(x)) ?? fail(`${mn}: the reduction (.add, .min, …) is missing`, n);
  const type = TYPES.find((x) => parts.includes(x)) ?? fail(`${mn}: the element type (.u32, .f32, …) is missing`, n);
  const bad = bulkReduceTypeError(form, op, type);
  if (bad) fail(`${mn}: ${bad}`, n);
  // The ISA writes the half-precision adds into global memory as .add.noftz, and nothing else with .noftz.
  const half = type === 'f16' || type === 'bf16';
  if (op === 'add' && half && !parts.includes('noftz')) fail(`${mn}: an .add of ${type} elements is written .add.noftz.${type}`, n);
  if (parts.includes('noftz') && !(op === 'add' && half)) fail(`${mn}: .noftz qualifies only the f16/bf16 .add`, n);
  if (form === 'global' && !parts.includes('bulk_group')) fail(`${mn}: a bulk reduction into global memory completes through bulk groups (.bulk_group)`, n);
  if (form === 'cluster' && !parts.some((x) => x.startsWith('mbarrier::complete_tx'))) fail(`${mn}: a bulk reduction into shared::cluster completes on an mbarrier (.mbarrier::complete_tx::bytes)`, n);
  const dst = s.address(s.o[0] ?? fail(`${mn}: the destination operand is missing`, n));
  const src = s.address(s.o[1] ?? fail(`${mn}: the shared-memory source operand is missing`, n));
  const size = s.value(s.o[2] ?? fail(`${mn}: the size operand is missing`, n));
  const what = `cp.reduce.async.bulk .${op}.${type}`;
  if (form === 'global') {
    return (f, r, pc) => {
      const d = globalOperand(f, dst.base(r, f), dst.off, what);
      issueBulkReduceGlobal(f.ts, d, sharedOperand(f.ts, src.base(r, f), src.off), Number(size(r, f)), op, type, what);
      return pc + 1;
    };
  }
  const bar = s.address(s.o[3] ?? fail(`${mn}: the mbarrier operand is missing`, n));
  return (f, r, pc) => {
    const ts = f.ts;
    const d = clusterPointer(ts, dst.base(r, f), dst.off, what);
    const b = clusterPointer(ts, bar.base(r, f), bar.off, what);
    issueBulkReduceCluster(ts, d, sharedOperand(ts, src.base(r, f), src.off), Number(size(r, f)), b, op, type, what);
    return pc + 1;
  };
}

function globalOperand(f: Frame, v: unknown, off: number, what: string): Pointer {
  const p = v && typeof v === 'object' ? (v as Pointer) : fromGenericAddress(f.ts.ex, Number(v));
  if (!p) throw new SimError(`${what}: null global address`);
  return { buf: p.buf, offset: p.offset + off };
}

function sharedOperand(ts: ThreadCtx, v: unknown, off: number): Pointer {
  const p = toSharedPointer(ts.blk, v);
  return { buf: p.buf, offset: p.offset + off };
}

/** The checks the ISA states for both forms: size a multiple of 16, both addresses 16-byte aligned, inside their buffers. */
function checkOperands(ts: ThreadCtx, dst: Pointer | null, src: Pointer | null, bytes: number, what: string): void {
  if (!dst || !src) throw new SimError(`${what}: null pointer`);
  if (!Number.isInteger(bytes) || bytes < 0 || bytes % 16 !== 0) throw new SimError(`${what}: size ${bytes} is not a multiple of 16 bytes`);
  if (src.buf.space !== 'shared') throw new SimError(`${what}: the source '${src.buf.name}' is ${src.buf.space} memory, not shared memory`);
  const srcAddr = sharedAddress(ts.blk, src, what);
  // A shared destination is aligned by its window address; global buffers start 256-byte aligned.
  const dstAddr = dst.buf.space === 'shared' ? windowAddress(ts, dst, 0, what) : dst.offset;
  if (srcAddr % 16 !== 0 || dstAddr % 16 !== 0)
    throw new SimError(`${what}: the ${srcAddr % 16 !== 0 ? `source (shared address ${srcAddr})` : `destination (byte ${dst.offset} of '${dst.buf.name}')`} is not 16-byte aligned`);
  if (dst.offset < 0 || dst.offset + bytes > dst.buf.size) throw new SimError(`${what}: destination byte ${dst.offset}..${dst.offset + bytes - 1} is outside '${dst.buf.name}' (${dst.buf.size} bytes)`, undefined, 'oob');
  if (src.offset < 0 || src.offset + bytes > src.buf.size) throw new SimError(`${what}: source byte ${src.offset}..${src.offset + bytes - 1} is outside '${src.buf.name}' (${src.buf.size} bytes)`, undefined, 'oob');
}

/** Issues a bulk reduction of shared `src` into global `dst` (`bytes` bytes), in the thread's bulk group. */
export function issueBulkReduceGlobal(ts: ThreadCtx, dst: Pointer | null, src: Pointer | null, bytes: number, op: BulkReduceOp, type: BulkReduceType, what: string): void {
  checkOperands(ts, dst, src, bytes, what);
  const { m, t } = ts;
  if (dst!.buf.space !== 'global') throw new SimError(`${what}: the destination '${dst!.buf.name}' is ${dst!.buf.space} memory, not global memory`);
  markProducer(t);
  const d = dst!;
  const s = src!;
  const issued = m.asyncIssue(t, 'cp.async', `${what} ${bytes} B from ${s.buf.name} → ${d.buf.name}`, m.lat.bulkCopy, (mm) => {
    reduceBytes(op, type, d.buf, d.offset, s.buf, s.offset, bytes);
    mm.accessAsync(issued, s.buf, s.offset, bytes, false);
    mm.accessAsync(issued, d.buf, d.offset, bytes, true);
  });
}

/**
 * Issues a bulk reduction of shared `src` into `dst`, shared memory of a CTA of the cluster, whose
 * mbarrier `barPtr` (in the same CTA) gets complete_tx of `bytes` when it lands.
 */
export function issueBulkReduceCluster(ts: ThreadCtx, dst: Pointer | null, src: Pointer | null, bytes: number, barPtr: Pointer | null, op: BulkReduceOp, type: BulkReduceType, what: string): void {
  const { m, t } = ts;
  if (!barPtr) throw new SimError(`${what}: null mbarrier pointer`);
  if (dst && dst.buf.space !== 'shared') throw new SimError(`${what}: the destination '${dst.buf.name}' is ${dst.buf.space} memory, not shared memory`);
  checkOperands(ts, dst, src, bytes, what);
  const d = dst!;
  const s = src!;
  if (d.buf.block !== barPtr.buf.block) throw new SimError(`${what}: the destination ('${d.buf.name}') and the mbarrier ('${barPtr.buf.name}') are in different CTAs; they must be in the same one`);
  check(d.buf, d.offset, bytes);
  const bar: SimBarrier = barrierAt(m, barPtr, what);
  const target: MulticastTarget = { rank: d.buf.block === undefined ? 0 : (m.blockAt(d.buf.block)?.rank ?? 0), dst: d, barrier: bar };
  markProducer(t, bar);
  const where = m.clusters.size === 1 ? '' : `CTA rank ${target.rank}; `;
  const label = `${what} ${bytes} B → ${d.buf.name} (${where}complete_tx on ${bar.label.replace(/ \(CTA rank \d+\)$/, '')})`;
  const issued: AsyncOp = m.asyncIssue(t, 'bulk', label, m.lat.bulkCopy, (mm: Machine) => {
    mm.accessAsync(issued, s.buf, s.offset, bytes, false);
    deliverMulticast(mm, issued, [target], bytes, () => reduceBytes(op, type, d.buf, d.offset, s.buf, s.offset, bytes));
  });
}
