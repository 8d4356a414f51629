// One device launch of a Croqtile program: the outermost `parallel` of host code becomes a Machine
// run. Blocks are the instances of a `: block` parallel; each simulated thread is one instance of
// the innermost nested parallel that executes statements. A `thread`-level parallel whose index is
// never used is folded into its parent instance, which then stands for that many hardware threads
// (its "weight": a warpgroup of 128 that triggers an event arrives 128 times), so warp-specialised
// kernels run at warpgroup granularity. Nested parallels fork and join with a rendezvous of their
// enclosing instance; events map onto machine mbarriers with the arrival counts and wait rules of the
// file's synchronisation era (notes: croqtile.md §2.2–2.4).
//
// Debugger view (`frames`, `locals`, `scope`, `futures`, `threadLabel`): a thread's frames are the
// constructs it is inside (the block body, then each nested `parallel` instance, `inthreads`,
// `foreach` and `with`), innermost first; `if`/`while`/braced bodies are scopes of the frame around
// them. Each frame's locals are the variables declared in it (the block body's frame also shows the
// block's indices and the host's variables: parameters, symbolic dimensions).
import type { CoExpr, CoStmt } from '../ast';
import type { FrameInfo, FutureInfo, LocalInfo } from '../../../debug/target';
import { type Executor, Machine, type MachineOptions, type SimBlock, SimError, type SimThread, type SourceLoc } from '../../../sim/machine';
import { type Ctx, type Device, type DeviceFrame, Env, Flow, type Interp, type LaunchHooks, type SyncGroup } from './interp';
import { type EventObj, EventRef, formatScalar, Future, int, PendingView, Sc, Tuple, truthy, type Value, View, ViewArray } from './values';

type ParallelStmt = Extract<CoStmt, { kind: 'parallel' }>;

const LEVEL_SIZE: Record<string, number> = { thread: 1, group: 32, 'group-4': 128 };

interface ParDesc {
  extents: number[];
  n: number;
  /** Simulated threads per instance. */
  inner: number;
  /** Simulated threads the whole statement needs. */
  threads: number;
  collapsed: boolean;
  /** The names an instance binds, in binding order (the debugger frame's variables); set on first use. */
  frameVars?: string[];
  /** What the rendezvous at its start and end are called in reports; made on first use. */
  startWhat?: string;
  endWhat?: string;
  /** Per instance: the names it binds and their values, as `name, value, …` (made when a thread first enters it). */
  binds: (string | Sc)[][];
  /** Sync-group id per (enclosing group, instance): key group id × n + instance. */
  groupIds: Map<number, number>;
}

/** Calls `f` on every statement list nested in `s` (bodies of blocks, loops, branches). */
function childLists(s: CoStmt): CoStmt[][] {
  switch (s.kind) {
    case 'block':
    case 'while':
    case 'foreach':
    case 'with':
    case 'inthreads':
    case 'parallel':
      return [s.body];
    case 'if':
      return [s.then, s.else];
    default:
      return [];
  }
}

function exprChildren(e: CoExpr): CoExpr[] {
  switch (e.kind) {
    case 'binary':
      return [e.left, e.right];
    case 'unary':
      return [e.arg];
    case 'cond':
      return [e.test, e.then, e.else];
    case 'call':
      return e.args;
    case 'member':
      return [e.object];
    case 'method':
      return [e.object, ...e.args];
    case 'index':
      return [e.object, ...e.indices];
    case 'list':
      return e.items;
    case 'dma':
      return [e.src, e.dst, e.event, ...e.after].filter((x): x is CoExpr => !!x);
    case 'mma':
      return e.args;
    default:
      return [];
  }
}

function stmtExprs(s: CoStmt): CoExpr[] {
  switch (s.kind) {
    case 'parallel':
      return s.extents;
    case 'inthreads':
    case 'while':
    case 'if':
      return [s.cond];
    case 'foreach':
      return [...s.extents, ...s.ranges.flatMap((r) => [r?.start, r?.end, r?.step].filter((x): x is CoExpr => !!x))];
    case 'with':
      return s.extents;
    case 'decl':
      return [...s.shape, ...s.names.flatMap((n) => n.dims), ...(s.init ? [s.init] : [])];
    case 'assign':
      return [s.target, s.value];
    case 'wait':
      return s.targets;
    case 'trigger':
      return [...s.targets, ...s.after];
    case 'expr':
      return [s.expr];
    case 'return':
      return s.value ? [s.value] : [];
    case 'event-decl':
      return [...(s.count ? [s.count] : []), ...s.items.flatMap((i) => i.dims)];
    default:
      return [];
  }
}

function usesName(stmts: CoStmt[], names: Set<string>): boolean {
  const inExpr = (e: CoExpr): boolean => (e.kind === 'id' && names.has(e.name)) || exprChildren(e).some(inExpr);
  const inStmt = (s: CoStmt): boolean => stmtExprs(s).some(inExpr) || childLists(s).some((l) => l.some(inStmt));
  return stmts.some(inStmt);
}

function nestedParallels(stmts: CoStmt[]): ParallelStmt[] {
  const out: ParallelStmt[] = [];
  const visit = (l: CoStmt[]) => {
    for (const s of l) {
      if (s.kind === 'parallel') out.push(s);
      else for (const c of childLists(s)) visit(c);
    }
  };
  visit(stmts);
  return out;
}

/** Whether a role region computes (MMA) — a consumer — rather than only moving data. */
function computes(stmts: CoStmt[]): boolean {
  const inExpr = (e: CoExpr): boolean => (e.kind === 'mma' && /^(row|col)\./.test(e.op)) || exprChildren(e).some(inExpr);
  const inStmt = (s: CoStmt): boolean => stmtExprs(s).some(inExpr) || childLists(s).some((l) => l.some(inStmt));
  return stmts.some(inStmt);
}

function issuesCopies(stmts: CoStmt[]): boolean {
  const inExpr = (e: CoExpr): boolean => e.kind === 'dma' || exprChildren(e).some(inExpr);
  const inStmt = (s: CoStmt): boolean => (s.kind === 'trigger' && s.after.length > 0) || stmtExprs(s).some(inExpr) || childLists(s).some((l) => l.some(inStmt));
  return stmts.some(inStmt);
}

function rootName(e: CoExpr): string | undefined {
  if (e.kind === 'id') return e.name;
  if (e.kind === 'index' || e.kind === 'method' || e.kind === 'member') return rootName(e.object);
  return undefined;
}

/** Whether an outermost `parallel` is the grid (its body runs per block) rather than one block's threads. */
function isBlockLevel(root: ParallelStmt): boolean {
  return root.level === undefined || root.level === 'block' || root.level === 'cluster' || root.level === 'device';
}

/** The statements every device thread of a launch of `root` runs (what breakpoints can stop in). */
export function launchBody(root: ParallelStmt): CoStmt[] {
  return isBlockLevel(root) ? root.body : [root];
}

/** Every statement list nested in `stmts` (itself included), in source order. */
function statementLists(stmts: CoStmt[]): CoStmt[][] {
  const out: CoStmt[][] = [stmts];
  for (const s of stmts) for (const l of childLists(s)) out.push(...statementLists(l));
  return out;
}

/** The statement lists device threads run, for host code `host` (every launch it can reach). */
export function deviceLists(host: CoStmt[]): CoStmt[][] {
  const out: CoStmt[][] = [];
  const visit = (list: CoStmt[]): void => {
    for (const s of list) {
      if (s.kind === 'parallel') out.push(...statementLists(launchBody(s)));
      else for (const l of childLists(s)) visit(l);
    }
  };
  visit(host);
  return out;
}

/** A Croqtile future as the debugger lists it (the debug interface's shape). */
export type { FutureInfo };

/** `full`, `full[1]`, `full.at(3)` with its slots' phases. */
function showEvent(r: EventRef): string {
  const ev = r.ev;
  const name = r.order !== undefined ? `${ev.name}.at(${r.order})` : r.slot !== undefined ? `${ev.name}[${r.slot}]` : ev.name;
  const slots = r.slot !== undefined ? [r.slot] : r.order !== undefined && ev.length ? [r.order % ev.length] : ev.slots.map((_, i) => i);
  if (ev.flags) return `${name}: ${ev.storage} event, ${(r.slot !== undefined ? [ev.flags[r.slot]] : ev.flags).map((f) => (f ? 'set' : 'clear')).join(', ')}`;
  const phases = slots.map((i) => ev.slots[i]?.mb.state.phase).filter((x) => x !== undefined);
  return `${name}: ${ev.storage} event${ev.length ? ` [${ev.length}]` : ''}, phase${phases.length > 1 ? 's' : ''} ${phases.join(', ')}`;
}

function showView(v: View): string {
  return `${v.buf.space} ${v.declared ?? v.dtype} [${v.shape.join(', ')}] in ${v.buf.name}${v.off ? ` + ${v.off}` : ''}`;
}

function futureState(f: Future): FutureInfo['state'] {
  if (f.waited) return 'waited';
  return f.op && !f.op.done ? 'pending' : 'ready';
}

/** A value as the Variables view shows it: a type and a one-line description. */
export function showValue(v: Value): { type: string; value: string } {
  if (v instanceof Sc) return { type: v.t, value: formatScalar(v) };
  if (typeof v === 'string') return { type: 'string', value: JSON.stringify(v) };
  if (v instanceof Tuple) return { type: 'ituple', value: `{${v.items.map(formatScalar).join(', ')}}` };
  if (v instanceof View) return { type: `${v.declared ?? v.dtype} [${v.shape.join(', ')}]`, value: showView(v) };
  if (v instanceof ViewArray) return { type: `tensor[${v.items.length}]`, value: v.items.length ? `${v.items.length} × ${showView(v.items[0])} …` : 'empty' };
  if (v instanceof PendingView) return { type: 'view', value: `.${v.kind}(${v.ext.join(', ')}) of ${showView(v.base)}` };
  if (v instanceof Future) return { type: 'future', value: `${futureState(v)}: ${v.label}` };
  return { type: 'event', value: showEvent(v) };
}

export interface LaunchSetup {
  interp: Interp;
  root: ParallelStmt;
  hostCtx: Ctx;
  era: 'A' | 'B' | 'C';
  options: Omit<MachineOptions, 'grid' | 'block'>;
  /** Device output (println in a parallel region), with the thread that printed. */
  onPrint: (text: string, t?: SimThread) => void;
}

/** Builds the machine for `root` (an outermost parallel reached by host code). */
export class CroqLaunch implements Executor, LaunchHooks {
  readonly machine: Machine;
  readonly era: 'A' | 'B' | 'C';
  private readonly interp: Interp;
  private readonly hostEnv: Env;
  /** The outermost parallel this launch runs. */
  readonly root: ParallelStmt;
  private readonly func: string;
  private readonly blockBody: CoStmt[];
  private readonly blockVars: string[];
  private readonly gridExtents: number[];
  private readonly blockThreads: number;
  private readonly descs = new Map<ParallelStmt, ParDesc>();
  /** Sync groups handed out so far (ids are 1, 2, … in the order threads first reach them). */
  private groupCount = 0;
  /** Per live block: its frozen scope of block indices over the host's scope, shared by its threads. */
  private readonly blockEnvs = new Map<number, Env>();
  private readonly blockStates = new Map<number, Map<string, unknown>>();
  // Static facts per simulated thread of a block.
  private readonly weights: number[];
  private readonly offsets: number[];
  private readonly roles: (string | undefined)[];
  private readonly blockWeight: number;
  private warpSpecialised: boolean;
  private readonly participants = new Map<string, Set<number>>();
  private readonly fillEvents = new Set<string>();
  /** Per simulated thread of a block: the nested parallels' indices it runs with (for its name). */
  private readonly coords: [string, number][][];

  constructor(s: LaunchSetup) {
    this.interp = s.interp;
    this.era = s.era;
    this.hostEnv = s.hostCtx.env;
    this.func = s.hostCtx.func;
    const root = s.root;
    this.root = root;
    const blockLevel = isBlockLevel(root);
    const staticCtx = (binds?: Map<string, Sc>): Ctx => {
      const env = new Env(this.hostEnv, true);
      if (binds) for (const [k, v] of binds) env.vars.set(k, v);
      return { env, loops: [], func: this.func };
    };
    if (blockLevel) {
      this.blockBody = root.body;
      this.blockVars = root.vars;
      this.gridExtents = this.extentsOf(root, staticCtx());
    } else {
      this.blockBody = [root];
      this.blockVars = [];
      this.gridExtents = [1];
    }
    const numBlocks = this.gridExtents.reduce((a, b) => a * b, 1);
    if (numBlocks < 1) throw this.interp.err(`parallel over ${numBlocks} blocks`, root, s.hostCtx);
    const block0 = this.blockBindings(0);
    const children = nestedParallels(this.blockBody);
    for (const c of children) this.describe(c, staticCtx(block0));
    this.blockThreads = Math.max(1, ...children.map((c) => this.descs.get(c)!.threads));
    if (this.blockThreads > 1024) throw this.interp.err(`${this.blockThreads} simulated threads per block (more than 1024): fold an unused thread index or use fewer instances`, root, s.hostCtx, 'unsupported');
    // Static walk: weights, roles and the threads that trigger each event.
    this.weights = new Array<number>(this.blockThreads).fill(1);
    this.roles = new Array<string | undefined>(this.blockThreads);
    this.coords = Array.from({ length: this.blockThreads }, () => []);
    this.warpSpecialised = false;
    const entries = Array.from({ length: this.blockThreads }, (_, tid) => ({ tid, local: tid, binds: new Map(block0), weight: 1 }));
    this.warpSpecialised = this.walk(this.blockBody, entries, staticCtx);
    this.offsets = [];
    let acc = 0;
    for (const w of this.weights) {
      this.offsets.push(acc);
      acc += w;
    }
    this.blockWeight = acc;
    this.machine = new Machine(this, {
      ...s.options,
      grid: [numBlocks, 1, 1],
      block: [this.blockThreads, 1, 1],
      residentBlocks: Math.max(1, Math.floor(2048 / this.blockThreads)),
    });
    this.machine.listeners.push((e) => {
      if (e.kind === 'print') s.onPrint(e.text, e.thread);
    });
  }

  private extentsOf(p: ParallelStmt, ctx: Ctx): number[] {
    const out: number[] = [];
    for (const x of p.extents) {
      let v;
      try {
        v = this.interp.ev(x, ctx);
      } catch (err) {
        if (err instanceof SimError) throw this.interp.err(`the extent ${this.interp.text(x)} of this parallel must be known when it starts: ${err.message}`, p, ctx);
        throw err;
      }
      if (v instanceof Tuple) for (const it of v.items) out.push(it.v);
      else out.push(this.interp.intOf(v, x, ctx));
    }
    for (const n of out) if (!Number.isInteger(n) || n < 1) throw this.interp.err(`parallel extent ${n} is not a positive integer`, p, ctx);
    if (p.vars.length > 1 && p.vars.length !== out.length) throw this.interp.err(`${p.vars.length} parallel variables but ${out.length} extents`, p, ctx);
    return out;
  }

  private describe(p: ParallelStmt, ctx: Ctx): ParDesc {
    const extents = this.extentsOf(p, ctx);
    const n = extents.reduce((a, b) => a * b, 1);
    const kids = nestedParallels(p.body);
    for (const k of kids) this.describe(k, ctx);
    const inner = Math.max(1, ...kids.map((k) => this.descs.get(k)!.threads));
    const collapsed = p.level === 'thread' && kids.length === 0 && !usesName(p.body, new Set(p.vars));
    const d: ParDesc = { extents, n, inner, threads: collapsed ? 1 : n * inner, collapsed, binds: [], groupIds: new Map() };
    this.descs.set(p, d);
    return d;
  }

  private bindInstance(p: ParallelStmt, d: ParDesc, inst: number, vars: Map<string, Sc>): void {
    if (d.collapsed || p.vars.length === 0) return;
    if (p.vars.length === 1 && d.extents.length > 1) {
      // `parallel p by [a, b]`: p is the linear index over the product.
      vars.set(p.vars[0], int(inst, d.n));
      return;
    }
    let rest = inst;
    for (let i = d.extents.length - 1; i >= 0; i--) {
      vars.set(p.vars[i], int(rest % d.extents[i], d.extents[i]));
      rest = Math.floor(rest / d.extents[i]);
    }
  }

  private blockBindings(index: number): Map<string, Sc> {
    const out = new Map<string, Sc>();
    const ext = this.gridExtents;
    if (this.blockVars.length === 1 && ext.length > 1) {
      out.set(this.blockVars[0], int(index, ext.reduce((a, b) => a * b, 1)));
      return out;
    }
    let rest = index;
    for (let i = ext.length - 1; i >= 0; i--) {
      if (this.blockVars[i] !== undefined) out.set(this.blockVars[i], int(rest % ext[i], ext[i]));
      rest = Math.floor(rest / ext[i]);
    }
    return out;
  }

  /** Static pass over the block body; returns whether the block is warp-specialised (inthreads.async). */
  private walk(stmts: CoStmt[], entries: { tid: number; local: number; binds: Map<string, Sc>; weight: number }[], mk: (b?: Map<string, Sc>) => Ctx): boolean {
    let ws = false;
    const evalFor = (e: CoExpr, binds: Map<string, Sc>): boolean | undefined => {
      try {
        return truthy(this.interp.ev(e, mk(binds)));
      } catch {
        return undefined;
      }
    };
    for (const s of stmts) {
      if (!entries.length) return ws;
      switch (s.kind) {
        case 'parallel': {
          const d = this.descs.get(s)!;
          const leaf = nestedParallels(s.body).length === 0;
          const next = [];
          for (const en of entries) {
            if (en.local >= d.threads) continue;
            const inst = Math.floor(en.local / d.inner);
            const binds = new Map(en.binds);
            this.bindInstance(s, d, inst, binds);
            const own = new Map<string, Sc>();
            this.bindInstance(s, d, inst, own);
            for (const [k, v] of own) if (!this.coords[en.tid].some(([n]) => n === k)) this.coords[en.tid].push([k, v.v]);
            const weight = leaf ? (d.collapsed ? d.n : (LEVEL_SIZE[s.level ?? 'thread'] ?? 1)) : en.weight;
            if (leaf) this.weights[en.tid] = weight;
            next.push({ tid: en.tid, local: en.local % d.inner, binds, weight });
          }
          if (this.walk(s.body, next, mk)) ws = true;
          break;
        }
        case 'inthreads': {
          if (s.async) ws = true;
          const pass = entries.filter((en) => evalFor(s.cond, en.binds) !== false);
          if (s.async) {
            const cond = this.interp.text(s.cond);
            const kind = computes(s.body) ? 'consumer' : issuesCopies(s.body) ? 'producer' : 'role';
            for (const en of pass) this.roles[en.tid] ??= `${kind} (${cond})`;
          }
          if (this.walk(s.body, pass, mk)) ws = true;
          break;
        }
        case 'if': {
          const yes = entries.filter((en) => evalFor(s.cond, en.binds) !== false);
          const no = entries.filter((en) => evalFor(s.cond, en.binds) !== true);
          if (this.walk(s.then, yes, mk)) ws = true;
          if (this.walk(s.else, no, mk)) ws = true;
          break;
        }
        case 'trigger':
          for (const t of s.targets) {
            const name = rootName(t);
            if (!name) continue;
            if (s.after.length) this.fillEvents.add(name);
            let set = this.participants.get(name);
            if (!set) this.participants.set(name, (set = new Set()));
            for (const en of entries) set.add(en.tid);
          }
          break;
        default:
          for (const l of childLists(s)) if (this.walk(l, entries, mk)) ws = true;
      }
    }
    return ws;
  }

  // ------------------------------------------------------------------ executor

  startBlock(_m: Machine, block: SimBlock): void {
    const st = new Map<string, unknown>();
    block.state = st;
    this.blockStates.set(block.index, st);
  }

  endBlock(_m: Machine, block: SimBlock): void {
    this.blockStates.delete(block.index);
    this.blockEnvs.delete(block.index);
  }

  startThread(m: Machine, t: SimThread): void {
    let blockEnv = this.blockEnvs.get(t.block);
    if (blockEnv === undefined) {
      blockEnv = new Env(this.hostEnv, true);
      for (const [k, v] of this.blockBindings(t.block)) blockEnv.vars.set(k, v);
      this.blockEnvs.set(t.block, blockEnv);
    }
    const dev: Device = {
      m,
      t,
      run: { ran: 0, budget: 0, hookStopped: false },
      launch: this,
      blockState: this.blockStates.get(t.block)!,
      local: [t.tid],
      groups: [{ id: 0, count: this.blockThreads }],
      weight: this.weights[t.tid],
      sites: undefined,
      phases: undefined,
      frames: [],
      env: blockEnv,
    };
    const ctx: Ctx = { env: new Env(blockEnv), dev, loops: [], func: this.func };
    dev.env = ctx.env;
    t.role = this.roles[t.tid];
    // Where a debugger shows a thread that has not run yet: its first statement.
    t.loc = this.interp.loc(this.blockBody[0] ?? this.root, this.func);
    t.state = { dev, gen: this.interp.execList(this.blockBody, ctx) };
  }

  run(_m: Machine, t: SimThread, budget: number): number {
    const st = t.state as { dev: Device; gen: Generator<void, Flow, void> };
    st.dev.run.ran = 0;
    st.dev.run.budget = budget;
    const r = st.gen.next();
    if (r.done) {
      const f = r.value;
      if (f === Flow.Break || f === Flow.Continue) throw new SimError(`'${f === Flow.Break ? 'break' : 'continue'}' outside a loop`, t.loc);
      t.status = 'done';
    }
    return st.dev.run.ran;
  }

  // ------------------------------------------------------------------ debugger view

  /** `block 0 · wg 1 · consumer`: the block, the nested parallels' indices and the role. */
  threadLabel(t: SimThread): string {
    const parts = [`block ${t.block}`];
    const coords = this.coords[t.tid] ?? [];
    for (const [k, v] of coords) parts.push(`${k} ${v}`);
    if (!coords.length && this.blockThreads > 1) parts.push(`thread ${t.tid}`);
    const role = this.roles[t.tid];
    if (role) parts.push(role.split(' ')[0]);
    return parts.join(' · ');
  }

  private device(t: SimThread): Device | undefined {
    return (t.state as { dev: Device } | undefined)?.dev;
  }

  /**
   * Whether the thread is suspended by the line hook before its current statement (it will not
   * ask the hook again for that statement), rather than by its budget (it will).
   */
  stoppedByHook(t: SimThread): boolean {
    return this.device(t)?.run.hookStopped ?? false;
  }

  /** The thread's constructs, innermost first; each frame's line is where the thread is in it. */
  frames(t: SimThread): FrameInfo[] {
    const dev = this.device(t);
    if (!dev) return [];
    const out: FrameInfo[] = [];
    const fs = dev.frames;
    let loc = t.loc;
    for (let i = fs.length - 1; i >= 0; i--) {
      const f = fs[i];
      const top = i === fs.length - 1 ? dev.env : fs[i + 1].outer;
      out.push({ name: this.frameName(f.node, f.vars.map((v) => top.lookup(v))), loc });
      loc = this.interp.loc(f.node, this.func);
    }
    out.push({ name: this.func, loc });
    return out;
  }

  /** `foreach iv_k = 3`, `parallel wg = 1`, `parallel t (128 threads as one)`, `inthreads.async (wg == 1)`. */
  private frameName(node: DeviceFrame['node'], values: (Value | undefined)[]): string {
    const shown = values.map((v) => (v instanceof Sc ? formatScalar(v) : '?'));
    const eq = shown.length ? ` = ${shown.length > 1 ? `{${shown.join(', ')}}` : shown[0]}` : '';
    switch (node.kind) {
      case 'inthreads':
        return `inthreads${node.async ? '.async' : ''} (${this.interp.text(node.cond)})`;
      case 'parallel': {
        const d = this.descs.get(node);
        return `parallel${node.vars.length ? ` ${node.vars.join(', ')}` : ''}${d?.collapsed ? (d.n > 1 ? ` (${d.n} threads as one)` : '') : eq}`;
      }
      default:
        return `${node.kind} ${node.vars.join(', ')}${eq}`;
    }
  }

  /** The scopes frame `index` (0 = innermost) owns, innermost first, and where they stop. */
  private frameEnvs(dev: Device, index: number): Env[] {
    const fs = dev.frames;
    const n = fs.length;
    if (index < 0 || index > n) return [];
    const top = index === 0 ? dev.env : fs[n - index].outer;
    const stop = index < n ? fs[n - 1 - index].outer : undefined;
    const out: Env[] = [];
    for (let e: Env | undefined = top; e && e !== stop; e = e.parent) out.push(e);
    return out;
  }

  /** Variables declared in frame `index` (0 = innermost), inner scopes first, each name once. */
  locals(t: SimThread, index = 0): LocalInfo[] {
    const dev = this.device(t);
    if (!dev) return [];
    const seen = new Set<string>();
    const out: LocalInfo[] = [];
    for (const env of this.frameEnvs(dev, index)) {
      for (const [name, v] of env.vars) {
        if (seen.has(name)) continue;
        seen.add(name);
        out.push({ name, ...showValue(v) });
      }
    }
    return out;
  }

  /** Numbers visible in frame `index` and the frames around it (conditions, logpoints, watches). */
  scope(t: SimThread, index = 0): Map<string, number> {
    const out = new Map<string, number>();
    const dev = this.device(t);
    if (!dev) return out;
    const top = index === 0 ? dev.env : dev.frames[dev.frames.length - index]?.outer;
    for (let e: Env | undefined = top; e; e = e.parent) {
      for (const [name, v] of e.vars) if (v instanceof Sc && !out.has(name)) out.set(name, v.v);
    }
    return out;
  }

  /** Futures in scope of a thread (its own copies and MMAs, not the host's), innermost binding of each name. */
  futures(t: SimThread): FutureInfo[] {
    const dev = this.device(t);
    if (!dev) return [];
    const seen = new Set<string>();
    const out: FutureInfo[] = [];
    for (let e: Env | undefined = dev.env; e && e !== this.hostEnv; e = e.parent) {
      for (const [name, v] of e.vars) {
        if (seen.has(name)) continue;
        seen.add(name);
        if (v instanceof Future && !v.placeholder) out.push({ name, thread: t, state: futureState(v), what: v.label, line: v.op?.loc.line ?? v.line ?? t.loc.line });
      }
    }
    return out;
  }

  // ------------------------------------------------------------------ hooks

  private *groupSync(ctx: Ctx, g: SyncGroup, what: string): Generator<void, void, void> {
    if (g.count <= 1) return;
    const { m, t } = ctx.dev!;
    while (!m.syncBlock(t, g.id, g.count, what)) yield;
    if (m.yieldNow) yield;
  }

  *parallel(s: ParallelStmt, ctx: Ctx): Generator<void, Flow, void> {
    const d = this.descs.get(s);
    const dev = ctx.dev!;
    if (!d) throw this.interp.err('a parallel region the launch did not see (inside a nested function or a dynamic construct)', s, ctx, 'unsupported');
    const local = dev.local[dev.local.length - 1];
    const group = dev.groups[dev.groups.length - 1];
    // The rendezvous inline (one generator fewer per thread and rendezvous); the rest in plain methods,
    // which keeps this generator small (it is optimised, and re-optimised, on every launch's first threads).
    if (group.count > 1) {
      while (!this.rendezvous(dev, group, d, s, true)) yield;
      if (dev.m.yieldNow) yield;
    }
    let f = Flow.Normal;
    if (local < d.threads) {
      const inner = this.enterInstance(s, d, ctx, local, group);
      try {
        f = yield* this.interp.execList(s.body, inner);
      } finally {
        dev.local.pop();
        dev.groups.pop();
        this.interp.popFrame(ctx);
      }
      if (f === Flow.Break || f === Flow.Continue) throw this.interp.err(`'${f === Flow.Break ? 'break' : 'continue'}' out of a parallel region`, s, ctx);
      if (f === Flow.Exit) return f;
    }
    if (group.count > 1) {
      while (!this.rendezvous(dev, group, d, s, false)) yield;
      if (dev.m.yieldNow) yield;
    }
    return f;
  }

  /** The rendezvous of `group` at the start or end of parallel `s`: true once every member arrived. */
  private rendezvous(dev: Device, group: SyncGroup, d: ParDesc, s: ParallelStmt, start: boolean): boolean {
    const what = start ? (d.startWhat ??= `start of the parallel at line ${this.interp.line(s.span) + 1}`) : (d.endWhat ??= `end of the parallel at line ${this.interp.line(s.span) + 1}`);
    return dev.m.syncBlock(dev.t, group.id, group.count, what);
  }

  /** Enters this thread's instance of parallel `s`: its bindings, sync group and debugger frame; the body's context. */
  private enterInstance(s: ParallelStmt, d: ParDesc, ctx: Ctx, local: number, group: SyncGroup): Ctx {
    const dev = ctx.dev!;
    const inst = Math.floor(local / d.inner);
    const env = new Env(ctx.env);
    let binds = d.binds[inst];
    if (binds === undefined) {
      const m = new Map<string, Sc>();
      this.bindInstance(s, d, inst, m);
      d.binds[inst] = binds = [...m].flat();
    }
    env.vars.setPairs(binds);
    const key = group.id * d.n + inst;
    let id = d.groupIds.get(key);
    if (id === undefined) d.groupIds.set(key, (id = ++this.groupCount));
    dev.local.push(local % d.inner);
    dev.groups.push({ id, count: d.inner });
    const vars = (d.frameVars ??= [...env.vars.keys()]);
    this.interp.pushFrame(ctx, s, vars);
    return { env, dev, loops: ctx.loops, func: ctx.func, returned: ctx.returned };
  }

  *inthreadsEnd(ctx: Ctx, loc: SourceLoc): Generator<void, void, void> {
    const dev = ctx.dev!;
    yield* this.groupSync(ctx, dev.groups[dev.groups.length - 1], `end of the inthreads block at line ${loc.line + 1}`);
  }

  *sync(s: Extract<CoStmt, { kind: 'sync' }>, ctx: Ctx): Generator<void, void, void> {
    if (s.what === 'sync.fence') return;
    const dev = ctx.dev!;
    const g = !s.level || s.level === 'block' ? dev.groups[0] : dev.groups[dev.groups.length - 1];
    yield* this.groupSync(ctx, g, `${s.what}${s.level ? ` : ${s.level}` : ''} at line ${this.interp.line(s.span) + 1}`);
  }

  eventDecl(s: Extract<CoStmt, { kind: 'event-decl' }>, ctx: Ctx): void {
    const dev = ctx.dev!;
    for (const item of s.items) {
      const key = `event:${s.span.start}:${item.name}`;
      let ev = dev.blockState.get(key) as EventObj | undefined;
      if (!ev) {
        const dims = item.dims.map((d) => this.interp.intOf(this.interp.ev(d, ctx), d, ctx));
        const length = dims.length ? dims.reduce((a, b) => a * b, 1) : 0;
        if (dims.length && length < 1) throw this.interp.err(`event array '${item.name}' of extent ${length}`, s, ctx);
        const count = this.eventCount(item.name, s, ctx);
        ev = { name: item.name, slots: [], length, ready: item.ready, count, storage: s.storage };
        if (s.storage === 'shared') {
          for (let i = 0; i < Math.max(1, length); i++) {
            const b = dev.m.newBarrier(length ? `${item.name}[${i}]` : item.name, dev.t.block);
            dev.m.mbInit(undefined, b, count); // a block-level declaration: set up before the threads use it
            ev.slots.push(b);
          }
        } else ev.flags = new Array<boolean>(Math.max(1, length)).fill(item.ready);
        dev.blockState.set(key, ev);
      }
      ctx.env.vars.set(item.name, new EventRef(ev));
    }
  }

  private eventCount(name: string, s: Extract<CoStmt, { kind: 'event-decl' }>, ctx: Ctx): number {
    if (s.count) {
      const n = this.interp.intOf(this.interp.ev(s.count, ctx), s.count, ctx);
      if (n < 1) throw this.interp.err(`event count ${n} must be at least 1`, s, ctx);
      return n;
    }
    const fallback = this.warpSpecialised && this.blockWeight > 128 ? this.blockWeight - 128 : this.blockWeight;
    if (this.era !== 'C') return this.warpSpecialised && this.blockWeight > 128 ? this.blockWeight - 128 + 1 : this.blockWeight;
    if (this.fillEvents.has(name)) return 1;
    const who = this.participants.get(name);
    if (!who || who.size === 0) return Math.max(1, fallback);
    let n = 0;
    for (const tid of who) n += this.weights[tid];
    return Math.max(1, n);
  }

  private isProducer(tid: number): boolean {
    return this.roles[tid]?.startsWith('producer') ?? false;
  }

  /** Arrivals one execution of an event operation by this simulated thread contributes. */
  private arrivals(ctx: Ctx): number {
    const { t, weight } = ctx.dev!;
    if (this.era !== 'C' && this.warpSpecialised && this.isProducer(t.tid)) return this.elected(t) ? 1 : 0;
    return weight;
  }

  /** The one thread of a warpgroup that performs elected operations (trigger … after, era-A producer events). */
  private elected(t: SimThread): boolean {
    return this.offsets[t.tid] % 128 === 0;
  }

  private slotsOf(ref: EventRef): number[] {
    if (ref.slot !== undefined) return [ref.slot];
    return ref.ev.slots.length ? ref.ev.slots.map((_, i) => i) : (ref.ev.flags ?? []).map((_, i) => i);
  }

  *wait(ref: EventRef, loc: SourceLoc, ctx: Ctx): Generator<void, void, void> {
    const dev = ctx.dev!;
    const { m, t } = dev;
    const ev = ref.ev;
    if (ev.flags) {
      // local/global events: a SET flag that a wait consumes.
      for (const i of this.slotsOf(ref)) {
        const flags = ev.flags;
        const label = ev.length ? `${ev.name}[${i}]` : ev.name;
        while (!m.blockOn(t, { kind: 'event', ready: () => flags[i], describe: () => `${label} (a ${ev.storage} event nobody triggered)` })) yield;
        flags[i] = false;
        m.touch();
      }
      return;
    }
    const n = Math.max(1, ev.length);
    for (const i of this.slotsOf(ref)) {
      const b = ev.slots[i];
      if (this.era !== 'C') {
        // Tutorial era: `e.wait(e.arrive())` — the wait arrives, then waits for that phase.
        const w = this.arrivals(ctx);
        const token = w > 0 ? m.mbArrive(t, b, w) : b.mb.state.phase;
        if (m.yieldNow) yield;
        while (!m.mbWaitToken(t, b, token)) yield;
        if (m.yieldNow) yield;
        continue;
      }
      const ready = ev.ready ? 1 : 0;
      let parity: number;
      if (ref.order !== undefined) parity = (Math.floor(ref.order / n) & 1) ^ ready;
      else if (ev.length === 0) parity = dev.phases?.get(ev) ?? ready;
      else {
        const iv = ctx.loops[ctx.loops.length - 1];
        parity = iv === undefined ? ready : (Math.floor(iv / n) & 1) ^ ready;
      }
      while (!m.mbWaitParity(t, b, parity)) yield;
      if (m.yieldNow) yield;
      if (ev.length === 0) (dev.phases ??= new Map()).set(ev, parity ^ 1);
    }
    void loc;
  }

  *trigger(ref: EventRef, after: Future[], loc: SourceLoc, ctx: Ctx): Generator<void, void, void> {
    const dev = ctx.dev!;
    const { m, t } = dev;
    const ev = ref.ev;
    if (ev.flags) {
      for (const i of this.slotsOf(ref)) ev.flags[i] = true;
      m.touch();
      return;
    }
    if (after.length) {
      for (const f of after) {
        if (f.placeholder || !f.op || !f.data) throw new SimError(`trigger … after needs an asynchronous copy future; ${f.label} is not one`, loc);
        f.waited = true;
      }
      // Folded into the copies' issue by one elected thread: arrive once, expecting the bytes in flight.
      if (!this.elected(t)) return;
      for (const i of this.slotsOf(ref)) {
        const b = ev.slots[i];
        let tx = 0;
        for (const f of after) {
          if (f.op!.done) continue;
          tx += f.bytes;
          f.bound.push(b);
        }
        m.mbArrive(t, b, 1, tx);
        if (m.yieldNow) yield;
      }
      return;
    }
    const w = this.arrivals(ctx);
    if (w === 0) return;
    for (const i of this.slotsOf(ref)) {
      m.mbArrive(t, ev.slots[i], w);
      if (m.yieldNow) yield;
    }
  }
}

