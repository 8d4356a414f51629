// Asynchronous copies: cuda::memcpy_async (with a cuda::barrier), cuda::device::memcpy_async_tx,
// the bulk copies of cuda::ptx (cp_async_bulk with commit and wait groups) and the cp.async pipeline
// primitives (__pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior). Copies land later
// on the machine's timed asynchronous engines and complete transaction bytes on their barrier.
import type { SyntaxNode } from '../parser';
import { BULK_REDUCE_OPS, type BulkReduceOp, type BulkReduceType, bulkReduceTypeError } from '../../../sim/bulk-reduce';
import type { DType } from '../../../sim/dtypes';
import type { Pointer } from '../../../sim/memory';
import { args, asNum, asPtr, barArg, type BuiltinCx, cases, type FreeBuiltin, noTags, ptxForm, V } from './builtin-operands';
import { clusterPointer } from './cluster-runtime';
import { issueBulkReduceCluster, issueBulkReduceGlobal } from './ptx-bulk-reduce';
import { bulkCopy } from './barrier-runtime';
import type { Ex, Fn } from './context';
import { isPipeline } from './pipeline-builtins';
import { groupRank } from './sync-builtins';
import { fail, unsupported } from './syntax';
import { typeName, U32, VOID } from './types';

/** The PTX element type of a reduction of `dt` elements: `.b32`/`.b64` for the bitwise ones. */
function reduceTypeOf(op: BulkReduceOp, dt: DType): BulkReduceType | undefined {
  const bitwise = op === 'and' || op === 'or' || op === 'xor';
  if (dt === 'u32' || dt === 's32') return bitwise ? 'b32' : dt;
  if (dt === 'u64' || dt === 's64') return bitwise ? 'b64' : dt;
  if (dt === 'f16' || dt === 'bf16' || dt === 'f32' || dt === 'f64') return dt;
  return undefined;
}

/** Asynchronous copies and their groups. */
export const ASYNC_COPY_BUILTINS: Record<string, FreeBuiltin> = {
  ...cases(['memcpy_async_tx'], (k, _name, _ns, a) => {
    const [dst, src, size] = args(k, a.slice(0, 3));
    const bar = barArg(k, a[3], 'memcpy_async_tx');
    const D = asPtr(k, dst);
    const S = asPtr(k, src);
    const N = asNum(k, size);
    return V((f) => {
      bulkCopy(f.ts, D(f), S(f), N(f), bar(f), 'memcpy_async_tx');
      return 0;
    });
  }),
  ...cases(['memcpy_async'], (k, _name, ns, a) => {
    if (!(ns === 'cuda' || ns === '')) return undefined;
    const { c, cx, n } = k;
    let rest = a;
    let group: Ex | undefined;
    if (a.length === 5) {
      group = c.expr(cx, a[0]);
      rest = a.slice(1);
    }
    const last = c.expr(cx, rest[3]);
    if (isPipeline(last.t)) {
      // With a pipeline: a cp.async copy (generic proxy) of the thread, which its next producer_commit commits.
      const [dst, src, size] = args(k, rest.slice(0, 3));
      const D = asPtr(k, dst);
      const S = asPtr(k, src);
      const N = asNum(k, size);
      const rank = group ? groupRank(group.t) : undefined;
      return V((f) => {
        if (rank && rank(f) !== 0) return 0; // a group-wide copy is issued once (rank 0's commit covers it)
        bulkCopy(f.ts, D(f), S(f), N(f), undefined, 'cuda::memcpy_async', f.ts.m.lat.cpAsync);
        return 0;
      });
    }
    if (last.t.k !== 'barrier') unsupported(`cuda::memcpy_async with a ${last.t.k === 'obj' ? last.t.obj : last.t.k} as its completion object`, n);
    const bar = barArg(k, rest[3], 'memcpy_async');
    const [dst, src, size] = args(k, rest.slice(0, 3));
    const D = asPtr(k, dst);
    const S = asPtr(k, src);
    const N = asNum(k, size);
    const rank = group ? groupRank(group.t) : undefined;
    return V((f) => {
      if (rank && rank(f) !== 0) return 0; // a group-wide copy is issued once
      const b = bar(f);
      const bytes = N(f);
      f.ts.m.mbExpectTx(f.ts.t, b, bytes);
      bulkCopy(f.ts, D(f), S(f), bytes, b, 'cuda::memcpy_async', f.ts.m.lat.cpAsync);
      return 0;
    });
  }),
  ...cases(['cp_async_bulk'], ptxForm((k, _name, _ns, a) => {
    // (dst, src, size, mbar) for global→shared; (dst, src, size) for shared→global.
    const [dst, src, size] = args(k, a.slice(0, 3));
    const D = asPtr(k, dst);
    const S = asPtr(k, src);
    const N = asNum(k, size);
    const bar = a[3] ? barArg(k, a[3], 'cp_async_bulk') : undefined;
    return V((f) => {
      bulkCopy(f.ts, D(f), S(f), N(f), bar?.(f), 'cp.async.bulk');
      return 0;
    });
  })),
  // (op tag, dst, src, size[, rdsmem_bar]): the element type is the destination pointer's.
  ...cases(['cp_reduce_async_bulk'], (k, _name, _ns, raw) => {
    const text = raw.map((x) => x.text.replace(/\s+/g, ''));
    const tag = text.map((x) => /(?:^|::)op_(\w+?)(?:_op)?$/.exec(x)?.[1]).find((x) => x);
    const op = BULK_REDUCE_OPS.find((o) => o === tag);
    const a = noTags(k, raw);
    if (!op || (a.length !== 3 && a.length !== 4)) return undefined;
    const cluster = a.length === 4;
    if (cluster !== text.some((x) => /(^|::)space_cluster$/.test(x))) return undefined;
    const [dst, src, size] = args(k, a.slice(0, 3));
    const dt = dst.t.k === 'ptr' && dst.t.to.k === 'num' ? dst.t.to.dt : undefined;
    const type = dt && reduceTypeOf(op, dt);
    if (!type) fail(`cuda::ptx::cp_reduce_async_bulk (.${op}): no overload for ${dst.t.k === 'ptr' ? typeName(dst.t.to) : typeName(dst.t)} elements`, k.n);
    const what = `cuda::ptx::cp_reduce_async_bulk (.${op}.${type})`;
    const bad = bulkReduceTypeError(cluster ? 'cluster' : 'global', op, type);
    if (bad) fail(`${what}: ${bad}`, k.n);
    const D = asPtr(k, dst);
    const S = asPtr(k, src);
    const N = asNum(k, size);
    if (!cluster) return V((f) => (issueBulkReduceGlobal(f.ts, D(f) as Pointer | null, S(f) as Pointer | null, N(f), op, type, what), 0));
    const B = asPtr(k, args(k, [a[3]])[0]);
    return V((f) => {
      const d = D(f) as Pointer | null;
      const b = B(f) as Pointer | null;
      issueBulkReduceCluster(f.ts, d && clusterPointer(f.ts, d, 0, what), S(f) as Pointer | null, N(f), b && clusterPointer(f.ts, b, 0, what), op, type, what);
      return 0;
    });
  }),
  ...cases(['cp_async_bulk_commit_group'], ptxForm(() => V((f) => (f.ts.m.asyncCommit(f.ts.t, 'cp.async'), 0)))),
  ...cases(['cp_async_bulk_wait_group', 'cp_async_bulk_wait_group_read'], ptxForm((k, _name, _ns, a, targs) => {
    const { c, cx, n } = k;
    // cuda::ptx takes the count as an argument, libcu++'s cde::cp_async_bulk_wait_group_read<N>() as a template argument.
    const N = targs?.[0] && !a[0] ? ((v) => () => v)(c.constEval(cx, targs[0])) : targs0(k, a);
    return c.emitBlocking(cx, n, VOID, (f) => (f.ts.m.asyncWaitGroups(f.ts.t, 'cp.async', N(f)) ? 0 : undefined));
  })),
  // cuda::ptx::n32_t<N>(): an immediate operand (the wait_group count), a compile-time constant.
  ...cases(['n32_t'], (k, _name, _ns, _a, targs) => {
    if (!targs?.length) return undefined;
    const v = k.c.constEval(k.cx, targs[0]);
    return { t: U32, ev: () => v, cv: v };
  }),
  // cp.async pipeline primitives
  ...cases(['__pipeline_memcpy_async'], (k, _name, _ns, a) => {
    const [dst, src, size] = args(k, a);
    const D = asPtr(k, dst);
    const S = asPtr(k, src);
    const N = asNum(k, size);
    return V((f) => {
      bulkCopy(f.ts, D(f), S(f), N(f), undefined, 'cp.async', f.ts.m.lat.cpAsync);
      return 0;
    });
  }),
  ...cases(['__pipeline_commit'], () => V((f) => (f.ts.m.asyncCommit(f.ts.t, 'cp.async'), 0))),
  ...cases(['__pipeline_wait_prior'], (k, _name, _ns, a) => {
    const { c, cx, n } = k;
    const N = asNum(k, args(k, a)[0]);
    return c.emitBlocking(cx, n, VOID, (f) => (f.ts.m.asyncWaitGroups(f.ts.t, 'cp.async', N(f), `cp.async wait_prior(${N(f)})`) ? 0 : undefined));
  }),
};

/** A wait_group count given as the first argument (0 when absent). */
function targs0(k: BuiltinCx, a: SyntaxNode[]): Fn {
  if (a[0]) return asNum(k, args(k, [a[0]])[0]);
  return () => 0;
}
