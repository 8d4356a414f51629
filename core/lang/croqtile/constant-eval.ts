// THE constant evaluator of the Croqtile language: folds a DSL expression to a number over the file's `#define`s
// (literals, defines parsed as Croqtile expressions, arithmetic, comparisons, `?:`, `cdiv`, `__alignup/__aligndown`,
// `min/max`). The front end (lower.ts: array lengths, event counts, thread extents), the launch templates and the
// Language interface use this one. The other evaluators are deliberately different languages: `#if` conditions
// (preprocess.ts) follow the C preprocessor (`defined`, unknown names), and the simulator (sim/interp.ts) computes
// typed run-time values (f16, s32 wrap-around, tensors) with closures compiled for speed.
import type { CoExpr } from './ast';
import { parseCoExpression } from './parse/expressions';

/**
 * Folds `expr` to a number when it is constant: literals, `#define` constants (recursively, their values parsed as
 * Croqtile expressions), arithmetic, comparisons, `?:`, `cdiv(a, b)`, `__alignup/__aligndown`, `min/max`.
 * Integer division truncates (C semantics) unless either side is a floating literal. Returns undefined otherwise.
 */
export function evaluateConstant(expr: CoExpr, defines: Map<string, string>): number | undefined {
  return evalExpr(expr, defines, new Set(), 0);
}

interface ParsedDefine {
  text: string;
  expr: CoExpr | undefined;
}
const defineCache = new WeakMap<Map<string, string>, Map<string, ParsedDefine>>();

function defineExpr(name: string, defines: Map<string, string>): CoExpr | undefined {
  const text = defines.get(name);
  if (text === undefined) return undefined;
  let cache = defineCache.get(defines);
  if (!cache) {
    cache = new Map();
    defineCache.set(defines, cache);
  }
  const hit = cache.get(name);
  if (hit && hit.text === text) return hit.expr;
  const expr = parseCoExpression(text);
  cache.set(name, { text, expr });
  return expr;
}

function isFloatLiteral(e: CoExpr): boolean {
  return e.kind === 'num' && /[.eE]|[fF]$/.test(e.text) && !/^0[xX]/.test(e.text);
}

function evalExpr(e: CoExpr, defines: Map<string, string>, visiting: Set<string>, depth: number): number | undefined {
  if (depth > 200) return undefined;
  const ev = (x: CoExpr): number | undefined => evalExpr(x, defines, visiting, depth + 1);
  switch (e.kind) {
    case 'num':
      return Number.isFinite(e.value) ? e.value : undefined;
    case 'id': {
      if (e.name === 'true') return 1;
      if (e.name === 'false') return 0;
      if (visiting.has(e.name)) return undefined;
      const d = defineExpr(e.name, defines);
      if (!d) return undefined;
      visiting.add(e.name);
      try {
        return ev(d);
      } finally {
        visiting.delete(e.name);
      }
    }
    case 'unary': {
      const v = ev(e.arg);
      if (v === undefined) return undefined;
      switch (e.op) {
        case '-': return -v;
        case '+': return v;
        case '!': return v === 0 ? 1 : 0;
        case '~': return ~v;
        default: return undefined;
      }
    }
    case 'binary': {
      const a = ev(e.left);
      if (a === undefined) {
        if (e.op === '&&') return ev(e.right) === 0 ? 0 : undefined;
        return undefined;
      }
      if (e.op === '&&' && a === 0) return 0;
      if (e.op === '||' && a !== 0) return 1;
      const b = ev(e.right);
      if (b === undefined) return undefined;
      const float = isFloatLiteral(e.left) || isFloatLiteral(e.right) || !Number.isInteger(a) || !Number.isInteger(b);
      return applyBinary(e.op, a, b, float);
    }
    case 'cond': {
      const t = ev(e.test);
      if (t === undefined) return undefined;
      return t !== 0 ? ev(e.then) : ev(e.else);
    }
    case 'call': {
      const args = e.args.map(ev);
      if (args.some((a) => a === undefined)) return undefined;
      const [a, b] = args as number[];
      switch (e.callee) {
        case 'cdiv':
          return args.length === 2 && b !== 0 ? Math.ceil(a! / b!) : undefined;
        case '__alignup':
          return args.length === 2 && b !== 0 ? Math.ceil(a! / b!) * b! : undefined;
        case '__aligndown':
          return args.length === 2 && b !== 0 ? Math.floor(a! / b!) * b! : undefined;
        case 'min':
        case 'MIN':
        case '__min':
          return args.length === 2 ? Math.min(a!, b!) : undefined;
        case 'max':
        case 'MAX':
        case '__max':
          return args.length === 2 ? Math.max(a!, b!) : undefined;
        default:
          return undefined;
      }
    }
    case 'list':
      return e.items.length === 1 ? ev(e.items[0]!) : undefined;
    default:
      return undefined;
  }
}

/** The `#define`s that fold to numbers, by name, in definition order. */
export function defineValues(defines: Map<string, string>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [name] of defines) {
    const v = evaluateConstant({ kind: 'id', name, span: { start: 0, end: 0 } }, defines);
    if (v !== undefined) out.set(name, v);
  }
  return out;
}

/**
 * A binary operator on two known values, as C evaluates constants: `/` truncates unless `float`
 * (a float operand), division by zero and unknown operators give undefined. The preprocessor's
 * `#if` arithmetic (preprocess.ts) uses it too, after its own handling of unknown operands.
 */
export function applyBinary(op: string, a: number, b: number, float = false): number | undefined {
  switch (op) {
    case '+': return a + b;
    case '-': return a - b;
    case '*': return a * b;
    case '/': return b === 0 ? undefined : float ? a / b : Math.trunc(a / b);
    case '%': return b === 0 ? undefined : a % b;
    case '<<': return a * 2 ** b;
    case '>>': return Math.floor(a / 2 ** b);
    case '&': return a & b;
    case '|': return a | b;
    case '^': return a ^ b;
    case '&&': return a !== 0 && b !== 0 ? 1 : 0;
    case '||': return a !== 0 || b !== 0 ? 1 : 0;
    case '==': return a === b ? 1 : 0;
    case '!=': return a !== b ? 1 : 0;
    case '<': return a < b ? 1 : 0;
    case '>': return a > b ? 1 : 0;
    case '<=': return a <= b ? 1 : 0;
    case '>=': return a >= b ? 1 : 0;
    default: return undefined;
  }
}
