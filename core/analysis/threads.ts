// Who executes what: evaluates thread-identity expressions (threadIdx, lane and warp ids, elected
// threads, cooperative-groups ranks) for one concrete thread of a block of a given size.
import { evaluate, exprKey, walkExpr } from '../ir/expr';
import type { Expr } from '../ir/types';

export interface ThreadPoint {
  tid: number;
  blockSize: number;
}

const LANE_CALLS = /(^|::)(laneid|lane_id|get_lane_id|__lane_id|canonical_lane_idx|lane_idx)$/;
const WARP_CALLS = /(^|::)(warpid|warp_id|get_warp_id|canonical_warp_idx|canonical_warp_idx_sync|warp_idx)$/;
const WARPGROUP_CALLS = /(^|::)(canonical_warp_group_idx|warpgroup_id|groupid)$/;
const ELECT_CALLS = /(^|::)(elect_one_sync|elect_one|elect_sync|elect_one_leader_sync)$/;
const RANK_CALLS = /^\.thread_rank$|(^|::)thread_rank$/;
const SIZE_CALLS = /^\.(size|num_threads)$|(^|::)(block_size|num_threads)$/;

/** Does the expression depend on which thread evaluates it? */
export function isThreadDependent(e: Expr, derived: (name: string) => Expr | undefined, depth = 0): boolean {
  let found = false;
  walkExpr(e, (x) => {
    if (found) return;
    if (x.kind === 'member' && x.object.kind === 'var' && x.object.name === 'threadIdx') found = true;
    else if (x.kind === 'call' && isThreadCall(x.callee)) found = true;
    else if (x.kind === 'var' && depth < 8) {
      const d = derived(x.name);
      if (d && isThreadDependent(d, derived, depth + 1)) found = true;
    }
  });
  return found;
}

function isThreadCall(callee: string): boolean {
  if (/warpgroup::(laneid|warpid|groupid)$/.test(callee)) return true;
  return LANE_CALLS.test(callee) || WARP_CALLS.test(callee) || WARPGROUP_CALLS.test(callee) || ELECT_CALLS.test(callee) || RANK_CALLS.test(callee) || /__shfl_sync$/.test(callee);
}

/**
 * Evaluates an expression for one thread. `vars` gives the current value of locals (undefined when
 * unknown); thread-identity builtins come from `p`.
 */
export function evalForThread(e: Expr | undefined, p: ThreadPoint, vars: (name: string) => number | undefined, constants: Map<string, number>): number | undefined {
  if (!e) return undefined;
  const lane = p.tid % 32;
  const env = (name: string): number | undefined => {
    switch (name) {
      case 'threadIdx.x':
        return p.tid;
      case 'threadIdx.y':
      case 'threadIdx.z':
        return 0;
      case 'blockDim.x':
        return p.blockSize;
      case 'blockDim.y':
      case 'blockDim.z':
        return 1;
      case 'warpSize':
        return 32;
      default:
        break;
    }
    const v = vars(name);
    if (v !== undefined) return v;
    return constants.get(name);
  };
  // Rewrite thread-identity calls into numbers before handing over to the generic evaluator.
  const rewrite = (x: Expr): Expr => {
    switch (x.kind) {
      case 'call': {
        const c = x.callee;
        const n = (value: number): Expr => ({ kind: 'num', value, text: String(value), range: x.range });
        if (/warpgroup::laneid$/.test(c)) return n(p.tid % 128);
        if (/warpgroup::warpid$/.test(c)) return n(Math.floor(p.tid / 32) % 4);
        if (/warpgroup::groupid$/.test(c) || WARPGROUP_CALLS.test(c)) return n(Math.floor(p.tid / 128));
        if (LANE_CALLS.test(c)) return n(lane);
        if (WARP_CALLS.test(c)) return n(Math.floor(p.tid / 32));
        if (ELECT_CALLS.test(c)) return n(lane === 0 ? 1 : 0);
        if (RANK_CALLS.test(c)) return n(p.tid);
        if (SIZE_CALLS.test(c)) return n(p.blockSize);
        if (/__shfl_sync$/.test(c) && x.args.length >= 3) {
          // Broadcast from a lane: exact when the value is warp-uniform, which is how it is used.
          const src = evaluate(x.args[2], env);
          if (src === undefined) return x;
          const srcTid = p.tid - lane + src;
          const v = evalForThread(x.args[1], { ...p, tid: srcTid }, vars, constants);
          return v === undefined ? x : n(v);
        }
        return { ...x, args: x.args.map(rewrite) };
      }
      case 'binary':
        return { ...x, left: rewrite(x.left), right: rewrite(x.right) };
      case 'unary':
        return { ...x, arg: rewrite(x.arg) };
      case 'cond':
        return { ...x, test: rewrite(x.test), then: rewrite(x.then), else: rewrite(x.else) };
      case 'index':
        return { ...x, object: rewrite(x.object), index: rewrite(x.index) };
      default:
        return x;
    }
  };
  return evaluate(rewrite(e), env);
}

export { exprKey };
