// Croqtile expressions for the simulator: every expression node is compiled once into a closure (children
// resolved, literals folded, the hot forms specialised: variables, s32 arithmetic, element reads); rarer forms go
// through evSlow. Also lvalues and element access (store, offsets, race-detector touches) and the built-in calls.
// Copies and MMAs are expressions too; their engines live in ./async-ops.ts, reached through two abstract methods.
import type { CoExpr, CoStmt } from '../ast';
import { parseCoExpression } from '../parse/expressions';
import { coerce, isFloat, sizeOf } from '../../../sim/dtypes';
import { SimError, type SourceLoc } from '../../../sim/machine';
import { type CompiledExpr, type Ctx, Env, type InterpOptions, type Vars } from './context';
import {
  binaryOp,
  bool,
  castTo,
  contiguousStrides,
  copyView,
  describeValue,
  dtypeOf,
  elementOffset,
  EventRef,
  forEachElement,
  formatScalar,
  Future,
  int,
  PendingView,
  readAll,
  readElement,
  runsOf,
  s32,
  Sc,
  scalarOf,
  truthy,
  Tuple,
  type Value,
  View,
  ViewArray,
  writeElement,
} from './values';

const MATH1: Record<string, (x: number) => number> = {
  sqrt: Math.sqrt, sin: Math.sin, cos: Math.cos, tan: Math.tan, exp: Math.exp, log: Math.log, floor: Math.floor, ceil: Math.ceil,
  round: (x) => (x < 0 ? -Math.round(-x) : Math.round(x)), sinh: Math.sinh, cosh: Math.cosh, tanh: Math.tanh, acos: Math.acos,
  asin: Math.asin, atan: Math.atan, log1p: Math.log1p, expm1: Math.expm1, exp2f: (x) => 2 ** x, exp2: (x) => 2 ** x, fabs: Math.abs,
  cbrt: Math.cbrt, rsqrt: (x) => 1 / Math.sqrt(x), frcp_rn: (x) => 1 / x, sign: Math.sign,
  sigmoid: (x) => 1 / (1 + Math.exp(-x)), softplus: (x) => Math.log1p(Math.exp(x)),
  gelu: (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x))),
};

function unquote(text: string): string {
  // Adjacent literals were joined with a space by the parser: `"a" "b"`.
  const parts = text.match(/"(?:[^"\\]|\\.)*"/g) ?? [text];
  return parts
    .map((p) => p.slice(1, -1).replace(/\\(n|t|r|0|\\|"|')/g, (_m, c: string) => ({ n: '\n', t: '\t', r: '\r', '0': '\0', '\\': '\\', '"': '"', "'": "'" })[c] ?? c))
    .join('');
}

/**
 * binaryOp on two s32 operands (same results: C's wrap-around, division truncating toward zero). Undefined
 * means binaryOp decides (division or modulo by zero, which it reports).
 */
const INT32_OPS: Record<string, ((x: number, y: number) => Sc | undefined) | undefined> = {
  '+': (x, y) => s32((x + y) | 0),
  '-': (x, y) => s32((x - y) | 0),
  '*': (x, y) => s32(Math.imul(x, y)),
  '/': (x, y) => (y !== 0 ? s32((x / y) | 0) : undefined),
  '%': (x, y) => (y !== 0 ? s32((x % y) | 0) : undefined),
  '&': (x, y) => s32(x & y),
  '|': (x, y) => s32(x | y),
  '^': (x, y) => s32(x ^ y),
  '<<': (x, y) => s32(x << y),
  '>>': (x, y) => s32(x >> y),
  '<': (x, y) => bool(x < y),
  '<=': (x, y) => bool(x <= y),
  '>': (x, y) => bool(x > y),
  '>=': (x, y) => bool(x >= y),
  '==': (x, y) => bool(x === y),
  '!=': (x, y) => bool(x !== y),
};

/** Whether evaluating `e` has no side effects (no ++/--, calls, copies or MMAs), so it may be evaluated in another order. */
export function pure(e: CoExpr): boolean {
  switch (e.kind) {
    case 'num':
    case 'string':
    case 'id':
      return true;
    case 'binary':
      return pure(e.left) && pure(e.right);
    case 'unary':
      return e.op !== '++' && e.op !== '--' && e.op !== 'post++' && e.op !== 'post--' && pure(e.arg);
    case 'cond':
      return pure(e.test) && pure(e.then) && pure(e.else);
    case 'member':
      return pure(e.object);
    case 'method':
      return pure(e.object) && e.args.every(pure);
    case 'index':
      return pure(e.object) && e.indices.every(pure);
    case 'list':
      return e.items.every(pure);
    default:
      return false;
  }
}

function numLiteral(e: Extract<CoExpr, { kind: 'num' }>): Sc {
  const t = e.text.replace(/'/g, '');
  const hex = /^0[xXbB]/.test(t);
  if (!hex && (/[.eE]/.test(t) || /[fF]$/.test(t))) return new Sc(/[fF]$/.test(t) ? Math.fround(e.value) : e.value, /[fF]$/.test(t) ? 'f32' : 'f64');
  if (/[uU]/.test(t)) return new Sc(e.value, /[lL]/.test(t) ? 'u64' : 'u32');
  if (/[lL]/.test(t) || e.value > 0x7fffffff) return new Sc(e.value, 's64');
  return new Sc(e.value, 's32');
}

export abstract class ExpressionEvaluator {
  protected readonly locs = new WeakMap<object, SourceLoc>();
  protected readonly defineCache = new Map<string, Value | null>();
  protected readonly compiled = new WeakMap<CoExpr, CompiledExpr>();

  constructor(readonly o: InterpOptions) {}

  line(span: { start: number }): number {
    return this.o.lines.position(span.start).line;
  }

  loc(node: { span: { start: number; end: number } }, func: string): SourceLoc {
    let l = this.locs.get(node);
    if (!l) {
      const range = this.o.lines.range(node.span);
      l = { line: range.start.line, character: range.start.character, range, func };
      this.locs.set(node, l);
    }
    return l;
  }

  err(msg: string, node: { span: { start: number; end: number } }, ctx: Ctx, kind: 'error' | 'unsupported' | 'oob' = 'error'): SimError {
    return new SimError(msg, this.loc(node, ctx.func), kind);
  }

  text(e: CoExpr): string {
    return this.o.text.slice(e.span.start, e.span.end).replace(/\s+/g, ' ');
  }

  /** Per-thread occurrence number of a statement site (collective operations match on it). */
  occurrence(ctx: Ctx, site: number): number {
    const d = ctx.dev!;
    const sites = (d.sites ??= new Map());
    const k = (sites.get(site) ?? 0) + 1;
    sites.set(site, k);
    return k;
  }

  /** Writes `v` to an lvalue: a variable, `x.at(i…)`, `x[i]`. */
  store(target: CoExpr, v: Value, ctx: Ctx): void {
    if (target.kind === 'id') {
      this.storeVar(target.name, v, ctx);
      return;
    }
    const el = this.elementRef(target, ctx);
    if (!el) throw this.err(`cannot assign to ${this.text(target)}`, target, ctx);
    const x = scalarOf(v, () => this.text(target));
    this.touch(ctx, el.view, el.off, true);
    writeElement(el.view, el.off, x.v);
  }

  /** Writes `v` to the variable `name`: where it lives (not through a frozen scope), else a new one here. */
  storeVar(name: string, v: Value, ctx: Ctx): void {
    // Env.owner and the owner's value in one walk.
    let owner: Env | undefined;
    let old: Value | undefined;
    for (let e: Env | undefined = ctx.env; e !== undefined; e = e.parent) {
      if (e.frozen) break;
      old = e.vars.get(name);
      if (old !== undefined) {
        owner = e;
        break;
      }
    }
    if (old instanceof View && v instanceof View && old !== v && old.buf.space !== 'local') {
      // Assigning a tensor to a declared tensor copies the elements (co-mock does a memcpy).
      copyView(v, old);
      return;
    }
    if (old instanceof Sc && v instanceof Sc && old.t !== v.t && old.t !== 'bool') v = castTo(old.t, v);
    else if (v instanceof Sc && v.ub !== undefined) v = new Sc(v.v, v.t);
    (owner ?? ctx.env).vars.set(name, v);
  }

  /** `x.at(i, j)` / `x[i]` / `f.data.at(i)` as an element reference, or undefined for other forms. */
  elementRef(e: CoExpr, ctx: Ctx): { view: View; off: number } | undefined {
    if (e.kind === 'method' && e.name === 'at') {
      const base = this.ev(e.object, ctx);
      const view = base instanceof Future ? this.futureData(base, e, ctx) : base;
      if (!(view instanceof View)) return undefined;
      return { view, off: this.offsetAt(view, e.args, e, ctx) };
    }
    if (e.kind === 'index') {
      const base = this.ev(e.object, ctx);
      if (base instanceof View) return { view: base, off: this.offsetAt(base, e.indices, e, ctx) };
    }
    return undefined;
  }

  /**
   * offsetAt with compiled index expressions. `ks` is the call site's own scratch array (evaluation
   * of one site never nests in itself); plain in-bounds integer indices are resolved here, anything
   * else (i-tuples, out-of-bounds, errors) goes through elementOffset exactly as offsetAt does.
   */
  protected offsetOf(view: View, args: CompiledExpr[], node: CoExpr & { args: CoExpr[] }, ctx: Ctx, ks: number[], pre0?: Value, pre1?: Value): number {
    const n = args.length;
    let dyn: number[] | undefined;
    for (let i = 0; i < n; i++) {
      // pre0 / pre1: the first indices, already evaluated by offsetOf2.
      const v = i === 0 && pre0 !== undefined ? pre0 : i === 1 && pre1 !== undefined ? pre1 : args[i](ctx);
      let k: number;
      if (v instanceof Sc && !isFloat(v.t)) k = v.v;
      else if (v instanceof Tuple) {
        if (!dyn) dyn = ks.slice(0, i);
        for (const it of v.items) dyn.push(it.v);
        continue;
      } else k = this.intOf(v, node.args[i], ctx);
      if (dyn) dyn.push(k);
      else ks[i] = k;
    }
    if (!dyn) {
      const shape = view.shape;
      if (n <= shape.length) {
        let off = view.off;
        let i = 0;
        for (; i < n; i++) {
          const k = ks[i];
          if (!(Number.isInteger(k) && k >= 0 && k < shape[i])) break;
          off += k * view.strides[i];
        }
        if (i === n) return off;
      }
      dyn = ks.slice(0, n);
    }
    try {
      return elementOffset(view, dyn);
    } catch (err) {
      if (err instanceof SimError) throw this.err(err.message, node, ctx, 'oob');
      throw err;
    }
  }

  /**
   * offsetOf for two indices (`t.at(i, j)`, the common case in loops): two in-bounds s32 indices are resolved
   * here; anything else continues in offsetOf with the values already computed (each index is evaluated once,
   * in order, and a bad first index is reported before the second is evaluated, as offsetOf does).
   */
  protected offsetOf2(view: View, args: CompiledExpr[], node: CoExpr & { args: CoExpr[] }, ctx: Ctx, ks: number[]): number {
    const v0 = args[0](ctx);
    if (!(v0 instanceof Sc) || v0.t !== 's32') return this.offsetOf(view, args, node, ctx, ks, v0);
    const v1 = args[1](ctx);
    if (v1 instanceof Sc && v1.t === 's32') {
      const shape = view.shape;
      const k0 = v0.v;
      const k1 = v1.v;
      // (k | 0) === k: an integer (extents are far below 2³¹).
      if (shape.length >= 2 && (k0 | 0) === k0 && k0 >= 0 && k0 < shape[0] && (k1 | 0) === k1 && k1 >= 0 && k1 < shape[1]) {
        return view.off + k0 * view.strides[0] + k1 * view.strides[1];
      }
    }
    return this.offsetOf(view, args, node, ctx, ks, v0, v1);
  }

  protected offsetAt(view: View, args: CoExpr[], node: CoExpr, ctx: Ctx): number {
    const idx: number[] = [];
    for (const a of args) {
      const v = this.ev(a, ctx);
      if (v instanceof Tuple) for (const it of v.items) idx.push(it.v);
      else idx.push(this.intOf(v, a, ctx));
    }
    try {
      return elementOffset(view, idx);
    } catch (err) {
      if (err instanceof SimError) throw this.err(err.message, node, ctx, 'oob');
      throw err;
    }
  }

  /** Race-detector hook for an element access by a device thread. */
  touch(ctx: Ctx, view: View, off: number, write: boolean): void {
    const d = ctx.dev;
    if (d && view.buf.space === 'shared') {
      const es = sizeOf(view.dtype);
      d.m.access(d.t, view.buf, off * es, es, write);
    }
  }

  /** Race-detector hook for a whole view (copies, MMA operands). */
  touchView(ctx: Ctx, view: View, write: boolean): void {
    const d = ctx.dev;
    if (d && view.buf.space === 'shared') for (const [o, n] of runsOf(view)) d.m.access(d.t, view.buf, o, n, write);
  }

  // ------------------------------------------------------------------ expressions

  intOf(v: Value, node: CoExpr | CoStmt, ctx: Ctx): number {
    if (v instanceof Sc) {
      if (isFloat(v.t)) throw this.err(`expected an integer but found ${describeValue(v)}`, node, ctx);
      return v.v;
    }
    if (v instanceof Tuple && v.items.length === 1) return v.items[0].v;
    throw this.err(`expected an integer but found ${describeValue(v)}`, node, ctx);
  }

  protected defineValue(name: string, ctx: Ctx): Value | undefined {
    const hit = this.defineCache.get(name);
    if (hit !== undefined) return hit ?? undefined;
    const text = this.o.file.defines.get(name);
    if (text === undefined) return undefined;
    this.defineCache.set(name, null); // recursion guard
    const expr = parseCoExpression(text);
    let v: Value | undefined;
    if (expr) {
      try {
        v = this.ev(expr, { env: new Env(), loops: [], func: ctx.func });
      } catch {
        v = undefined;
      }
    }
    this.defineCache.set(name, v ?? null);
    return v;
  }

  lookup(name: string, node: CoExpr, ctx: Ctx): Value {
    const v = ctx.env.lookup(name) ?? this.defineValue(name, ctx);
    if (v === undefined) throw this.err(`'${name}' is not defined`, node, ctx);
    return v;
  }

  /** Evaluates an expression. `target` names the variable an assignment defines (for buffer names). */
  ev(e: CoExpr, ctx: Ctx, target?: string): Value {
    if (target !== undefined && (e.kind === 'dma' || e.kind === 'mma')) return this.evSlow(e, ctx, target);
    let f = this.compiled.get(e);
    if (f === undefined) this.compiled.set(e, (f = this.compile(e)));
    return f(ctx);
  }

  // Expressions are compiled once into closures (children resolved, literals folded, the hot
  // forms — variables, arithmetic, element reads — specialised); the rarer forms call evSlow, whose
  // sub-expressions come back through ev and so are compiled too. Same values, same errors.
  protected compile(e: CoExpr): CompiledExpr {
    switch (e.kind) {
      case 'num': {
        const v = numLiteral(e);
        return () => v;
      }
      case 'string': {
        const v = unquote(e.text);
        return () => v;
      }
      case 'id': {
        if (e.name === 'true' || e.name === 'false') {
          const v = bool(e.name === 'true');
          return () => v;
        }
        const name = e.name;
        // An inline cache per use site: the scope the last lookup started from and where the name was
        // found (a scope's variables and the value's position there). It holds while that scope is current
        // and has gained no name since (same `gen` and `count`: between clears scopes only grow, and only
        // the running scope gains names — the scopes around it run no statements until it is left, and a
        // left scope never runs again) and the owner was not cleared: then the full walk would find the
        // same entry. A value found behind a frozen scope (the host's, seen from a device thread) cannot
        // change during the launch, so it is cached itself.
        let icEnv: Env | undefined;
        let icCount = 0;
        let icGen = 0;
        let icOwner: Vars | undefined;
        let icOwnerGen = 0;
        let icSlot = 0;
        let icValue: Value | undefined;
        return (ctx) => {
          const env = ctx.env;
          const vs = env.vars;
          if (env === icEnv && vs.count === icCount && vs.gen === icGen) {
            if (icValue !== undefined) return icValue;
            if (icOwner!.gen === icOwnerGen) return icOwner!.kv[icSlot] as Value;
          }
          let frozen = false;
          for (let p: Env | undefined = env; p !== undefined; p = p.parent) {
            const pv = p.vars;
            const i = pv.find(name);
            if (i >= 0) {
              const v = pv.kv[i] as Value;
              icEnv = env;
              icCount = vs.count;
              icGen = vs.gen;
              icOwner = pv;
              icOwnerGen = pv.gen;
              icSlot = i;
              icValue = frozen || p.frozen ? v : undefined;
              return v;
            }
            if (p.frozen) frozen = true;
          }
          return this.lookup(name, e, ctx);
        };
      }
      case 'binary': {
        const l = this.sub(e.left);
        const r = this.sub(e.right);
        const op = e.op;
        if (op === '&&' || op === '||') {
          const and = op === '&&';
          return (ctx) => {
            const x = truthy(l(ctx));
            if (and ? !x : x) return bool(x);
            return bool(truthy(r(ctx)));
          };
        }
        if (op === '#') {
          return (ctx) => {
            const a = l(ctx);
            const b = r(ctx);
            if (a instanceof Sc && b instanceof Sc && b.ub !== undefined) return int(a.v * b.ub + b.v, a.ub !== undefined ? a.ub * b.ub : undefined);
            return this.binaryValues(e, a, b, ctx);
          };
        }
        const int32 = INT32_OPS[op];
        return (ctx) => {
          const a = l(ctx);
          const b = r(ctx);
          if (a instanceof Sc && b instanceof Sc) {
            // s32 with s32 (loop arithmetic, indices): what binaryOp computes, without its dispatch.
            if (int32 !== undefined && a.t === 's32' && b.t === 's32') {
              const r = int32(a.v, b.v);
              if (r !== undefined) return r;
            }
            try {
              return binaryOp(op, a, b);
            } catch (err) {
              if (err instanceof SimError) throw this.err(err.message, e, ctx);
              throw err;
            }
          }
          return this.binaryValues(e, a, b, ctx);
        };
      }
      case 'cond': {
        const t = this.sub(e.test);
        const a = this.sub(e.then);
        const b = this.sub(e.else);
        return (ctx) => (truthy(t(ctx)) ? a(ctx) : b(ctx));
      }
      case 'method': {
        if (e.name !== 'at') break;
        const obj = this.sub(e.object);
        const args = e.args.map((a) => this.sub(a));
        const two = args.length === 2;
        const scratch: number[] = [];
        return (ctx) => {
          const base = obj(ctx);
          if (!(base instanceof View)) return this.methodOn(e, base, ctx);
          const off = two ? this.offsetOf2(base, args, e, ctx, scratch) : this.offsetOf(base, args, e, ctx, scratch);
          this.touch(ctx, base, off, false);
          const dt = base.dtype;
          return dt === 's32' ? s32(readElement(base, off)) : new Sc(readElement(base, off), dt);
        };
      }
      case 'member': {
        const obj = this.sub(e.object);
        return (ctx) => this.memberOn(e, obj(ctx), ctx);
      }
    }
    return (ctx) => this.evSlow(e, ctx);
  }

  protected sub(e: CoExpr): CompiledExpr {
    let f = this.compiled.get(e);
    if (f === undefined) this.compiled.set(e, (f = this.compile(e)));
    return f;
  }

  protected evSlow(e: CoExpr, ctx: Ctx, target?: string): Value {
    switch (e.kind) {
      case 'num':
        return numLiteral(e);
      case 'string':
        return unquote(e.text);
      case 'id':
        if (e.name === 'true' || e.name === 'false') return bool(e.name === 'true');
        return this.lookup(e.name, e, ctx);
      case 'binary':
        return this.binary(e, ctx);
      case 'unary':
        return this.unary(e, ctx);
      case 'cond':
        return truthy(this.ev(e.test, ctx)) ? this.ev(e.then, ctx) : this.ev(e.else, ctx);
      case 'list': {
        const items: Sc[] = [];
        for (const it of e.items) {
          const v = this.ev(it, ctx);
          if (v instanceof Tuple) items.push(...v.items);
          else items.push(scalarOf(v, () => this.text(it)));
        }
        return new Tuple(items);
      }
      case 'member':
        return this.member(e, ctx);
      case 'method':
        return this.method(e, ctx);
      case 'index':
        return this.index(e, ctx);
      case 'call':
        return this.call(e, ctx);
      case 'dma': {
        const v = this.dma(e, ctx, target);
        if (v instanceof Future && v.line === undefined) v.line = this.line(e.span);
        return v;
      }
      case 'mma':
        return this.mmaExpr(e, ctx, target);
      case 'opaque':
        throw this.err(`expression '${e.text.slice(0, 40)}'`, e, ctx, 'unsupported');
    }
  }

  protected binary(e: Extract<CoExpr, { kind: 'binary' }>, ctx: Ctx): Value {
    if (e.op === '&&' || e.op === '||') {
      const l = truthy(this.ev(e.left, ctx));
      if (e.op === '&&' ? !l : l) return bool(l);
      return bool(truthy(this.ev(e.right, ctx)));
    }
    return this.binaryValues(e, this.ev(e.left, ctx), this.ev(e.right, ctx), ctx);
  }

  protected binaryValues(e: Extract<CoExpr, { kind: 'binary' }>, a: Value, b: Value, ctx: Ctx): Value {
    if (e.op === '#') {
      // Index composition `px#qx`: px * #qx + qx, bounded by #px * #qx.
      const x = scalarOf(a, () => this.text(e.left));
      const y = scalarOf(b, () => this.text(e.right));
      if (y.ub === undefined) throw this.err(`'#' composition needs a bounded right operand, ${this.text(e.right)} has no bound`, e, ctx);
      return int(x.v * y.ub + y.v, x.ub !== undefined ? x.ub * y.ub : undefined);
    }
    if (a instanceof Tuple || b instanceof Tuple) {
      // Element-wise on shapes: `input.span / {4, 1, 5}`, `shape + 6`.
      const xs = a instanceof Tuple ? a.items : undefined;
      const ys = b instanceof Tuple ? b.items : undefined;
      const n = xs?.length ?? ys!.length;
      if (xs && ys && xs.length !== ys.length) throw this.err(`i-tuples of different lengths (${xs.length} and ${ys.length})`, e, ctx);
      const out: Sc[] = [];
      for (let i = 0; i < n; i++) out.push(binaryOp(e.op, xs ? xs[i] : scalarOf(a, () => this.text(e.left)), ys ? ys[i] : scalarOf(b, () => this.text(e.right))));
      return new Tuple(out);
    }
    if (!(a instanceof Sc) || !(b instanceof Sc)) throw this.err(`operator '${e.op}' on ${describeValue(a)} and ${describeValue(b)}`, e, ctx);
    try {
      return binaryOp(e.op, a, b);
    } catch (err) {
      if (err instanceof SimError) throw this.err(err.message, e, ctx);
      throw err;
    }
  }

  protected unary(e: Extract<CoExpr, { kind: 'unary' }>, ctx: Ctx): Value {
    switch (e.op) {
      case '#': {
        const v = this.ev(e.arg, ctx);
        if (v instanceof Tuple) return new Tuple(v.items.map((x) => int(this.ubOf(x, e, ctx))));
        return int(this.ubOf(scalarOf(v, () => this.text(e.arg)), e, ctx));
      }
      case 'sizeof': {
        if (e.arg.kind === 'id') {
          const dt = dtypeOf(e.arg.name);
          if (dt && !ctx.env.lookup(e.arg.name)) return int(sizeOf(dt.dtype));
        }
        const v = this.ev(e.arg, ctx);
        if (v instanceof Tuple) return int(v.items.reduce((a, b) => a * b.v, 1));
        if (v instanceof View) return int(v.size * sizeOf(v.dtype));
        if (v instanceof Future && v.data) return int(v.data.size * sizeOf(v.data.dtype));
        throw this.err(`|…| of ${describeValue(v)}`, e, ctx);
      }
      case '++':
      case '--':
      case 'post++':
      case 'post--': {
        const old = scalarOf(this.ev(e.arg, ctx), () => this.text(e.arg));
        const nv = binaryOp(e.op.endsWith('+') ? '+' : '-', old, int(1));
        this.store(e.arg, nv, ctx);
        return e.op.startsWith('post') ? old : nv;
      }
    }
    const v = scalarOf(this.ev(e.arg, ctx), () => this.text(e.arg));
    switch (e.op) {
      case '-':
        return isFloat(v.t) ? new Sc(-v.v, v.t) : binaryOp('-', new Sc(0, v.t), v);
      case '+':
        return v;
      case '!':
        return bool(v.v === 0);
      case '~':
        return new Sc(coerce(v.t, ~v.v), v.t);
    }
    throw this.err(`unary operator '${e.op}'`, e, ctx, 'unsupported');
  }

  protected ubOf(x: Sc, node: CoExpr, ctx: Ctx): number {
    if (x.ub === undefined) throw this.err(`'#' needs a bounded variable (a parallel, foreach or with index)`, node, ctx);
    return x.ub;
  }

  protected futureData(f: Future, node: CoExpr, ctx: Ctx): View {
    if (!f.data) throw this.err(f.placeholder ? `'.data' of a dma.any placeholder (${f.label})` : `'.data' of an operation future (${f.label})`, node, ctx);
    return f.data;
  }

  protected member(e: Extract<CoExpr, { kind: 'member' }>, ctx: Ctx): Value {
    return this.memberOn(e, this.ev(e.object, ctx), ctx);
  }

  protected memberOn(e: Extract<CoExpr, { kind: 'member' }>, base: Value, ctx: Ctx): Value {
    const view = base instanceof Future ? (e.name === 'data' || e.name === 'mdata' || e.name === 'span' ? this.futureData(base, e, ctx) : undefined) : base;
    switch (e.name) {
      case 'data':
      case 'mdata':
        if (view instanceof View) return view;
        break;
      case 'span':
        if (view instanceof View) return new Tuple(view.shape.map((d) => int(d)));
        if (view instanceof Tuple) return view;
        break;
    }
    throw this.err(`'.${e.name}' of ${describeValue(base)}`, e, ctx, 'unsupported');
  }

  protected evArgsFlat(args: CoExpr[], ctx: Ctx): Sc[] {
    const out: Sc[] = [];
    for (const a of args) {
      if (a.kind === 'id' && a.name === '_') {
        out.push(new Sc(-1, 's32')); // wildcard marker
        continue;
      }
      const v = this.ev(a, ctx);
      if (v instanceof Tuple) out.push(...v.items);
      else out.push(scalarOf(v, () => this.text(a)));
    }
    return out;
  }

  protected method(e: Extract<CoExpr, { kind: 'method' }>, ctx: Ctx): Value {
    return this.methodOn(e, this.ev(e.object, ctx), ctx);
  }

  protected methodOn(e: Extract<CoExpr, { kind: 'method' }>, base: Value, ctx: Ctx): Value {
    if (base instanceof EventRef) {
      if (e.name !== 'at') throw this.err(`'.${e.name}' on an event`, e, ctx, 'unsupported');
      if (base.ev.length === 0) throw this.err(`'.at(order)' requires an event array; '${base.ev.name}' is a scalar event`, e, ctx);
      if (e.args.length !== 1) throw this.err(`'.at(order)' takes one order`, e, ctx);
      const order = this.intOf(this.ev(e.args[0], ctx), e.args[0], ctx);
      if (order < 0) throw this.err(`event order ${order} is negative`, e, ctx);
      return new EventRef(base.ev, order % base.ev.length, order);
    }
    if (base instanceof Future && e.name !== 'at') base = this.futureData(base, e, ctx);
    if (base instanceof PendingView) return this.finishPending(base, e, ctx);
    if (base instanceof Tuple) {
      if (e.name === 'at' || e.name === 'span') {
        const i = this.intOf(this.ev(e.args[0], ctx), e, ctx);
        if (i < 0 || i >= base.items.length) throw this.err(`index ${i} is out of bounds for an i-tuple of ${base.items.length}`, e, ctx, 'oob');
        return base.items[i];
      }
      throw this.err(`'.${e.name}' on an i-tuple`, e, ctx, 'unsupported');
    }
    if (base instanceof Future) base = this.futureData(base, e, ctx);
    if (!(base instanceof View)) throw this.err(`'.${e.name}(…)' on ${describeValue(base)}`, e, ctx);
    const v = base;
    switch (e.name) {
      case 'at': {
        const off = this.offsetAt(v, e.args, e, ctx);
        this.touch(ctx, v, off, false);
        return new Sc(readElement(v, off), v.dtype);
      }
      case 'span': {
        const d = this.intOf(this.ev(e.args[0], ctx), e, ctx);
        if (d < 0 || d >= v.shape.length) throw this.err(`span(${d}) of a ${v.shape.length}-dimensional tensor`, e, ctx, 'oob');
        return int(v.shape[d]);
      }
      case 'chunkat': {
        const args = this.evArgsFlat(e.args, ctx);
        if (args.length !== v.shape.length) throw this.err(`chunkat with ${args.length} indices on a ${v.shape.length}-dimensional tensor [${v.shape.join(', ')}]`, e, ctx);
        const ext: number[] = [];
        const at: number[] = [];
        args.forEach((a, d) => {
          if (a.v === -1 && a.ub === undefined) {
            ext.push(v.shape[d]);
            at.push(0);
            return;
          }
          if (a.ub === undefined) throw this.err(`chunkat needs bounded indices (parallel, foreach or with variables); argument ${d + 1} has no bound`, e, ctx);
          if (v.shape[d] % a.ub !== 0) throw this.err(`chunkat: dimension ${d} of extent ${v.shape[d]} does not divide into ${a.ub} chunks`, e, ctx);
          ext.push(v.shape[d] / a.ub);
          at.push(a.v);
        });
        return this.window(v, ext, at.map((a, d) => a * ext[d]), e, ctx);
      }
      case 'subspan':
      case 'chunk':
      case 'view': {
        const args = e.args.filter((a) => a.kind !== 'opaque');
        const vals = this.evArgsFlat(args, ctx);
        if (vals.length !== v.shape.length) throw this.err(`${e.name} with ${vals.length} extents on a ${v.shape.length}-dimensional tensor`, e, ctx);
        if (e.name === 'chunk') {
          const ext = vals.map((c, d) => {
            if (c.v <= 0 || v.shape[d] % c.v !== 0) throw this.err(`chunk: dimension ${d} of extent ${v.shape[d]} does not divide into ${c.v} chunks`, e, ctx);
            return v.shape[d] / c.v;
          });
          return new PendingView('chunk', v, ext);
        }
        const ext = vals.map((c, d) => (c.v === -1 && c.ub === undefined ? v.shape[d] : c.v));
        if (e.name === 'view' && e.args.some((a) => a.kind === 'opaque')) throw this.err('view(…) with explicit strides', e, ctx, 'unsupported');
        return new PendingView(e.name === 'view' ? 'window' : 'subspan', v, ext);
      }
      case 'span_as': {
        const shape = this.evArgsFlat(e.args, ctx).map((x) => x.v);
        if (!v.contiguous) throw this.err('span_as on a non-contiguous view', e, ctx);
        if (shape.reduce((a, b) => a * b, 1) !== v.size) throw this.err(`span_as([${shape.join(', ')}]) does not keep the ${v.size} elements of [${v.shape.join(', ')}]`, e, ctx);
        return new View(v.buf, v.dtype, v.off, shape, contiguousStrides(shape), v.declared);
      }
    }
    throw this.err(`'.${e.name}(…)'`, e, ctx, 'unsupported');
  }

  protected finishPending(p: PendingView, e: Extract<CoExpr, { kind: 'method' }>, ctx: Ctx): Value {
    const vals = this.evArgsFlat(e.args, ctx).map((x) => x.v);
    if (e.name === 'step' && p.kind === 'subspan') {
      if (vals.length !== p.ext.length) throw this.err(`step with ${vals.length} values for ${p.ext.length} dimensions`, e, ctx);
      return new PendingView('subspan', p.base, p.ext, vals);
    }
    if ((e.name === 'at' && p.kind !== 'window') || (e.name === 'from' && p.kind === 'window')) {
      if (vals.length !== p.ext.length) throw this.err(`.${e.name} with ${vals.length} coordinates for ${p.ext.length} dimensions`, e, ctx);
      const start = p.kind === 'window' ? vals : vals.map((k, d) => k * (p.step ? p.step[d] : p.ext[d]));
      return this.window(p.base, p.ext, start, e, ctx);
    }
    throw this.err(`'.${e.name}' after '.${p.kind === 'window' ? 'view' : p.kind}(…)'`, e, ctx, 'unsupported');
  }

  protected window(v: View, ext: number[], start: number[], node: CoExpr, ctx: Ctx): View {
    let off = v.off;
    for (let d = 0; d < ext.length; d++) {
      if (start[d] < 0 || ext[d] < 0 || start[d] + ext[d] > v.shape[d]) {
        throw this.err(`tile [${start.map((s, i) => `${s}..${s + ext[i] - 1}`).join(', ')}] is outside '${v.buf.name}' [${v.shape.join(', ')}] (dimension ${d})`, node, ctx, 'oob');
      }
      off += start[d] * v.strides[d];
    }
    return new View(v.buf, v.dtype, off, ext, v.strides.slice(), v.declared);
  }

  protected index(e: Extract<CoExpr, { kind: 'index' }>, ctx: Ctx): Value {
    const base = this.ev(e.object, ctx);
    const pick = (n: number, what: string): number => {
      if (e.indices.length !== 1) throw this.err(`${what} takes one index`, e, ctx);
      const i = this.intOf(this.ev(e.indices[0], ctx), e.indices[0], ctx);
      if (i < 0 || i >= n) throw this.err(`index ${i} is out of bounds for ${what} of ${n}`, e, ctx, 'oob');
      return i;
    };
    if (base instanceof ViewArray) return base.items[pick(base.items.length, `'${base.name}'`)];
    if (base instanceof EventRef) {
      if (base.ev.length === 0) throw this.err(`'${base.ev.name}' is a scalar event`, e, ctx);
      return new EventRef(base.ev, pick(base.ev.length, `the event array '${base.ev.name}'`));
    }
    if (base instanceof View) {
      const off = this.offsetAt(base, e.indices, e, ctx);
      this.touch(ctx, base, off, false);
      return new Sc(readElement(base, off), base.dtype);
    }
    if (base instanceof Tuple) return base.items[pick(base.items.length, 'an i-tuple')];
    throw this.err(`indexing ${describeValue(base)}`, e, ctx);
  }

  protected call(e: Extract<CoExpr, { kind: 'call' }>, ctx: Ctx): Value {
    const name = e.callee.startsWith('__') && e.callee !== '__to' ? e.callee.slice(2) : e.callee;
    const args = () => e.args.map((a) => this.ev(a, ctx));
    const num = (i: number): Sc => scalarOf(this.ev(e.args[i], ctx), `argument ${i + 1} of ${e.callee}`);
    const need = (n: number) => {
      if (e.args.length < n) throw this.err(`${e.callee} needs ${n} argument(s)`, e, ctx);
    };
    switch (name) {
      case 'print':
      case 'println':
      case 'print!':
      case 'println!': {
        const parts = args().map((v) => (typeof v === 'string' ? v : v instanceof Sc ? formatScalar(v) : v instanceof Future ? `<future: ${v.op && !v.op.done ? 'pending' : 'completed'}>` : v instanceof Tuple ? `{${v.items.map(formatScalar).join(', ')}}` : v instanceof View ? `<${v.buf.space} ${v.dtype}[${v.shape.join(', ')}]>` : describeValue(v)));
        this.o.print(parts.join(' ') + (name.startsWith('println') ? '\n' : ''), ctx.dev?.t);
        return int(0);
      }
      case 'assert': {
        need(1);
        if (!truthy(this.ev(e.args[0], ctx))) {
          const msg = e.args[1] ? this.ev(e.args[1], ctx) : undefined;
          throw this.err(`assertion failed: ${this.text(e.args[0])}${typeof msg === 'string' ? ` (${msg})` : ''}`, e, ctx);
        }
        return int(0);
      }
      case 'cdiv': {
        need(2);
        const a = num(0);
        const b = num(1);
        if (b.v === 0) throw this.err('cdiv by zero', e, ctx);
        return int(Math.floor((a.v + b.v - 1) / b.v));
      }
      case 'min':
      case 'max': {
        need(2);
        const a = num(0);
        const b = num(1);
        const pickA = name === 'min' ? a.v < b.v : a.v > b.v;
        const t = isFloat(a.t) || isFloat(b.t) ? (isFloat(a.t) ? a.t : b.t) : a.t;
        return new Sc(pickA ? a.v : b.v, t);
      }
      case 'abs': {
        const a = num(0);
        return new Sc(Math.abs(a.v), a.t);
      }
      case 'alignup':
      case 'aligndown': {
        need(2);
        const v = num(0).v;
        const a = num(1).v;
        if (a <= 0) return int(v);
        return int(name === 'alignup' ? Math.ceil(v / a) * a : Math.floor(v / a) * a);
      }
      case 'isfinite':
        return bool(Number.isFinite(num(0).v));
      case 'pow':
      case 'atan2': {
        need(2);
        const a = num(0).v;
        const b = num(1).v;
        return new Sc(name === 'pow' ? a ** b : Math.atan2(a, b), 'f64');
      }
      case 'fmaf':
        need(3);
        return new Sc(num(0).v * num(1).v + num(2).v, 'f64');
      case '__to': {
        const t = e.typeArgs?.[0];
        const dt = t ? dtypeOf(t) : undefined;
        if (!dt) throw this.err(`__to<${t ?? ''}>`, e, ctx, 'unsupported');
        return castTo(dt.dtype, num(0));
      }
      case 'select': {
        need(2);
        const k = num(0).v;
        if (!Number.isInteger(k) || k < 0 || k >= e.args.length - 1) throw this.err(`the select factor ${k} is not in bound [0, ${e.args.length - 1})`, e, ctx, 'oob');
        return this.ev(e.args[k + 1], ctx);
      }
      case 'copy': {
        need(2);
        const [dst, src] = args();
        if (!(dst instanceof View) || !(src instanceof View)) throw this.err('copy(dst, src) needs two tensors', e, ctx);
        this.touchView(ctx, src, false);
        this.touchView(ctx, dst, true);
        copyView(src, dst);
        return int(0);
      }
      case 'reduce_sum':
      case 'reduce_max': {
        need(3);
        const [dst, src] = args();
        const dim = num(2).v;
        if (!(dst instanceof View) || !(src instanceof View) || src.shape.length !== 2) throw this.err(`${name}(dst, src, dim) needs a 2-D source tensor`, e, ctx);
        if (dim !== 0 && dim !== 1) throw this.err(`${name} over dimension ${dim}`, e, ctx, 'unsupported');
        const [rows, cols] = src.shape;
        const data = readAll(src);
        const n = dim === 1 ? rows : cols;
        const out: number[] = [];
        for (let i = 0; i < n; i++) {
          let acc = name === 'reduce_sum' ? 0 : -Infinity;
          const len = dim === 1 ? cols : rows;
          for (let k = 0; k < len; k++) {
            const x = dim === 1 ? data[i * cols + k] : data[k * cols + i];
            acc = name === 'reduce_sum' ? acc + x : Math.max(acc, x);
          }
          out.push(acc);
        }
        if (dst.size < n) throw this.err(`${name}: destination holds ${dst.size} elements, the reduction gives ${n}`, e, ctx);
        let i = 0;
        forEachElement(dst, (off) => {
          if (i < n) writeElement(dst, off, out[i++]);
        });
        return int(0);
      }
      case 'all_reduce_sum':
        // The simulator holds whole logical fragments, so the cross-thread reduction is already done.
        return int(0);
      case 'swap':
      case 'rotate':
        throw this.err(`${name} must be a statement`, e, ctx);
    }
    if (name.startsWith('atomic_')) return this.atomic(name.slice(7), e, ctx);
    const f = MATH1[name];
    if (f) {
      need(1);
      return new Sc(f(num(0).v), 'f64');
    }
    throw this.err(`function '${e.callee}'`, e, ctx, 'unsupported');
  }

  protected atomic(op: string, e: Extract<CoExpr, { kind: 'call' }>, ctx: Ctx): Value {
    if (e.args.length < 2) throw this.err(`__atomic_${op} needs a target and an operand`, e, ctx);
    const target = e.args[0];
    const old = scalarOf(this.ev(target, ctx), () => this.text(target));
    const x = scalarOf(this.ev(e.args[1], ctx), 'atomic operand');
    let nv: Sc;
    switch (op) {
      case 'add':
        nv = binaryOp('+', old, x);
        break;
      case 'sub':
        nv = binaryOp('-', old, x);
        break;
      case 'max':
        nv = old.v >= x.v ? old : new Sc(x.v, old.t);
        break;
      case 'min':
        nv = old.v <= x.v ? old : new Sc(x.v, old.t);
        break;
      case 'and':
        nv = binaryOp('&', old, x);
        break;
      case 'or':
        nv = binaryOp('|', old, x);
        break;
      case 'xor':
        nv = binaryOp('^', old, x);
        break;
      case 'exch':
        nv = new Sc(x.v, old.t);
        break;
      case 'cas': {
        const desired = e.args[2] ? scalarOf(this.ev(e.args[2], ctx), 'cas value') : old;
        nv = old.v === x.v ? new Sc(desired.v, old.t) : old;
        break;
      }
      default:
        throw this.err(`__atomic_${op}`, e, ctx, 'unsupported');
    }
    this.store(target, nv, ctx);
    return old;
  }

  /** A copy (`dma`/`tma`), implemented by the async layer. */
  protected abstract dma(e: Extract<CoExpr, { kind: 'dma' }>, ctx: Ctx, target?: string): Value;
  /** An MMA operation used as a value, implemented by the async layer. */
  protected abstract mmaExpr(e: Extract<CoExpr, { kind: 'mma' }>, ctx: Ctx, target?: string): Value;
}
