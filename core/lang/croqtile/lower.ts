// Croqtile front end, second half: lowers the `.co` syntax tree to the kernel IR that the CUDA front
// end also produces, so the same rules, hovers and (later) the simulator serve both languages.
//
// Thread structure: `parallel … : block` is the launch boundary; nested `parallel v by N : group-4 |
// group | thread` levels become locals computed from threadIdx.x (row-major), so role predicates
// (`inthreads.async (p1 == 0)`) are ordinary thread-identity conditions for the replay.
//
// Event semantics follow the file's synchronisation era (notes: croqtile.md §2):
// - current (C): `trigger` arrives from every thread of the scope (an `after` trigger from one elected
//   thread, with expect_tx); `wait` does not arrive; the barrier count is the number of triggering
//   threads unless `event<N>` gives it; `= ready` makes generation 0 complete, which is a parity flip;
//   `.at(order)` waits on slot `order % N`, parity `(order / N) & 1`; a legacy `e[i]` takes its parity
//   from the innermost `foreach` variable exactly as the compiler lowers it.
// - tutorial (A) and mma.wait (B): events are cuda::barriers of count (blockDim.x - 128) + 1 in
//   warp-specialised kernels; `wait e` is `e.wait(e.arrive())`, `trigger e` an arrive; the producer
//   role (the one issuing copies) runs its event operations on a single elected thread.
import type { Range } from '../../api';
import type { BarrierDecl, BarrierOp, Expr, Kernel, KernelModule, OpKind, Stmt } from '../../ir/types';
import { placeOnLines } from '../../ir/source-lines';
import type { CoExpr, CoFile, CoFunction, CoStmt, Span } from './ast';
import type { LineIndex } from './positions';
import { defineValues, evaluateConstant } from './constant-eval';
import { evalForThread } from '../../analysis/threads';
import { type Era, eraMarkedBy, syncConstruct } from './sync-catalogue';

const LEVEL_SIZE: Record<string, number> = { thread: 1, group: 32, 'group-4': 128, warpgroup: 128 };

interface EventInfo {
  name: string;
  length?: number;
  ready: boolean;
  count?: number;
}

interface Ctx {
  /** Innermost-last stack of foreach induction variables (for legacy e[i] parity). */
  loopVars: string[];
  /** Bounded variables' extents (`with x in 16`, `foreach x` over them, `#x`). */
  extents: Map<string, CoExpr>;
  /** Inside an era-A/B producer role: event operations run on one elected thread. */
  singleThread: boolean;
}

export function detectEra(file: CoFile): 'A' | 'B' | 'C' {
  return eraOfMarks(file.functions.map(eraMarks));
}

/** Which eras one function's constructs mark its file as (the sync catalogue says which construct marks which
 * era); kept per function so that incremental analysis re-reads only the functions an edit changed. */
export function eraMarks(fn: CoFunction): ReadonlySet<Era | undefined> {
  const marked = new Set<Era | undefined>();
  const mark = (id: string): void => {
    marked.add(eraMarkedBy(id));
  };
  const visitExpr = (e: CoExpr | undefined): void => {
    if (!e) return;
    if (e.kind === 'dma' && e.event) mark('tma.copy.async<ev>');
    if (e.kind === 'mma' && e.op === 'commit') mark('mma.commit');
    if (e.kind === 'mma' && e.op === 'wait') mark('mma.wait<N>');
    forEachChild(e, visitExpr);
  };
  // `.at(order)` on a wait/trigger target is the current era's generation syntax (tensors use `.at` too).
  const visitTarget = (e: CoExpr): void => {
    if (e.kind === 'method' && e.name === 'at') mark('.at');
    visitExpr(e);
  };
  const visit = (list: CoStmt[]): void => {
    for (const s of list) {
      switch (s.kind) {
        case 'event-decl':
          if (s.count) mark('event<N>');
          if (s.items.some((i) => i.ready)) mark('ready');
          break;
        case 'trigger':
          if (s.after.length) mark('after');
          s.targets.forEach(visitTarget);
          break;
        case 'wait':
          s.targets.forEach(visitTarget);
          break;
        case 'expr':
          visitExpr(s.expr);
          break;
        case 'assign':
          visitExpr(s.value);
          break;
        default:
          break;
      }
      for (const body of childBodies(s)) visit(body);
    }
  };
  visit(fn.body);
  return marked;
}

/** The file's era from its functions' marks: the newest era marked anywhere, the current one when none is. */
export function eraOfMarks(marks: Iterable<ReadonlySet<Era | undefined>>): 'A' | 'B' | 'C' {
  const marked = new Set<Era | undefined>();
  for (const m of marks) for (const era of m) marked.add(era);
  if (marked.has('C')) return 'C';
  if (marked.has('B')) return 'B';
  if (marked.has('A')) return 'A';
  return 'C';
}

function childBodies(s: CoStmt): CoStmt[][] {
  switch (s.kind) {
    case 'parallel':
    case 'inthreads':
    case 'foreach':
    case 'with':
    case 'while':
    case 'block':
      return [s.body];
    case 'if':
      return [s.then, s.else];
    default:
      return [];
  }
}

function forEachChild(e: CoExpr, f: (c: CoExpr) => void): void {
  switch (e.kind) {
    case 'binary':
      f(e.left);
      f(e.right);
      break;
    case 'unary':
      f(e.arg);
      break;
    case 'cond':
      f(e.test);
      f(e.then);
      f(e.else);
      break;
    case 'call':
      e.args.forEach(f);
      break;
    case 'member':
      f(e.object);
      break;
    case 'method':
      f(e.object);
      e.args.forEach(f);
      break;
    case 'index':
      f(e.object);
      e.indices.forEach(f);
      break;
    case 'list':
      e.items.forEach(f);
      break;
    case 'dma':
      if (e.event) f(e.event);
      if (e.src) f(e.src);
      if (e.dst) f(e.dst);
      e.after.forEach(f);
      break;
    case 'mma':
      e.args.forEach(f);
      break;
    default:
      break;
  }
}

/** `era` may be given when `file` holds only some of the text's functions (incremental analysis). */
export function lowerCroqtile(file: CoFile, text: string, lines: LineIndex, only?: (f: CoFunction) => boolean, era = detectEra(file)): KernelModule {
  const constants = defineValues(file.defines);
  const kernels = file.functions.filter((f) => !only || only(f)).map((f) => placeOnLines(new CroqtileLowerer(f, file, lines, text, era, constants).lower(), text));
  return { language: 'croqtile', era, kernels, constants };
}

class CroqtileLowerer {
  private readonly decls = new Map<string, BarrierDecl>();
  private readonly events = new Map<string, EventInfo>();
  private readonly futures = new Set<string>();
  private blockSize = 128;
  private warpSpecialised = false;
  /** Conditions of the `inthreads.async` roles. */
  private readonly roles: Expr[] = [];

  constructor(
    private readonly fn: CoFunction,
    private readonly file: CoFile,
    private readonly lines: LineIndex,
    private readonly text: string,
    private readonly era: 'A' | 'B' | 'C',
    private readonly constants: Map<string, number>,
  ) {}

  private range(span: Span): Range {
    return this.lines.range(span);
  }

  private slice(e: CoExpr): string {
    return this.text.slice(e.span.start, e.span.end).replace(/\s+/g, ' ');
  }

  value(e: CoExpr | undefined): number | undefined {
    if (!e) return undefined;
    if (e.kind === 'id' && this.constants.has(e.name)) return this.constants.get(e.name);
    return evaluateConstant(e, this.file.defines);
  }

  lower(): Kernel {
    const fn = this.fn;
    for (const p of fn.params) {
      if (p.name) this.decls.set(p.name, { name: p.name, type: p.type, space: 'param', range: this.range(p.span), nameRange: this.range(p.span) });
    }
    this.warpSpecialised = containsAsyncInthreads(fn.body);
    const ctx: Ctx = { loopVars: [], extents: new Map(), singleThread: false };
    const body = this.stmts(fn.body, ctx, false);
    this.applyIdleWarpgroupCount(body);
    return {
      name: fn.name,
      range: this.range(fn.span),
      nameRange: this.range(fn.nameSpan),
      params: fn.params.map((p) => p.name),
      launchBounds: this.blockSize,
      body,
      decls: this.decls,
    };
  }

  private stmts(list: CoStmt[], ctx: Ctx, inBlock: boolean): Stmt[] {
    const out: Stmt[] = [];
    for (const s of list) out.push(...this.stmt(s, ctx, inBlock));
    return out;
  }

  private stmt(s: CoStmt, ctx: Ctx, inBlock: boolean): Stmt[] {
    const range = this.range(s.span);
    switch (s.kind) {
      case 'parallel':
        return this.parallel(s, ctx, inBlock);
      case 'inthreads': {
        const single = (this.era === 'A' || this.era === 'B') && s.async && issuesCopies(s.body);
        const body = this.stmts(s.body, { ...ctx, singleThread: ctx.singleThread || single }, inBlock);
        const cond = this.expr(s.cond, ctx);
        if (s.async) this.roles.push(cond);
        const out: Stmt[] = [{ kind: 'if', cond, then: body, else: [], range }];
        // A non-async inthreads region ends with an implicit block-wide sync.
        if (!s.async) out.push({ kind: 'sync', scope: 'block', api: lowering('inthreads', 'sync'), range });
        return out;
      }
      case 'foreach':
        return this.foreach(s, ctx, inBlock);
      case 'with': {
        const extents = new Map(ctx.extents);
        s.vars.forEach((v, i) => s.extents[i] && extents.set(v, s.extents[i]));
        return this.stmts(s.body, { ...ctx, extents }, inBlock);
      }
      case 'while': {
        const body = this.stmts(s.body, ctx, inBlock);
        return [{ kind: 'loop', cond: this.expr(s.cond, ctx), body, range, bodyRange: range }];
      }
      case 'if':
        return [{ kind: 'if', cond: this.expr(s.cond, ctx), then: this.stmts(s.then, ctx, inBlock), else: this.stmts(s.else, ctx, inBlock), range }];
      case 'block':
        return this.stmts(s.body, ctx, inBlock);
      case 'event-decl':
        return this.eventDecl(s, range);
      case 'decl': {
        const out: Stmt[] = [];
        for (const n of s.names) {
          const length = n.dims[0] ? this.value(n.dims[0]) : undefined;
          this.decls.set(n.name, {
            name: n.name,
            type: s.type,
            space: s.storage === 'shared' ? 'shared' : s.storage === 'global' ? 'global' : 'local',
            length,
            range,
            nameRange: this.range(n.span),
          });
          if (s.init) {
            const v = this.value(s.init);
            if (v !== undefined && !s.mutable && s.names.length === 1 && !s.storage) this.constants.set(n.name, v);
            out.push(...this.valueEffects(s.init, ctx, range, n.name));
            out.push({ kind: 'assign', target: n.name, op: '=', value: this.expr(s.init, ctx), declared: true, range });
          }
        }
        return out;
      }
      case 'assign': {
        const target = rootName(s.target);
        const out: Stmt[] = [...this.valueEffects(s.value, ctx, range, target), ...this.reads(s.target, ctx, true)];
        if (target) out.push({ kind: 'assign', target, op: s.op, value: this.expr(s.value, ctx), declared: false, range });
        return out;
      }
      case 'wait':
        return s.targets.flatMap((t) => this.wait(t, ctx, range));
      case 'trigger':
        return s.targets.flatMap((t) => this.trigger(t, s.cluster, s.after, ctx, range));
      case 'sync':
        if (/^sync\.(shared|global|local)$/.test(s.what) || (s.what === 'sync.barrier' && (!s.level || s.level === 'block'))) {
          return [{ kind: 'sync', scope: 'block', api: s.what, range }];
        }
        return [{ kind: 'sync', scope: s.level === 'group' || s.level === 'thread' ? 'warp' : 'named', api: s.what, range }];
      case 'expr':
        return this.valueEffects(s.expr, ctx, range, undefined);
      case 'return':
      case 'yield':
        return [{ kind: 'return', range }];
      case 'break':
      case 'continue':
        return [{ kind: s.kind, range }];
      default:
        return [];
    }
  }

  private parallel(s: Extract<CoStmt, { kind: 'parallel' }>, ctx: Ctx, inBlock: boolean): Stmt[] {
    const range = this.range(s.span);
    const level = s.level ?? (inBlock ? 'thread' : 'block');
    const unit = LEVEL_SIZE[level];
    if (unit === undefined) {
      // block / cluster / device: the launch boundary; its variables are not thread identity.
      const blockBody = level === 'block' || level === 'device' || inBlock;
      if (blockBody && !inBlock) this.blockSize = threadsOf(s.body, this) ?? 128;
      return this.stmts(s.body, ctx, blockBody || inBlock);
    }
    const counts = s.extents.map((e) => this.value(e));
    const out: Stmt[] = [];
    let stride = unit;
    // Row-major: the last variable moves fastest.
    for (let i = s.vars.length - 1; i >= 0; i--) {
      const n = counts[i];
      const v = s.vars[i];
      const tid: Expr = { kind: 'member', object: { kind: 'var', name: 'threadIdx', text: 'threadIdx', range }, field: 'x', text: 'threadIdx.x', range };
      let e: Expr = stride === 1 ? tid : { kind: 'binary', op: '/', left: tid, right: num(stride, range), text: `threadIdx.x / ${stride}`, range };
      if (n !== undefined) e = { kind: 'binary', op: '%', left: e, right: num(n, range), text: `${e.text} % ${n}`, range };
      if (v && v !== '_') out.push({ kind: 'assign', target: v, op: '=', value: e, declared: true, range });
      stride *= n ?? 1;
    }
    out.push(...this.stmts(s.body, ctx, true));
    return out;
  }

  private foreach(s: Extract<CoStmt, { kind: 'foreach' }>, ctx: Ctx, inBlock: boolean): Stmt[] {
    const range = this.range(s.span);
    // Nest one loop per variable, the first outermost.
    const build = (i: number, inner: Ctx): Stmt[] => {
      if (i >= s.vars.length) return this.stmts(s.body, inner, inBlock);
      const v = s.vars[i];
      const extent = s.extents[i] ?? ctx.extents.get(v);
      const r = s.ranges[i];
      const start = r?.start ? this.expr(r.start, ctx) : num(0, range);
      let end: Expr | undefined = extent ? this.expr(extent, ctx) : undefined;
      if (r?.end && end) {
        const endVal = this.value(r.end);
        end = endVal !== undefined && endVal < 0 ? { kind: 'binary', op: '+', left: end, right: num(endVal, range), text: `${end.text} + ${endVal}`, range } : this.expr(r.end, ctx);
      }
      const step = r?.step ? this.expr(r.step, ctx) : num(1, range);
      const cond: Expr | undefined = end ? { kind: 'binary', op: '<', left: { kind: 'var', name: v, text: v, range }, right: end, text: `${v} < ${end.text}`, range } : undefined;
      const body = build(i + 1, { ...inner, loopVars: [...inner.loopVars, v] });
      return [
        { kind: 'assign', target: v, op: '=', value: start, declared: true, range },
        {
          kind: 'loop',
          var: v,
          init: start,
          cond,
          step: [{ kind: 'assign', target: v, op: '+=', value: step, declared: false, range }],
          body,
          range,
          bodyRange: range,
        },
      ];
    };
    return build(0, ctx);
  }

  private eventDecl(s: Extract<CoStmt, { kind: 'event-decl' }>, range: Range): Stmt[] {
    const out: Stmt[] = [];
    const inits: Stmt[] = [];
    const explicit = s.count ? this.value(s.count) : undefined;
    for (const item of s.items) {
      const length = item.dims[0] ? this.value(item.dims[0]) : undefined;
      this.events.set(item.name, { name: item.name, length, ready: item.ready, count: explicit });
      // `(?<!\s)`: a blank run is tried from its first blank only (it was rescanned from each, quadratic).
      const readyAt = item.ready ? this.text.slice(item.span.start, item.span.end).search(/(?<!\s)\s*=\s*ready$/) : -1;
      this.decls.set(item.name, {
        name: item.name,
        type: `${s.storage} event${s.count ? `<${s.count.kind === 'num' ? s.count.value : '…'}>` : ''}${item.ready ? ' = ready' : ''}`,
        space: s.storage === 'shared' ? 'shared' : s.storage === 'global' ? 'global' : 'local',
        length,
        range,
        nameRange: this.range(item.nameSpan),
        ...(readyAt >= 0 ? { initializerRange: this.range({ start: item.span.start + readyAt, end: item.span.end }) } : {}),
      });
      const count = this.initCount(explicit, range);
      const slots = item.dims.length ? (length !== undefined ? Array.from({ length: Math.min(length, 64) }, (_, i) => i) : undefined) : [undefined];
      if (!slots) {
        const op = this.op('init', lowering('event', 'init'), range, { barrier: { base: item.name, index: { kind: 'opaque', text: '?', range }, text: item.name }, count });
        inits.push({ kind: 'op', op, range });
        continue;
      }
      for (const slot of slots) {
        const op = this.op('init', lowering('event', 'init'), range, { barrier: { base: item.name, index: slot === undefined ? undefined : num(slot, range), text: slot === undefined ? item.name : `${item.name}[${slot}]` }, count });
        inits.push({ kind: 'op', op, range });
      }
      if (!item.dims.length && this.era === 'C') {
        // A scalar event's waits track a per-thread phase bit that starts at 0 (1 when ready).
        out.push({ kind: 'assign', target: `${item.name}__phase`, op: '=', value: num(item.ready ? 1 : 0, range), declared: true, range });
      }
    }
    // The compiler initialises events from thread 0 and syncs the block before anyone uses them.
    const tid0: Expr = { kind: 'binary', op: '==', left: { kind: 'member', object: { kind: 'var', name: 'threadIdx', text: 'threadIdx', range }, field: 'x', text: 'threadIdx.x', range }, right: num(0, range), text: 'threadIdx.x == 0', range };
    return [{ kind: 'if', cond: tid0, then: inits, else: [], range }, { kind: 'sync', scope: 'block', api: lowering('event', 'sync'), range }, ...out];
  }

  private initCount(explicit: number | undefined, range: Range): Expr {
    if (explicit !== undefined) return num(explicit, range);
    // Current era: the threads that trigger. Tutorial era: every participant arrives each phase (a
    // wait arrives too); the compiler's (blockDim.x - 128) + 1 is that number for one producer thread
    // and one consumer warpgroup, but kernels with several consumer groups that do not all release a
    // slot ran fine, so the count is taken as the participants the kernel actually has.
    return { kind: 'call', callee: '<auto>', args: [], text: this.era === 'C' ? 'threads that trigger' : 'threads that arrive (trigger or wait)', range };
  }

  /**
   * Tutorial era with a warpgroup that has no role at all: the compiler's count still includes it
   * ((blockDim.x - 128) + 1), which is the tutorial's "CRASH" configuration; model it exactly then.
   */
  private applyIdleWarpgroupCount(body: Stmt[]): void {
    if (this.era === 'C' || !this.warpSpecialised || this.roles.length === 0) return;
    const derived = new Map<string, Expr>();
    for (const st of body) if (st.kind === 'assign' && st.declared && st.value) derived.set(st.target, st.value);
    const vars = (tid: number) => (name: string): number | undefined => {
      const d = derived.get(name);
      return d ? evalForThread(d, { tid, blockSize: this.blockSize }, () => undefined, this.constants) : undefined;
    };
    let idle = false;
    for (let w = 0; w * 128 < this.blockSize; w++) {
      const tid = w * 128;
      const covered = this.roles.some((cond) => evalForThread(cond, { tid, blockSize: this.blockSize }, vars(tid), this.constants) !== 0);
      if (!covered) idle = true;
    }
    if (!idle) return;
    const bd: Expr = { kind: 'member', object: { kind: 'var', name: 'blockDim', text: 'blockDim', range: this.range(this.fn.span) }, field: 'x', text: 'blockDim.x', range: this.range(this.fn.span) };
    const r = bd.range;
    const formula: Expr = { kind: 'binary', op: '+', left: { kind: 'binary', op: '-', left: bd, right: num(128, r), text: 'blockDim.x - 128', range: r }, right: num(1, r), text: '(blockDim.x - 128) + 1', range: r };
    const visit = (list: Stmt[]): void => {
      for (const st of list) {
        if (st.kind === 'op' && st.op.kind === 'init' && st.op.count?.kind === 'call' && st.op.count.callee === '<auto>') st.op.count = formula;
        else if (st.kind === 'if') (visit(st.then), visit(st.else));
        else if (st.kind === 'loop') visit(st.body);
      }
    };
    visit(body);
  }

  /** Resolves an event target to base + slot; undefined when the name is not an event. */
  private eventRef(t: CoExpr, ctx: Ctx): { info: EventInfo; index?: Expr; at?: CoExpr; postInc: boolean; whole: boolean } | undefined {
    if (t.kind === 'id' && this.events.has(t.name)) {
      const info = this.events.get(t.name)!;
      return { info, postInc: false, whole: info.length !== undefined };
    }
    if (t.kind === 'index' && t.object.kind === 'id' && this.events.has(t.object.name)) {
      // `e[]` (an index left out while typing): a slot nobody can name, never a crash.
      const index: Expr = t.indices[0] ? this.expr(t.indices[0], ctx) : { kind: 'opaque', text: this.slice(t) ?? '', range: this.range(t.span) };
      return { info: this.events.get(t.object.name)!, index, postInc: false, whole: false };
    }
    if (t.kind === 'method' && t.name === 'at' && t.object.kind === 'id' && this.events.has(t.object.name)) {
      const info = this.events.get(t.object.name)!;
      const arg = t.args[0];
      const postInc = arg?.kind === 'unary' && arg.op === 'post++';
      const order = postInc && arg.kind === 'unary' ? arg.arg : arg;
      const n = info.length;
      const o = order ? this.expr(order, ctx) : undefined;
      const index = o && n !== undefined ? { kind: 'binary' as const, op: '%', left: o, right: num(n, o.range), text: `${o.text} % ${n}`, range: o.range } : undefined;
      return { info, index, at: order, postInc, whole: false };
    }
    return undefined;
  }

  private wait(t: CoExpr, ctx: Ctx, range: Range): Stmt[] {
    const ev = this.eventRef(t, ctx);
    if (!ev) {
      const f = rootName(t);
      return f ? [{ kind: 'op', op: this.op('future-wait', lowering('wait', 'future-wait'), range, { futures: [f] }), range }] : [];
    }
    const { info } = ev;
    const barrier = { base: info.name, index: ev.index, text: t.kind === 'id' ? info.name : this.slice(t) ?? info.name };
    const out: Stmt[] = [];
    if (this.era !== 'C') {
      // Era A/B: a wait arrives first (cuda::barrier arrive_and_wait), from the elected producer thread
      // in the single-thread producer role.
      const arrive = this.op('arrive', lowering('wait', 'arrive'), range, { barrier, count: num(1, range), tokenOut: `<token ${info.name}>` });
      const waitOp = this.op('wait-token', lowering('wait', 'wait-token'), range, { barrier, token: { kind: 'var', name: `<token ${info.name}>`, text: '', range }, result: 'blocking' });
      out.push(...this.elected(ctx, [{ kind: 'op', op: arrive, range }, { kind: 'op', op: waitOp, range }], range));
      return out;
    }
    const n = info.length;
    let parity: Expr;
    const ready = info.ready ? 1 : 0;
    if (ev.at) {
      const o = this.expr(ev.at, ctx);
      const gen: Expr = n !== undefined ? { kind: 'binary', op: '/', left: o, right: num(n, range), text: `${o.text} / ${n}`, range } : o;
      parity = xor(and1(gen, range), ready, range);
    } else if (!n && t.kind === 'id') {
      parity = { kind: 'var', name: `${info.name}__phase`, text: `${info.name}__phase`, range };
    } else {
      // Legacy e[i]: the compiler derives the phase from the innermost foreach variable.
      const iv = ctx.loopVars[ctx.loopVars.length - 1];
      if (!iv) parity = num(ready, range);
      else {
        const v: Expr = { kind: 'var', name: iv, text: iv, range };
        let p: Expr;
        if (n === 2) p = { kind: 'binary', op: '>>', left: { kind: 'binary', op: '&', left: v, right: num(3, range), text: `${iv} & 3`, range }, right: num(1, range), text: `(${iv} & 3) >> 1`, range };
        else if (n === 1) p = and1(v, range);
        else p = and1({ kind: 'binary', op: '/', left: v, right: num(n ?? 1, range), text: `${iv} / ${n}`, range }, range);
        parity = xor(p, ready, range);
      }
    }
    const waitOp = this.op('wait-parity', lowering('wait', 'wait-parity'), range, { barrier, parity, result: 'blocking', atOrder: !!ev.at });
    out.push({ kind: 'op', op: waitOp, range });
    if (!n && t.kind === 'id') out.push({ kind: 'assign', target: `${info.name}__phase`, op: '^=', value: num(1, range), declared: false, range });
    if (ev.postInc && ev.at) out.push(...this.postIncrement(ev.at, range));
    return out;
  }

  private trigger(t: CoExpr, cluster: boolean, after: CoExpr[], ctx: Ctx, range: Range): Stmt[] {
    const ev = this.eventRef(t, ctx);
    if (!ev) return [];
    const { info } = ev;
    const out: Stmt[] = [];
    const indices: (Expr | undefined)[] = ev.index ? [ev.index] : info.length !== undefined && t.kind === 'id' ? Array.from({ length: Math.min(info.length, 64) }, (_, i) => num(i, range)) : [undefined];
    const arrives: Stmt[] = [];
    for (const index of indices) {
      const barrier = { base: info.name, index, text: this.slice(t) ?? info.name };
      const kind: OpKind = after.length ? 'arrive-expect-tx' : 'arrive';
      arrives.push({ kind: 'op', op: this.op(kind, lowering(cluster ? 'trigger.cluster' : after.length ? 'after' : 'trigger', kind), range, { barrier, count: num(1, range), remote: cluster || undefined, atOrder: !!ev.at }), range });
    }
    for (const f of after) {
      const name = rootName(f);
      if (name) out.push({ kind: 'op', op: this.op('future-wait', lowering('after', 'future-wait'), range, { futures: [name] }), range });
    }
    // A trigger-after is folded into the TMA issue by one elected thread; era A/B producers elect too.
    out.push(...(after.length || cluster ? this.electedAlways(arrives, range) : this.elected(ctx, arrives, range)));
    if (ev.postInc && ev.at) out.push(...this.postIncrement(ev.at, range));
    return out;
  }

  private postIncrement(order: CoExpr, range: Range): Stmt[] {
    const target = rootName(order);
    return target ? [{ kind: 'assign', target, op: '++', declared: false, range }] : [];
  }

  private elected(ctx: Ctx, body: Stmt[], range: Range): Stmt[] {
    return ctx.singleThread ? this.electedAlways(body, range) : body;
  }

  private electedAlways(body: Stmt[], range: Range): Stmt[] {
    const tid: Expr = { kind: 'member', object: { kind: 'var', name: 'threadIdx', text: 'threadIdx', range }, field: 'x', text: 'threadIdx.x', range };
    const cond: Expr = { kind: 'binary', op: '==', left: { kind: 'binary', op: '%', left: tid, right: num(128, range), text: 'threadIdx.x % 128', range }, right: num(0, range), text: 'threadIdx.x % 128 == 0', range };
    return [{ kind: 'if', cond, then: body, else: [], range }];
  }

  /** Operations an expression performs: copies, MMAs, future reads, swaps, buffer reads. */
  private valueEffects(e: CoExpr, ctx: Ctx, range: Range, assignedTo: string | undefined): Stmt[] {
    const out: Stmt[] = [];
    if (e.kind === 'dma') {
      out.push(...this.reads(e.src, ctx, false));
      if (e.event) {
        const ev = this.eventRef(e.event, ctx);
        if (ev) out.push({ kind: 'op', op: this.op('bulk-copy', `${e.engine}.${e.op}.async<event>`, range, { barrier: { base: ev.info.name, index: ev.index, text: this.slice(e.event) ?? ev.info.name }, legacy: syncConstruct('tma.copy.async<ev>').legacy }), range });
      }
      if (e.async || e.op === 'any') {
        if (assignedTo) {
          this.futures.add(assignedTo);
          out.push({ kind: 'op', op: this.op('future-issue', `${e.engine}.${e.op}${e.async ? '.async' : ''}`, range, { futures: [assignedTo] }), range });
        }
      }
      out.push(...this.reads(e.dst, ctx, true));
      return out;
    }
    if (e.kind === 'mma') {
      if (e.op === 'commit') return [{ kind: 'op', op: this.op('mma-fence', lowering('mma.commit', 'mma-fence'), range, { legacy: syncConstruct('mma.commit').legacy }), range }];
      if (e.op === 'wait') return [{ kind: 'op', op: this.op('mma-fence', lowering('mma.wait<N>', 'mma-fence'), range, { legacy: syncConstruct('mma.wait<N>').legacy }), range }];
      for (const a of e.args) out.push(...this.reads(a, ctx, false));
      if (/^(row|col)/.test(e.op)) {
        out.push({ kind: 'op', op: this.op('mma', `mma.${e.op}`, range, {}), range });
        if (e.async && assignedTo) {
          this.futures.add(assignedTo);
          out.push({ kind: 'op', op: this.op('future-issue', `mma.${e.op}.async`, range, { futures: [assignedTo] }), range });
        }
      }
      return out;
    }
    if (e.kind === 'call' && e.callee === 'select') {
      // `x = select(k, f0, f1)` hands the futures on to x: they are used (waited through x).
      const names = e.args.slice(1).map(rootName).filter((n): n is string => !!n && this.futures.has(n));
      if (assignedTo) this.futures.add(assignedTo);
      return names.map((n) => ({ kind: 'op' as const, op: this.op('future-use', lowering('select', 'future-use'), range, { futures: [n] }), range }));
    }
    if (e.kind === 'call' && (e.callee === 'swap' || e.callee === 'rotate')) {
      const names = e.args.map(rootName).filter((n): n is string => !!n);
      return [{ kind: 'op', op: this.op('future-rotate', e.callee, range, { futures: names }), range }];
    }
    out.push(...this.reads(e, ctx, false));
    return out;
  }

  /** Buffer slot accesses and future data reads inside an expression. */
  private reads(e: CoExpr | undefined, ctx: Ctx, write: boolean): Stmt[] {
    const out: Stmt[] = [];
    const visit = (x: CoExpr): void => {
      if (x.kind === 'index' && x.object.kind === 'id') {
        const d = this.decls.get(x.object.name);
        if (d && d.space === 'shared' && !this.events.has(x.object.name) && x.indices[0]) {
          out.push({ kind: 'access', array: x.object.name, index: this.expr(x.indices[0], ctx), write, range: this.range(x.span) });
        }
      }
      if (x.kind === 'member' && x.object.kind === 'id' && this.futures.has(x.object.name) && /^(data|span|mdata)$/.test(x.name)) {
        out.push({ kind: 'op', op: this.op('future-use', `.${x.name}`, this.range(x.span), { futures: [x.object.name] }), range: this.range(x.span) });
      }
      forEachChild(x, visit);
    };
    if (e) visit(e);
    return out;
  }

  private op(kind: OpKind, api: string, range: Range, fields: Partial<BarrierOp>): BarrierOp {
    const op: BarrierOp = { kind, api, range, via: [] };
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) (op as unknown as Record<string, unknown>)[k] = v;
    return op;
  }

  expr(e: CoExpr, ctx: Ctx): Expr {
    const range = this.range(e.span);
    const text = this.slice(e) ?? '';
    switch (e.kind) {
      case 'num':
        return { kind: 'num', value: e.value, text: e.text, range };
      case 'id': {
        const c = this.constants.get(e.name);
        if (c !== undefined && !this.decls.has(e.name)) return { kind: 'num', value: c, text: e.name, range };
        return { kind: 'var', name: e.name, text: e.name, range };
      }
      case 'binary':
        if (e.op.startsWith('#')) return { kind: 'opaque', text, range };
      {
        // Spans of binary nodes exclude their parentheses: rebuild the text from the operands.
        const left = this.expr(e.left, ctx);
        const right = this.expr(e.right, ctx);
        const wrap = (x: Expr): string => (x.kind === 'binary' ? `(${x.text})` : x.text);
        return { kind: 'binary', op: e.op, left, right, text: `${wrap(left)} ${e.op} ${wrap(right)}`, range };
      }
      case 'unary': {
        if (e.op === '#') {
          const name = rootName(e.arg);
          const ext = name ? ctx.extents.get(name) : undefined;
          const v = ext ? this.value(ext) : undefined;
          return v !== undefined ? { kind: 'num', value: v, text, range } : { kind: 'opaque', text, range };
        }
        return { kind: 'unary', op: e.op, arg: this.expr(e.arg, ctx), text, range };
      }
      case 'cond':
        return { kind: 'cond', test: this.expr(e.test, ctx), then: this.expr(e.then, ctx), else: this.expr(e.else, ctx), text, range };
      case 'call':
        return { kind: 'call', callee: e.callee, args: e.args.map((a) => this.expr(a, ctx)), text, range };
      case 'index':
        return e.indices[0] ? { kind: 'index', object: this.expr(e.object, ctx), index: this.expr(e.indices[0], ctx), text, range } : { kind: 'opaque', text, range };
      case 'member':
        return { kind: 'member', object: this.expr(e.object, ctx), field: e.name, text, range };
      case 'method':
        return { kind: 'call', callee: `.${e.name}`, args: [this.expr(e.object, ctx), ...e.args.map((a) => this.expr(a, ctx))], text, range };
      default:
        return { kind: 'opaque', text, range };
    }
  }
}

/** The IR `api` label the sync catalogue gives construct `id` for operation `op`. */
function lowering(id: string, op: OpKind | 'sync'): string {
  const l = syncConstruct(id).lowersTo.find((x) => x.op === op);
  if (!l) throw new Error(`the sync catalogue has no '${op}' lowering for '${id}'`);
  return l.api;
}

function num(value: number, range: Range): Expr {
  return { kind: 'num', value, text: String(value), range };
}

function and1(e: Expr, range: Range): Expr {
  return { kind: 'binary', op: '&', left: e, right: num(1, range), text: `(${e.text}) & 1`, range };
}

function xor(e: Expr, bit: number, range: Range): Expr {
  return bit ? { kind: 'binary', op: '^', left: e, right: num(1, range), text: `${e.text} ^ 1`, range } : e;
}

export function rootName(e: CoExpr): string | undefined {
  switch (e.kind) {
    case 'id':
      return e.name;
    case 'index':
    case 'member':
    case 'method':
      return rootName(e.object);
    case 'unary':
      return rootName(e.arg);
    default:
      return undefined;
  }
}

function containsAsyncInthreads(list: CoStmt[]): boolean {
  return list.some((s) => (s.kind === 'inthreads' && s.async) || childBodies(s).some(containsAsyncInthreads));
}

/** The producer role: it issues copies inside its pipeline loop (a consumer's final store does not count). */
function issuesCopies(list: CoStmt[], inLoop = false): boolean {
  const exprHasCopy = (e: CoExpr | undefined): boolean => {
    if (!e) return false;
    if (e.kind === 'dma' && e.op !== 'any') return true;
    let found = false;
    forEachChild(e, (c) => {
      if (exprHasCopy(c)) found = true;
    });
    return found;
  };
  return list.some(
    (s) =>
      (inLoop && ((s.kind === 'expr' && exprHasCopy(s.expr)) || (s.kind === 'assign' && exprHasCopy(s.value)))) ||
      childBodies(s).some((b) => issuesCopies(b, inLoop || s.kind === 'foreach' || s.kind === 'while')),
  );
}

/** Threads per block: the thread-level parallel structure directly inside the block body. */
function threadsOf(list: CoStmt[], l: CroqtileLowerer): number | undefined {
  let best: number | undefined;
  for (const s of list) {
    if (s.kind === 'parallel') {
      const unit = LEVEL_SIZE[s.level ?? 'thread'];
      if (unit === undefined) continue;
      const counts = s.extents.map((e) => l.value(e));
      if (counts.some((c) => c === undefined)) continue;
      const total = (counts as number[]).reduce((a, b) => a * b, 1) * unit;
      best = Math.max(best ?? 0, total);
    } else {
      for (const b of childBodies(s)) {
        const t = threadsOf(b, l);
        if (t !== undefined) best = Math.max(best ?? 0, t);
      }
    }
  }
  return best !== undefined && best <= 1024 ? best : undefined;
}
