// Asynchronous copies: cuda::memcpy_async (with a cuda::barrier), cuda::device::memcpy_async_tx,
// the bulk copies of cuda::ptx (cp_async_bulk with commit and wait groups) and the cp.async pipeline
// primitives (__pipeline_memcpy_async, __pipeline_commit, __pipeline_wait_prior). Copies land later
// on the machine's timed asynchronous engines and complete transaction bytes on their barrier.
import type { SyntaxNode } from '../parser';
import { args, asNum, asPtr, barArg, type BuiltinCx, cases, type FreeBuiltin, ptxForm, V } from './builtin-operands';
import { bulkCopy } from './barrier-runtime';
import type { Ex, Fn } from './context';
import { isPipeline } from './pipeline-builtins';
import { groupRank } from './sync-builtins';
import { unsupported } from './syntax';
import { U32, VOID } from './types';

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
