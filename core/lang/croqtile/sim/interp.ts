// The Croqtile statement/expression interpreter shared by host code (run directly, sequentially)
// and device threads (run on the Machine). Statements run as generators so a device thread can be
// suspended at any wait and resumed by the machine (loop bodies that cannot block run inline, without
// a nested generator); expressions are compiled once per AST node into closures. Device-only
// behaviour (events, async copies, MMA timing, race hooks, the thread structure of nested
// `parallel`) asks the launch (./launch.ts) through the `Device` part of the context, which also
// keeps what a debugger shows: the constructs a thread is inside (`frames`) and its current scope.
// Host code yields only at an outermost `parallel`, to let its runner (./index.ts) run the launch.
import type { CoExpr, CoFile, CoStmt } from '../ast';
import type { LineIndex } from '../positions';
import { parseCoExpression } from '../parse/expressions';
import { type DType, coerce, isFloat, sizeOf } from '../../../sim/dtypes';
import { type AsyncOp, type Machine, SimError, type SimThread, type SourceLoc } from '../../../sim/machine';
import { Buffer } from '../../../sim/memory';
import {
  binaryOp,
  bool,
  castTo,
  contiguousStrides,
  copyView,
  describeValue,
  dtypeOf,
  elementOffset,
  type EventObj,
  EventRef,
  forEachElement,
  formatScalar,
  Future,
  int,
  PendingView,
  readAll,
  readElement,
  runsOf,
  Sc,
  scalarOf,
  truthy,
  Tuple,
  type Value,
  View,
  ViewArray,
  writeAll,
  writeElement,
} from './values';

type CompiledExpr = (ctx: Ctx) => Value;

/** Raised by host code that ran past the step budget. */
export class HostStepLimit extends Error {}

export class Env {
  readonly vars = new Map<string, Value>();
  constructor(
    readonly parent?: Env,
    /** Assignments from inner scopes do not write through a frozen scope (device threads see host values as copies). */
    readonly frozen = false,
  ) {}
  lookup(name: string): Value | undefined {
    for (let e: Env | undefined = this; e; e = e.parent) {
      const v = e.vars.get(name);
      if (v !== undefined) return v;
    }
    return undefined;
  }
  /** The scope that owns `name` for an assignment (undefined: define it here). */
  owner(name: string): Env | undefined {
    for (let e: Env | undefined = this; e; e = e.parent) {
      if (e.frozen) return undefined;
      if (e.vars.has(name)) return e;
    }
    return undefined;
  }
}

/** Control flow out of a statement list. */
export const enum Flow {
  Normal = 0,
  Break = 1,
  Continue = 2,
  Return = 3,
  Exit = 4,
}

export interface ThreadRun {
  ran: number;
  budget: number;
  /** The line hook already stopped before the current statement. */
  hookStopped: boolean;
}

export interface SyncGroup {
  id: number;
  count: number;
}

/** What a device thread carries besides its variables. */
export interface Device {
  m: Machine;
  t: SimThread;
  run: ThreadRun;
  launch: LaunchHooks;
  blockState: Map<string, unknown>;
  /** Thread index within the instance of the innermost enclosing parallel (block level: tid). */
  local: number[];
  groups: SyncGroup[];
  /** Hardware threads this simulated thread stands for (a warpgroup collapsed into one = 128). */
  weight: number;
  /** Occurrence count per statement site (collective copies are matched by site and occurrence). */
  sites: Map<number, number>;
  /** Scalar event phase bits (current era): per event object. */
  phases: Map<EventObj, number>;
  /** The debugger's view: enclosing constructs (parallel, foreach, with, inthreads), outermost first. */
  frames: DeviceFrame[];
  /** The scope of the statement the thread is at (kept current at every statement, for the debugger). */
  env: Env;
}

/**
 * One construct a device thread is inside, for the debugger's call stack: its statement, the scope
 * that statement ran in (`outer`; the frame's own variables live below it) and, for loops and
 * parallels, the variables it binds. Kept cheap (a foreach pushes one per run): names and lines
 * are worked out only when a debugger asks.
 */
export interface DeviceFrame {
  node: Extract<CoStmt, { kind: 'parallel' | 'foreach' | 'with' | 'inthreads' }>;
  outer: Env;
  vars: string[];
}

/** Services of the launch the interpreter calls for device statements (implemented in ./launch.ts). */
export interface LaunchHooks {
  parallel(s: Extract<CoStmt, { kind: 'parallel' }>, ctx: Ctx): Generator<void, Flow, void>;
  eventDecl(s: Extract<CoStmt, { kind: 'event-decl' }>, ctx: Ctx): void;
  wait(target: Value, loc: SourceLoc, ctx: Ctx): Generator<void, void, void>;
  trigger(target: Value, after: Future[], loc: SourceLoc, ctx: Ctx): Generator<void, void, void>;
  sync(s: Extract<CoStmt, { kind: 'sync' }>, ctx: Ctx): Generator<void, void, void>;
  inthreadsEnd(ctx: Ctx, loc: SourceLoc): Generator<void, void, void>;
  era: 'A' | 'B' | 'C';
}

export interface Ctx {
  env: Env;
  dev?: Device;
  /** Induction values of the enclosing foreach loops, innermost last (legacy `e[i]` parity). */
  loops: number[];
  func: string;
  returned?: Value;
}

export interface InterpOptions {
  file: CoFile;
  text: string;
  lines: LineIndex;
  maxSteps: number;
  print: (text: string, t?: SimThread) => void;
  /** The file uses current-era event syntax (`= ready`, `.at(order)`, `trigger … after`). */
  currentEraSyntax?: boolean;
  /**
   * Launch hook for an outermost `parallel` in host code: it prepares the launch; the host code's
   * generator then yields (the only place host code yields) and is resumed once the launch completed.
   */
  launch: (s: Extract<CoStmt, { kind: 'parallel' }>, ctx: Ctx) => void;
}

const NO_VARS: string[] = [];
const STORAGE_WORDS = new Set(['shared', 'local', 'global']);
const MATH1: Record<string, (x: number) => number> = {
  sqrt: Math.sqrt, sin: Math.sin, cos: Math.cos, tan: Math.tan, exp: Math.exp, log: Math.log, floor: Math.floor, ceil: Math.ceil,
  round: (x) => (x < 0 ? -Math.round(-x) : Math.round(x)), sinh: Math.sinh, cosh: Math.cosh, tanh: Math.tanh, acos: Math.acos,
  asin: Math.asin, atan: Math.atan, log1p: Math.log1p, expm1: Math.expm1, exp2f: (x) => 2 ** x, exp2: (x) => 2 ** x, fabs: Math.abs,
  cbrt: Math.cbrt, rsqrt: (x) => 1 / Math.sqrt(x), frcp_rn: (x) => 1 / x, sign: Math.sign,
  sigmoid: (x) => 1 / (1 + Math.exp(-x)), softplus: (x) => Math.log1p(Math.exp(x)),
  gelu: (x) => 0.5 * x * (1 + Math.tanh(Math.sqrt(2 / Math.PI) * (x + 0.044715 * x * x * x))),
};

let bufferIds = 1_000_000;

export function newBuffer(name: string, space: 'global' | 'shared' | 'local', dtype: DType, shape: number[], block?: number): Buffer {
  const n = shape.reduce((a, b) => a * b, 1);
  if (!Number.isFinite(n) || n < 0 || n * sizeOf(dtype) > 1 << 30) throw new SimError(`tensor '${name}' [${shape.join(', ')}] is too large for the simulator (1 GiB per buffer)`);
  return new Buffer(bufferIds++, name, space, n * sizeOf(dtype), block, dtype, shape);
}

export function viewOf(buf: Buffer, dtype: DType, shape: number[], declared?: string): View {
  return new View(buf, dtype, 0, shape, contiguousStrides(shape), declared);
}

function unquote(text: string): string {
  // Adjacent literals were joined with a space by the parser: `"a" "b"`.
  const parts = text.match(/"(?:[^"\\]|\\.)*"/g) ?? [text];
  return parts
    .map((p) => p.slice(1, -1).replace(/\\(n|t|r|0|\\|"|')/g, (_m, c: string) => ({ n: '\n', t: '\t', r: '\r', '0': '\0', '\\': '\\', '"': '"', "'": "'" })[c] ?? c))
    .join('');
}

/** binaryOp on two s32 operands for the operators that cannot fail (same results: C's wrap-around). */
const INT32_OPS: Record<string, ((x: number, y: number) => Sc) | undefined> = {
  '+': (x, y) => new Sc((x + y) | 0, 's32'),
  '-': (x, y) => new Sc((x - y) | 0, 's32'),
  '*': (x, y) => new Sc(Math.imul(x, y), 's32'),
  '<': (x, y) => bool(x < y),
  '<=': (x, y) => bool(x <= y),
  '>': (x, y) => bool(x > y),
  '>=': (x, y) => bool(x >= y),
  '==': (x, y) => bool(x === y),
  '!=': (x, y) => bool(x !== y),
};

/** Whether evaluating `e` has no side effects (no ++/--, calls, copies or MMAs), so it may be evaluated in another order. */
function pure(e: CoExpr): boolean {
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

export class Interp {
  steps = 0;
  private readonly locs = new WeakMap<object, SourceLoc>();
  private readonly defineCache = new Map<string, Value | null>();
  private readonly heavy = new WeakMap<CoStmt, boolean>();
  private readonly compiled = new WeakMap<CoExpr, CompiledExpr>();

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

  // ------------------------------------------------------------------ statements

  /** Whether a statement may block or contains statements (runs as a generator). */
  private isHeavy(s: CoStmt): boolean {
    let h = this.heavy.get(s);
    if (h === undefined) {
      switch (s.kind) {
        case 'assign':
          h = s.value.kind === 'mma';
          break;
        case 'decl':
          h = s.init?.kind === 'mma';
          break;
        case 'expr':
          h = s.expr.kind === 'mma';
          break;
        case 'break':
        case 'continue':
        case 'return':
        case 'yield':
        case 'event-decl':
          h = false;
          break;
        default:
          h = true;
      }
      this.heavy.set(s, h);
    }
    return h;
  }

  private readonly lightLists = new WeakMap<CoStmt[], boolean>();

  /** Whether no statement of the list can block or holds other statements. */
  private allLight(list: CoStmt[]): boolean {
    let v = this.lightLists.get(list);
    if (v === undefined) this.lightLists.set(list, (v = list.every((x) => !this.isHeavy(x))));
    return v;
  }

  /** Source locations of a list's statements (looked up once per list run, not per statement). */
  private locsOf(list: CoStmt[], func: string): SourceLoc[] {
    let v = this.listLocs.get(list);
    if (v === undefined) this.listLocs.set(list, (v = list.map((x) => this.loc(x, func))));
    return v;
  }

  private readonly listLocs = new WeakMap<CoStmt[], SourceLoc[]>();

  *execList(list: CoStmt[], ctx: Ctx): Generator<void, Flow, void> {
    const locs = ctx.dev ? this.locsOf(list, ctx.func) : undefined;
    // The debugger's scope of the thread: this list's, until a nested statement enters another.
    if (ctx.dev) ctx.dev.env = ctx.env;
    for (let i = 0; i < list.length; i++) {
      const s = list[i];
      const dev = ctx.dev;
      if (dev) {
        const r = dev.run;
        // The location first: a thread suspended here by its budget is shown before this statement.
        const loc = locs![i];
        dev.t.loc = loc;
        if (r.ran >= r.budget) yield;
        if (dev.m.lineHook) {
          if (!r.hookStopped && dev.m.atStatement(dev.t, loc)) {
            r.hookStopped = true;
            yield;
          }
          r.hookStopped = false;
        }
        r.ran++;
      } else if (++this.steps > this.o.maxSteps) throw new HostStepLimit();
      let f: Flow;
      if (this.isHeavy(s)) {
        f = yield* this.execHeavy(s, ctx);
        if (dev) dev.env = ctx.env;
      } else f = this.execLight(s, ctx);
      if (f !== Flow.Normal) return f;
    }
    return Flow.Normal;
  }

  private execLight(s: CoStmt, ctx: Ctx): Flow {
    switch (s.kind) {
      case 'assign':
        this.assign(s, ctx);
        return Flow.Normal;
      case 'decl':
        this.declare(s, ctx);
        return Flow.Normal;
      case 'expr':
        if (s.expr.kind === 'call' && (s.expr.callee === 'swap' || s.expr.callee === 'rotate')) this.swapStmt(s.expr, ctx);
        else this.ev(s.expr, ctx);
        return Flow.Normal;
      case 'break':
        return Flow.Break;
      case 'continue':
        return Flow.Continue;
      case 'return':
        if (s.value) ctx.returned = this.ev(s.value, ctx);
        return Flow.Return;
      case 'yield':
        return Flow.Exit;
      case 'event-decl':
        if (!ctx.dev) throw this.err('events outside a parallel region', s, ctx, 'unsupported');
        ctx.dev.launch.eventDecl(s, ctx);
        return Flow.Normal;
    }
    throw this.err(`statement '${s.kind}'`, s, ctx, 'unsupported');
  }

  private *execHeavy(s: CoStmt, ctx: Ctx): Generator<void, Flow, void> {
    switch (s.kind) {
      case 'block':
        return yield* this.scoped(s.body, ctx);
      case 'if': {
        const c = truthy(this.ev(s.cond, ctx));
        return yield* this.scoped(c ? s.then : s.else, ctx);
      }
      case 'while': {
        for (;;) {
          if (!truthy(this.ev(s.cond, ctx))) return Flow.Normal;
          const f = yield* this.scoped(s.body, ctx);
          if (f === Flow.Break) return Flow.Normal;
          if (f === Flow.Return || f === Flow.Exit) return f;
          // Each iteration is a statement for the budget, so an empty spin loop still yields.
          if (ctx.dev) {
            if (ctx.dev.run.ran >= ctx.dev.run.budget) yield;
            ctx.dev.run.ran++;
          } else if (++this.steps > this.o.maxSteps) throw new HostStepLimit();
        }
      }
      case 'foreach':
        return yield* this.foreach(s, ctx);
      case 'with': {
        const env = new Env(ctx.env);
        const { names, ubs } = this.boundedList(s.vars, s.extents, s, ctx);
        names.forEach((n, i) => env.vars.set(n, int(0, ubs[i])));
        const inner: Ctx = { ...ctx, env };
        const pop = this.pushFrame(ctx, s, names);
        let f: Flow;
        try {
          f = yield* this.execList(s.body, inner);
        } finally {
          if (pop) this.popFrame(ctx);
        }
        ctx.returned = inner.returned;
        return f;
      }
      case 'parallel':
        if (!ctx.dev) {
          // Host code hands the launch to its runner and resumes when the launch has completed.
          this.o.launch(s, ctx);
          yield;
          return Flow.Normal;
        }
        return yield* ctx.dev.launch.parallel(s, ctx);
      case 'inthreads': {
        const c = truthy(this.ev(s.cond, ctx));
        let f = Flow.Normal;
        if (c) {
          const pop = this.pushFrame(ctx, s, NO_VARS);
          try {
            f = yield* this.scoped(s.body, ctx);
          } finally {
            if (pop) this.popFrame(ctx);
          }
        }
        if (f === Flow.Break || f === Flow.Continue) throw this.err(`'${f === Flow.Break ? 'break' : 'continue'}' out of an inthreads block`, s, ctx);
        if (!s.async && ctx.dev) yield* ctx.dev.launch.inthreadsEnd(ctx, this.loc(s, ctx.func));
        return f;
      }
      case 'wait': {
        for (const target of s.targets) {
          const v = this.ev(target, ctx);
          if (v instanceof Future) {
            // Inline rather than a helper generator: one fewer generator per wait.
            if (v.placeholder) throw this.err(`wait on a dma.any placeholder (${v.label}) that no copy was assigned to`, s, ctx);
            if (v.run) {
              v.run();
              v.run = undefined;
            }
            const d = ctx.dev;
            if (v.op && d) {
              const { m, t } = d;
              while (!m.asyncWait(t, v.op, v.label)) yield;
              if (m.yieldNow) yield;
            }
            v.waited = true;
            continue;
          }
          if (v instanceof EventRef) {
            if (!ctx.dev) throw this.err('events outside a parallel region', s, ctx, 'unsupported');
            yield* ctx.dev.launch.wait(v, this.loc(s, ctx.func), ctx);
            continue;
          }
          throw this.err(`wait needs a future or an event, but ${this.text(target)} is ${describeValue(v)}`, target, ctx);
        }
        return Flow.Normal;
      }
      case 'trigger': {
        if (!ctx.dev) throw this.err('events outside a parallel region', s, ctx, 'unsupported');
        const after: Future[] = [];
        for (const a of s.after) {
          const v = this.ev(a, ctx);
          if (!(v instanceof Future)) throw this.err(`trigger … after needs futures, but ${this.text(a)} is ${describeValue(v)}`, a, ctx);
          after.push(v);
        }
        if (after.length && s.targets.length !== 1) throw this.err('trigger … after binds exactly one event', s, ctx);
        for (const target of s.targets) {
          const v = this.ev(target, ctx);
          if (!(v instanceof EventRef)) throw this.err(`trigger needs an event, but ${this.text(target)} is ${describeValue(v)}`, target, ctx);
          yield* ctx.dev.launch.trigger(v, after, this.loc(s, ctx.func), ctx);
        }
        return Flow.Normal;
      }
      case 'sync':
        if (ctx.dev) yield* ctx.dev.launch.sync(s, ctx);
        return Flow.Normal;
      case 'assign':
      case 'decl':
      case 'expr':
        return yield* this.execMmaStmt(s, ctx);
      case 'opaque':
        throw this.err(`inline C++/asm (${s.text.slice(0, 40)})`, s, ctx, 'unsupported');
    }
    return this.execLight(s, ctx);
  }

  /** Enters a construct in the debugger's view of a device thread; returns whether to pop it (host code keeps none). */
  pushFrame(ctx: Ctx, node: DeviceFrame['node'], vars: string[]): boolean {
    const dev = ctx.dev;
    if (!dev) return false;
    dev.frames.push({ node, outer: ctx.env, vars });
    return true;
  }

  /** Leaves the innermost construct: the thread is back at its statement, in the scope it ran in. */
  popFrame(ctx: Ctx): void {
    const dev = ctx.dev!;
    const f = dev.frames.pop();
    if (f) dev.env = f.outer;
  }

  private *scoped(body: CoStmt[], ctx: Ctx): Generator<void, Flow, void> {
    const inner: Ctx = { ...ctx, env: new Env(ctx.env) };
    const f = yield* this.execList(body, inner);
    if (f === Flow.Return) ctx.returned = inner.returned;
    return f;
  }

  text(e: CoExpr): string {
    return this.o.text.slice(e.span.start, e.span.end).replace(/\s+/g, ' ');
  }

  /** Names and upper bounds of `with`/`foreach … in` variables; a tuple extent spreads over several names. */
  private boundedList(vars: string[], extents: CoExpr[], node: CoStmt, ctx: Ctx): { names: string[]; ubs: number[] } {
    const ubs: number[] = [];
    for (const x of extents) {
      const v = this.ev(x, ctx);
      if (v instanceof Tuple) for (const it of v.items) ubs.push(it.v);
      else ubs.push(this.intOf(v, x, ctx));
    }
    if (ubs.length !== vars.length) throw this.err(`${vars.length} variable(s) but ${ubs.length} extent(s)`, node, ctx);
    return { names: vars, ubs };
  }

  private *foreach(s: Extract<CoStmt, { kind: 'foreach' }>, ctx: Ctx): Generator<void, Flow, void> {
    const apply = s.attributes.includes('apply');
    let names = s.vars;
    let ubs: number[];
    if (apply) {
      const v = this.ev(s.extents[0], ctx);
      if (!(v instanceof Tuple)) throw this.err(`apply needs a span, but ${this.text(s.extents[0])} is ${describeValue(v)}`, s, ctx);
      const shape = v.items.map((x) => x.v);
      ubs = names.length === 1 ? [shape.reduce((a, b) => a * b, 1)] : shape.slice(0, names.length);
      if (ubs.length !== names.length) throw this.err(`apply over a ${shape.length}-dimensional span with ${names.length} variables`, s, ctx);
    } else {
      ({ names, ubs } = this.boundedList(s.vars, s.extents, s, ctx));
    }
    const starts: number[] = [];
    const ends: number[] = [];
    const stepsArr: number[] = [];
    names.forEach((_, i) => {
      const r = s.ranges[i];
      const ub = ubs[i];
      const norm = (x: CoExpr | undefined, dflt: number) => {
        if (!x) return dflt;
        const k = this.intOf(this.ev(x, ctx), x, ctx);
        return k < 0 ? ub + k : k;
      };
      starts.push(norm(r?.start, 0));
      ends.push(norm(r?.end, ub));
      const st = r?.step ? this.intOf(this.ev(r.step, ctx), r.step, ctx) : 1;
      if (st <= 0) throw this.err(`loop step must be positive, got ${st}`, s, ctx);
      stepsArr.push(st);
    });
    // One scope per loop, emptied at each iteration: the induction variables and the body's own
    // names live together (a body declaration shadows nothing it could not shadow before, and the
    // next iteration starts from the variables alone, as a fresh scope would).
    const env = new Env(ctx.env);
    const body: Ctx = { ...ctx, env, loops: ctx.loops };
    if (starts.some((v, i) => v >= ends[i])) return Flow.Normal;
    const light = this.allLight(s.body);
    const list = s.body;
    const dev = ctx.dev;
    const locs = dev ? this.locsOf(list, ctx.func) : undefined;
    const depth = names.length;
    const idx = starts.slice();
    const pop = this.pushFrame(ctx, s, names);
    try {
      for (;;) {
        if (env.vars.size !== depth) env.vars.clear(); // only the induction variables: nothing to drop
        for (let i = 0; i < depth; i++) env.vars.set(names[i], int(idx[i], ubs[i]));
        body.returned = undefined;
        ctx.loops.push(idx[depth - 1]);
        let f: Flow = Flow.Normal;
        try {
          if (light) {
            if (dev) dev.env = env;
            // The body has no statement that can block: run it here instead of in a nested generator
            // (same budget, location and step accounting as execList).
            for (let i = 0; i < list.length; i++) {
              const st = list[i];
              if (dev) {
                const r = dev.run;
                const loc = locs![i];
                dev.t.loc = loc;
                if (r.ran >= r.budget) yield;
                if (dev.m.lineHook) {
                  if (!r.hookStopped && dev.m.atStatement(dev.t, loc)) {
                    r.hookStopped = true;
                    yield;
                  }
                  r.hookStopped = false;
                }
                r.ran++;
              } else if (++this.steps > this.o.maxSteps) throw new HostStepLimit();
              f = this.execLight(st, body);
              if (f !== Flow.Normal) break;
            }
          } else f = yield* this.execList(list, body);
        } finally {
          ctx.loops.pop();
        }
        if (f === Flow.Break) return Flow.Normal;
        if (f === Flow.Return || f === Flow.Exit) {
          ctx.returned = body.returned;
          return f;
        }
        let d = depth - 1;
        for (; d >= 0; d--) {
          idx[d] += stepsArr[d];
          if (idx[d] < ends[d]) break;
          idx[d] = starts[d];
        }
        if (d < 0) return Flow.Normal;
      }
    } finally {
      if (pop) this.popFrame(ctx);
    }
  }

  // ------------------------------------------------------------------ declarations and assignment

  private declare(s: Extract<CoStmt, { kind: 'decl' }>, ctx: Ctx): void {
    if (s.type === 'mdspan' || s.type === 'ituple') {
      const n = s.names[0];
      ctx.env.vars.set(n.name, s.init ? this.ev(s.init, ctx) : new Tuple([]));
      return;
    }
    const isTensor = s.shape.length > 0 || s.names.some((n) => n.dims.length > 0) || s.storage === 'frag';
    if (!isTensor) {
      for (const n of s.names) {
        let v: Value = s.init ? this.ev(s.init, ctx) : int(0);
        if (s.type !== 'auto') {
          const dt = dtypeOf(s.type);
          if (!dt) throw this.err(`element type '${s.type}'`, s, ctx, 'unsupported');
          if (!(v instanceof Sc)) throw this.err(`'${n.name}' is declared ${s.type} but initialised with ${describeValue(v)}`, s, ctx);
          v = castTo(dt.dtype, v);
        } else if (v instanceof Sc && v.ub !== undefined) v = new Sc(v.v, v.t);
        ctx.env.vars.set(n.name, v);
      }
      return;
    }
    const dt = s.type === 'auto' ? undefined : dtypeOf(s.type);
    if (!dt && s.type !== 'auto') throw this.err(`element type '${s.type}'`, s, ctx, 'unsupported');
    const shape = this.shapeOf(s.shape, s, ctx);
    for (const n of s.names) {
      const dims = n.dims.map((d) => this.intOf(this.ev(d, ctx), d, ctx));
      const init = s.init;
      if (!dt) {
        // `frag x {0.0f}` / `auto`: an mma fragment declared by its initialiser.
        const v = init ? this.ev(init, ctx) : undefined;
        ctx.env.vars.set(n.name, v ?? new Tuple([]));
        continue;
      }
      const space: 'global' | 'shared' | 'local' = s.storage === 'shared' ? 'shared' : s.storage === 'global' || (!ctx.dev && s.storage !== 'local') ? 'global' : 'local';
      const make = (name: string, tensorShape: number[]): View => {
        if (tensorShape.length === 0) throw this.err(`tensor '${name}' has no shape`, s, ctx);
        const buf = newBuffer(name, space, dt.dtype, tensorShape, ctx.dev && space === 'shared' ? ctx.dev.t.block : undefined);
        const v = viewOf(buf, dt.dtype, tensorShape, dt.declared);
        if (init) {
          const iv = this.ev(init, ctx);
          if (iv instanceof Sc) forEachElement(v, (off) => writeElement(v, off, iv.v));
          else if (iv instanceof View) copyView(iv, v);
          else throw this.err(`'${n.name}' initialised with ${describeValue(iv)}`, s, ctx);
        }
        return v;
      };
      const build = (): Value => {
        if (shape.length === 0) return make(n.name, dims);
        if (dims.length === 0) return make(n.name, shape);
        const count = dims.reduce((a, b) => a * b, 1);
        return new ViewArray(n.name, Array.from({ length: count }, (_, i) => make(`${n.name}[${i}]`, shape)));
      };
      if (ctx.dev && space === 'shared') {
        // One allocation per block: the first thread to reach the declaration makes it.
        const key = `decl:${s.span.start}:${n.name}:${this.occurrence(ctx, s.span.start)}`;
        let v = ctx.dev.blockState.get(key) as Value | undefined;
        if (!v) ctx.dev.blockState.set(key, (v = build()));
        ctx.env.vars.set(n.name, v);
      } else ctx.env.vars.set(n.name, build());
    }
  }

  /** Per-thread occurrence number of a statement site (collective operations match on it). */
  occurrence(ctx: Ctx, site: number): number {
    const d = ctx.dev!;
    const k = (d.sites.get(site) ?? 0) + 1;
    d.sites.set(site, k);
    return k;
  }

  private shapeOf(exprs: CoExpr[], node: CoStmt, ctx: Ctx): number[] {
    const out: number[] = [];
    for (const e of exprs) {
      const v = this.ev(e, ctx);
      if (v instanceof Tuple) for (const it of v.items) out.push(it.v);
      else out.push(this.intOf(v, e, ctx));
    }
    for (const d of out) if (!Number.isInteger(d) || d < 0) throw this.err(`tensor extent ${d} is not a non-negative integer`, node, ctx);
    return out;
  }

  private readonly assignFast = new WeakMap<CoStmt, ((ctx: Ctx) => boolean) | null>();

  private assign(s: Extract<CoStmt, { kind: 'assign' }>, ctx: Ctx): void {
    let fast = this.assignFast.get(s);
    if (fast === undefined) this.assignFast.set(s, (fast = this.compileElementAssign(s)));
    if (fast !== null && fast(ctx)) return;
    this.assignSlow(s, ctx);
  }

  /**
   * `t.at(i…) = v` / `t.at(i…) op= v` on a tensor, with a target free of side effects: the element is
   * located once (the generic path evaluates the target twice, for the read and for the write).
   * A target that is not a tensor at run time takes the generic path with the value already computed.
   */
  private compileElementAssign(s: Extract<CoStmt, { kind: 'assign' }>): ((ctx: Ctx) => boolean) | null {
    const t = s.target;
    if (t.kind !== 'method' || t.name !== 'at' || !pure(t)) return null;
    const obj = this.sub(t.object);
    const args = t.args.map((a) => this.sub(a));
    const val = this.sub(s.value);
    const op = s.op === '=' ? undefined : s.op.slice(0, -1);
    const scratch: number[] = [];
    const targetText = () => this.text(t);
    const valueText = () => this.text(s.value);
    return (ctx) => {
      let v = val(ctx);
      const base = obj(ctx);
      if (!(base instanceof View)) {
        this.assignSlow(s, ctx, v);
        return true;
      }
      const off = this.offsetOf(base, args, t, ctx, scratch);
      if (op !== undefined) {
        this.touch(ctx, base, off, false);
        v = binaryOp(op, new Sc(readElement(base, off), base.dtype), scalarOf(v, valueText));
      }
      const x = scalarOf(v, targetText);
      this.touch(ctx, base, off, true);
      writeElement(base, off, x.v);
      return true;
    };
  }

  private assignSlow(s: Extract<CoStmt, { kind: 'assign' }>, ctx: Ctx, value?: Value): void {
    let v = value ?? this.ev(s.value, ctx, s.target.kind === 'id' ? s.target.name : undefined);
    if (s.op !== '=') {
      const old = scalarOf(this.ev(s.target, ctx), () => this.text(s.target));
      v = binaryOp(s.op.slice(0, -1), old, scalarOf(v, () => this.text(s.value)));
    }
    this.store(s.target, v, ctx);
  }

  /** Writes `v` to an lvalue: a variable, `x.at(i…)`, `x[i]`. */
  store(target: CoExpr, v: Value, ctx: Ctx): void {
    if (target.kind === 'id') {
      const owner = ctx.env.owner(target.name);
      const old = owner?.vars.get(target.name);
      if (old instanceof View && v instanceof View && old !== v && old.buf.space !== 'local') {
        // Assigning a tensor to a declared tensor copies the elements (co-mock does a memcpy).
        copyView(v, old);
        return;
      }
      if (old instanceof Sc && v instanceof Sc && old.t !== v.t && old.t !== 'bool') v = castTo(old.t, v);
      else if (v instanceof Sc && v.ub !== undefined) v = new Sc(v.v, v.t);
      (owner ?? ctx.env).vars.set(target.name, v);
      return;
    }
    const el = this.elementRef(target, ctx);
    if (!el) throw this.err(`cannot assign to ${this.text(target)}`, target, ctx);
    const x = scalarOf(v, () => this.text(target));
    this.touch(ctx, el.view, el.off, true);
    writeElement(el.view, el.off, x.v);
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
  private offsetOf(view: View, args: CompiledExpr[], node: CoExpr & { args: CoExpr[] }, ctx: Ctx, ks: number[]): number {
    const n = args.length;
    let dyn: number[] | undefined;
    for (let i = 0; i < n; i++) {
      const v = args[i](ctx);
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

  private offsetAt(view: View, args: CoExpr[], node: CoExpr, ctx: Ctx): number {
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

  private defineValue(name: string, ctx: Ctx): Value | undefined {
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
  private compile(e: CoExpr): CompiledExpr {
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
        return (ctx) => {
          const v = ctx.env.lookup(name);
          return v !== undefined ? v : this.lookup(name, e, ctx);
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
            if (int32 !== undefined && a.t === 's32' && b.t === 's32') return int32(a.v, b.v);
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
        const scratch: number[] = [];
        return (ctx) => {
          const base = obj(ctx);
          if (!(base instanceof View)) return this.methodOn(e, base, ctx);
          const off = this.offsetOf(base, args, e, ctx, scratch);
          this.touch(ctx, base, off, false);
          return new Sc(readElement(base, off), base.dtype);
        };
      }
      case 'member': {
        const obj = this.sub(e.object);
        return (ctx) => this.memberOn(e, obj(ctx), ctx);
      }
    }
    return (ctx) => this.evSlow(e, ctx);
  }

  private sub(e: CoExpr): CompiledExpr {
    let f = this.compiled.get(e);
    if (f === undefined) this.compiled.set(e, (f = this.compile(e)));
    return f;
  }

  private evSlow(e: CoExpr, ctx: Ctx, target?: string): Value {
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

  private binary(e: Extract<CoExpr, { kind: 'binary' }>, ctx: Ctx): Value {
    if (e.op === '&&' || e.op === '||') {
      const l = truthy(this.ev(e.left, ctx));
      if (e.op === '&&' ? !l : l) return bool(l);
      return bool(truthy(this.ev(e.right, ctx)));
    }
    return this.binaryValues(e, this.ev(e.left, ctx), this.ev(e.right, ctx), ctx);
  }

  private binaryValues(e: Extract<CoExpr, { kind: 'binary' }>, a: Value, b: Value, ctx: Ctx): Value {
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

  private unary(e: Extract<CoExpr, { kind: 'unary' }>, ctx: Ctx): Value {
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

  private ubOf(x: Sc, node: CoExpr, ctx: Ctx): number {
    if (x.ub === undefined) throw this.err(`'#' needs a bounded variable (a parallel, foreach or with index)`, node, ctx);
    return x.ub;
  }

  private futureData(f: Future, node: CoExpr, ctx: Ctx): View {
    if (!f.data) throw this.err(f.placeholder ? `'.data' of a dma.any placeholder (${f.label})` : `'.data' of an operation future (${f.label})`, node, ctx);
    return f.data;
  }

  private member(e: Extract<CoExpr, { kind: 'member' }>, ctx: Ctx): Value {
    return this.memberOn(e, this.ev(e.object, ctx), ctx);
  }

  private memberOn(e: Extract<CoExpr, { kind: 'member' }>, base: Value, ctx: Ctx): Value {
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

  private evArgsFlat(args: CoExpr[], ctx: Ctx): Sc[] {
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

  private method(e: Extract<CoExpr, { kind: 'method' }>, ctx: Ctx): Value {
    return this.methodOn(e, this.ev(e.object, ctx), ctx);
  }

  private methodOn(e: Extract<CoExpr, { kind: 'method' }>, base: Value, ctx: Ctx): Value {
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

  private finishPending(p: PendingView, e: Extract<CoExpr, { kind: 'method' }>, ctx: Ctx): Value {
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

  private window(v: View, ext: number[], start: number[], node: CoExpr, ctx: Ctx): View {
    let off = v.off;
    for (let d = 0; d < ext.length; d++) {
      if (start[d] < 0 || ext[d] < 0 || start[d] + ext[d] > v.shape[d]) {
        throw this.err(`tile [${start.map((s, i) => `${s}..${s + ext[i] - 1}`).join(', ')}] is outside '${v.buf.name}' [${v.shape.join(', ')}] (dimension ${d})`, node, ctx, 'oob');
      }
      off += start[d] * v.strides[d];
    }
    return new View(v.buf, v.dtype, off, ext, v.strides.slice(), v.declared);
  }

  private index(e: Extract<CoExpr, { kind: 'index' }>, ctx: Ctx): Value {
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

  private call(e: Extract<CoExpr, { kind: 'call' }>, ctx: Ctx): Value {
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

  private atomic(op: string, e: Extract<CoExpr, { kind: 'call' }>, ctx: Ctx): Value {
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

  // ------------------------------------------------------------------ data movement

  private dma(e: Extract<CoExpr, { kind: 'dma' }>, ctx: Ctx, target?: string): Value {
    const what = `${e.engine}.${e.op}${e.async ? '.async' : ''}`;
    if (e.op === 'any') return new Future(`${target ?? 'placeholder'} (${what})`, undefined, undefined, 0, true);
    if (e.op !== 'copy' && e.op !== 'load') throw this.err(what, e, ctx, 'unsupported');
    if (e.after.length) throw this.err(`${what} … after (DMA ordering edges)`, e, ctx, 'unsupported');
    for (const m of e.modifiers) if (!/^(swiz|swizzle|evict_first|evict_last|zfill)\b/.test(m)) throw this.err(`${what}.${m}`, e, ctx, 'unsupported');
    let src = this.ev(e.src!, ctx);
    if (src instanceof Future) src = this.futureData(src, e.src!, ctx);
    if (!(src instanceof View)) throw this.err(`${what} source ${this.text(e.src!)} is ${describeValue(src)}`, e, ctx);
    const dstExpr = e.dst!;
    const alloc = dstExpr.kind === 'id' && STORAGE_WORDS.has(dstExpr.name) && !ctx.env.lookup(dstExpr.name) ? dstExpr.name : undefined;
    const label = `${target ?? what} (${what} at line ${this.line(e.span) + 1})`;
    let dst: View | undefined;
    if (!alloc) {
      const d = this.ev(dstExpr, ctx);
      const dv = d instanceof Future ? this.futureData(d, dstExpr, ctx) : d;
      if (!(dv instanceof View)) throw this.err(`${what} destination ${this.text(dstExpr)} is ${describeValue(d)}`, e, ctx);
      if (dv.size !== src.size) throw this.err(`${what} copies ${src.size} elements [${src.shape.join(', ')}] into ${dv.size} [${dv.shape.join(', ')}]`, e, ctx);
      dst = dv;
    }
    const srcView = src;
    const makeDst = (block?: number): View => {
      const space = alloc === 'shared' ? 'shared' : alloc === 'global' ? 'global' : 'local';
      return viewOf(newBuffer(`${target ?? 'copy'}.data`, space, srcView.dtype, srcView.shape.slice(), space === 'shared' ? block : undefined), srcView.dtype, srcView.shape.slice(), srcView.declared);
    };
    const bytes = srcView.size * sizeOf(srcView.dtype);
    const d = ctx.dev;
    if (!d) {
      const out = dst ?? makeDst();
      if (e.async) {
        // Host code: the copy lands by the time it is waited (co-mock runs it on std::async).
        const f = new Future(label, undefined, out, bytes);
        f.run = () => copyView(srcView, out);
        return f;
      }
      copyView(srcView, out);
      return new Future(label, undefined, out, bytes);
    }
    if (!e.async) {
      const out = dst ?? makeDst(d.t.block);
      this.touchView(ctx, srcView, false);
      this.touchView(ctx, out, true);
      copyView(srcView, out);
      return new Future(label, undefined, out, bytes);
    }
    // Asynchronous: one copy per block for threads that issue the same copy (a cooperative DMA).
    const key = `dma:${e.span.start}:${this.occurrence(ctx, e.span.start)}:${srcView.buf.id}:${srcView.off}:${dst ? `${dst.buf.id}:${dst.off}` : alloc}`;
    const shared = d.blockState.get(key) as Future | undefined;
    if (shared) return new Future(label, shared.op, shared.data, bytes, false, undefined, shared.bound);
    const out = dst ?? makeDst(d.t.block);
    const f = new Future(label, undefined, out, bytes);
    const m = d.m;
    const op = m.asyncIssue(d.t, e.engine, label, m.lat.bulkCopy, (mm, ) => {
      for (const [o, n] of runsOf(srcView)) if (srcView.buf.space === 'shared') mm.accessAsync(op, srcView.buf, o, n, false);
      for (const [o, n] of runsOf(out)) if (out.buf.space === 'shared') mm.accessAsync(op, out.buf, o, n, true);
      copyView(srcView, out);
      for (const b of f.bound) mm.mbCompleteTx(b, bytes, op);
    });
    (f as { op: AsyncOp | undefined }).op = op;
    d.blockState.set(key, f);
    if (e.event) {
      // Era A: `tma.copy.async<full[s]>` makes the event slot this copy's mbarrier.
      const ev = this.ev(e.event, ctx);
      if (!(ev instanceof EventRef) || ev.slot === undefined) throw this.err(`the event of ${what}<…> must be one event slot, e.g. full[stage]`, e, ctx);
      const b = ev.ev.slots[ev.slot];
      m.mbExpectTx(d.t, b, bytes);
      f.bound.push(b);
    }
    return f;
  }

  // ------------------------------------------------------------------ MMA

  private fragment(v: Value, node: CoExpr, ctx: Ctx, what: string): View {
    if (v instanceof View) return v;
    if (v instanceof Future && v.data) return v.data;
    throw this.err(`${what}: ${this.text(node)} is ${describeValue(v)}, not a tensor or fragment`, node, ctx);
  }

  private fill(v: View, x: number): void {
    writeAll(v, new Float64Array(v.size).fill(x));
  }

  /** `mma.fill/load/store` and MMA execution without timing (host code and the sync parts of device code). */
  private mmaExpr(e: Extract<CoExpr, { kind: 'mma' }>, ctx: Ctx, target?: string): Value {
    switch (e.op) {
      case 'fill': {
        const typeMod = e.modifiers.find((m) => dtypeOf(m));
        if (e.args.length >= 2) {
          const acc = this.fragment(this.ev(e.args[0], ctx), e.args[0], ctx, 'mma.fill');
          this.fill(acc, scalarOf(this.ev(e.args[1], ctx), 'mma.fill value').v);
          return acc;
        }
        if (e.args.length !== 1) throw this.err('mma.fill needs a value', e, ctx);
        const x = scalarOf(this.ev(e.args[0], ctx), 'mma.fill value');
        const dt = typeMod ? dtypeOf(typeMod)!.dtype : isFloat(x.t) ? (x.t === 'f64' ? 'f32' : x.t) : 'f32';
        // No shape yet: the accumulator takes the MMA's [M, N] at its first use (as co-mock does).
        const v = viewOf(newBuffer(target ?? 'acc', 'local', dt, [1, 1]), dt, [1, 1]);
        this.fill(v, x.v);
        return v;
      }
      case 'load': {
        const src = this.fragment(this.ev(e.args[0], ctx), e.args[0], ctx, 'mma.load');
        // On the device a shared operand stays in shared memory (a WGMMA descriptor): the MMA reads it
        // when it executes, so a stage released before its MMAs retire is visibly overwritten.
        if (ctx.dev && src.buf.space === 'shared') return src;
        this.touchView(ctx, src, false);
        const v = viewOf(newBuffer(target ?? 'frag', 'local', src.dtype, src.shape.slice()), src.dtype, src.shape.slice(), src.declared);
        copyView(src, v);
        return v;
      }
      case 'store': {
        if (e.args.length !== 2) throw this.err('mma.store needs an accumulator and a destination', e, ctx);
        const acc = this.fragment(this.ev(e.args[0], ctx), e.args[0], ctx, 'mma.store');
        const dst = this.fragment(this.ev(e.args[1], ctx), e.args[1], ctx, 'mma.store');
        this.touchView(ctx, dst, true);
        if (e.modifiers.includes('transp')) {
          if (acc.shape.length !== 2) throw this.err('mma.store.transp of a non-2-D accumulator', e, ctx);
          const [M, N] = acc.shape;
          const data = readAll(acc);
          const t = new View(dst.buf, dst.dtype, dst.off, [N, M], dst.strides.length === 2 ? dst.strides : contiguousStrides([N, M]));
          if (dst.size !== acc.size) throw this.err(`mma.store of [${acc.shape.join(', ')}] into [${dst.shape.join(', ')}]`, e, ctx);
          forEachElement(t, (off, i) => writeElement(t, off, data[(i % M) * N + Math.floor(i / M)]));
          return int(0);
        }
        if (dst.size !== acc.size) throw this.err(`mma.store of a [${acc.shape.join(', ')}] accumulator into [${dst.shape.join(', ')}]`, e, ctx);
        copyView(acc, dst);
        return int(0);
      }
      case 'row.row':
      case 'row.col':
      case 'col.row':
      case 'col.col': {
        const ops = this.mmaOperands(e, ctx);
        if (e.async && ctx.dev) throw this.err(`mma.${e.op}.async`, e, ctx, 'unsupported'); // handled as a statement
        mmaCompute(e.op, ops.acc, ops.a, ops.b);
        return e.async ? new Future(`${target ?? 'mma'} (mma.${e.op}.async)`, undefined, undefined, 0) : int(0);
      }
      case 'scale': {
        if (e.args.length < 2) throw this.err('mma.scale needs an accumulator and scales', e, ctx);
        const acc = this.fragment(this.ev(e.args[0], ctx), e.args[0], ctx, 'mma.scale');
        const factors = e.args.slice(1).map((a) => this.ev(a, ctx));
        if (!factors.every((f) => f instanceof Sc)) throw this.err('mma.scale with tensor scale factors', e, ctx, 'unsupported');
        const k = factors.reduce((p, f) => p * (f as Sc).v, 1);
        forEachElement(acc, (off) => writeElement(acc, off, readElement(acc, off) * k));
        return int(0);
      }
      case 'commit':
      case 'wait':
        return int(0); // host code: nothing is in flight
    }
    throw this.err(`mma.${e.op}`, e, ctx, 'unsupported');
  }

  /** Operands of an MMA execution; an accumulator without a shape yet takes [M, N] (and is rebound). */
  mmaOperands(e: Extract<CoExpr, { kind: 'mma' }>, ctx: Ctx): { acc: View; a: View; b: View } {
    if (e.args.length < 3) throw this.err(`mma.${e.op} needs an accumulator and two operands`, e, ctx);
    let acc = this.fragment(this.ev(e.args[0], ctx), e.args[0], ctx, `mma.${e.op}`);
    const a = this.fragment(this.ev(e.args[1], ctx), e.args[1], ctx, `mma.${e.op}`);
    const b = this.fragment(this.ev(e.args[2], ctx), e.args[2], ctx, `mma.${e.op}`);
    for (const x of [a, b]) if (x.declared) throw this.err(`MMA on ${x.declared} operands`, e, ctx, 'unsupported');
    if (a.shape.length !== 2 || b.shape.length !== 2) throw this.err(`mma.${e.op} operands must be 2-D (got [${a.shape.join(', ')}] and [${b.shape.join(', ')}])`, e, ctx);
    const { M, N, K, K2 } = mmaDims(e.op, a, b);
    if (K !== K2) throw this.err(`mma.${e.op}: the operands disagree on K ([${a.shape.join(', ')}] and [${b.shape.join(', ')}])`, e, ctx);
    if (acc.size === 1 && (M > 1 || N > 1)) {
      const init = readElement(acc, acc.off);
      const grown = viewOf(newBuffer(acc.buf.name, 'local', acc.dtype, [M, N]), acc.dtype, [M, N]);
      this.fill(grown, init);
      if (e.args[0].kind === 'id') this.store(e.args[0], grown, ctx);
      acc = grown;
    }
    if (acc.size !== M * N) throw this.err(`mma.${e.op}: accumulator [${acc.shape.join(', ')}] for an [${M}, ${N}] product`, e, ctx);
    return { acc, a, b };
  }

  /** Statements whose MMA may take time on the device (wait for it, or issue it asynchronously). */
  private *execMmaStmt(s: Extract<CoStmt, { kind: 'assign' | 'decl' | 'expr' }>, ctx: Ctx): Generator<void, Flow, void> {
    const d = ctx.dev;
    const e = (s.kind === 'assign' ? s.value : s.kind === 'decl' ? s.init : s.expr) as Extract<CoExpr, { kind: 'mma' }>;
    if (!d) return this.execLight(s, ctx);
    const era = d.launch.era;
    const { m, t } = d;
    const exec = e.op === 'row.row' || e.op === 'row.col' || e.op === 'col.row' || e.op === 'col.col';
    if (exec) {
      if (s.kind === 'decl') return this.execLight(s, ctx);
      const ops = this.mmaOperands(e, ctx);
      const label = `mma.${e.op} at line ${this.line(e.span) + 1}`;
      const op = m.asyncIssue(t, 'mma', label, m.lat.mma, (mm) => {
        for (const x of [ops.a, ops.b]) if (x.buf.space === 'shared') for (const [o, n] of runsOf(x)) mm.accessAsync(op, x.buf, o, n, false);
        mmaCompute(e.op, ops.acc, ops.a, ops.b);
      });
      if (e.async) {
        if (s.kind !== 'assign') throw this.err(`mma.${e.op}.async needs a future name (q = mma.${e.op}.async …)`, s, ctx);
        const f = new Future(`${this.text(s.target)} (${label})`, op, undefined, 0);
        f.line = this.line(e.span);
        this.store(s.target, f, ctx);
        return Flow.Normal;
      }
      if (era === 'C') {
        // Current era: the compiler commits and waits every plain MMA.
        m.asyncCommit(t, 'mma');
        while (!m.asyncWait(t, op, label)) yield;
        if (m.yieldNow) yield;
      }
      return Flow.Normal;
    }
    if (e.op === 'commit') {
      if (this.o.currentEraSyntax) {
        throw this.err('mma.commit in a kernel written with current-era events (= ready, .at(order), trigger … after): the current compiler removed mma.commit and rejects the file, so its tutorial-era meaning does not apply', s, ctx);
      }
      m.asyncCommit(t, 'mma');
      while (!m.asyncWaitGroups(t, 'mma', 0, 'mma.commit (WGMMA batch)')) yield;
      if (m.yieldNow) yield;
      return Flow.Normal;
    }
    if (e.op === 'wait') {
      const n = Number(e.typeArgs?.[0] ?? 0);
      m.asyncCommit(t, 'mma');
      while (!m.asyncWaitGroups(t, 'mma', n, `mma.wait<${n}>`)) yield;
      if (m.yieldNow) yield;
      return Flow.Normal;
    }
    if (e.op === 'store' && era !== 'C') {
      // Tutorial era: mma.store finalises the MMAs still in flight.
      while (!m.asyncWaitAll(t, 'mma', 'mma.store (WGMMA finalize)')) yield;
      if (m.yieldNow) yield;
    }
    return this.execLight(s, ctx);
  }

  // ------------------------------------------------------------------ swap / rotate

  swapStmt(e: Extract<CoExpr, { kind: 'call' }>, ctx: Ctx): void {
    const names = e.args.map((a) => {
      if (a.kind !== 'id') throw this.err(`${e.callee} takes variable names`, a, ctx);
      return a.name;
    });
    if (e.callee === 'swap' && names.length !== 2) throw this.err("Builtin function 'swap' accept exact two parameters.", e, ctx);
    if (names.length < 2) throw this.err("Builtin function 'rotate' accept two or more parameters.", e, ctx);
    const vals = names.map((n) => this.lookup(n, e, ctx));
    const put = (n: string, v: Value) => (ctx.env.owner(n) ?? ctx.env).vars.set(n, v);
    // rotate(a, b, c): a <- c, b <- a, c <- b (co-mock); swap is the two-name case.
    put(names[0], vals[vals.length - 1]);
    for (let i = 1; i < names.length; i++) put(names[i], vals[i - 1]);
  }
}

export function mmaDims(op: string, a: View, b: View): { M: number; N: number; K: number; K2: number } {
  switch (op) {
    case 'row.row':
      return { M: a.shape[0], K: a.shape[1], N: b.shape[0], K2: b.shape[1] };
    case 'row.col':
      return { M: a.shape[0], K: a.shape[1], N: b.shape[1], K2: b.shape[0] };
    case 'col.row':
      return { M: a.shape[1], K: a.shape[0], N: b.shape[0], K2: b.shape[1] };
    default:
      return { M: a.shape[1], K: a.shape[0], N: b.shape[1], K2: b.shape[0] };
  }
}

/**
 * acc[m, n] += Σ_k A[m, k]·B[k, n] with the operand layouts of `op` (row.row: B is [N, K]; row.col: B is
 * [K, N]; col.*: A is [K, M]). Products are summed exactly in f64 per MMA and rounded once to the
 * accumulator's type, like co-mock's reference GEMM.
 */
export function mmaCompute(op: string, acc: View, a: View, b: View): void {
  const { M, N, K } = mmaDims(op, a, b);
  const A = readAll(a);
  const B = readAll(b);
  const C = readAll(acc);
  const aRow = op.startsWith('row');
  const bRow = op.endsWith('row'); // B stored [N, K]
  const at = new Float64Array(M * K);
  for (let m = 0; m < M; m++) for (let k = 0; k < K; k++) at[m * K + k] = aRow ? A[m * K + k] : A[k * M + m];
  const bt = new Float64Array(N * K);
  for (let n = 0; n < N; n++) for (let k = 0; k < K; k++) bt[n * K + k] = bRow ? B[n * K + k] : B[k * N + n];
  for (let m = 0; m < M; m++) {
    const ao = m * K;
    let n = 0;
    // Four outputs per pass share the loads of A's row; each sum still runs over k in order.
    for (; n + 4 <= N; n += 4) {
      const b0 = n * K;
      const b1 = b0 + K;
      const b2 = b1 + K;
      const b3 = b2 + K;
      let s0 = 0;
      let s1 = 0;
      let s2 = 0;
      let s3 = 0;
      for (let k = 0; k < K; k++) {
        const x = at[ao + k];
        s0 += x * bt[b0 + k];
        s1 += x * bt[b1 + k];
        s2 += x * bt[b2 + k];
        s3 += x * bt[b3 + k];
      }
      const c = m * N + n;
      C[c] += s0;
      C[c + 1] += s1;
      C[c + 2] += s2;
      C[c + 3] += s3;
    }
    for (; n < N; n++) {
      const bo = n * K;
      let s = 0;
      for (let k = 0; k < K; k++) s += at[ao + k] * bt[bo + k];
      C[m * N + n] += s;
    }
  }
  writeAll(acc, C);
}
