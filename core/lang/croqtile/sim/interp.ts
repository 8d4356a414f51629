// The Croqtile statement/expression interpreter shared by host code (run directly, sequentially)
// and device threads (run on the Machine). Statements run as generators so a device thread can be
// suspended at any wait and resumed by the machine (loop bodies that cannot block run inline, without
// a nested generator); expressions are compiled once per AST node into closures. Device-only
// behaviour (events, async copies, MMA timing, race hooks, the thread structure of nested
// `parallel`) asks the launch (./launch.ts) through the `Device` part of the context, which also
// keeps what a debugger shows: the constructs a thread is inside (`frames`) and its current scope.
// Host code yields only at an outermost `parallel`, to let its runner (./index.ts) run the launch.
//
// Layers, one module each: ./context.ts (scopes, device state, launch hooks) < ./expressions.ts (compiled
// expressions, element access) < ./async-ops.ts (copies, MMA, futures) < this file (statements, declarations,
// assignment; the class the runners instantiate).
import type { CoExpr, CoStmt } from '../ast';
import type { SourceLoc } from '../../../sim/machine';
import { type Ctx, type DeviceFrame, Env, Flow, HostStepLimit, newBuffer, type Vars, viewOf } from './context';
import { AsyncOps } from './async-ops';
import { pure } from './expressions';
import {
  binaryOp,
  boundedInt,
  boundedInts,
  castTo,
  copyView,
  describeValue,
  dtypeOf,
  EventRef,
  forEachElement,
  Future,
  int,
  readElement,
  Sc,
  scalarOf,
  truthy,
  Tuple,
  type Value,
  View,
  ViewArray,
  writeElement,
} from './values';

// Kept importable from here, where they lived first.
export {
  type Ctx,
  type Device,
  type DeviceFrame,
  Env,
  Flow,
  HostStepLimit,
  type InterpOptions,
  type LaunchHooks,
  newBuffer,
  type SyncGroup,
  type ThreadRun,
  viewOf,
} from './context';
export { mmaCompute, mmaDims } from './async-ops';

const NO_VARS: string[] = [];

/** A statement that cannot block, compiled: runs it and says how control leaves it. */
type StmtFn = (ctx: Ctx) => Flow;

/** runLightLoop's answer where the thread must be suspended (not a Flow). */
const SUSPEND = -1;

/** A running foreach: its variables, bounds, scope and position. */
interface LoopRun {
  names: string[];
  depth: number;
  ubs: number[] | undefined;
  starts: number[] | undefined;
  ends: number[] | undefined;
  steps: number[] | undefined;
  /** Current values of the dimensions before the last (several dimensions only). */
  idx: number[] | undefined;
  tables: ((Sc | undefined)[] | undefined)[] | undefined;
  /** The last dimension: its name, bound, shared values, range and current value. */
  name0: string;
  ub0: number;
  table0: (Sc | undefined)[] | undefined;
  start0: number;
  end0: number;
  step0: number;
  i0: number;
  env: Env;
  body: Ctx;
  /** This loop's slot in the thread's induction values (Ctx.loops). */
  loopDepth: number;
  list: CoStmt[];
  locs: SourceLoc[];
  run: (StmtFn | null)[];
  light: boolean;
  /** Light bodies: the statement to run next (-1: the next iteration is not entered yet). */
  stmt: number;
  /** Where that statement's prologue resumes: 0 from the start, 1 after the budget stop, 2 after the line hook's stop. */
  phase: 0 | 1 | 2;
}

interface CompiledList {
  locs: SourceLoc[];
  /** Per statement: its closure, or null for one that runs as a generator (execHeavy). */
  run: (StmtFn | null)[];
  /** No statement of the list can block or holds other statements. */
  light: boolean;
}

export class Interp extends AsyncOps {
  steps = 0;
  /** Whether a statement may block or contains statements (runs as a generator). */
  protected isHeavy(s: CoStmt): boolean {
    switch (s.kind) {
      case 'assign':
        return s.value.kind === 'mma';
      case 'decl':
        return s.init?.kind === 'mma';
      case 'expr':
        return s.expr.kind === 'mma';
      case 'break':
      case 'continue':
      case 'return':
      case 'yield':
      case 'event-decl':
        return false;
      default:
        return true;
    }
  }

  protected readonly lists = new WeakMap<CoStmt[], CompiledList>();

  /**
   * A statement list compiled once (on its first run): each statement's location and, for one that
   * cannot block, its closure. A list belongs to one function, so its locations are fixed too.
   */
  protected compiledList(list: CoStmt[], func: string): CompiledList {
    let c = this.lists.get(list);
    if (c === undefined) {
      const run = list.map((x) => (this.isHeavy(x) ? null : this.compileStmt(x)));
      c = { locs: list.map((x) => this.loc(x, func)), run, light: run.every((r) => r !== null) };
      this.lists.set(list, c);
    }
    return c;
  }

  *execList(list: CoStmt[], ctx: Ctx): Generator<void, Flow, void> {
    const { locs, run } = this.compiledList(list, ctx.func);
    const dev = ctx.dev;
    // The debugger's scope of the thread: this list's, until a nested statement enters another.
    if (dev) dev.env = ctx.env;
    for (let i = 0; i < run.length; i++) {
      if (dev) {
        const r = dev.run;
        // The location first: a thread suspended here by its budget is shown before this statement.
        const loc = locs[i];
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
      const fn = run[i];
      let f: Flow;
      if (fn === null) {
        // Loops and nested parallels directly: one generator fewer per run.
        const st = list[i];
        if (st.kind === 'foreach') f = yield* this.foreach(st, ctx);
        else if (st.kind === 'parallel' && dev) f = yield* dev.launch.parallel(st, ctx);
        else if (st.kind === 'if' || st.kind === 'block') {
          // execHeavy's `if` and braced block, without its generator and scoped()'s (an empty branch runs nothing).
          const branch = st.kind === 'block' ? st.body : truthy(this.ev(st.cond, ctx)) ? st.then : st.else;
          if (branch.length === 0) f = Flow.Normal;
          else {
            const inner: Ctx = { env: new Env(ctx.env), dev, loops: ctx.loops, func: ctx.func, returned: ctx.returned };
            f = yield* this.execList(branch, inner);
            if (f === Flow.Return) ctx.returned = inner.returned;
          }
        } else f = yield* this.execHeavy(st, ctx);
        if (dev) dev.env = ctx.env;
      } else f = fn(ctx);
      if (f !== Flow.Normal) return f;
    }
    return Flow.Normal;
  }

  /**
   * A statement that cannot block, as a closure. Compiling never fails: what is wrong with a statement
   * is reported when (and only if) it runs, exactly as the generic path (execLight) reports it.
   */
  protected compileStmt(s: CoStmt): StmtFn {
    switch (s.kind) {
      case 'assign':
        return this.compileAssign(s);
      case 'decl':
        return this.compileDecl(s);
      case 'expr': {
        if (s.expr.kind === 'call' && (s.expr.callee === 'swap' || s.expr.callee === 'rotate')) break;
        const e = this.sub(s.expr);
        return (ctx) => {
          e(ctx);
          return Flow.Normal;
        };
      }
      case 'break':
        return () => Flow.Break;
      case 'continue':
        return () => Flow.Continue;
      case 'yield':
        return () => Flow.Exit;
    }
    return (ctx) => this.execLight(s, ctx);
  }

  protected execLight(s: CoStmt, ctx: Ctx): Flow {
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

  protected *execHeavy(s: CoStmt, ctx: Ctx): Generator<void, Flow, void> {
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
        const inner: Ctx = { env, dev: ctx.dev, loops: ctx.loops, func: ctx.func, returned: ctx.returned };
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

  protected *scoped(body: CoStmt[], ctx: Ctx): Generator<void, Flow, void> {
    const inner: Ctx = { env: new Env(ctx.env), dev: ctx.dev, loops: ctx.loops, func: ctx.func, returned: ctx.returned };
    const f = yield* this.execList(body, inner);
    if (f === Flow.Return) ctx.returned = inner.returned;
    return f;
  }

  /** Names and upper bounds of `with`/`foreach … in` variables; a tuple extent spreads over several names. */
  protected boundedList(vars: string[], extents: CoExpr[], node: CoStmt, ctx: Ctx): { names: string[]; ubs: number[] } {
    const ubs: number[] = [];
    for (const x of extents) {
      const v = this.ev(x, ctx);
      if (v instanceof Tuple) for (const it of v.items) ubs.push(it.v);
      else ubs.push(this.intOf(v, x, ctx));
    }
    if (ubs.length !== vars.length) throw this.err(`${vars.length} variable(s) but ${ubs.length} extent(s)`, node, ctx);
    return { names: vars, ubs };
  }

  protected *foreach(s: Extract<CoStmt, { kind: 'foreach' }>, ctx: Ctx): Generator<void, Flow, void> {
    const L = this.startLoop(s, ctx);
    if (L === undefined) return Flow.Normal;
    const pop = this.pushFrame(ctx, s, L.names);
    try {
      if (L.light) {
        // The loop runs in a plain function (quick to optimise, no generator frame per iteration); it
        // returns to be suspended here where the generic path would yield, and is resumed where it stopped.
        for (;;) {
          const f = this.runLightLoop(L, ctx);
          if (f !== SUSPEND) return f;
          yield;
        }
      }
      const body = L.body;
      for (;;) {
        this.enterIteration(L);
        const f = yield* this.execList(L.list, body);
        if (f === Flow.Break) return Flow.Normal;
        if (f === Flow.Return || f === Flow.Exit) {
          ctx.returned = body.returned;
          return f;
        }
        if (!this.advance(L)) return Flow.Normal;
      }
    } finally {
      // The enclosing loops' induction values are left as they were (also after an error or an abandoned thread).
      ctx.loops.length = L.loopDepth;
      if (pop) this.popFrame(ctx);
    }
  }

  /** Evaluates a foreach's bounds and makes its scope; undefined when it runs no iteration. */
  protected startLoop(s: Extract<CoStmt, { kind: 'foreach' }>, ctx: Ctx): LoopRun | undefined {
    let names = s.vars;
    let ubs: number[] | undefined;
    // `foreach k in n` (one variable, one integer extent, no range): no per-run arrays.
    let ub0 = 0;
    if (names.length === 1 && s.extents.length === 1 && s.ranges[0] === undefined && !s.attributes.includes('apply')) {
      const x = s.extents[0];
      const v = this.ev(x, ctx);
      if (v instanceof Tuple) {
        ubs = v.items.map((it) => it.v);
        if (ubs.length !== 1) throw this.err(`1 variable(s) but ${ubs.length} extent(s)`, s, ctx);
      } else ub0 = this.intOf(v, x, ctx);
    } else if (s.attributes.includes('apply')) {
      const v = this.ev(s.extents[0], ctx);
      if (!(v instanceof Tuple)) throw this.err(`apply needs a span, but ${this.text(s.extents[0])} is ${describeValue(v)}`, s, ctx);
      const shape = v.items.map((x) => x.v);
      ubs = names.length === 1 ? [shape.reduce((a, b) => a * b, 1)] : shape.slice(0, names.length);
      if (ubs.length !== names.length) throw this.err(`apply over a ${shape.length}-dimensional span with ${names.length} variables`, s, ctx);
    } else {
      ({ names, ubs } = this.boundedList(s.vars, s.extents, s, ctx));
    }
    const depth = names.length;
    let starts: number[] | undefined;
    let ends: number[] | undefined;
    let steps: number[] | undefined;
    if (ubs !== undefined) {
      starts = [];
      ends = [];
      steps = [];
      for (let i = 0; i < depth; i++) {
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
        steps.push(st);
      }
    }
    // One scope per loop, emptied at each iteration: the induction variables and the body's own
    // names live together (a body declaration shadows nothing it could not shadow before, and the
    // next iteration starts from the variables alone, as a fresh scope would).
    const env = new Env(ctx.env);
    const body: Ctx = { env, dev: ctx.dev, loops: ctx.loops, func: ctx.func, returned: ctx.returned };
    if (starts === undefined ? ub0 <= 0 : starts.some((v, i) => v >= ends![i])) return undefined;
    const { locs, run, light } = this.compiledList(s.body, ctx.func);
    // The last (fastest) dimension runs on the scalars *0, the others on the arrays. The induction values
    // are shared scalars (one per value of a bound), not allocated per iteration.
    if (ubs !== undefined) ub0 = ubs[depth - 1];
    const start0 = starts === undefined ? 0 : starts[depth - 1];
    return {
      names,
      depth,
      ubs,
      starts,
      ends,
      steps,
      idx: depth > 1 ? starts!.slice() : undefined,
      tables: depth > 1 ? ubs!.map((ub) => boundedInts(ub)) : undefined,
      name0: names[depth - 1],
      ub0,
      table0: boundedInts(ub0),
      start0,
      end0: ends === undefined ? ub0 : ends[depth - 1],
      step0: steps === undefined ? 1 : steps[depth - 1],
      i0: start0,
      env,
      body,
      loopDepth: ctx.loops.length,
      list: s.body,
      locs,
      run,
      light,
      stmt: -1,
      phase: 0,
    };
  }

  /** Binds an iteration's induction variables in the loop's (emptied) scope. */
  protected enterIteration(L: LoopRun): void {
    const vars = L.env.vars;
    if (vars.size !== L.depth) vars.clear(); // only the induction variables: nothing to drop
    if (L.depth > 1) for (let i = 0; i < L.depth - 1; i++) vars.set(L.names[i], boundedInt(L.tables![i], L.idx![i], L.ubs![i]));
    vars.set(L.name0, boundedInt(L.table0, L.i0, L.ub0));
    L.body.returned = undefined;
    // This loop's slot in the induction values, written in place (a push and pop per iteration
    // would shrink and regrow the array's storage); nested loops stay above it.
    L.body.loops[L.loopDepth] = L.i0;
  }

  /** Moves to the next iteration; false when the loop is done. */
  protected advance(L: LoopRun): boolean {
    L.i0 += L.step0;
    if (L.i0 < L.end0) return true;
    L.i0 = L.start0;
    let d = L.depth - 2;
    for (; d >= 0; d--) {
      L.idx![d] += L.steps![d];
      if (L.idx![d] < L.ends![d]) break;
      L.idx![d] = L.starts![d];
    }
    return d >= 0;
  }

  /**
   * Runs a loop whose body cannot block from where it stopped, with execList's budget, location and step
   * accounting per statement; returns how the loop ended, or SUSPEND where execList would yield (out of
   * budget before a statement, or stopped by the line hook), with the loop's position kept in `L`.
   */
  protected runLightLoop(L: LoopRun, ctx: Ctx): Flow | typeof SUSPEND {
    const dev = ctx.dev;
    const { locs, run, body } = L;
    const n = run.length;
    for (;;) {
      if (L.stmt < 0) {
        this.enterIteration(L);
        if (dev) dev.env = L.env;
        L.stmt = 0;
      }
      let f: Flow = Flow.Normal;
      while (L.stmt < n) {
        const i = L.stmt;
        if (dev) {
          const r = dev.run;
          const loc = locs[i];
          if (L.phase === 0) {
            // The location first: a thread suspended here by its budget is shown before this statement.
            dev.t.loc = loc;
            if (r.ran >= r.budget) {
              L.phase = 1;
              return SUSPEND;
            }
          }
          if (L.phase === 2) r.hookStopped = false;
          else if (dev.m.lineHook) {
            if (!r.hookStopped && dev.m.atStatement(dev.t, loc)) {
              r.hookStopped = true;
              L.phase = 2;
              return SUSPEND;
            }
            r.hookStopped = false;
          }
          L.phase = 0;
          r.ran++;
        } else if (++this.steps > this.o.maxSteps) throw new HostStepLimit();
        L.stmt = i + 1;
        f = run[i]!(body);
        if (f !== Flow.Normal) break;
      }
      L.stmt = -1;
      if (f === Flow.Break) return Flow.Normal;
      if (f === Flow.Return || f === Flow.Exit) {
        ctx.returned = body.returned;
        return f;
      }
      if (!this.advance(L)) return Flow.Normal;
    }
  }

  // ------------------------------------------------------------------ declarations and assignment

  protected declare(s: Extract<CoStmt, { kind: 'decl' }>, ctx: Ctx): void {
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

  protected shapeOf(exprs: CoExpr[], node: CoStmt, ctx: Ctx): number[] {
    const out: number[] = [];
    for (const e of exprs) {
      const v = this.ev(e, ctx);
      if (v instanceof Tuple) for (const it of v.items) out.push(it.v);
      else out.push(this.intOf(v, e, ctx));
    }
    for (const d of out) if (!Number.isInteger(d) || d < 0) throw this.err(`tensor extent ${d} is not a non-negative integer`, node, ctx);
    return out;
  }

  protected readonly assignFns = new WeakMap<CoStmt, StmtFn>();

  /** Runs an assignment outside a compiled list (an MMA statement's host-code path). */
  protected assign(s: Extract<CoStmt, { kind: 'assign' }>, ctx: Ctx): void {
    let f = this.assignFns.get(s);
    if (f === undefined) this.assignFns.set(s, (f = this.compileAssign(s)));
    f(ctx);
  }

  /** An assignment as a closure: element targets and variables directly, other targets through assignSlow. */
  protected compileAssign(s: Extract<CoStmt, { kind: 'assign' }>): StmtFn {
    const el = this.compileElementAssign(s);
    if (el !== null) {
      return (ctx) => {
        el(ctx);
        return Flow.Normal;
      };
    }
    const t = s.target;
    // A copy's value takes the variable's name (assignSlow passes it), so it stays on the generic path.
    if (t.kind !== 'id' || s.value.kind === 'dma' || s.value.kind === 'mma') {
      return (ctx) => {
        this.assignSlow(s, ctx);
        return Flow.Normal;
      };
    }
    const name = t.name;
    const val = this.sub(s.value);
    if (s.op === '=') {
      // `x = v` on a scalar variable that keeps its type (loop accumulators): written in place through an
      // inline cache of where `x` lives, valid under the same conditions as a variable read's (see the
      // 'id' case of ExpressionEvaluator.compile); anything else goes through storeVar.
      let icEnv: Env | undefined;
      let icCount = 0;
      let icGen = 0;
      let icOwner: Vars | undefined;
      let icOwnerGen = 0;
      let icSlot = 0;
      return (ctx) => {
        const v = val(ctx);
        const env = ctx.env;
        const vs = env.vars;
        if (env === icEnv && vs.count === icCount && vs.gen === icGen && icOwner!.gen === icOwnerGen && v instanceof Sc && v.ub === undefined) {
          const old = icOwner!.kv[icSlot];
          if (old instanceof Sc && old.t === v.t) {
            icOwner!.kv[icSlot] = v;
            return Flow.Normal;
          }
        }
        this.storeVar(name, v, ctx);
        // Where the variable lives now (not through a frozen scope: storeVar does not write there).
        for (let p: Env | undefined = env; p !== undefined && !p.frozen; p = p.parent) {
          const i = p.vars.find(name);
          if (i >= 0) {
            icEnv = env;
            icCount = vs.count;
            icGen = vs.gen;
            icOwner = p.vars;
            icOwnerGen = p.vars.gen;
            icSlot = i;
            break;
          }
        }
        return Flow.Normal;
      };
    }
    const op = s.op.slice(0, -1);
    const cur = this.sub(t);
    const targetText = () => this.text(t);
    const valueText = () => this.text(s.value);
    return (ctx) => {
      const v = val(ctx);
      const old = scalarOf(cur(ctx), targetText);
      this.storeVar(name, binaryOp(op, old, scalarOf(v, valueText)), ctx);
      return Flow.Normal;
    };
  }

  /** A declaration as a closure: scalars directly, tensors and the rest through declare. */
  protected compileDecl(s: Extract<CoStmt, { kind: 'decl' }>): StmtFn {
    const scalar = s.type !== 'mdspan' && s.type !== 'ituple' && s.shape.length === 0 && s.storage !== 'frag' && s.names.every((n) => n.dims.length === 0);
    if (!scalar) {
      return (ctx) => {
        this.declare(s, ctx);
        return Flow.Normal;
      };
    }
    const init = s.init ? this.sub(s.init) : undefined;
    const auto = s.type === 'auto';
    const dt = auto ? undefined : dtypeOf(s.type);
    const names = s.names.map((n) => n.name);
    return (ctx) => {
      for (let i = 0; i < names.length; i++) {
        let v: Value = init !== undefined ? init(ctx) : int(0);
        if (!auto) {
          if (!dt) throw this.err(`element type '${s.type}'`, s, ctx, 'unsupported');
          if (!(v instanceof Sc)) throw this.err(`'${names[i]}' is declared ${s.type} but initialised with ${describeValue(v)}`, s, ctx);
          v = castTo(dt.dtype, v);
        } else if (v instanceof Sc && v.ub !== undefined) v = new Sc(v.v, v.t);
        ctx.env.vars.set(names[i], v);
      }
      return Flow.Normal;
    };
  }

  /**
   * `t.at(i…) = v` / `t.at(i…) op= v` on a tensor, with a target free of side effects: the element is
   * located once (the generic path evaluates the target twice, for the read and for the write).
   * A target that is not a tensor at run time takes the generic path with the value already computed.
   */
  protected compileElementAssign(s: Extract<CoStmt, { kind: 'assign' }>): ((ctx: Ctx) => boolean) | null {
    const t = s.target;
    if (t.kind !== 'method' || t.name !== 'at' || !pure(t)) return null;
    const obj = this.sub(t.object);
    const args = t.args.map((a) => this.sub(a));
    const two = args.length === 2;
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
      const off = two ? this.offsetOf2(base, args, t, ctx, scratch) : this.offsetOf(base, args, t, ctx, scratch);
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

  protected assignSlow(s: Extract<CoStmt, { kind: 'assign' }>, ctx: Ctx, value?: Value): void {
    let v = value ?? this.ev(s.value, ctx, s.target.kind === 'id' ? s.target.name : undefined);
    if (s.op !== '=') {
      const old = scalarOf(this.ev(s.target, ctx), () => this.text(s.target));
      v = binaryOp(s.op.slice(0, -1), old, scalarOf(v, () => this.text(s.value)));
    }
    this.store(s.target, v, ctx);
  }

}
