// Who executes what: evaluates thread-identity expressions (threadIdx, lane and warp ids, elected
// threads, cooperative-groups ranks) for one concrete thread of a block of a given size.
import { applyBinary, applyUnary, exprKey, walkExpr } from '../ir/expr';
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
  // Direct recursive evaluation (no tree rewriting): this runs for every thread class and iteration.
  const lane = p.tid % 32;
  const ev = (x: Expr): number | undefined => {
    switch (x.kind) {
      case 'num':
        return x.value;
      case 'var': {
        if (x.name === 'warpSize') return 32;
        const v = vars(x.name);
        return v !== undefined ? v : constants.get(x.name);
      }
      case 'member': {
        if (x.object.kind === 'var') {
          if (x.object.name === 'threadIdx') return x.field === 'x' ? p.tid : 0;
          if (x.object.name === 'blockDim') return x.field === 'x' ? p.blockSize : 1;
        }
        const key = `${exprKey(x.object)}.${x.field}`;
        const v = vars(key);
        return v !== undefined ? v : constants.get(key);
      }
      case 'unary': {
        const v = ev(x.arg);
        return v === undefined ? undefined : applyUnary(x.op, v);
      }
      case 'binary': {
        const l = ev(x.left);
        if (l === undefined) return undefined;
        // `0 && x` / `1 || x` are known without x.
        if (x.op === '&&' && !l) return 0;
        if (x.op === '||' && l) return 1;
        const r = ev(x.right);
        return r === undefined ? undefined : applyBinary(x.op, l, r);
      }
      case 'cond': {
        const t = ev(x.test);
        return t === undefined ? undefined : ev(t ? x.then : x.else);
      }
      case 'call': {
        const c = x.callee;
        if (/warpgroup::laneid$/.test(c)) return p.tid % 128;
        if (/warpgroup::warpid$/.test(c)) return Math.floor(p.tid / 32) % 4;
        if (/warpgroup::groupid$/.test(c) || WARPGROUP_CALLS.test(c)) return Math.floor(p.tid / 128);
        if (LANE_CALLS.test(c)) return lane;
        if (WARP_CALLS.test(c)) return Math.floor(p.tid / 32);
        if (ELECT_CALLS.test(c)) return lane === 0 ? 1 : 0;
        if (RANK_CALLS.test(c)) return p.tid;
        if (SIZE_CALLS.test(c)) return p.blockSize;
        if (/__shfl_sync$/.test(c) && x.args.length >= 3) {
          // Broadcast from a lane: exact when the value is warp-uniform, which is how it is used.
          const src = ev(x.args[2]);
          if (src === undefined) return undefined;
          return evalForThread(x.args[1], { ...p, tid: p.tid - lane + src }, vars, constants);
        }
        if ((c === 'cdiv' || c.endsWith('ceil_div')) && x.args.length === 2) {
          const a = ev(x.args[0]);
          const b = ev(x.args[1]);
          return a === undefined || !b ? undefined : Math.ceil(a / b);
        }
        if ((c === 'static_cast' || c === 'cast' || /aligned_size_t$/.test(c)) && x.args.length === 1) return ev(x.args[0]);
        return undefined;
      }
      default:
        return undefined;
    }
  };
  return ev(e);
}

export { exprKey };
