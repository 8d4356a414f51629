// Lane-vector forms of expressions, for warp-lockstep rows (executor.ts `runLanes`): an expression
// of a converged warp is evaluated once for all its lanes, each node looping over the lanes'
// values in a typed array it owns, instead of once per lane through the closure tree. Only what
// cannot block, fault, touch memory or call is given a vector form — locals in the frame's slots,
// constants, the thread's built-in indices, and 32-bit integer and float arithmetic, comparisons,
// shifts and conversions — with exactly the scalar closures' arithmetic (types.ts), so a row gives
// the values a lane-by-lane run gives. Anything else keeps the scalar form and rows run it per lane.
import type { DType } from '../../../sim/dtypes';
import type { Ex } from './context';
import type { RowFx, VFn } from './runtime';

export type { VFn };

/** A warp has 32 lanes: every node's buffer holds one value per lane. */
const LANES = 32;

/**
 * Types whose values are always plain numbers (64-bit integers may be BigInts, halves are rounded
 * on every operation): the ones vector forms carry.
 */
export function laneType(dt: DType): boolean {
  switch (dt) {
    case 's32':
    case 'u32':
    case 'f32':
    case 'f64':
    case 'bool':
    case 's16':
    case 'u16':
    case 's8':
    case 'u8':
      return true;
  }
  return false;
}

export function vConst(v: number): VFn {
  const out = new Float64Array(LANES).fill(v);
  return () => out;
}

/** A local in slot `idx` of each lane's own frame (its typed slots with `typed`). */
export function vSlot(idx: number, typed: boolean): VFn {
  const out = new Float64Array(LANES);
  if (typed)
    return (fs, n) => {
      for (let j = 0; j < n; j++) out[j] = fs[j].d[idx];
      return out;
    };
  return (fs, n) => {
    for (let j = 0; j < n; j++) out[j] = fs[j].v[idx];
    return out;
  };
}

/** `threadIdx` / `blockIdx` component `i` of each lane's thread. */
export function vThreadIndex(which: 'threadIdx' | 'blockIdx', i: 0 | 1 | 2): VFn {
  const out = new Float64Array(LANES);
  return which === 'threadIdx'
    ? (fs, n) => {
        for (let j = 0; j < n; j++) out[j] = fs[j].ts.t.threadIdx[i];
        return out;
      }
    : (fs, n) => {
        for (let j = 0; j < n; j++) out[j] = fs[j].ts.t.blockIdx[i];
        return out;
      };
}

/** `blockDim` / `gridDim` component `i` (the launch's, the same for every lane). */
export function vLaunchDim(which: 'blockDim' | 'gridDim', i: 0 | 1 | 2): VFn {
  const out = new Float64Array(LANES);
  return (fs, n) => {
    const v = which === 'blockDim' ? fs[0].ts.m.blockDim[i] : fs[0].ts.m.grid[i];
    for (let j = 0; j < n; j++) out[j] = v;
    return out;
  };
}

/** A value conversion (types.ts `convFn`) lane by lane. */
export function vConvert(conv: (v: number) => number, A: VFn): VFn {
  const out = new Float64Array(LANES);
  return (fs, n) => {
    const a = A(fs, n);
    for (let j = 0; j < n; j++) out[j] = conv(a[j]);
    return out;
  };
}

/**
 * Arithmetic of type `dt` as types.ts `arith` computes it; undefined where that can fault (integer
 * division) or leaves plain numbers (64-bit, halves).
 */
export function vArith(op: string, dt: DType, A: VFn, B: VFn): VFn | undefined {
  const out = new Float64Array(LANES);
  const bin = (fn: (a: Float64Array, b: Float64Array, n: number) => void): VFn => {
    return (fs, n) => {
      const a = A(fs, n);
      const b = B(fs, n);
      fn(a, b, n);
      return out;
    };
  };
  switch (dt) {
    case 's32':
      switch (op) {
        case '+':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = (a[j] + b[j]) | 0;
          });
        case '-':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = (a[j] - b[j]) | 0;
          });
        case '*':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = Math.imul(a[j], b[j]);
          });
        case '&':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = a[j] & b[j];
          });
        case '|':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = a[j] | b[j];
          });
        case '^':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = a[j] ^ b[j];
          });
      }
      return undefined;
    case 'u32':
      switch (op) {
        case '+':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = (a[j] + b[j]) >>> 0;
          });
        case '-':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = (a[j] - b[j]) >>> 0;
          });
        case '*':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = Math.imul(a[j], b[j]) >>> 0;
          });
        case '&':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = (a[j] & b[j]) >>> 0;
          });
        case '|':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = (a[j] | b[j]) >>> 0;
          });
        case '^':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = (a[j] ^ b[j]) >>> 0;
          });
      }
      return undefined;
    case 'f32':
      switch (op) {
        case '+':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = Math.fround(a[j] + b[j]);
          });
        case '-':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = Math.fround(a[j] - b[j]);
          });
        case '*':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = Math.fround(a[j] * b[j]);
          });
        case '/':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = Math.fround(a[j] / b[j]);
          });
      }
      return undefined;
    case 'f64':
      switch (op) {
        case '+':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = a[j] + b[j];
          });
        case '-':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = a[j] - b[j];
          });
        case '*':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = a[j] * b[j];
          });
        case '/':
          return bin((a, b, n) => {
            for (let j = 0; j < n; j++) out[j] = a[j] / b[j];
          });
      }
      return undefined;
  }
  return undefined;
}

/** Shifts of a promoted 32-bit operand as types.ts `shift` computes them (amounts outside 0..31 clamp). */
export function vShift(op: '<<' | '>>', dt: DType, A: VFn, B: VFn): VFn | undefined {
  if (dt !== 's32' && dt !== 'u32') return undefined;
  const out = new Float64Array(LANES);
  const signed = dt === 's32';
  if (op === '<<')
    return (fs, n) => {
      const a = A(fs, n);
      const b = B(fs, n);
      for (let j = 0; j < n; j++) {
        const s = b[j];
        out[j] = s >= 32 || s < 0 ? 0 : signed ? a[j] << s : (a[j] << s) >>> 0;
      }
      return out;
    };
  return (fs, n) => {
    const a = A(fs, n);
    const b = B(fs, n);
    for (let j = 0; j < n; j++) {
      const s = b[j];
      out[j] = signed ? (s >= 32 || s < 0 ? (a[j] < 0 ? -1 : 0) : a[j] >> s) : s >= 32 || s < 0 ? 0 : a[j] >>> s;
    }
    return out;
  };
}

/** Comparisons (1 or 0), as types.ts `compare`. */
export function vCompare(op: string, A: VFn, B: VFn): VFn | undefined {
  const out = new Float64Array(LANES);
  const cmp = (fn: (x: number, y: number) => boolean): VFn => {
    return (fs, n) => {
      const a = A(fs, n);
      const b = B(fs, n);
      for (let j = 0; j < n; j++) out[j] = fn(a[j], b[j]) ? 1 : 0;
      return out;
    };
  };
  switch (op) {
    case '<':
      return cmp((x, y) => x < y);
    case '<=':
      return cmp((x, y) => x <= y);
    case '>':
      return cmp((x, y) => x > y);
    case '>=':
      return cmp((x, y) => x >= y);
    case '==':
      return cmp((x, y) => x === y);
    case '!=':
      return cmp((x, y) => x !== y);
  }
  return undefined;
}

/** `-a` / `~a` / `!a` of a promoted operand, as types.ts `negate` / `bitNot` and the `!` of expressions.ts. */
export function vUnary(op: '-' | '~' | '!', dt: DType, A: VFn): VFn | undefined {
  const out = new Float64Array(LANES);
  const map = (fn: (x: number) => number): VFn => {
    return (fs, n) => {
      const a = A(fs, n);
      for (let j = 0; j < n; j++) out[j] = fn(a[j]);
      return out;
    };
  };
  if (op === '!') return map((x) => (x ? 0 : 1));
  if (op === '-') {
    if (dt === 's32') return map((x) => -x | 0);
    if (dt === 'u32') return map((x) => -x >>> 0);
    if (dt === 'f32' || dt === 'f64') return map((x) => -x);
    return undefined;
  }
  if (dt === 's32') return map((x) => ~x);
  if (dt === 'u32') return map((x) => ~x >>> 0);
  return undefined;
}

/** `a && b` / `a || b` (1 or 0) with a side-effect-free right side: both evaluated, as short-circuiting would give. */
export function vLogical(op: '&&' | '||', A: VFn, B: VFn): VFn {
  const out = new Float64Array(LANES);
  return op === '&&'
    ? (fs, n) => {
        const a = A(fs, n);
        const b = B(fs, n);
        for (let j = 0; j < n; j++) out[j] = a[j] && b[j] ? 1 : 0;
        return out;
      }
    : (fs, n) => {
        const a = A(fs, n);
        const b = B(fs, n);
        for (let j = 0; j < n; j++) out[j] = a[j] || b[j] ? 1 : 0;
        return out;
      };
}

/** `c ? a : b` with side-effect-free operands: every lane's choice. */
export function vSelect(C: VFn, A: VFn, B: VFn): VFn {
  const out = new Float64Array(LANES);
  return (fs, n) => {
    const c = C(fs, n);
    const a = A(fs, n);
    const b = B(fs, n);
    for (let j = 0; j < n; j++) out[j] = c[j] ? a[j] : b[j];
    return out;
  };
}

/** `local = value` in each lane's frame (a typed slot: lanes.ts values are plain numbers); the value is the expression's. */
export function vStoreSlot(idx: number, V: VFn): VFn {
  return (fs, n) => {
    const v = V(fs, n);
    for (let j = 0; j < n; j++) fs[j].d[idx] = v[j];
    return v;
  };
}

/** A read-modify-write of typed slot `idx` (`x += …`, `++x`, `x++`): `V` computes the new value from the slot. */
export function vModifySlot(idx: number, V: VFn, result: 'new' | 'old'): VFn {
  if (result === 'new') return vStoreSlot(idx, V);
  const old = new Float64Array(LANES);
  return (fs, n) => {
    for (let j = 0; j < n; j++) old[j] = fs[j].d[idx];
    const v = V(fs, n);
    for (let j = 0; j < n; j++) fs[j].d[idx] = v[j];
    return old;
  };
}

/** The vector form of a plain-number expression (`laneType`): its own, or its constant's; undefined for any other. */
export function vecOf(e: Ex): VFn | undefined {
  if (e.t.k !== 'num' || !laneType(e.t.dt)) return undefined;
  if (e.vec) return e.vec;
  if (e.cv !== undefined && typeof e.cv === 'number') return vConst(e.cv);
  return undefined;
}

/**
 * 32-bit integer `/` and `%` by a constant divisor `d` (nonzero: the division cannot fault), with the
 * scalar closures' arithmetic (types.ts `arith`); undefined for other types and operators.
 */
export function vDivConst(op: string, dt: DType, A: VFn, d: number): VFn | undefined {
  if ((op !== '/' && op !== '%') || (dt !== 's32' && dt !== 'u32')) return undefined;
  const b = dt === 's32' ? d | 0 : d >>> 0;
  if (b === 0 || b !== d) return undefined;
  const out = new Float64Array(LANES);
  const div = op === '/';
  if (dt === 's32')
    return (fs, n) => {
      const a = A(fs, n);
      // Lane values of an s32 expression are int32: integer division and remainder (as in types.ts).
      if (div) for (let j = 0; j < n; j++) out[j] = ((a[j] | 0) / b) | 0;
      else for (let j = 0; j < n; j++) out[j] = (a[j] | 0) % b | 0;
      return out;
    };
  return (fs, n) => {
    const a = A(fs, n);
    if (div) for (let j = 0; j < n; j++) out[j] = Math.floor(a[j] / b);
    else for (let j = 0; j < n; j++) out[j] = a[j] % b;
    return out;
  };
}

/**
 * Thrown by a lane-vector form that cannot give what every lane would give (a lane divides by zero,
 * which faults on that lane): the row that evaluated it declines (NO_ROW) and the lanes run one by
 * one, the faulting one reporting. Only forms whose rows cannot have had an effect yet throw it
 * (`vDivVar`'s callers make sure).
 */
export const ROW_DECLINED: unique symbol = Symbol('row declined');

/**
 * 32-bit integer `/` and `%` by a divisor that varies (the scalar closures' arithmetic, types.ts
 * `arith`): a zero divisor in any lane declines the row, before any lane's result is made.
 */
export function vDivVar(op: string, dt: DType, A: VFn, B: VFn): VFn | undefined {
  if ((op !== '/' && op !== '%') || (dt !== 's32' && dt !== 'u32')) return undefined;
  const out = new Float64Array(LANES);
  const div = op === '/';
  const signed = dt === 's32';
  return (fs, n) => {
    const a = A(fs, n);
    const b = B(fs, n);
    for (let j = 0; j < n; j++) if ((signed ? b[j] | 0 : b[j]) === 0) throw ROW_DECLINED;
    if (signed) {
      if (div) for (let j = 0; j < n; j++) out[j] = ((a[j] | 0) / (b[j] | 0)) | 0;
      else for (let j = 0; j < n; j++) out[j] = (a[j] | 0) % (b[j] | 0) | 0;
    } else if (div) for (let j = 0; j < n; j++) out[j] = Math.floor(a[j] / b[j]);
    else for (let j = 0; j < n; j++) out[j] = a[j] % b[j];
    return out;
  };
}

/** Row form `fx` (an expression with effects) storing each lane's value in its frame's value slot `idx`. */
export function rowIntoSlot(fx: RowFx, idx: number): RowFx {
  return (fs, k, out) => {
    if (!fx(fs, k, out)) return false;
    for (let j = 0; j < k; j++) fs[j].v[idx] = out[j];
    return true;
  };
}
