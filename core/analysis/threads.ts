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

type Vars = (name: string) => number | undefined;
/** An expression made into a function of the thread and the values around it. */
type ThreadEval = (p: ThreadPoint, vars: Vars, constants: Map<string, number>) => number | undefined;

/**
 * Evaluates an expression for one thread. `vars` gives the current value of locals (undefined when
 * unknown); thread-identity builtins come from `p`.
 */
export function evalForThread(e: Expr | undefined, p: ThreadPoint, vars: Vars, constants: Map<string, number>): number | undefined {
  return e ? compiled(e)(p, vars, constants) : undefined;
}

/**
 * The replay evaluates the same expressions for every thread class and iteration (and the thread classing
 * for every thread of the block): each expression is turned into closures once, no tree walk per call.
 * Expressions are immutable once lowered, so the closures are kept per expression object.
 */
const compiledExprs = new WeakMap<Expr, ThreadEval>();
function compiled(e: Expr): ThreadEval {
  let f = compiledExprs.get(e);
  if (!f) {
    f = compile(e);
    compiledExprs.set(e, f);
  }
  return f;
}

function compile(x: Expr): ThreadEval {
  switch (x.kind) {
    case 'num': {
      const value = x.value;
      return () => value;
    }
    case 'var': {
      const name = x.name;
      if (name === 'warpSize') return () => 32;
      return (_p, vars, constants) => {
        const v = vars(name);
        return v !== undefined ? v : constants.get(name);
      };
    }
    case 'member': {
      if (x.object.kind === 'var') {
        const field = x.field;
        if (x.object.name === 'threadIdx') return field === 'x' ? (p) => p.tid : () => 0;
        if (x.object.name === 'blockDim') return field === 'x' ? (p) => p.blockSize : () => 1;
      }
      const key = `${exprKey(x.object)}.${x.field}`;
      return (_p, vars, constants) => {
        const v = vars(key);
        return v !== undefined ? v : constants.get(key);
      };
    }
    case 'unary': {
      const arg = compiled(x.arg);
      const op = x.op;
      return (p, vars, constants) => {
        const v = arg(p, vars, constants);
        return v === undefined ? undefined : applyUnary(op, v);
      };
    }
    case 'binary': {
      const left = compiled(x.left);
      const right = compiled(x.right);
      const op = x.op;
      return (p, vars, constants) => {
        const l = left(p, vars, constants);
        if (l === undefined) return undefined;
        // `0 && x` / `1 || x` are known without x.
        if (op === '&&' && !l) return 0;
        if (op === '||' && l) return 1;
        const r = right(p, vars, constants);
        return r === undefined ? undefined : applyBinary(op, l, r);
      };
    }
    case 'cond': {
      const test = compiled(x.test);
      const then = compiled(x.then);
      const otherwise = compiled(x.else);
      return (p, vars, constants) => {
        const t = test(p, vars, constants);
        return t === undefined ? undefined : t ? then(p, vars, constants) : otherwise(p, vars, constants);
      };
    }
    case 'call':
      return compileCall(x);
    default:
      return () => undefined;
  }
}

/** Thread-identity builtins, the lane broadcast and the few arithmetic helpers the replay folds. */
function compileCall(x: Extract<Expr, { kind: 'call' }>): ThreadEval {
  const c = x.callee;
  if (/warpgroup::laneid$/.test(c)) return (p) => p.tid % 128;
  if (/warpgroup::warpid$/.test(c)) return (p) => Math.floor(p.tid / 32) % 4;
  if (/warpgroup::groupid$/.test(c) || WARPGROUP_CALLS.test(c)) return (p) => Math.floor(p.tid / 128);
  if (LANE_CALLS.test(c)) return (p) => p.tid % 32;
  if (WARP_CALLS.test(c)) return (p) => Math.floor(p.tid / 32);
  if (ELECT_CALLS.test(c)) return (p) => (p.tid % 32 === 0 ? 1 : 0);
  if (RANK_CALLS.test(c)) return (p) => p.tid;
  if (SIZE_CALLS.test(c)) return (p) => p.blockSize;
  if (/__shfl_sync$/.test(c) && x.args.length >= 3) {
    // Broadcast from a lane: exact when the value is warp-uniform, which is how it is used.
    const source = compiled(x.args[2]);
    const value = compiled(x.args[1]);
    return (p, vars, constants) => {
      const src = source(p, vars, constants);
      if (src === undefined) return undefined;
      return value({ ...p, tid: p.tid - (p.tid % 32) + src }, vars, constants);
    };
  }
  if ((c === 'cdiv' || c.endsWith('ceil_div')) && x.args.length === 2) {
    const a = compiled(x.args[0]);
    const b = compiled(x.args[1]);
    return (p, vars, constants) => {
      const av = a(p, vars, constants);
      const bv = b(p, vars, constants);
      return av === undefined || !bv ? undefined : Math.ceil(av / bv);
    };
  }
  if ((c === 'static_cast' || c === 'cast' || /aligned_size_t$/.test(c)) && x.args.length === 1) return compiled(x.args[0]);
  return () => undefined;
}

export { exprKey };
