// A first-pass protocol run: executes a kernel's IR for every thread of one block of an assumed size
// (conditions on thread identity are evaluated exactly), records each thread's barrier events, then
// interleaves the threads against the simulator's mbarrier state machine (replay-barriers.ts: phase,
// pending arrivals, init count, drops, parity and tokens).
//
// It exists so rules can reason about arrivals, bootstraps and visibility from *who executes what*,
// not from names. It is deliberately conservative: whatever it cannot evaluate (data-dependent
// branches, unknown slot indices, unknown counts) marks the barrier "uncertain", and uncertain
// barriers never block and never produce evidence. Loops run a bounded number of iterations.
import { exprKey, freeVars, walkExpr } from '../ir/expr';
import type { BarrierOp, Expr, Kernel, Stmt } from '../ir/types';
import { visitStmts } from '../ir/visit';
import { ReplayBarriers } from './replay-barriers';
import { evalForThread, isThreadDependent, type ThreadPoint } from './threads';

export type TraceEvent =
  | { kind: 'init'; op: BarrierOp; key: string; count?: number }
  | { kind: 'arrive'; op: BarrierOp; key: string; count: number; drop: boolean; tokenOut?: string; iter: string }
  | { kind: 'wait'; op: BarrierOp; key: string; parity?: number; token?: string; iter: string }
  | { kind: 'use'; op: BarrierOp; key: string }
  | { kind: 'sync'; scope: 'block' | 'cluster' }
  | { kind: 'fence-init'; op: BarrierOp }
  /** fence.proxy.async: orders this thread's earlier generic-proxy writes (a barrier's init) before the async proxy. */
  | { kind: 'fence-proxy'; op: BarrierOp }
  | { kind: 'uncertain'; key: string };

interface ThreadTrace {
  events: TraceEvent[];
  signature: string;
}

export interface BlockedWait {
  event: Extract<TraceEvent, { kind: 'wait' }>;
  threads: number[];
  phase: number;
  pending: number | undefined;
  expected: number | undefined;
}

export interface RunResult {
  blockSize: number;
  /** Threads per distinct trace. */
  actors: { threads: number[]; events: TraceEvent[] }[];
  deadlock: BlockedWait[] | undefined;
  /** Keys that the run could not reason about. */
  uncertain: Set<string>;
  /** Barrier key -> threads that initialised it (first init round). */
  initializers: Map<string, { threads: number[]; op: BarrierOp; count?: number }>;
  completedPhases: Map<string, number>;
  /**
   * Barrier key -> the most phases completed when a blocking wait on it passed (0 when every wait passed before
   * the first completion, as the "previous phase" wait on a fresh barrier does): how far its waiters followed it.
   */
  observedPhases: Map<string, number>;
  /** Thread-identity branches some thread entered (plausibility of the block size). */
  entered: Set<Stmt>;
  /** The lowest thread that entered each of them (the smallest block that reaches it). */
  firstEntered: Map<Stmt, number>;
}

const MAX_EVENTS_PER_THREAD = 6000;
/**
 * Statements one thread class may execute: nested loops each replayed up to maxIterations times multiply, so a
 * deep nest of loops without barrier events would otherwise run for minutes. Past it the replay overflows (its
 * rules stay silent for the kernel), so the cost stays linear in the kernel's size.
 */
const MAX_STEPS_PER_THREAD = 200_000;

/** Thread-identity `if` statements with operations inside: evidence a block size is plausible. */
export function roleBranches(kernel: Kernel, derived: Map<string, Expr> = derivedVars(kernel)): Extract<Stmt, { kind: 'if' }>[] {
  const out: Extract<Stmt, { kind: 'if' }>[] = [];
  const visit = (list: Stmt[]): void => {
    for (const s of list) {
      if (s.kind === 'if') {
        if (isThreadDependent(s.cond, (n) => derived.get(n)) && hasOps(s.then)) out.push(s);
        visit(s.then);
        visit(s.else);
      } else if (s.kind === 'loop') visit(s.body);
    }
  };
  visit(kernel.body);
  return out;
}

function hasOps(list: Stmt[]): boolean {
  return list.some((s) => s.kind === 'op' || (s.kind === 'if' && (hasOps(s.then) || hasOps(s.else))) || (s.kind === 'loop' && hasOps(s.body)));
}

/** Locals assigned exactly once (at their declaration): their value is that expression. */
export function derivedVars(kernel: Kernel): Map<string, Expr> {
  const defs = new Map<string, Expr>();
  const counts = new Map<string, number>();
  const visit = (list: Stmt[]): void => {
    for (const s of list) {
      if (s.kind === 'assign') {
        counts.set(s.target, (counts.get(s.target) ?? 0) + 1);
        if (s.declared && s.op === '=' && s.value) defs.set(s.target, s.value);
      } else if (s.kind === 'if') {
        visit(s.then);
        visit(s.else);
      } else if (s.kind === 'loop') {
        visit(s.body);
        if (s.step) visit(s.step);
      }
    }
  };
  visit(kernel.body);
  for (const [k, n] of counts) if (n > 1) defs.delete(k);
  return defs;
}

/**
 * Local barrier pointers whose value comes from a call the front end could not see into and that
 * depends on the thread (`auto* bar = buffer.get_rank_buffer(warp_idx).get_mbarrier_ptr()`): each
 * warp may hold a different barrier, so the name is no identity and the replay must not treat the
 * threads' operations as operations on one barrier. `values`: every value each local is assigned
 * (a call that may change an object by reference is not a value: it keeps what the object holds).
 */
export function opaqueBarrierPointers(values: ReadonlyMap<string, readonly Expr[]>): Set<string> {
  const memo = new Map<string, boolean>();
  const dependsOnThread = (e: Expr, depth: number): boolean => {
    let found = false;
    walkExpr(e, (x) => {
      if (found) return;
      if (x.kind === 'var') {
        if (x.name === 'threadIdx') found = true;
        else if (depth < 16 && values.has(x.name)) {
          let v = memo.get(x.name);
          if (v === undefined) {
            memo.set(x.name, false);
            v = values.get(x.name)!.some((y) => dependsOnThread(y, depth + 1));
            memo.set(x.name, v);
          }
          if (v) found = true;
        }
      } else if (x.kind === 'call' && /lane|warp|elect|thread/i.test(x.callee)) found = true;
    });
    return found;
  };
  const out = new Set<string>();
  for (const [name, list] of values) {
    let opaque = false;
    for (const value of list) walkExpr(value, (x) => {
      if (x.kind === 'call' || x.kind === 'opaque') opaque = true;
    });
    if (opaque && list.some((v) => dependsOnThread(v, 0))) out.add(name);
  }
  return out;
}

type Signal = 'break' | 'continue' | 'return' | undefined;

/** How a replay treats what one block cannot see by itself. */
export interface ReplayOptions {
  /**
   * Count an arrival on a peer CTA's barrier (`mapa` + `.shared::cluster`) as an arrival on this CTA's own copy:
   * true when every CTA of the cluster runs the same code (each CTA's barrier then receives what each CTA sends).
   * Off by default: remote arrivals make their barrier uncertain. Remote commits (tcgen05 multicast) stay uncertain.
   */
  remoteArrivalsAsLocal?: boolean;
}

class TraceBuilder {
  readonly events: TraceEvent[] = [];
  private readonly vars = new Map<string, number | undefined>();
  /** Which barrier each token variable came from (a foreign token is another rule's business). */
  private readonly tokenKeys = new Map<string, string>();
  overflow = false;
  private steps = 0;
  /** If statements (by identity) whose then-branch this thread entered. */
  readonly entered = new Set<Stmt>();

  constructor(
    private readonly p: ThreadPoint,
    private readonly constants: Map<string, number>,
    private readonly maxIterations: number,
    /** Barrier pointers whose identity the replay cannot know (opaqueBarrierPointers). */
    private readonly opaquePointers: ReadonlySet<string> = new Set(),
    private readonly options: ReplayOptions = {},
  ) {}

  private value(e: Expr | undefined): number | undefined {
    return evalForThread(e, this.p, (n) => this.vars.get(n), this.constants);
  }

  private key(op: BarrierOp): string | undefined {
    if (!op.barrier) return undefined;
    if (!op.barrier.index) return op.barrier.base;
    const i = this.value(op.barrier.index);
    return i === undefined ? undefined : `${op.barrier.base}[${i}]`;
  }

  private push(e: TraceEvent): void {
    if (this.events.length >= MAX_EVENTS_PER_THREAD) {
      this.overflow = true;
      return;
    }
    this.events.push(e);
  }

  run(stmts: Stmt[], certain: boolean, iter: string): Signal {
    for (const s of stmts) {
      if (this.overflow) return 'return';
      if (++this.steps > MAX_STEPS_PER_THREAD) {
        this.overflow = true;
        return 'return';
      }
      const sig = this.stmt(s, certain, iter);
      if (sig) return sig;
    }
    return undefined;
  }

  private stmt(s: Stmt, certain: boolean, iter: string): Signal {
    switch (s.kind) {
      case 'op':
        this.op(s.op, certain, iter);
        return undefined;
      case 'assign':
        this.assign(s, certain);
        return undefined;
      case 'sync':
        if (certain && (s.scope === 'block' || s.scope === 'cluster' || s.scope === 'cluster-wait')) this.push({ kind: 'sync', scope: s.scope === 'block' ? 'block' : 'cluster' });
        return undefined;
      case 'access':
        return undefined;
      case 'return':
      case 'break':
      case 'continue':
        return s.kind;
      case 'if': {
        const c = certain ? this.value(s.cond) : undefined;
        if (c !== undefined) {
          if (c) this.entered.add(s);
          return this.run(c ? s.then : s.else, certain, iter);
        }
        // Unknown condition: walk both sides without blocking and forget what they assign.
        const sigT = this.run(s.then, false, iter);
        const sigE = this.run(s.else, false, iter);
        this.forgetAssigned(s.then);
        this.forgetAssigned(s.else);
        if (sigT === 'return' && sigE === 'return') return 'return';
        if (sigT || sigE) return 'uncertain-exit' as Signal;
        return undefined;
      }
      case 'loop': {
        if (!hasBarrierWork(s)) {
          // Compute loops cannot change the protocol: skip them, forgetting what they assign.
          this.forgetAssigned(s.body);
          if (s.step) this.forgetAssigned(s.step);
          if (s.var) this.vars.set(s.var, undefined);
          return undefined;
        }
        let certainLoop = certain;
        for (let i = 0; i < this.maxIterations; i++) {
          if (s.cond) {
            const c = certainLoop ? this.value(s.cond) : undefined;
            if (c === 0) break;
          }
          const sig = this.run(s.body, certainLoop, `${iter}.${i}`) as string | undefined;
          if (sig === 'return') return 'return';
          if (sig === 'break') break;
          if (sig === 'uncertain-exit') {
            // The loop may end here for some threads: later iterations are not certain.
            certainLoop = false;
          }
          if (s.step) this.run(s.step, certainLoop, iter);
          if (this.overflow) return 'return';
        }
        this.forgetAssigned(s.body);
        if (s.var && s.step) this.vars.set(s.var, undefined);
        return undefined;
      }
      default:
        return undefined;
    }
  }

  private forgetAssigned(list: Stmt[]): void {
    for (const s of list) {
      if (s.kind === 'assign') this.vars.set(s.target, undefined);
      else if (s.kind === 'if') {
        this.forgetAssigned(s.then);
        this.forgetAssigned(s.else);
      } else if (s.kind === 'loop') {
        this.forgetAssigned(s.body);
        if (s.step) this.forgetAssigned(s.step);
      }
    }
  }

  private assign(s: Extract<Stmt, { kind: 'assign' }>, certain: boolean): void {
    if (s.op === 'call-arg') return;
    if (!certain) {
      this.vars.set(s.target, undefined);
      return;
    }
    const cur = this.vars.get(s.target);
    const v = s.value ? this.value(s.value) : undefined;
    let next: number | undefined;
    switch (s.op) {
      case '=':
        next = v;
        break;
      case '++':
        next = cur === undefined ? undefined : cur + 1;
        break;
      case '--':
        next = cur === undefined ? undefined : cur - 1;
        break;
      default: {
        if (cur === undefined || v === undefined) {
          next = undefined;
          break;
        }
        const bin: Record<string, (a: number, b: number) => number> = {
          '+=': (a, b) => a + b,
          '-=': (a, b) => a - b,
          '*=': (a, b) => a * b,
          '^=': (a, b) => a ^ b,
          '|=': (a, b) => a | b,
          '&=': (a, b) => a & b,
          '%=': (a, b) => (b ? a % b : NaN),
          '<<=': (a, b) => a << b,
          '>>=': (a, b) => a >> b,
        };
        const f = bin[s.op];
        next = f ? f(cur, v) : undefined;
        if (next !== undefined && Number.isNaN(next)) next = undefined;
      }
    }
    this.vars.set(s.target, next);
  }

  private op(op: BarrierOp, certain: boolean, iter: string): void {
    const key = this.key(op);
    if (op.barrier && (key === undefined || this.opaquePointers.has(op.barrier.base))) {
      this.push({ kind: 'uncertain', key: op.barrier.base });
      return;
    }
    if (!certain) {
      if (key && op.kind !== 'fence-init') this.push({ kind: 'uncertain', key });
      return;
    }
    switch (op.kind) {
      case 'init': {
        const count = op.count ? this.value(op.count) : undefined;
        this.push({ kind: 'init', op, key: key!, count });
        return;
      }
      case 'arrive':
      case 'arrive-expect-tx':
      case 'arrive-drop':
      case 'mma-commit-arrive':
      case 'cp-async-arrive-noinc': {
        if (op.remote && !(this.options.remoteArrivalsAsLocal && op.kind !== 'mma-commit-arrive')) {
          this.push({ kind: 'uncertain', key: key! });
          return;
        }
        const count = op.count ? this.value(op.count) : 1;
        if (count === undefined) {
          this.push({ kind: 'uncertain', key: key! });
          return;
        }
        const tokenOut = op.tokenOut;
        if (tokenOut) {
          this.vars.set(tokenOut, undefined);
          this.tokenKeys.set(tokenOut, key!);
        }
        this.push({ kind: 'arrive', op, key: key!, count, drop: op.kind === 'arrive-drop', tokenOut, iter });
        return;
      }
      case 'wait-parity': {
        if (op.result !== 'blocking') {
          this.push({ kind: 'use', op, key: key! });
          return;
        }
        const parity = this.value(op.parity);
        if (parity === undefined) {
          this.push({ kind: 'use', op, key: key! });
          return;
        }
        this.push({ kind: 'wait', op, key: key!, parity: parity & 1, iter });
        return;
      }
      case 'wait-token': {
        const token = op.token?.kind === 'var' ? op.token.name : op.token?.kind === 'call' && op.token.args[0]?.kind === 'var' ? op.token.args[0].name : undefined;
        if (op.result !== 'blocking' || !token || (this.tokenKeys.has(token) && this.tokenKeys.get(token) !== key)) {
          this.push({ kind: 'use', op, key: key! });
          return;
        }
        this.push({ kind: 'wait', op, key: key!, token, iter });
        return;
      }
      case 'fence-init':
        this.push({ kind: 'fence-init', op });
        return;
      case 'fence-proxy-async':
        this.push({ kind: 'fence-proxy', op });
        return;
      default:
        if (key) this.push({ kind: 'use', op, key });
        return;
    }
  }

  signature(): string {
    return this.events
      .map((e) => {
        switch (e.kind) {
          case 'init':
            return `I${e.key}:${e.count}@${pos(e.op)}`;
          case 'arrive':
            return `A${e.key}:${e.count}${e.drop ? 'd' : ''}${e.tokenOut ?? ''}@${pos(e.op)}#${e.iter}`;
          case 'wait':
            return `W${e.key}:${e.parity ?? e.token}@${pos(e.op)}#${e.iter}`;
          case 'use':
            return `U${e.key}@${pos(e.op)}`;
          case 'sync':
            return `S${e.scope}`;
          case 'fence-init':
            return `F@${pos(e.op)}`;
          case 'fence-proxy':
            return `P@${pos(e.op)}`;
          case 'uncertain':
            return `?${e.key}`;
        }
      })
      .join('|');
  }
}

const barrierWork = new WeakMap<Stmt, boolean>();

/** Does a loop contain barrier operations, syncs or jumps that matter to the replay? */
function hasBarrierWork(loop: Stmt): boolean {
  let v = barrierWork.get(loop);
  if (v === undefined) {
    const visit = (list: Stmt[]): boolean => list.some((s) => (s.kind === 'op' && replayRecords(s.op)) || s.kind === 'sync' || s.kind === 'return' || (s.kind === 'if' && (visit(s.then) || visit(s.else))) || (s.kind === 'loop' && hasBarrierWork(s)));
    v = loop.kind === 'loop' ? visit(loop.body) || visit(loop.step ?? []) : true;
    barrierWork.set(loop, v);
  }
  return v;
}

/** Op kinds the replay records even without a barrier operand (TraceBuilder.op's explicit cases). */
const RECORDED_WITHOUT_BARRIER = new Set<string>(['init', 'arrive', 'arrive-expect-tx', 'arrive-drop', 'mma-commit-arrive', 'cp-async-arrive-noinc', 'wait-parity', 'wait-token', 'fence-init', 'fence-proxy-async']);

/**
 * Whether replaying `op` can leave an event or set a variable: an operation with no barrier of a kind the
 * replay does not model (an MMA, a copy, a future) does neither, so a loop of only those is skipped like a
 * compute loop instead of being iterated (nested, that would cost time exponential in the depth).
 */
function replayRecords(op: BarrierOp): boolean {
  return op.barrier !== undefined || RECORDED_WITHOUT_BARRIER.has(op.kind);
}

function pos(op: BarrierOp): string {
  return `${op.range.start.line}:${op.range.start.character}`;
}

/**
 * Threads that agree on every thread-dependent expression of the kernel behave identically, so one
 * representative per class is replayed. Returns undefined when some thread-dependent expression also
 * depends on run-time state (then every thread is replayed on its own).
 */
function threadClasses(kernel: Kernel, blockSize: number, constants: Map<string, number>, derived: Map<string, Expr>): number[][] | undefined {
  const exprs: Expr[] = [];
  const add = (e: Expr | undefined): void => {
    if (e && isThreadDependent(e, (n) => derived.get(n))) exprs.push(e);
  };
  // Variables that steer control flow or barrier operands; assignments to anything else (results,
  // accumulators) cannot make two threads behave differently.
  const relevant = new Set<string>();
  const noteVars = (e: Expr | undefined): void => {
    if (e) for (const v of freeVars(e)) relevant.add(v);
  };
  const collect = (list: Stmt[]): void => {
    for (const s of list) {
      if (s.kind === 'if') {
        noteVars(s.cond);
        collect(s.then);
        collect(s.else);
      } else if (s.kind === 'loop') {
        // Loops without barrier work are skipped by the replay: their bounds do not matter.
        if (!hasBarrierWork(s)) continue;
        noteVars(s.cond);
        noteVars(s.init);
        collect(s.body);
        if (s.step) collect(s.step);
      } else if (s.kind === 'op') {
        noteVars(s.op.barrier?.index);
        noteVars(s.op.count);
        noteVars(s.op.parity);
        noteVars(s.op.token);
      }
    }
  };
  collect(kernel.body);
  // Close over definitions: a relevant variable's definition makes its inputs relevant.
  for (let changed = true; changed; ) {
    changed = false;
    const grow = (list: Stmt[]): void => {
      for (const s of list) {
        if (s.kind === 'assign' && relevant.has(s.target) && s.value) {
          for (const v of freeVars(s.value)) if (!relevant.has(v)) (relevant.add(v), (changed = true));
        } else if (s.kind === 'if') (grow(s.then), grow(s.else));
        else if (s.kind === 'loop') (grow(s.body), grow(s.step ?? []));
      }
    };
    grow(kernel.body);
  }
  const visit = (list: Stmt[]): void => {
    for (const s of list) {
      if (s.kind === 'if') {
        add(s.cond);
        visit(s.then);
        visit(s.else);
      } else if (s.kind === 'loop') {
        if (!hasBarrierWork(s)) continue;
        add(s.cond);
        add(s.init);
        visit(s.body);
        if (s.step) visit(s.step);
      } else if (s.kind === 'assign') {
        // A single-definition local acts only through the expressions that read it, which are in
        // the signature already (evaluated through the definition); others must be compared here.
        if (relevant.has(s.target) && !derived.has(s.target)) add(s.value);
      } else if (s.kind === 'op') {
        add(s.op.barrier?.index);
        add(s.op.count);
        add(s.op.parity);
        add(s.op.bytes);
      }
    }
  };
  visit(kernel.body);
  // Typing in a kernel rarely changes who does what: the classes are kept per inputs.
  const key = classesKey(exprs, blockSize, constants, derived);
  if (classCache.has(key)) return classCache.get(key);
  const classes = classify(exprs, blockSize, constants, derived);
  if (classCache.size >= CLASS_CACHE_SIZE) classCache.delete(classCache.keys().next().value!);
  classCache.set(key, classes);
  return classes;
}

/** Thread classes by everything they are computed from (shared, read-only: buildTraces only reads them). */
const classCache = new Map<string, number[][] | undefined>();
const CLASS_CACHE_SIZE = 256;

/**
 * What the classes of `classify` depend on: the block size, the thread-dependent expressions, and the
 * definition or constant value of every name they read, through definitions (as deep as evaluation goes).
 */
function classesKey(exprs: Expr[], blockSize: number, constants: Map<string, number>, derived: Map<string, Expr>): string {
  const parts = [String(blockSize), ...exprs.map(exprKey)];
  // The shallowest depth each name is read at: reached shallower again, its definition is followed further.
  const shallowest = new Map<string, number>();
  const read = (e: Expr, depth: number): void => {
    walkExpr(e, (x) => {
      let name: string | undefined;
      if (x.kind === 'var') name = x.name;
      else if (x.kind === 'member' && !(x.object.kind === 'var' && (x.object.name === 'threadIdx' || x.object.name === 'blockDim'))) name = `${exprKey(x.object)}.${x.field}`;
      if (name === undefined) return;
      const before = shallowest.get(name);
      if (before !== undefined && before <= depth) return;
      shallowest.set(name, depth);
      const d = derived.get(name);
      // A definition past the evaluation's depth falls back to the constant: both are inputs.
      if (before === undefined) parts.push(`${name}${d ? `:=${exprKey(d)}` : ''}=${constants.get(name)}`);
      if (d && depth < 8) read(d, depth + 1);
    });
  };
  for (const e of exprs) read(e, 0);
  return parts.join('\u0001');
}

/** Groups the block's threads by the values of `exprs`; undefined when one does not evaluate. */
function classify(exprs: Expr[], blockSize: number, constants: Map<string, number>, derived: Map<string, Expr>): number[][] | undefined {
  // A derived variable's value is the same wherever the current thread reads it at a given depth (a warp
  // index is read by most expressions): computed once per thread and depth. Depth bounds cyclic definitions.
  let point: ThreadPoint = { tid: 0, blockSize };
  const memo: Array<Map<string, number | undefined>> = [];
  const resolvers: Array<(name: string) => number | undefined> = [];
  const resolve = (depth: number): ((name: string) => number | undefined) =>
    (resolvers[depth] ??= (name: string): number | undefined => {
      const d = derived.get(name);
      if (!d || depth >= 8) return undefined;
      const seen = (memo[depth] ??= new Map());
      if (seen.has(name)) return seen.get(name);
      const v = evalForThread(d, point, resolve(depth + 1), constants);
      seen.set(name, v);
      return v;
    });
  const classes = new Map<string, number[]>();
  for (let tid = 0; tid < blockSize; tid++) {
    point = { tid, blockSize };
    for (const m of memo) m?.clear();
    const values: number[] = [];
    for (const e of exprs) {
      const v = evalForThread(e, point, resolve(0), constants);
      if (v === undefined) return undefined;
      values.push(v);
    }
    const key = values.join(',');
    const c = classes.get(key);
    if (c) c.push(tid);
    else classes.set(key, [tid]);
  }
  return [...classes.values()];
}

export function buildTraces(kernel: Kernel, blockSize: number, constants: Map<string, number>, maxIterations: number, derived: Map<string, Expr> = derivedVars(kernel), options: ReplayOptions = {}): { traces: Map<string, { threads: number[]; events: TraceEvent[] }>; entered: Set<Stmt>; firstEntered: Map<Stmt, number>; overflow: boolean } {
  const traces = new Map<string, { threads: number[]; events: TraceEvent[] }>();
  const entered = new Set<Stmt>();
  const firstEntered = new Map<Stmt, number>();
  const found = threadClasses(kernel, blockSize, constants, derived);
  const classes = found ?? Array.from({ length: blockSize }, (_, t) => [t]);
  const values = new Map<string, Expr[]>();
  visitStmts(kernel.body, (st) => {
    if (st.kind === 'assign' && st.value && st.op !== 'call?' && st.op !== 'call-arg') values.set(st.target, [...(values.get(st.target) ?? []), st.value]);
  });
  const opaque = opaqueBarrierPointers(values);
  // A barrier whose address depends on the thread (one per warp: `buf + warp * kBytesPerWarp`) is a different
  // object in different threads; the replay keys barriers by name, so it leaves those alone.
  visitStmts(kernel.body, (st) => {
    const ref = st.kind === 'op' ? st.op.barrier : undefined;
    const byThread = (e: Expr | undefined): boolean => !!e && isThreadDependent(e, (n) => derived.get(n));
    // A thread-dependent slot index (`full[threadIdx.x]`) is the replay's business; a thread-dependent base is not.
    if (ref?.storage && byThread(ref.storage.offset) && !byThread(ref.index)) opaque.add(ref.base);
  });
  for (const cls of classes) {
    const b = new TraceBuilder({ tid: cls[0], blockSize }, constants, maxIterations, opaque, options);
    b.run(kernel.body, true, '');
    if (b.overflow) return { traces, entered, firstEntered, overflow: true };
    const lowest = Math.min(...cls);
    for (const s of b.entered) {
      entered.add(s);
      if (!(firstEntered.get(s)! <= lowest)) firstEntered.set(s, lowest);
    }
    const sig = b.signature();
    const t = traces.get(sig);
    if (t) t.threads.push(...cls);
    else traces.set(sig, { threads: [...cls], events: b.events });
  }
  for (const t of traces.values()) t.threads.sort((a, b) => a - b);
  return { traces, entered, firstEntered, overflow: false };
}

/** Interleaves the actors against the mbarrier model until all finish or nothing can move. */
export function runProtocol(kernel: Kernel, blockSize: number, constants: Map<string, number>, maxIterations: number, derived: Map<string, Expr> = derivedVars(kernel), options: ReplayOptions = {}): RunResult | undefined {
  const built = buildTraces(kernel, blockSize, constants, maxIterations, derived, options);
  if (built.overflow) return undefined;
  const actors = [...built.traces.values()];
  const uncertain = new Set<string>();
  const initializers = new Map<string, { threads: number[]; op: BarrierOp; count?: number }>();
  // Croqtile (current era): an event's count is the number of threads that ever trigger it.
  const triggering = new Map<string, number>();
  for (const a of actors) {
    const keys = new Set(a.events.filter((e) => e.kind === 'arrive').map((e) => (e as { key: string }).key));
    for (const k of keys) triggering.set(k, (triggering.get(k) ?? 0) + a.threads.length);
  }
  for (const a of actors) {
    for (const e of a.events) {
      if (e.kind === 'init' && e.count === undefined && e.op.count?.kind === 'call' && e.op.count.callee === '<auto>') {
        (e as { count?: number }).count = triggering.get(e.key);
      }
    }
  }
  for (const a of actors) {
    for (const e of a.events) {
      if (e.kind === 'uncertain') {
        uncertain.add(e.key);
        // `[\s\S]` rather than `.`: the cut then matches at the first bracket instead of retrying every one (quadratic).
        uncertain.add(e.key.replace(/\[[\s\S]*$/, ''));
      }
      if (e.kind === 'init') {
        if (e.count === undefined) uncertain.add(e.key);
        const prev = initializers.get(e.key);
        if (prev) {
          if (prev.op === e.op) for (const t of a.threads) if (!prev.threads.includes(t)) prev.threads.push(t);
        } else initializers.set(e.key, { threads: [...a.threads], op: e.op, count: e.count });
      }
    }
  }
  // `[\s\S]` rather than `.`: the cut then matches at the first bracket instead of retrying every one (quadratic).
  const isUncertain = (key: string): boolean => uncertain.has(key) || uncertain.has(key.replace(/\[[\s\S]*$/, ''));
  const barriers = new ReplayBarriers();
  const pcs = actors.map(() => 0);
  const syncArrived = actors.map(() => 0);
  const tokens = actors.map(() => new Map<string, number>());
  const done = (i: number): boolean => pcs[i] >= actors[i].events.length;
  const observedPhases = new Map<string, number>();

  let progressed = true;
  let guard = 0;
  while (progressed && guard++ < 100000) {
    progressed = false;
    for (let i = 0; i < actors.length; i++) {
      const a = actors[i];
      while (!done(i)) {
        const e = a.events[pcs[i]];
        if (e.kind === 'init') {
          if (!isUncertain(e.key) && e.count !== undefined) barriers.init(e.key, e.count);
        } else if (e.kind === 'arrive') {
          if (!isUncertain(e.key)) {
            const token = barriers.arrive(e.key, e.count, a.threads.length, e.drop);
            if (token !== undefined && e.tokenOut) tokens[i].set(e.tokenOut, token);
          }
        } else if (e.kind === 'wait') {
          if (!isUncertain(e.key)) {
            const blocks = e.parity !== undefined ? barriers.parityBlocks(e.key, e.parity) : barriers.tokenBlocks(e.key, e.token !== undefined ? tokens[i].get(e.token) : undefined);
            if (blocks) break;
            const completed = barriers.state(e.key)?.phase;
            if (completed !== undefined) observedPhases.set(e.key, Math.max(observedPhases.get(e.key) ?? 0, completed));
          }
        } else if (e.kind === 'sync') {
          // All threads of the block meet here; finished threads count as arrived.
          const k = syncArrived[i] + 1;
          const ready = actors.every((_, j) => j === i || done(j) || syncArrived[j] >= k || isAtSync(actors[j].events[pcs[j]], syncArrived[j], k));
          if (!ready) {
            break;
          }
          syncArrived[i] = k;
        }
        pcs[i]++;
        progressed = true;
      }
    }
  }
  let deadlock: BlockedWait[] | undefined;
  if (actors.some((_, i) => !done(i))) {
    deadlock = [];
    for (let i = 0; i < actors.length; i++) {
      if (done(i)) continue;
      const e = actors[i].events[pcs[i]];
      if (e.kind !== 'wait') continue;
      const b = barriers.state(e.key);
      deadlock.push({ event: e, threads: actors[i].threads, phase: b?.phase ?? 0, pending: b?.pending, expected: b?.expected });
    }
  }
  const completedPhases = barriers.completedPhases();
  return { blockSize, actors, deadlock, uncertain, initializers, completedPhases, observedPhases, entered: built.entered, firstEntered: built.firstEntered };
}

/** A peer parked at its own k-th sync also satisfies the meeting. */
function isAtSync(e: TraceEvent | undefined, arrived: number, k: number): boolean {
  return !!e && e.kind === 'sync' && arrived + 1 >= k;
}


/** Upper bound of arrivals one phase of `key` can receive: each thread's busiest iteration, summed. */
export function maxArrivalsPerPhase(run: RunResult, key: string): number {
  let total = 0;
  for (const a of run.actors) {
    const perIter = new Map<string, number>();
    for (const e of a.events) if (e.kind === 'arrive' && e.key === key) perIter.set(e.iter, (perIter.get(e.iter) ?? 0) + e.count);
    total += Math.max(0, ...perIter.values()) * a.threads.length;
  }
  return total;
}
