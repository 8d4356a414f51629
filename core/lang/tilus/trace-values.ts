// Python values at trace time, as the tilus lowering (lower.ts) keeps them: integers, lists and tilus objects
// stay Python values and fold (tilus runs Python while it traces a Script), run-time values are IR
// expressions. Which names of a function are run-time variables, and the byte size of shared tensors.
import type { Range } from '../../api';
import type { BarrierRef, Expr } from '../../ir/types';
import { type PyNode, namedChildren } from './parser';
import type { TilusClass } from './script-classes';

/** A Python value at trace time. */
export type Value =
  | { kind: 'int'; value: number; text: string }
  | { kind: 'list'; items: Value[] }
  | { kind: 'rt'; expr: Expr }
  | { kind: 'barriers'; base: string; length: number; scalar: boolean }
  | { kind: 'barrier'; ref: BarrierRef; remote?: boolean }
  | { kind: 'object'; cls: TilusClass; prefix: string; fields: Map<string, Value> }
  | { kind: 'script' }
  /**
   * A shared tensor, or a part of one. `name`: the variable it is bound to; `slot`: for `sa[stage]`, the
   * tensor and the index of its first dimension (what a read of a pipeline stage names).
   */
  | { kind: 'shared'; shape: (number | undefined)[]; elemBits?: number; name?: string; slot?: { array: string; index: Expr } }
  | { kind: 'tensor'; name: string; length: number }
  | { kind: 'dtype'; bits: number }
  | { kind: 'unknown'; text: string };

/** Bits per element of tilus's dtypes (a shared tensor's bytes are its elements times these / 8). */
export const DTYPE_BITS: Record<string, number> = {
  float16: 16, bfloat16: 16, float32: 32, float64: 64, tfloat32: 32, int8: 8, uint8: 8, int16: 16, uint16: 16, int32: 32, uint32: 32, int64: 64, uint64: 64,
  float8_e4m3: 8, float8_e5m2: 8, f16: 16, bf16: 16, f32: 32, i32: 32, u32: 32, boolean: 8, int4b: 4, uint4b: 4, float4_e2m1: 4, float6_e3m2: 6,
};
/** Annotations that make a Python variable, not a run-time one. */
export const PYTHON_TYPES = new Set(['int', 'bool', 'float', 'str']);

/** Names a function assigns more than once, or with a run-time annotation, or inside a loop: run-time variables. */
export function runtimeNames(fn: PyNode): Set<string> {
  const counts = new Map<string, number>();
  const runtime = new Set<string>();
  const visit = (n: PyNode, inLoop: boolean): void => {
    for (const c of namedChildren(n)) {
      if (c.type === 'function_definition' || c.type === 'class_definition') continue;
      if (c.type === 'assignment' || c.type === 'augmented_assignment') {
        const left = c.childForFieldName('left');
        const type = c.childForFieldName('type')?.text.replace(/\s+/g, '');
        const names = left?.type === 'identifier' ? [left.text] : namedChildren(left).filter((x) => x.type === 'identifier').map((x) => x.text);
        for (const name of names) {
          counts.set(name, (counts.get(name) ?? 0) + 1);
          if ((counts.get(name) ?? 0) > 1 || inLoop || c.type === 'augmented_assignment' || (type !== undefined && !PYTHON_TYPES.has(type))) runtime.add(name);
        }
      }
      visit(c, inLoop || c.type === 'for_statement' || c.type === 'while_statement');
    }
  };
  visit(fn.childForFieldName('body') ?? fn, false);
  return runtime;
}


export function numExpr(value: number, range: Range): Expr {
  return { kind: 'num', value, text: String(value), range };
}


export function sharedBytes(v: Extract<Value, { kind: 'shared' }>): number | undefined {
  const elems = v.shape.reduce<number | undefined>((a, b) => (a === undefined || b === undefined ? undefined : a * b), 1);
  return elems === undefined || v.elemBits === undefined ? undefined : (elems * v.elemBits) / 8;
}

export function foldBinary(op: string, l: Extract<Value, { kind: 'int' }>, r: Extract<Value, { kind: 'int' }>, text: string): Value {
  const a = l.value;
  const b = r.value;
  let v: number | undefined;
  switch (op) {
    case '+': v = a + b; break;
    case '-': v = a - b; break;
    case '*': v = a * b; break;
    case '/': v = b ? Math.floor(a / b) : undefined; break;
    case 'true/': v = b ? a / b : undefined; break;
    case '%': v = b ? ((a % b) + b) % b : undefined; break;
    case '**': v = a ** b; break;
    case '^': v = a ^ b; break;
    case '&': v = a & b; break;
    case '|': v = a | b; break;
    case '<<': v = a << b; break;
    case '>>': v = a >> b; break;
    case '==': v = Number(a === b); break;
    case '!=': v = Number(a !== b); break;
    case '<': v = Number(a < b); break;
    case '<=': v = Number(a <= b); break;
    case '>': v = Number(a > b); break;
    case '>=': v = Number(a >= b); break;
    case '&&': v = a ? b : a; break;
    case '||': v = a ? a : b; break;
    default: v = undefined;
  }
  return v === undefined || !Number.isFinite(v) ? { kind: 'unknown', text } : { kind: 'int', value: v, text };
}

/** A value as an IR expression: numbers fold, run-time values are their expression, the rest is opaque. */
export function asExpr(v: Value, range: Range): Expr {
  if (v.kind === 'int') return { kind: 'num', value: v.value, text: v.text, range };
  if (v.kind === 'rt') return v.expr;
  return { kind: 'opaque', text: v.kind === 'unknown' ? v.text : v.kind, range };
}

