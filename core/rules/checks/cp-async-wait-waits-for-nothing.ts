// PF312: a `cp.async.wait_group N` (`__pipeline_wait_prior(N)`, CuTe `cp_async_wait<N>`) that returns at once
// because at most N groups can have been committed when it runs, while a cp.async it is meant to cover is still
// in flight (its group committed too recently, after the wait, or never), and the data is used right after.
import type { Range } from '../../api';
import { evaluate } from '../../ir/expr';
import type { BarrierOp, Expr, Stmt } from '../../ir/types';
import type { RuleDef } from '../types';
import { line1 } from '../naming';

/** What one path through the kernel knows about the thread's cp.async groups at a point. */
interface GroupState {
  /** Upper bound on the committed groups that may still be pending; Infinity when unknown (a loop commits). */
  pending: number;
  /** The last cp.async issued and not yet committed into a group. */
  uncommitted?: BarrierOp;
  /** A cp.async that may still be in flight (committed or not). */
  inFlight?: BarrierOp;
  /** The commits that may have made the pending groups, latest last (for the message). */
  commits: BarrierOp[];
}

const MAX_COMMITS_NAMED = 4;

export const cpAsyncWaitWaitsForNothing: RuleDef = {
  meta: {
    id: 'cp-async-wait-waits-for-nothing',
    code: 'PF312',
    family: 'commit',
    defaultSeverity: 'error',
    summary: 'A cp.async wait_group N returns at once: at most N groups were committed, so the copy it should cover is still in flight.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Follows each thread\'s non-bulk `cp.async` groups through the kernel: copies (`cp.async.ca/cg`, `__pipeline_memcpy_async`), commits (`cp.async.commit_group`, `__pipeline_commit`, CuTe `cp_async_fence`) and waits (`cp.async.wait_group N`, `__pipeline_wait_prior(N)`, CuTe `cp_async_wait<N>`; `cp.async.wait_all` commits and waits for everything). It reports a wait whose N is at least the number of groups that can have been committed when it runs (counted on every path, in the first iteration of the loops around it), while a copy may still be in flight, and whose very next step is a `__syncthreads` or a read of a shared array. Commits inside loops before the wait, a wait count that does not fold to a number, or a use of the data under a condition keep it silent.',
    whyIsThisBad:
      '`cp.async.wait_group N` waits until at most N of the thread\'s most recent committed groups are pending. If no more than N groups exist, it returns immediately. A copy committed in the newest group, committed only after the wait, or never committed at all is then still in flight when the thread and its block read the shared memory: they read stale data, and which values they see depends on timing (a data race that tests rarely show).',
    bad: `__global__ void k(const float4* src, float* out) {
  __shared__ float4 tile[256];
  unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[threadIdx.x]);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src + threadIdx.x));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 1;");
  __syncthreads();
  out[threadIdx.x] = tile[255 - threadIdx.x].x;
}`,
    good: `__global__ void k(const float4* src, float* out) {
  __shared__ float4 tile[256];
  unsigned dst = (unsigned)__cvta_generic_to_shared(&tile[threadIdx.x]);
  asm volatile("cp.async.cg.shared.global [%0], [%1], 16;" :: "r"(dst), "l"(src + threadIdx.x));
  asm volatile("cp.async.commit_group;");
  asm volatile("cp.async.wait_group 0;");
  __syncthreads();
  out[threadIdx.x] = tile[255 - threadIdx.x].x;
}`,
    references: ['PTX ISA, "cp.async.commit_group" and "cp.async.wait_group / cp.async.wait_all"', 'CUDA C++ Programming Guide, pipeline primitives (__pipeline_commit, __pipeline_wait_prior)'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      if (!k.sites.some((s) => s.op.kind === 'cp-async') || !k.sites.some((s) => s.op.kind === 'cp-async-wait')) continue;
      // Template parameters the launch binds (`stream<2><<<…>>>`) count as constants of this analysis.
      const constants = new Map(k.kernel.constants ?? ctx.module.constants);
      for (const t of k.kernel.launchShape?.templateArgs ?? []) constants.set(t.name, t.value);
      const fold = (e: Expr | undefined): number | undefined => evaluate(e, (n) => constants.get(n) ?? foldDerived(k.derived.get(n), constants));
      const reported = new Set<BarrierOp>();
      const walker = new GroupWalk(fold, (wait, n, state, use) => {
        if (reported.has(wait)) return;
        reported.add(wait);
        ctx.report(finding(wait, n, state, use));
      });
      walker.list(k.kernel.body, { pending: 0, commits: [] });
    }
  },
};

/** A single-definition local's value, when it is a constant expression of its own. */
function foldDerived(e: Expr | undefined, constants: Map<string, number>): number | undefined {
  return e ? evaluate(e, (n) => constants.get(n)) : undefined;
}

type Report = (wait: BarrierOp, n: number, state: GroupState, use: Range) => void;

/**
 * Walks statements, carrying a GroupState per point. Branches join (the bound is the larger, a copy in flight on
 * either side stays in flight); a loop's body is walked from the state before the loop (its first iteration) and
 * anything it commits makes the bound unknown after it, so only first iterations and loop-free code report.
 */
class GroupWalk {
  constructor(
    private readonly fold: (e: Expr | undefined) => number | undefined,
    private readonly report: Report,
  ) {}

  /** `after`: the statements that follow the list once it ends, out of enclosing branches (not loops). */
  list(list: Stmt[], entry: GroupState, after: Stmt[] = []): GroupState | undefined {
    let s: GroupState | undefined = entry;
    for (let i = 0; i < list.length && s; i++) {
      const st = list[i];
      if (st.kind === 'op' && st.op.kind === 'cp-async-wait') {
        s = this.wait(st.op, s, [...list.slice(i + 1), ...after]);
        continue;
      }
      s = this.stmt(st, s, [...list.slice(i + 1), ...after]);
    }
    return s;
  }

  /** Returns undefined when the statement leaves the path (return, break, continue). */
  private stmt(st: Stmt, s: GroupState, after: Stmt[]): GroupState | undefined {
    switch (st.kind) {
      case 'op':
        if (st.op.kind === 'cp-async') return { ...s, uncommitted: st.op, inFlight: st.op };
        if (st.op.kind === 'cp-async-commit') return { pending: s.pending + 1, inFlight: s.inFlight, commits: [...s.commits, st.op].slice(-MAX_COMMITS_NAMED) };
        return s;
      case 'if': {
        // A condition that folds (`if constexpr (N == 0)` in a wrapper) takes one side only.
        const c = this.fold(st.cond);
        if (c !== undefined) return this.list(c ? st.then : st.else, s, after);
        const a = this.list(st.then, s, after);
        const b = this.list(st.else, s, after);
        return join(a, b);
      }
      case 'loop': {
        const first = this.list(st.body, s);
        const end = join(first, s);
        if (!end) return undefined;
        // A second iteration starts from more groups than this walk counted: what the loop commits is unbounded.
        const commits = containsKind(st.body, 'cp-async-commit') || containsKind(st.body, 'cp-async-wait');
        return commits ? { ...end, pending: Infinity } : end;
      }
      case 'return':
      case 'break':
      case 'continue':
        return undefined;
      default:
        return s;
    }
  }

  private wait(op: BarrierOp, s: GroupState, rest: Stmt[]): GroupState {
    // `cp.async.wait_all` is commit_group + wait_group 0: it covers every copy issued before it.
    if (/wait_all/.test(op.api)) return { pending: 0, commits: [] };
    const n = this.fold(op.count);
    if (n === undefined) return { ...s, pending: Infinity };
    if (s.inFlight && s.pending <= n) {
      const use = firstUse(rest);
      if (use) this.report(op, n, s, use);
    }
    const pending = Math.min(s.pending, n);
    return { pending, uncommitted: s.uncommitted, inFlight: pending === 0 && !s.uncommitted ? undefined : s.inFlight, commits: s.commits };
  }
}

function join(a: GroupState | undefined, b: GroupState | undefined): GroupState | undefined {
  if (!a || !b) return a ?? b;
  return {
    pending: Math.max(a.pending, b.pending),
    uncommitted: a.uncommitted ?? b.uncommitted,
    inFlight: a.inFlight ?? b.inFlight,
    commits: [...new Set([...a.commits, ...b.commits])].sort((x, y) => x.range.start.line - y.range.start.line).slice(-MAX_COMMITS_NAMED),
  };
}

/**
 * The statement right after a wait that uses the copied data: a block-wide sync (which publishes the shared
 * memory to the block) or a read of a shared array, found unconditionally before any other cp.async step.
 */
function firstUse(rest: Stmt[]): Range | undefined {
  for (const st of rest) {
    if (st.kind === 'sync' && (st.scope === 'block' || st.scope === 'named')) return st.range;
    if (st.kind === 'access' && !st.write) return st.range;
    if (st.kind === 'op' && /^cp-async/.test(st.op.kind)) return undefined;
    if (st.kind !== 'assign' && st.kind !== 'access' && st.kind !== 'op') return undefined;
  }
  return undefined;
}

function containsKind(list: Stmt[], kind: BarrierOp['kind']): boolean {
  return list.some((s) => (s.kind === 'op' && s.op.kind === kind) || (s.kind === 'if' && (containsKind(s.then, kind) || containsKind(s.else, kind))) || (s.kind === 'loop' && containsKind(s.body, kind)));
}

function finding(wait: BarrierOp, n: number, s: GroupState, use: Range): { range: Range; message: string; related: { range: Range; message: string }[] } {
  const copy = s.inFlight as BarrierOp;
  const what = `\`${wait.api.replace(/^asm /, '')}\` with N = ${n} (line ${line1(wait.range)})`;
  const committed = s.pending === 0 ? 'no group has been committed' : `at most ${s.pending} group${s.pending === 1 ? ' has' : 's have'} been committed (line${s.commits.length === 1 ? '' : 's'} ${s.commits.map((c) => line1(c.range)).join(', ')})`;
  const why =
    s.uncommitted === copy
      ? `the cp.async at line ${line1(copy.range)} is not committed into any group before it, and wait_group only waits for committed groups`
      : `the cp.async at line ${line1(copy.range)} sits in a group this wait allows to stay pending`;
  const related = [
    { range: copy.range, message: 'copy still in flight after the wait' },
    ...s.commits.map((c) => ({ range: c.range, message: 'commit counted before the wait' })),
    { range: use, message: 'the data is used here' },
  ];
  return {
    range: wait.range,
    message: `${what} waits for nothing: when it runs ${committed}, so it returns at once, and ${why}. The use at line ${line1(use)} then reads shared memory the copy may not have written yet (stale data, a timing-dependent race). Commit the copies before the wait and wait with N below the number of groups committed after them (wait_group 0 covers all).`,
    related,
  };
}
