// Lowers one tilus Script (its `__call__`, at one combination of its compile-time parameters) to the kernel
// IR. tilus runs Python at trace time and emits a kernel: Python integers (parameters, `int` fields) are
// folded into the IR as numbers, while annotated (`x: uint32 = 0`) and reassigned locals stay run-time
// variables. What tilus's code generator does, as read from its sources (NVIDIA/tilus):
// - `self.mbarrier.alloc(counts)` is hoisted to the kernel's start: thread 0 initialises every barrier, then
//   a fence and `__syncthreads()`; a count of None is the number of threads of the allocating group.
// - `with self.thread_group(thread_begin, num_threads)` narrows execution to threads [begin, begin + n) of
//   the current group (nested groups are relative to their parent); `single_thread()` to one thread,
//   `single_warp(w)` to warp w, `warp_group(b, n)` to warps [b, b + n).
// - `arrive`, `arrive_and_expect_tx`, `arrive_and_expect_tx_remote` and `wait` run on every thread of the
//   current group (a group of 32 threads arrives 32 times); `arrive_and_expect_tx_multicast` arrives once per
//   CTA of its mask.
// - TMA copies, `tcgen05.mma` and `tcgen05.commit` are issued by one elected lane of the group.
// - `self.range(a, b, step, unroll=)` and `range(...)` are run-time loops (unrolling does not change the trip count).
// - MMAs (`wgmma.mma`, `tcgen05.mma`) read their shared-tensor stages (`sa[stage]`): accesses the rules compare
//   with the wait before them. wgmma completes through `wgmma.wait_group`, not a barrier, so nothing else of it
//   is lowered. Tensor-memory allocation, loads and stores are not lowered: tilus exposes no
//   tcgen05 fences, so the tensor-memory hand-off rules (written for CUDA's fences) would have nothing to check.
import type { Range } from '../../api';
import { placeOnLines } from '../../ir/source-lines';
import type { BarrierDecl, BarrierOp, BarrierRef, Expr, Kernel, OpKind, Stmt } from '../../ir/types';
import { type PyNode, namedChildren, rangeOf } from './parser';
import { type Combination, type TilusClass, literalNumber } from './script-classes';
import { type CallArgs, type InstructionContext, lowerInstruction } from './instructions';
import { type Group, groupCond, mergeThreadBranches, tidEquals } from './thread-branches';
import { DTYPE_BITS, PYTHON_TYPES, type Value, asExpr, foldBinary, numExpr, runtimeNames } from './trace-values';

/** One function being lowered: its locals, its `self`, the thread group it runs in. */
interface Frame {
  locals: Map<string, Value>;
  self: Value;
  cls: TilusClass;
  /** Names of the function assigned more than once or with a run-time annotation: run-time variables. */
  runtime: Set<string>;
  /** IR names of this frame's run-time locals. */
  irNames: Map<string, string>;
  group: Group;
  returned?: Value;
  depth: number;
}

const MAX_INLINE_DEPTH = 12;
/** Python lists iterated by a `for` are unrolled up to this many items; longer ones are one run-time loop. */
const MAX_UNROLL = 16;

export interface LoweredScript {
  kernel: Kernel;
  /** Block size from `self.attrs.warps`, when set to a constant. */
  blockSize?: number;
}

export function lowerScript(script: TilusClass, classes: ReadonlyMap<string, TilusClass>, moduleConstants: ReadonlyMap<string, number>, combination: Combination, text: string, kernelName = script.name): LoweredScript {
  const lowerer = new ScriptLowerer(script, classes, moduleConstants, combination);
  const kernel = lowerer.lower(kernelName);
  return { kernel: placeOnLines(kernel, text), blockSize: lowerer.blockSize };
}

class ScriptLowerer implements InstructionContext {
  readonly decls = new Map<string, BarrierDecl>();
  readonly inits: Stmt[] = [];
  readonly notUnderstood: { what: string; range: Range }[] = [];
  private readonly usedNames = new Map<string, number>();
  private readonly scriptFields = new Map<string, Value>();
  private objectCount = 0;
  blockSize: number | undefined;
  private cluster: [number, number, number] | undefined;
  private callRange: Range | undefined;
  private readonly via: Range[] = [];

  constructor(
    private readonly script: TilusClass,
    private readonly classes: ReadonlyMap<string, TilusClass>,
    private readonly moduleConstants: ReadonlyMap<string, number>,
    private readonly combination: Combination,
  ) {}

  lower(name: string): Kernel {
    const init = this.script.methods.get('__init__');
    const scriptSelf: Value = { kind: 'script' };
    if (init) {
      const frame = this.frame(init, scriptSelf, this.script, { begin: 0, size: undefined }, 0);
      for (const p of this.params(init)) {
        const v = this.combination.values.get(p.name);
        frame.locals.set(p.name, v !== undefined ? { kind: 'int', value: v, text: p.name } : { kind: 'unknown', text: p.name });
      }
      this.block(init.childForFieldName('body'), frame);
    }
    const call = this.script.methods.get('__call__');
    const params: string[] = [];
    let body: Stmt[] = [];
    if (call) {
      const frame = this.frame(call, scriptSelf, this.script, { begin: 0, size: undefined }, 0);
      for (const p of this.params(call)) {
        params.push(p.name);
        frame.locals.set(p.name, { kind: 'rt', expr: { kind: 'var', name: p.name, text: p.name, range: p.range } });
        this.decls.set(p.name, { name: p.name, type: p.type, space: 'param', range: p.range, nameRange: p.range });
      }
      // The warps are set in the body; thread groups read the block size from it, so find it first.
      this.blockSize = this.findWarps(call, frame);
      frame.group = { begin: 0, size: this.blockSize };
      body = this.block(call.childForFieldName('body'), frame);
    }
    const range = call ? rangeOf(call) : this.script.range;
    const prologue: Stmt[] = [];
    if (this.inits.length) {
      prologue.push({ kind: 'if', cond: tidEquals(0, range), then: this.inits, else: [], range });
      prologue.push({ kind: 'op', op: this.op('fence-init', 'self.mbarrier.alloc (fence.mbarrier_init)', range, {}), range });
      prologue.push({ kind: 'sync', scope: 'block', api: 'self.mbarrier.alloc (__syncthreads)', range });
    }
    const constants = new Map<string, number>();
    for (const [k, v] of this.combination.values) constants.set(k, v);
    return {
      name,
      range,
      nameRange: this.script.nameRange,
      params,
      launchBounds: this.blockSize,
      ...(this.blockSize !== undefined || this.cluster
        ? { launchShape: { blocks: this.blockSize !== undefined ? [this.blockSize] : [], ...(this.blockSize !== undefined ? { source: 'launch-bounds' as const } : {}), ...(this.cluster ? { cluster: this.cluster, clusterSource: 'cluster-dims' as const } : {}) } }
        : {}),
      body: [...prologue, ...body],
      decls: this.decls,
      helpers: [...this.script.methods.keys()].filter((m) => m !== '__call__'),
      constants,
      notUnderstood: this.notUnderstood,
    };
  }

  private params(fn: PyNode): { name: string; type: string; range: Range }[] {
    const out: { name: string; type: string; range: Range }[] = [];
    for (const p of namedChildren(fn.childForFieldName('parameters'))) {
      const nameNode = p.type === 'identifier' ? p : (p.childForFieldName('name') ?? namedChildren(p).find((c) => c.type === 'identifier'));
      if (!nameNode || nameNode.text === 'self') continue;
      out.push({ name: nameNode.text, type: p.childForFieldName('type')?.text ?? '', range: rangeOf(nameNode) });
    }
    return out;
  }

  private frame(fn: PyNode, self: Value, cls: TilusClass, group: Group, depth: number): Frame {
    return { locals: new Map(), self, cls, runtime: runtimeNames(fn), irNames: new Map(), group, depth };
  }

  /** `self.attrs.warps = N` anywhere at the top level of `__call__` (it is a compile-time constant). */
  private findWarps(fn: PyNode, frame: Frame): number | undefined {
    for (const s of namedChildren(fn.childForFieldName('body'))) {
      const a = s.type === 'expression_statement' ? namedChildren(s)[0] : undefined;
      if (a?.type !== 'assignment' || a.childForFieldName('left')?.text.replace(/\s+/g, '') !== 'self.attrs.warps') continue;
      const right = a.childForFieldName('right');
      const v = right ? this.value(right, { ...frame, locals: new Map(frame.locals) }, []) : undefined;
      if (v?.kind === 'int') return v.value * 32;
    }
    return undefined;
  }

  private irName(name: string, frame: Frame): string {
    let ir = frame.irNames.get(name);
    if (ir) return ir;
    const n = this.usedNames.get(name) ?? 0;
    this.usedNames.set(name, n + 1);
    ir = n === 0 ? name : `${name}#${n}`;
    frame.irNames.set(name, ir);
    return ir;
  }

  /** An operation; inside an inlined helper it is placed at the outermost call, the helper's lines in `via` (innermost first). */
  op(kind: OpKind, api: string, range: Range, extra: Partial<BarrierOp>): BarrierOp {
    if (!this.callRange) return { kind, api, range, via: [], ...extra };
    return { kind, api, range: this.callRange, via: [range, ...this.via.slice(1).reverse()], ...extra };
  }

  // ------------------------------------------------------------------------------------------- statements

  private block(n: PyNode | null, frame: Frame): Stmt[] {
    const out: Stmt[] = [];
    for (const s of namedChildren(n)) {
      if (frame.returned) break;
      out.push(...this.stmt(s, frame));
    }
    return mergeThreadBranches(out);
  }

  private stmt(s: PyNode, frame: Frame): Stmt[] {
    const range = rangeOf(s);
    const out: Stmt[] = [];
    switch (s.type) {
      case 'expression_statement': {
        for (const e of namedChildren(s)) {
          if (e.type === 'assignment') this.assignment(e, frame, out);
          else if (e.type === 'augmented_assignment') this.augmented(e, frame, out);
          else if (e.type !== 'string') this.value(e, frame, out);
        }
        return out;
      }
      case 'if_statement':
        return this.ifStatement(s, frame);
      case 'for_statement':
        return this.forStatement(s, frame);
      case 'while_statement': {
        const cond = this.value(s.childForFieldName('condition')!, frame, out);
        const body = this.block(s.childForFieldName('body'), frame);
        out.push({ kind: 'loop', cond: asExpr(cond, rangeOf(s.childForFieldName('condition')!)), body, range, bodyRange: range });
        return out;
      }
      case 'with_statement':
        return this.withStatement(s, frame);
      case 'return_statement': {
        const v = namedChildren(s)[0];
        const value = v ? this.value(v, frame, out) : { kind: 'unknown' as const, text: 'None' };
        if (frame.depth === 0) out.push({ kind: 'return', range });
        else frame.returned = value;
        return out;
      }
      case 'break_statement':
        out.push({ kind: 'break', range });
        return out;
      case 'continue_statement':
        out.push({ kind: 'continue', range });
        return out;
      default:
        return out;
    }
  }

  private ifStatement(s: PyNode, frame: Frame): Stmt[] {
    const out: Stmt[] = [];
    const condNode = s.childForFieldName('condition')!;
    const cond = this.value(condNode, frame, out);
    const alternatives = namedChildren(s).filter((c) => c.type === 'elif_clause' || c.type === 'else_clause');
    const elseOf = (i: number): Stmt[] => {
      const alt = alternatives[i];
      if (!alt) return [];
      if (alt.type === 'else_clause') return this.block(alt.childForFieldName('body'), frame);
      const c = this.value(alt.childForFieldName('condition')!, frame, out);
      if (c.kind === 'int') return c.value ? this.block(alt.childForFieldName('consequence'), frame) : elseOf(i + 1);
      return [{ kind: 'if', cond: asExpr(c, rangeOf(alt)), then: this.block(alt.childForFieldName('consequence'), frame), else: elseOf(i + 1), range: rangeOf(alt) }];
    };
    // A condition known at trace time selects its branch, as tilus's transpiler does.
    if (cond.kind === 'int') return [...out, ...(cond.value ? this.block(s.childForFieldName('consequence'), frame) : elseOf(0))];
    const then = this.block(s.childForFieldName('consequence'), frame);
    const returnedInThen = frame.returned;
    frame.returned = undefined;
    const otherwise = elseOf(0);
    frame.returned ??= returnedInThen;
    out.push({ kind: 'if', cond: asExpr(cond, rangeOf(condNode)), then, else: otherwise, range: rangeOf(s) });
    return out;
  }

  private forStatement(s: PyNode, frame: Frame): Stmt[] {
    const out: Stmt[] = [];
    const range = rangeOf(s);
    const left = s.childForFieldName('left')!;
    const right = s.childForFieldName('right')!;
    const callee = right.type === 'call' ? right.childForFieldName('function')?.text.replace(/\s+/g, '') : undefined;
    if (callee === 'range' || callee === 'self.range') {
      const args = namedChildren(right.childForFieldName('arguments')).filter((a) => a.type !== 'keyword_argument');
      const vals = args.map((a) => this.value(a, frame, out));
      const [start, end, step] = vals.length >= 2 ? [vals[0]!, vals[1]!, vals[2]] : [{ kind: 'int' as const, value: 0, text: '0' }, vals[0] ?? { kind: 'unknown' as const, text: '?' }, undefined];
      const name = left.type === 'identifier' ? left.text : undefined;
      const ir = name ? this.irName(name, frame) : undefined;
      if (name && ir) frame.locals.set(name, { kind: 'rt', expr: { kind: 'var', name: ir, text: name, range: rangeOf(left) } });
      const lr = rangeOf(left);
      const v: Expr = ir ? { kind: 'var', name: ir, text: name!, range: lr } : { kind: 'var', name: '_', text: '_', range: lr };
      const stepValue = step ?? { kind: 'int' as const, value: 1, text: '1' };
      const negative = stepValue.kind === 'int' && stepValue.value < 0;
      const endExpr = asExpr(end, rangeOf(right));
      const cond: Expr = { kind: 'binary', op: negative ? '>' : '<', left: v, right: endExpr, text: `${v.text} ${negative ? '>' : '<'} ${endExpr.text}`, range: rangeOf(right) };
      const body = this.block(s.childForFieldName('body'), frame);
      out.push({
        kind: 'loop',
        var: ir,
        init: asExpr(start, rangeOf(right)),
        cond,
        step: ir ? [{ kind: 'assign', target: ir, op: '+=', value: asExpr(stepValue, rangeOf(right)), declared: false, range: rangeOf(right) }] : [],
        body,
        range,
        bodyRange: rangeOf(s.childForFieldName('body') ?? s),
      });
      return out;
    }
    const iterable = this.value(right, frame, out);
    if (iterable.kind === 'list' && iterable.items.length <= MAX_UNROLL && left.type === 'identifier') {
      // A Python list is iterated at trace time: the body is emitted once per item.
      for (const item of iterable.items) {
        frame.locals.set(left.text, item);
        out.push(...this.block(s.childForFieldName('body'), frame));
      }
      return out;
    }
    if (left.type === 'identifier') frame.locals.set(left.text, { kind: 'unknown', text: left.text });
    out.push({ kind: 'loop', body: this.block(s.childForFieldName('body'), frame), range, bodyRange: range });
    return out;
  }

  private withStatement(s: PyNode, frame: Frame): Stmt[] {
    const out: Stmt[] = [];
    const items = namedChildren(namedChildren(s).find((c) => c.type === 'with_clause')).filter((c) => c.type === 'with_item');
    let group = frame.group;
    const conds: Expr[] = [];
    for (const item of items) {
      const call = item.childForFieldName('value');
      const callee = call?.type === 'call' ? call.childForFieldName('function')?.text.replace(/\s+/g, '') : undefined;
      if (!call || !callee) continue;
      const args = this.args(call, frame, out);
      const int = (v: Value | undefined): number | undefined => (v?.kind === 'int' ? v.value : undefined);
      let begin: number | undefined;
      let size: number | undefined;
      if (callee === 'self.thread_group') {
        begin = int(args.get('thread_begin', 0));
        size = int(args.get('num_threads', 1));
      } else if (callee === 'self.single_thread') {
        const t = int(args.get('thread', 0)) ?? -1;
        begin = t < 0 ? 0 : t;
        size = 1;
      } else if (callee === 'self.single_warp') {
        const w = args.get('warp', 0) ? int(args.get('warp', 0)) : 0;
        begin = w === undefined ? undefined : w * 32;
        size = 32;
      } else if (callee === 'self.warp_group') {
        const b = int(args.get('warp_begin', 0));
        const n = int(args.get('num_warps', 1));
        begin = b === undefined ? undefined : b * 32;
        size = n === undefined ? undefined : n * 32;
      } else continue;
      const absolute = begin !== undefined && group.begin !== undefined ? group.begin + begin : undefined;
      const r = rangeOf(call);
      if (absolute === undefined || size === undefined) {
        conds.push({ kind: 'opaque', text: call.text, range: r });
        group = { begin: undefined, size };
        continue;
      }
      // A group covering the whole block needs no condition.
      if (!(absolute === 0 && size === this.blockSize)) conds.push(groupCond(absolute, size, r));
      group = { begin: absolute, size };
    }
    const saved = frame.group;
    frame.group = group;
    const body = this.block(s.childForFieldName('body'), frame);
    frame.group = saved;
    if (!conds.length) return [...out, ...body];
    const cond = conds.reduce((a, b) => ({ kind: 'binary', op: '&&', left: a, right: b, text: `${a.text} && ${b.text}`, range: a.range }));
    out.push({ kind: 'if', cond, then: body, else: [], range: rangeOf(s) });
    return out;
  }

  private assignment(a: PyNode, frame: Frame, out: Stmt[]): void {
    const left = a.childForFieldName('left')!;
    const right = a.childForFieldName('right');
    const type = a.childForFieldName('type')?.text.replace(/\s+/g, '');
    if (!right) return;
    const leftText = left.text.replace(/\s+/g, '');
    if (leftText.startsWith('self.attrs.')) {
      const v = this.value(right, frame, out);
      // `self.attrs.warps = num_warps` with a local set before it: known only here, for what follows.
      if (leftText === 'self.attrs.warps' && this.blockSize === undefined && v.kind === 'int') {
        this.blockSize = v.value * 32;
        if (frame.depth === 0 && frame.group.begin === 0) frame.group = { begin: 0, size: this.blockSize };
      }
      if (leftText === 'self.attrs.cluster_blocks') {
        const dims = v.kind === 'list' ? v.items.map((x) => (x.kind === 'int' ? x.value : 1)) : v.kind === 'int' ? [v.value] : [];
        if (dims.length) this.cluster = [dims[0] ?? 1, dims[1] ?? 1, dims[2] ?? 1];
      }
      return;
    }
    if (left.type === 'pattern_list' || left.type === 'tuple_pattern' || left.type === 'list_pattern') {
      const v = this.value(right, frame, out);
      const targets = namedChildren(left);
      targets.forEach((t, i) => {
        const item: Value = v.kind === 'list' ? (v.items[i] ?? { kind: 'unknown', text: t.text }) : { kind: 'unknown', text: t.text };
        this.bind(t, item, undefined, frame, out, rangeOf(a), type);
      });
      return;
    }
    const v = this.value(right, frame, out, leftText);
    this.bind(left, v, right, frame, out, rangeOf(a), type);
  }

  /** Binds `target` to `v`: a Python value is kept at trace time, a run-time one becomes an IR assignment. */
  private bind(target: PyNode, v: Value, rightNode: PyNode | undefined, frame: Frame, out: Stmt[], range: Range, type?: string): void {
    const runtimeType = type !== undefined && !PYTHON_TYPES.has(type);
    if (target.type === 'identifier') {
      const name = target.text;
      const isScalar = v.kind === 'int' || v.kind === 'rt' || v.kind === 'unknown';
      if (isScalar && (runtimeType || (frame.runtime.has(name) && !(type && PYTHON_TYPES.has(type))) || v.kind === 'rt')) {
        const declared = !frame.irNames.has(name);
        const ir = this.irName(name, frame);
        // A run-time local is declared, as CUDA's are: rules tell a kernel's own variables (whose every update
        // they see) from values they cannot follow (PF103 checks a parity only when it is the kernel's own).
        if (declared && !this.decls.has(ir)) this.decls.set(ir, { name: ir, type: type ?? 'int32', space: 'local', range, nameRange: rangeOf(target) });
        out.push({ kind: 'assign', target: ir, op: '=', value: asExpr(v, rightNode ? rangeOf(rightNode) : range), declared, range });
        frame.locals.set(name, { kind: 'rt', expr: { kind: 'var', name: ir, text: name, range: rangeOf(target) } });
        return;
      }
      frame.locals.set(name, this.named(v, name, target));
      return;
    }
    if (target.type === 'attribute') {
      const objNode = target.childForFieldName('object')!;
      const field = target.childForFieldName('attribute')!.text;
      const obj = this.value(objNode, frame, out);
      const fields = obj.kind === 'object' ? obj.fields : obj.kind === 'script' ? this.scriptFields : undefined;
      if (!fields) return;
      const prefix = obj.kind === 'object' ? `${obj.prefix}.` : '';
      const ir = `${prefix}${field}`;
      const existing = fields.get(field);
      const isScalar = v.kind === 'int' || v.kind === 'rt' || v.kind === 'unknown';
      const pythonTyped = type !== undefined && PYTHON_TYPES.has(type);
      if (isScalar && !pythonTyped && (runtimeType || v.kind === 'rt' || existing?.kind === 'rt' || (obj.kind === 'object' && type !== undefined))) {
        out.push({ kind: 'assign', target: ir, op: '=', value: asExpr(v, rightNode ? rangeOf(rightNode) : range), declared: existing === undefined, range });
        fields.set(field, { kind: 'rt', expr: { kind: 'var', name: ir, text: target.text, range: rangeOf(target) } });
        return;
      }
      fields.set(field, this.named(v, ir, target));
      return;
    }
    if (target.type === 'subscript') {
      const obj = this.value(target.childForFieldName('value')!, frame, out);
      if (obj.kind !== 'tensor') return;
      const idx = this.value(namedChildren(target).slice(1)[0] ?? target, frame, out);
      this.tensorStore(obj, idx, '=', asExpr(v, range), range, out);
    }
  }

  /** Names what an allocation returns after the variable it is bound to (the barriers' IR name). */
  private named(v: Value, name: string, target: PyNode): Value {
    if (v.kind === 'shared' && !v.name && !v.slot) {
      // A shared tensor bound to a name: reads of its stages (`sa[stage]`) become accesses the rules compare with the waits.
      const base = this.uniqueDecl(name);
      this.decls.set(base, { name: base, type: 'shared_tensor', space: 'shared', ...(v.shape[0] !== undefined ? { length: v.shape[0] } : {}), range: rangeOf(target), nameRange: rangeOf(target) });
      return { ...v, name: base };
    }
    if (v.kind === 'barriers' && isPlaceholder(v.base)) {
      const base = this.uniqueDecl(name);
      this.renameDecl(v.base, base, rangeOf(target), (ref) => ({ ...ref, base, text: ref.index ? `${name}[${ref.index.text}]` : name }));
      return { ...v, base };
    }
    // `a, b = self.mbarrier.alloc(counts=[..]).tolist()`: each element becomes a barrier of its own name.
    if (v.kind === 'barrier' && isPlaceholder(v.ref.base) && v.ref.index?.kind === 'num') {
      const base = this.uniqueDecl(name);
      const old = v.ref.base;
      const i = v.ref.index.value;
      const decl = this.decls.get(old);
      if (decl) this.decls.set(base, { ...decl, name: base, length: undefined, nameRange: rangeOf(target) });
      for (const s of this.inits) if (s.kind === 'op' && s.op.barrier?.base === old && s.op.barrier.index?.kind === 'num' && s.op.barrier.index.value === i) s.op.barrier = { base, text: name };
      return { kind: 'barrier', ref: { base, text: name }, remote: v.remote };
    }
    return v;
  }

  private renameDecl(old: string, base: string, nameRange: Range, ref: (r: BarrierRef) => BarrierRef): void {
    const decl = this.decls.get(old);
    if (decl) {
      this.decls.delete(old);
      this.decls.set(base, { ...decl, name: base, nameRange });
    }
    for (const s of this.inits) if (s.kind === 'op' && s.op.barrier?.base === old) s.op.barrier = ref(s.op.barrier);
  }

  uniqueDecl(name: string): string {
    if (!this.decls.has(name)) return name;
    for (let i = 1; ; i++) if (!this.decls.has(`${name}#${i}`)) return `${name}#${i}`;
  }

  private augmented(a: PyNode, frame: Frame, out: Stmt[]): void {
    const left = a.childForFieldName('left')!;
    const right = a.childForFieldName('right')!;
    const op = a.childForFieldName('operator')?.text ?? a.children.find((c) => c && /=$/.test(c.type))?.type ?? '=';
    const v = this.value(right, frame, out);
    const range = rangeOf(a);
    if (left.type === 'subscript') {
      const obj = this.value(left.childForFieldName('value')!, frame, out);
      if (obj.kind !== 'tensor') return;
      const idx = this.value(namedChildren(left)[1] ?? left, frame, out);
      this.tensorStore(obj, idx, op, asExpr(v, rangeOf(right)), range, out);
      return;
    }
    let ir: string | undefined;
    let fields: Map<string, Value> | undefined;
    let key = '';
    if (left.type === 'identifier') {
      const cur = frame.locals.get(left.text);
      if (cur?.kind === 'int' && !frame.runtime.has(left.text) && v.kind === 'int') {
        frame.locals.set(left.text, foldBinary(op.slice(0, -1), cur, v, left.text));
        return;
      }
      ir = this.irName(left.text, frame);
      frame.locals.set(left.text, { kind: 'rt', expr: { kind: 'var', name: ir, text: left.text, range: rangeOf(left) } });
    } else if (left.type === 'attribute') {
      const obj = this.value(left.childForFieldName('object')!, frame, out);
      key = left.childForFieldName('attribute')!.text;
      fields = obj.kind === 'object' ? obj.fields : obj.kind === 'script' ? this.scriptFields : undefined;
      ir = obj.kind === 'object' ? `${obj.prefix}.${key}` : key;
      fields?.set(key, { kind: 'rt', expr: { kind: 'var', name: ir, text: left.text, range: rangeOf(left) } });
    }
    if (ir) out.push({ kind: 'assign', target: ir, op, value: asExpr(v, rangeOf(right)), declared: false, range });
  }

  /**
   * `phase[stage] op= v` on a register tensor of run-time scalars: the elements are IR variables
   * `phase[0]` …; a run-time index selects the element with one branch per element.
   */
  private tensorStore(t: Extract<Value, { kind: 'tensor' }>, idx: Value, op: string, value: Expr, range: Range, out: Stmt[]): void {
    if (idx.kind === 'int') {
      out.push({ kind: 'assign', target: elementName(t.name, idx.value), op, value, declared: false, range });
      return;
    }
    const ie = asExpr(idx, range);
    for (let i = 0; i < t.length; i++) {
      const cond: Expr = { kind: 'binary', op: '==', left: ie, right: numExpr(i, range), text: `${ie.text} == ${i}`, range };
      out.push({ kind: 'if', cond, then: [{ kind: 'assign', target: elementName(t.name, i), op, value, declared: false, range }], else: [], range });
    }
  }

  private tensorLoad(t: Extract<Value, { kind: 'tensor' }>, idx: Value, range: Range, text: string): Value {
    const element = (i: number): Expr => ({ kind: 'var', name: elementName(t.name, i), text, range });
    if (idx.kind === 'int') return { kind: 'rt', expr: element(idx.value) };
    const ie = asExpr(idx, range);
    let e = element(t.length - 1);
    for (let i = t.length - 2; i >= 0; i--) {
      const test: Expr = { kind: 'binary', op: '==', left: ie, right: numExpr(i, range), text: `${ie.text} == ${i}`, range };
      e = { kind: 'cond', test, then: element(i), else: e, text, range };
    }
    return { kind: 'rt', expr: e };
  }

  // ------------------------------------------------------------------------------------------- expressions

  private args(call: PyNode, frame: Frame, out: Stmt[]): CallArgs {
    const positional: PyNode[] = [];
    const keyword = new Map<string, PyNode>();
    for (const a of namedChildren(call.childForFieldName('arguments'))) {
      if (a.type === 'keyword_argument') {
        const n = a.childForFieldName('name')?.text;
        const v = a.childForFieldName('value');
        if (n && v) keyword.set(n, v);
      } else positional.push(a);
    }
    const cache = new Map<PyNode, Value>();
    const node = (name: string, position: number): PyNode | undefined => keyword.get(name) ?? (position >= 0 ? positional[position] : undefined);
    return {
      node,
      get: (name, position) => {
        const n = node(name, position);
        if (!n) return undefined;
        let v = cache.get(n);
        if (!v) {
          v = this.value(n, frame, out);
          cache.set(n, v);
        }
        return v;
      },
    };
  }

  value(n: PyNode, frame: Frame, out: Stmt[], nameHint?: string): Value {
    const range = rangeOf(n);
    switch (n.type) {
      case 'integer':
      case 'true':
      case 'false': {
        const v = literalNumber(n);
        return v === undefined ? { kind: 'unknown', text: n.text } : { kind: 'int', value: v, text: n.text };
      }
      case 'none':
        return { kind: 'unknown', text: 'None' };
      case 'parenthesized_expression': {
        const inner = namedChildren(n)[0];
        return inner ? this.value(inner, frame, out, nameHint) : { kind: 'unknown', text: n.text };
      }
      case 'identifier': {
        if (n.text === 'self') return frame.self;
        const v = frame.locals.get(n.text);
        if (v) return v;
        if (DTYPE_BITS[n.text] !== undefined) return { kind: 'dtype', bits: DTYPE_BITS[n.text]! };
        const constant = this.moduleConstants.get(n.text);
        if (constant !== undefined) return { kind: 'int', value: constant, text: n.text };
        return { kind: 'unknown', text: n.text };
      }
      case 'attribute':
        return this.attribute(n, frame, out);
      case 'subscript':
        return this.subscript(n, frame, out);
      case 'list':
      case 'tuple':
      case 'expression_list':
        return { kind: 'list', items: namedChildren(n).map((c) => this.value(c, frame, out)) };
      case 'list_comprehension':
        return this.comprehension(n, frame, out);
      case 'binary_operator':
      case 'boolean_operator':
      case 'comparison_operator':
        return this.binaryValue(n, frame, out);
      case 'unary_operator':
      case 'not_operator': {
        const arg = this.value(namedChildren(n).at(-1)!, frame, out);
        const op = n.type === 'not_operator' ? '!' : n.child(0)!.type;
        if (arg.kind === 'int') {
          const v = op === '-' ? -arg.value : op === '~' ? ~arg.value : op === '!' ? Number(!arg.value) : arg.value;
          return { kind: 'int', value: v, text: n.text };
        }
        const e = asExpr(arg, range);
        return { kind: 'rt', expr: { kind: 'unary', op: op === 'not' ? '!' : op, arg: e, text: n.text, range } };
      }
      case 'conditional_expression': {
        const [a, c, b] = namedChildren(n);
        const test = this.value(c!, frame, out);
        if (test.kind === 'int') return this.value(test.value ? a! : b!, frame, out);
        const then = asExpr(this.value(a!, frame, out), range);
        const otherwise = asExpr(this.value(b!, frame, out), range);
        return { kind: 'rt', expr: { kind: 'cond', test: asExpr(test, range), then, else: otherwise, text: n.text, range } };
      }
      case 'call':
        return this.call(n, frame, out, nameHint);
      default:
        return { kind: 'unknown', text: n.text };
    }
  }

  private comprehension(n: PyNode, frame: Frame, out: Stmt[]): Value {
    const body = n.childForFieldName('body');
    const clause = namedChildren(n).find((c) => c.type === 'for_in_clause');
    const left = clause?.childForFieldName('left');
    const right = clause?.childForFieldName('right');
    if (!body || !left || !right) return { kind: 'unknown', text: n.text };
    let items: Value[] | undefined;
    const iterable = right.type === 'call' && right.childForFieldName('function')?.text === 'range' ? this.rangeValues(right, frame, out) : this.value(right, frame, out);
    if (iterable?.kind === 'list') items = iterable.items;
    if (!items || items.length > 4096) return { kind: 'unknown', text: n.text };
    const saved = left.type === 'identifier' ? frame.locals.get(left.text) : undefined;
    const result = items.map((item) => {
      if (left.type === 'identifier') frame.locals.set(left.text, item);
      return this.value(body, frame, out);
    });
    if (left.type === 'identifier') {
      if (saved) frame.locals.set(left.text, saved);
      else frame.locals.delete(left.text);
    }
    return { kind: 'list', items: result };
  }

  /** `range(...)` with arguments known at trace time, as a Python list. */
  private rangeValues(call: PyNode, frame: Frame, out: Stmt[]): Value | undefined {
    const vals = namedChildren(call.childForFieldName('arguments')).map((a) => this.value(a, frame, out));
    if (!vals.every((v) => v.kind === 'int')) return undefined;
    const nums = vals.map((v) => (v as { value: number }).value);
    const [start, end, step] = nums.length === 1 ? [0, nums[0]!, 1] : [nums[0]!, nums[1]!, nums[2] ?? 1];
    if (step === 0) return undefined;
    const items: Value[] = [];
    for (let i = start; step > 0 ? i < end : i > end; i += step) {
      items.push({ kind: 'int', value: i, text: String(i) });
      if (items.length > 4096) return undefined;
    }
    return { kind: 'list', items };
  }

  private binaryValue(n: PyNode, frame: Frame, out: Stmt[]): Value {
    const range = rangeOf(n);
    const kids = namedChildren(n);
    if (n.type === 'comparison_operator' && kids.length !== 2) return { kind: 'unknown', text: n.text };
    const l = this.value(kids[0]!, frame, out);
    const r = this.value(kids[1]!, frame, out);
    const opNode = n.childForFieldName('operator') ?? n.children.find((c) => c && !c.isNamed);
    let op = opNode?.type ?? '?';
    if (op === 'and') op = '&&';
    else if (op === 'or') op = '||';
    else if (op === '//') op = '/';
    if (l.kind === 'int' && r.kind === 'int') return foldBinary(op === '/' && opNode?.type === '/' ? 'true/' : op, l, r, n.text);
    if (l.kind === 'shared' || r.kind === 'shared') return { kind: 'unknown', text: n.text };
    const le = asExpr(l, rangeOf(kids[0]!));
    const re = asExpr(r, rangeOf(kids[1]!));
    return { kind: 'rt', expr: { kind: 'binary', op, left: le, right: re, text: n.text, range } };
  }

  private attribute(n: PyNode, frame: Frame, out: Stmt[]): Value {
    const objNode = n.childForFieldName('object')!;
    const field = n.childForFieldName('attribute')!.text;
    const text = n.text.replace(/\s+/g, '');
    const range = rangeOf(n);
    if (text === 'self.mbarrier.producer_initial_phase') return { kind: 'int', value: 1, text: n.text };
    if (text === 'self.mbarrier.consumer_initial_phase') return { kind: 'int', value: 0, text: n.text };
    if (/^self\.(blockIdx|threadIdx|clusterIdx|blockDim|gridDim)\.[xyz]$/.test(text)) {
      const [, obj, f] = /^self\.(\w+)\.(\w)$/.exec(text)!;
      return { kind: 'rt', expr: { kind: 'member', object: { kind: 'var', name: obj!, text: obj!, range }, field: f!, text: n.text, range } };
    }
    if (text === 'self.attrs.warps' && this.blockSize !== undefined) return { kind: 'int', value: this.blockSize / 32, text: n.text };
    if (text === 'self.current_num_threads' && frame.group.size !== undefined) return { kind: 'int', value: frame.group.size, text: n.text };
    if (text === 'self.current_thread_begin' && frame.group.begin !== undefined) return { kind: 'int', value: frame.group.begin, text: n.text };
    if (/^tilus\.\w+$/.test(text) && DTYPE_BITS[field] !== undefined) return { kind: 'dtype', bits: DTYPE_BITS[field]! };
    const obj = this.value(objNode, frame, out);
    if (obj.kind === 'object') return obj.fields.get(field) ?? { kind: 'unknown', text: n.text };
    if (obj.kind === 'script') return this.scriptFields.get(field) ?? (this.combination.values.has(field) ? { kind: 'int', value: this.combination.values.get(field)!, text: n.text } : { kind: 'unknown', text: n.text });
    if (obj.kind === 'shared' && field === 'nbytes') {
      const elems = obj.shape.reduce<number | undefined>((a, b) => (a === undefined || b === undefined ? undefined : a * b), 1);
      return elems !== undefined && obj.elemBits !== undefined ? { kind: 'int', value: (elems * obj.elemBits) / 8, text: n.text } : { kind: 'unknown', text: n.text };
    }
    if (obj.kind === 'shared' && field === 'shape') return { kind: 'list', items: obj.shape.map((d) => (d === undefined ? { kind: 'unknown', text: '?' } : { kind: 'int', value: d, text: String(d) })) };
    if (obj.kind === 'rt') return { kind: 'rt', expr: { kind: 'member', object: obj.expr, field, text: n.text, range } };
    return { kind: 'unknown', text: n.text };
  }

  private subscript(n: PyNode, frame: Frame, out: Stmt[]): Value {
    const range = rangeOf(n);
    const obj = this.value(n.childForFieldName('value')!, frame, out);
    const indexNodes = namedChildren(n).slice(1);
    const idx = indexNodes.length === 1 ? this.value(indexNodes[0]!, frame, out) : { kind: 'unknown' as const, text: '?' };
    if (obj.kind === 'barriers') {
      const index = asExpr(idx, indexNodes[0] ? rangeOf(indexNodes[0]) : range);
      return { kind: 'barrier', ref: { base: obj.base, index, text: n.text } };
    }
    if (obj.kind === 'list') {
      if (idx.kind === 'int') return obj.items.at(idx.value) ?? { kind: 'unknown', text: n.text };
      return { kind: 'unknown', text: n.text };
    }
    if (obj.kind === 'shared') {
      const slot = obj.name && indexNodes[0] ? { array: obj.name, index: asExpr(idx.kind === 'list' ? (idx.items[0] ?? idx) : idx, rangeOf(indexNodes[0])) } : undefined;
      return { kind: 'shared', shape: obj.shape.slice(indexNodes.length), elemBits: obj.elemBits, ...(slot ? { slot } : {}) };
    }
    if (obj.kind === 'tensor') return this.tensorLoad(obj, idx, range, n.text);
    return { kind: 'unknown', text: n.text };
  }

  private call(n: PyNode, frame: Frame, out: Stmt[], nameHint?: string): Value {
    const fnNode = n.childForFieldName('function')!;
    const callee = fnNode.text.replace(/\s+/g, '');
    const range = rangeOf(n);
    const args = this.args(n, frame, out);
    const int = (v: Value | undefined): number | undefined => (v?.kind === 'int' ? v.value : undefined);
    const instruction = /^self\.(mbarrier|tma|tcgen05|wgmma|fence|cluster|clc)\.(\w+)$/.exec(callee);
    if (instruction) return lowerInstruction(this, instruction[1]!, instruction[2]!, n, args, frame.group, out);
    switch (callee) {
      case 'self.sync': {
        const whole = frame.group.begin === 0 && frame.group.size === this.blockSize;
        out.push(whole || frame.group.size === undefined ? { kind: 'sync', scope: 'block', api: 'self.sync', range } : { kind: 'sync', scope: 'named', api: 'self.sync', range, named: { threads: numExpr(frame.group.size, range), arrive: false } });
        return { kind: 'unknown', text: 'None' };
      }
      case 'self.shared_tensor': {
        const dtype = args.get('dtype', 0);
        const shape = args.get('shape', 1);
        const dims = shape?.kind === 'list' ? shape.items.map((d) => int(d)) : [];
        return { kind: 'shared', shape: dims, elemBits: dtype?.kind === 'dtype' ? dtype.bits : undefined };
      }
      case 'self.register_tensor': {
        const dtype = args.get('dtype', 0);
        const shape = args.get('shape', 1);
        const initValue = args.get('init', 2);
        const dims = shape?.kind === 'list' ? shape.items.map((d) => int(d)) : [];
        // A one-dimensional tensor of 32-bit integers with a known length: per-stage phases or stages.
        if (dtype?.kind === 'dtype' && dtype.bits === 32 && dims.length === 1 && dims[0] !== undefined && dims[0] <= 64 && nameHint && /^\w+$/.test(nameHint)) {
          const name = this.uniqueDecl(nameHint);
          const init = initValue ? asExpr(initValue, range) : undefined;
          for (let i = 0; i < dims[0]; i++) out.push({ kind: 'assign', target: elementName(name, i), op: '=', value: init, declared: true, range });
          return { kind: 'tensor', name, length: dims[0] };
        }
        return { kind: 'unknown', text: n.text };
      }
      case 'cdiv':
      case 'tilus.utils.cdiv': {
        const a = args.get('a', 0);
        const b = args.get('b', 1);
        if (a?.kind === 'int' && b?.kind === 'int' && b.value) return { kind: 'int', value: Math.ceil(a.value / b.value), text: n.text };
        if (!a || !b) return { kind: 'unknown', text: n.text };
        return { kind: 'rt', expr: { kind: 'call', callee: 'cdiv', args: [asExpr(a, range), asExpr(b, range)], text: n.text, range } };
      }
      case 'min':
      case 'max': {
        const vals = namedChildren(n.childForFieldName('arguments')).map((a) => this.value(a, frame, out));
        if (vals.length === 2 && vals.every((v) => v.kind === 'int')) {
          const [a, b] = vals.map((v) => (v as { value: number }).value);
          return { kind: 'int', value: callee === 'min' ? Math.min(a!, b!) : Math.max(a!, b!), text: n.text };
        }
        if (vals.length !== 2) return { kind: 'unknown', text: n.text };
        const [a, b] = vals.map((v) => asExpr(v, range));
        const test: Expr = { kind: 'binary', op: '<', left: a!, right: b!, text: `${a!.text} < ${b!.text}`, range };
        return { kind: 'rt', expr: { kind: 'cond', test, then: callee === 'min' ? a! : b!, else: callee === 'min' ? b! : a!, text: n.text, range } };
      }
      case 'int':
      case 'bool': {
        const a = args.get('x', 0);
        return a ?? { kind: 'unknown', text: n.text };
      }
      case 'len': {
        const a = args.get('x', 0);
        return a?.kind === 'list' ? { kind: 'int', value: a.items.length, text: n.text } : a?.kind === 'barriers' ? { kind: 'int', value: a.length, text: n.text } : { kind: 'unknown', text: n.text };
      }
      case 'range':
        return this.rangeValues(n, frame, out) ?? { kind: 'unknown', text: n.text };
      default:
        break;
    }
    if (fnNode.type === 'attribute') {
      const objNode = fnNode.childForFieldName('object')!;
      const method = fnNode.childForFieldName('attribute')!.text;
      const obj = this.value(objNode, frame, out);
      if (obj.kind === 'barriers' && method === 'tolist') {
        return { kind: 'list', items: Array.from({ length: obj.length }, (_, i): Value => ({ kind: 'barrier', ref: { base: obj.base, index: numExpr(i, range), text: `${objNode.text}[${i}]` } })) };
      }
      if (obj.kind === 'shared' && (method === 'transpose' || method === 'permute')) return { ...obj, shape: [...obj.shape].reverse() };
      if (obj.kind === 'script' || obj.kind === 'object') {
        const cls = obj.kind === 'script' ? this.script : obj.cls;
        const fn = cls.methods.get(method);
        if (fn) return this.inline(fn, obj, cls, n, frame, out);
        if (obj.kind === 'script' && BUILTIN_SCRIPT_METHODS.has(method)) return { kind: 'unknown', text: n.text };
      }
    } else if (fnNode.type === 'identifier') {
      const cls = this.classes.get(fnNode.text);
      if (cls?.kind === 'class') return this.construct(cls, n, frame, out, nameHint);
    }
    // A call the lowering does not enter (a module-level function, a method of another object) that is handed
    // a barrier may arrive or wait on it: say so rather than analyse as if it did nothing.
    if (this.passesBarrier(n, frame)) this.notUnderstood.push({ what: `${callee}(…) is given a barrier but is not a method of the Script or of a tilus.Class: what it does to the barrier is not analysed`, range });
    return { kind: 'unknown', text: n.text };
  }

  private passesBarrier(call: PyNode, frame: Frame): boolean {
    return namedChildren(call.childForFieldName('arguments')).some((a) => {
      const node = a.type === 'keyword_argument' ? a.childForFieldName('value') : a;
      // Only names, fields and subscripts: evaluating them again has no effect (a call could allocate again).
      if (!node || !['identifier', 'attribute', 'subscript'].includes(node.type) || node.text.includes('(')) return false;
      const v = this.value(node, frame, []);
      return v.kind === 'barrier' || v.kind === 'barriers';
    });
  }

  /** `Pipeline(...)`: a tilus.Class instance; its `__init__` runs here (its barriers are allocated, its fields set). */
  private construct(cls: TilusClass, call: PyNode, frame: Frame, out: Stmt[], nameHint?: string): Value {
    const prefix = nameHint && /^[\w.]+$/.test(nameHint) ? nameHint.replace(/^self\./, '') : `${cls.name}#${++this.objectCount}`;
    const obj: Value = { kind: 'object', cls, prefix, fields: new Map() };
    const init = cls.methods.get('__init__');
    if (init) this.inline(init, obj, cls, call, frame, out);
    return obj;
  }

  /** Inlines a method call: binds its parameters to the arguments' values and lowers its body in place. */
  private inline(fn: PyNode, self: Value, cls: TilusClass, call: PyNode, caller: Frame, out: Stmt[]): Value {
    if (caller.depth >= MAX_INLINE_DEPTH) {
      this.notUnderstood.push({ what: `${call.text.slice(0, 60)}: helpers nested deeper than ${MAX_INLINE_DEPTH}`, range: rangeOf(call) });
      return { kind: 'unknown', text: call.text };
    }
    const frame = this.frame(fn, self, cls, caller.group, caller.depth + 1);
    const params = namedChildren(fn.childForFieldName('parameters'));
    const args = namedChildren(call.childForFieldName('arguments'));
    const positional = args.filter((a) => a.type !== 'keyword_argument');
    const keyword = new Map(args.filter((a) => a.type === 'keyword_argument').map((a) => [a.childForFieldName('name')?.text ?? '', a.childForFieldName('value')!] as const));
    let position = 0;
    for (const p of params) {
      const nameNode = p.type === 'identifier' ? p : (p.childForFieldName('name') ?? namedChildren(p).find((c) => c.type === 'identifier'));
      const name = nameNode?.text;
      if (!name || name === 'self') continue;
      const argNode = keyword.get(name) ?? positional[position++];
      const def = p.childForFieldName('value');
      const v = argNode ? this.value(argNode, caller, out) : def ? this.value(def, frame, out) : { kind: 'unknown' as const, text: name };
      frame.locals.set(name, v);
    }
    // Operations inside the helper are reported at the outermost call in the kernel, with the helper's lines as `via`.
    const outer = this.callRange === undefined;
    if (outer) this.callRange = rangeOf(call);
    this.via.push(rangeOf(call));
    try {
      out.push(...this.block(fn.childForFieldName('body'), frame));
    } finally {
      this.via.pop();
      if (outer) this.callRange = undefined;
    }
    return frame.returned ?? { kind: 'unknown', text: 'None' };
  }

}

/** Methods of tilus.Script that are no barrier operations (the analysis ignores them). */
const BUILTIN_SCRIPT_METHODS = new Set(['global_view', 'printf', 'cast', 'store_global', 'load_global', 'store_shared', 'load_shared', 'free_shared', 'fast_divmod', 'assume', 'static_assert', 'dot', 'copy_async', 'copy_async_wait_all', 'copy_async_commit_group', 'copy_async_wait_group']);

/**
 * The IR variable of element `i` of a register tensor of scalars (`phases[i]`): a plain name, since the
 * replay reads a bracketed name as an array element it does not track.
 */
function elementName(tensor: string, i: number): string {
  return `${tensor}@${i}`;
}

/** The name an allocation has until it is bound to a variable. */
function isPlaceholder(base: string): boolean {
  return base.startsWith('mbarrier@');
}

