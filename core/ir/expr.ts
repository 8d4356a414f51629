// Small utilities over IR expressions: construction, substitution, evaluation, free variables.
import type { Range } from '../api';
import type { Expr } from './types';

export const NO_RANGE: Range = { start: { line: 0, character: 0 }, end: { line: 0, character: 0 } };

export function num(value: number, range: Range = NO_RANGE): Expr {
  return { kind: 'num', value, text: String(value), range };
}

export function binary(op: string, left: Expr, right: Expr, range: Range = NO_RANGE): Expr {
  return { kind: 'binary', op, left, right, text: `${left.text} ${op} ${right.text}`, range };
}

/**
 * Visits every sub-expression, parents first, left to right. Iterative (an explicit stack): an expression of
 * thousands of terms cannot overflow the call stack.
 */
export function walkExpr(e: Expr, visit: (e: Expr) => void): void {
  const stack: Expr[] = [e];
  while (stack.length > 0) {
    const x = stack.pop()!;
    visit(x);
    // Children are pushed last to first so that they are visited first to last.
    switch (x.kind) {
      case 'member':
        stack.push(x.object);
        break;
      case 'index':
        stack.push(x.index, x.object);
        break;
      case 'unary':
        stack.push(x.arg);
        break;
      case 'binary':
        stack.push(x.right, x.left);
        break;
      case 'cond':
        stack.push(x.else, x.then, x.test);
        break;
      case 'call':
        for (let i = x.args.length - 1; i >= 0; i--) stack.push(x.args[i]);
        break;
      default:
        break;
    }
  }
}

/** Names of variables read by the expression (member roots included, e.g. `threadIdx`). */
export function freeVars(e: Expr): Set<string> {
  const out = new Set<string>();
  walkExpr(e, (x) => {
    if (x.kind === 'var') out.add(x.name);
  });
  return out;
}

export function mentions(e: Expr, name: string): boolean {
  return freeVars(e).has(name);
}

/**
 * How deep exprKey and evaluate recurse. The front ends bound the depth of the trees they lower, so real IR
 * stays far below; past it an expression is unknown (evaluate) or keyed as opaque (exprKey) instead of
 * overflowing the stack.
 */
export const MAX_EXPR_DEPTH = 2000;

/** Canonical text for comparing expressions structurally (whitespace- and paren-insensitive). */
export function exprKey(e: Expr | undefined): string {
  return keyAt(e, 0);
}

function keyAt(e: Expr | undefined, depth: number): string {
  if (!e) return '';
  if (depth > MAX_EXPR_DEPTH) return '?{too deep}';
  const exprKey = (x: Expr | undefined): string => keyAt(x, depth + 1);
  switch (e.kind) {
    case 'num':
      return String(e.value);
    case 'var':
      return e.name;
    case 'member':
      return `${exprKey(e.object)}.${e.field}`;
    case 'index':
      return `${exprKey(e.object)}[${exprKey(e.index)}]`;
    case 'unary':
      return `(${e.op}${exprKey(e.arg)})`;
    case 'binary':
      return `(${exprKey(e.left)}${e.op}${exprKey(e.right)})`;
    case 'cond':
      return `(${exprKey(e.test)}?${exprKey(e.then)}:${exprKey(e.else)})`;
    case 'call':
      return `${e.callee}(${e.args.map(exprKey).join(',')})`;
    case 'opaque':
      return `?{${e.text.replace(/\s+/g, '')}}`;
  }
}

export type Env = (name: string) => number | undefined;

/** C integer semantics of a unary operator; undefined for operators we do not model. */
export function applyUnary(op: string, v: number): number | undefined {
  switch (op) {
    case '-': return -v;
    case '+': return v;
    case '!': return v ? 0 : 1;
    case '~': return ~v;
    default: return undefined;
  }
}

/** C integer semantics of a binary operator (division truncates; by zero is unknown). */
export function applyBinary(op: string, l: number, r: number): number | undefined {
  switch (op) {
    case '+': return l + r;
    case '-': return l - r;
    case '*': return l * r;
    case '/': return r === 0 ? undefined : Math.trunc(l / r);
    case '%': return r === 0 ? undefined : l % r;
    case '&': return l & r;
    case '|': return l | r;
    case '^': return l ^ r;
    case '<<': return l << r;
    case '>>': return l >> r;
    case '==': return +(l === r);
    case '!=': return +(l !== r);
    case '<': return +(l < r);
    case '<=': return +(l <= r);
    case '>': return +(l > r);
    case '>=': return +(l >= r);
    case '&&': return +(!!l && !!r);
    case '||': return +(!!l || !!r);
    default: return undefined;
  }
}

/** Evaluates an integer expression; undefined when anything is unknown. */
export function evaluate(e: Expr | undefined, env: Env): number | undefined {
  return evaluateAt(e, env, 0);
}

function evaluateAt(e: Expr | undefined, env: Env, depth: number): number | undefined {
  if (!e || depth > MAX_EXPR_DEPTH) return undefined;
  const evaluate = (x: Expr | undefined, en: Env): number | undefined => evaluateAt(x, en, depth + 1);
  switch (e.kind) {
    case 'num':
      return e.value;
    case 'var':
      return env(e.name);
    case 'member':
      return env(`${exprKey(e.object)}.${e.field}`);
    case 'unary': {
      const v = evaluate(e.arg, env);
      return v === undefined ? undefined : applyUnary(e.op, v);
    }
    case 'binary': {
      const l = evaluate(e.left, env);
      const r = evaluate(e.right, env);
      return l === undefined || r === undefined ? undefined : applyBinary(e.op, l, r);
    }
    case 'cond': {
      const t = evaluate(e.test, env);
      if (t === undefined) return undefined;
      return evaluate(t ? e.then : e.else, env);
    }
    case 'call':
      if ((e.callee === 'cdiv' || e.callee.endsWith('ceil_div')) && e.args.length === 2) {
        const a = evaluate(e.args[0], env);
        const b = evaluate(e.args[1], env);
        return a === undefined || !b ? undefined : Math.ceil(a / b);
      }
      if (e.callee.endsWith('sizeof') || e.callee === 'static_cast' || e.callee === 'cast' || /aligned_size_t$/.test(e.callee)) {
        return e.args.length === 1 ? evaluate(e.args[0], env) : undefined;
      }
      return undefined;
    default:
      return undefined;
  }
}
