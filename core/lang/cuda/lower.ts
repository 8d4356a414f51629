// CUDA front end, second half: lowers a tree-sitter-cuda syntax tree to the kernel IR.
//
// Every `__global__` function becomes a Kernel. Calls to functions defined in the same file are
// inlined with their arguments substituted for their parameters (through any depth of helpers and
// templates), so a three-line `__device__` wrapper around one `asm` statement counts as the operation
// it performs. Calls to known library APIs (cuda::barrier, cuda::ptx, primitives, CUTLASS/CuTe,
// ThunderKittens, DeepGEMM wrappers) map to operations through `api.ts`; inline PTX goes through
// `ptx.ts`. Anything else is kept as opaque expressions, never guessed.
//
// The file scan (scan.ts), constant folding (constants.ts), barrier operand resolution
// (barrier-ref.ts) and syntax-node helpers (syntax-nodes.ts) live beside it; this file holds the
// statement and expression walk that turns bodies into IR.
import type { Range } from '../../api';
import { evaluate } from '../../ir/expr';
import { visitStmts } from '../../ir/visit';
import type { AsmInstruction, BarrierDecl, BarrierOp, BarrierRef, Expr, Kernel, KernelModule, Stmt } from '../../ir/types';
import { apiOpForCall, isBarrierType, namedBarrierCall, syncForCall } from './api';
import { resolveBarrier, rootName } from './barrier-ref';
import { byteAddress } from './byte-address';
import { setCopyAddresses } from './copy-operands';
import { placeOnLines } from '../../ir/source-lines';
import { foldConstant, parseIntLiteral, recordConstants, sizeOfType } from './constants';
import type { SyntaxNode } from './parser';
import { kernelLaunchSetting, kernelLaunchShape, kernelTemplateArguments } from './launch-shapes';
import { asmStringText, parsePtxAsm } from './ptx';
import { asmInstructionsOf, MAX_ASM_INSTRUCTIONS } from './asm-instructions';
import { type CudaScan, declsOf, type FnDef, type FunctionLookup, type LowerContext, scanCuda } from './scan';
import type { CudaUnit } from './unit';
import { BARRIER_CALLEE, argumentExpr, classArguments, resolveHelper, resolveMethod } from './call-targets';
import { atCallSite, containsStructure, dropTrailingReturns, hasOp, stripSwitchBreaks } from './stmt-lists';
import { conditionalType, localTypeAlias } from './type-aliases';
import { type ExprResult, type Frame, type KernelState, Scope } from './lower-frame';
import { calleeName, declaratorName, field, named, operatorOf, rangeOf, templateArgumentsOf, unqualified } from './syntax-nodes';

// Names other modules import from here.
export { resolveBarrier } from './barrier-ref';
export { parseIntLiteral, sizeOfType } from './constants';
export { type CudaScan, type FnDef, scanCuda } from './scan';
export { rangeOf } from './syntax-nodes';

export const MAX_INLINE_DEPTH = 12;

/** Casts and address conversions: the value they return names what they were given (a barrier stays that barrier). */
const IDENTITY_CONVERSIONS = /^(static_cast|reinterpret_cast|const_cast|__cvta_generic_to_shared|cute::cast_smem_ptr_to_uint|cast_smem_ptr_to_uint|smem_ptr_to_uint|static_cast<.*>|reinterpret_cast<.*>|cuda::device::barrier_native_handle|barrier_native_handle|std::move|cuda::std::move|move|__cvta_shared_to_generic|raw_pointer_cast|cute::raw_pointer_cast)$/;

const PROBE_KINDS = new Set(['wait-token', 'wait-parity']);

export function lowerRoot(scan: CudaScan, fn: FnDef, context?: LowerContext): Kernel {
  const functions = context?.functions ?? scan.fns;
  // Launches name a kernel without its scope: they count only when one kernel has that name.
  const unique = fn.isKernel && functions.get(fn.name)?.filter((d) => d.isKernel).length === 1;
  const bound = unique ? kernelTemplateArguments(scan.launchBlockSizes, fn, scan.constants) : undefined;
  // The user's launch setting for the kernel (`phaseflip.launch`, `--launch`); a template-id key may bind its arguments.
  const stated = fn.isKernel ? kernelLaunchSetting(context?.launchSettings, fn, fn.file ?? context?.documentPath, bound, scan.constants) : undefined;
  const templateArgs = stated ? stated.templateArgs : bound;
  const kernel = lowerKernel(fn, functions, scan.fileDecls, scan.constants, context, templateArgs);
  const sizes = unique ? scan.launchBlockSizes.get(fn.name) : undefined;
  if (sizes?.length) kernel.launchBlockSizes = sizes;
  // A kernel defined in a header reads its shape comment and attributes from the header's text.
  const fnText = fn.file ? (context?.fileText(fn.file) ?? '') : scan.text;
  const shape = fn.isKernel ? kernelLaunchShape(scan.launchBlockSizes, fnText, fn, kernel.constants ?? scan.constants, kernel.launchBounds, !!unique, templateArgs, stated?.setting) : undefined;
  if (shape) kernel.launchShape = shape;
  return placeOnLines(kernel, scan.text, context?.fileText);
}

export function lowerCuda(tops: SyntaxNode[], text: string, unit?: CudaUnit): KernelModule {
  const scan = unit ? unit.scan(tops, text) : scanCuda(tops, text);
  const context = unit?.lowerContext(scan);
  const kernels = rootsOf(scan, context).map((fn) => lowerRoot(scan, fn, context));
  const constants = new Map(scan.constants);
  for (const k of kernels) for (const [n, v] of k.constants ?? []) if (!constants.has(n)) constants.set(n, v);
  return { language: 'cuda', kernels, constants };
}

/**
 * The functions analysed as kernels: the file's roots, plus kernels defined in a header of the unit
 * that the file launches (a kernel in `kernel.cuh` launched from `main.cu` is analysed with that launch).
 */
export function rootsOf(scan: CudaScan, context?: LowerContext): FnDef[] {
  if (!context) return scan.roots;
  const extra: FnDef[] = [];
  for (const name of scan.launchBlockSizes.keys()) {
    if (scan.fns.has(name)) continue;
    const defs = context.functions.get(name)?.filter((d) => d.isKernel) ?? [];
    if (defs.length === 1) extra.push(defs[0]);
  }
  return extra.length ? [...scan.roots, ...extra] : scan.roots;
}

function lowerKernel(fn: FnDef, fns: FunctionLookup, fileDecls: Map<string, BarrierDecl>, fileConstants: Map<string, number>, context: LowerContext | undefined, templateArgs?: ReadonlyMap<string, number>): Kernel {
  // Constants declared inside the kernel stay with it (they must not leak into other kernels' keys).
  // The kernel's template parameters bound by its launch or instantiation are constants inside it.
  const constants = new Map([...fileConstants, ...(templateArgs ?? [])]);
  const state: KernelState = { decls: new Map(fileDecls), names: new Set(), stack: [fn.name], used: new Set(), notUnderstood: new Map(), asmInstructions: [] };
  const scope = new Scope();
  for (const p of fn.params) {
    if (!p.name) continue;
    scope.set(p.name, { kind: 'local', irName: p.name });
    state.names.add(p.name);
    state.decls.set(p.name, { name: p.name, type: p.type, space: 'param', range: rangeOf(fn.node), nameRange: rangeOf(fn.nameNode) });
  }
  const frame: Frame = { fn, scope, resultVars: new Map(), returned: [], aliases: new Map(), depth: 0 };
  const lowerer = new Lowerer(fns, state, constants, context);
  const body = lowerer.block(fn.body, frame);
  const lb = named(fn.node).find((c) => c.type === 'launch_bounds');
  const lbValue = lb ? foldConstant(named(lb)[0] ?? lb, constants) : undefined;
  const kernel: Kernel = { name: fn.name, range: rangeOf(fn.node), nameRange: rangeOf(fn.nameNode), params: fn.params.map((p) => p.name), launchBounds: lbValue, body, decls: state.decls, helpers: [...state.used], constants };
  if (state.notUnderstood.size) kernel.notUnderstood = [...state.notUnderstood.values()];
  if (state.asmInstructions.length) kernel.asmInstructions = state.asmInstructions;
  return kernel;
}

class Lowerer {
  /** Every frame's pointer aliases by IR name (unique per kernel): addresses passed into helpers are read through them. */
  private readonly addressAliases = new Map<string, Expr>();

  constructor(
    private readonly fns: FunctionLookup,
    private readonly state: KernelState,
    private readonly constants: Map<string, number>,
    private readonly context: LowerContext | undefined,
  ) {}

  block(n: SyntaxNode, frame: Frame): Stmt[] {
    const inner: Frame = { ...frame, scope: new Scope(frame.scope) };
    const out: Stmt[] = [];
    for (const c of named(n)) out.push(...this.stmt(c, inner));
    return out;
  }

  private stmtBody(n: SyntaxNode | null, frame: Frame): Stmt[] {
    if (!n) return [];
    if (n.type === 'compound_statement') return this.block(n, frame);
    return this.stmt(n, { ...frame, scope: new Scope(frame.scope) });
  }

  stmt(n: SyntaxNode, frame: Frame): Stmt[] {
    switch (n.type) {
      case 'compound_statement':
        return this.block(n, frame);
      case 'declaration':
        return this.declaration(n, frame);
      case 'alias_declaration':
      case 'type_definition': {
        const alias = localTypeAlias(n);
        if (alias) frame.scope.set(alias.name, { kind: 'type', node: alias.type });
        return [];
      }
      case 'expression_statement': {
        const e = named(n)[0];
        if (!e) return [];
        return this.exprStatement(e, frame);
      }
      case 'if_statement':
        return this.ifStatement(n, frame);
      case 'for_statement':
        return this.forStatement(n, frame);
      case 'while_statement':
      case 'do_statement':
        return this.whileStatement(n, frame);
      case 'for_range_loop': {
        const body = this.stmtBody(field(n, 'body'), frame);
        return [{ kind: 'loop', body, range: rangeOf(n), bodyRange: rangeOf(field(n, 'body') ?? n) }];
      }
      case 'return_statement': {
        const value = named(n)[0];
        const out: Stmt[] = [];
        if (value) {
          const r = this.expr(value, frame);
          out.push(...r.stmts);
          frame.returned.push(...r.valueOps, ...this.resultOpsOf(value, frame));
        }
        out.push({ kind: 'return', range: rangeOf(n) });
        return out;
      }
      case 'break_statement':
        return [{ kind: 'break', range: rangeOf(n) }];
      case 'continue_statement':
        return [{ kind: 'continue', range: rangeOf(n) }];
      case 'switch_statement': {
        const cond = this.toExpr(field(n, 'condition') ?? n, frame);
        // Cases are modelled as one branch the analysis cannot decide; `break` ends the switch, not a loop.
        const body = stripSwitchBreaks(this.stmtBody(field(n, 'body'), frame));
        return [{ kind: 'if', cond, then: body, else: [], range: rangeOf(n) }];
      }
      case 'case_statement':
        return named(n).filter((c) => c !== field(n, 'value')).flatMap((c) => this.stmt(c, frame));
      case 'labeled_statement':
        return named(n).slice(1).flatMap((c) => this.stmt(c, frame));
      case 'preproc_if':
      case 'preproc_ifdef':
      case 'preproc_else':
      case 'preproc_elif':
        return named(n).flatMap((c) => (c.type.endsWith('statement') || c.type.startsWith('preproc_') || c.type === 'declaration' ? this.stmt(c, frame) : []));
      default:
        if (n.type.endsWith('_statement')) return named(n).flatMap((c) => this.stmt(c, frame));
        return [];
    }
  }

  private declaration(n: SyntaxNode, frame: Frame): Stmt[] {
    recordConstants(n, this.constants);
    const shared = /__shared__/.test(n.text);
    const out: Stmt[] = [];
    const type = field(n, 'type')?.text ?? '';
    for (const d of declsOf(n, shared ? 'shared' : 'local')) {
      const irName = this.fresh(d.name, frame);
      frame.scope.set(d.name, { kind: 'local', irName });
      // `full[STAGES]` in a template helper: the length is the template argument bound at the call.
      const length = d.length ?? (d.lengthExpr ? this.boundLength(d.lengthExpr.text, frame) : undefined);
      this.state.decls.set(irName, { ...d, name: irName, ...(length !== undefined ? { length } : {}) });
    }
    for (const d of named(n)) {
      if (d.type !== 'init_declarator') continue;
      const nameNode = declaratorName(field(d, 'declarator'));
      const value = field(d, 'value');
      if (!nameNode || !value) continue;
      const b = frame.scope.get(nameNode.text);
      const irName = b?.kind === 'local' ? b.irName : nameNode.text;
      const isRefOrPtr = /[*&]/.test(field(d, 'declarator')?.text.split(nameNode.text)[0] ?? '') || /\bauto\b/.test(type) || /\*\s*$/.test(type);
      const valueNode = value.type === 'initializer_list' || value.type === 'argument_list' ? named(value)[0] : value;
      if (!valueNode) continue;
      if (valueNode.type === 'lambda_expression') {
        // A local lambda is a helper defined in place; calls to it are inlined like any helper.
        frame.scope.set(nameNode.text, { kind: 'lambda', node: valueNode });
        continue;
      }
      // `auto p = reinterpret_cast<Barrier*>(smem + off)`: remember the type the cast gives it.
      // The type is trimmed after matching: `\s*([^>]+?)\s*>` backtracks quadratically on a long run of blanks.
      const cast = /^\s*(?:reinterpret_cast|static_cast)\s*<([^>]*)>/.exec(valueNode.text);
      const castType = cast?.[1].trim();
      if (castType && /\bauto\b/.test(type)) {
        const decl = this.state.decls.get(irName);
        if (decl) decl.type = castType;
      }
      out.push(...this.assignment(irName, '=', valueNode, frame, rangeOf(d), true));
      if (isRefOrPtr || isBarrierType(type) || /uint(32|64)_t|unsigned|size_t|int64_t/.test(type)) {
        frame.aliases.set(irName, this.toExpr(valueNode, frame));
        this.addressAliases.set(irName, frame.aliases.get(irName)!);
      }
    }
    return out;
  }

  private fresh(name: string, frame: Frame): string {
    if (frame.depth === 0 && !this.state.names.has(name)) {
      this.state.names.add(name);
      return name;
    }
    let i = 1;
    while (this.state.names.has(`${name}#${i}`)) i++;
    const ir = `${name}#${i}`;
    this.state.names.add(ir);
    return ir;
  }

  private assignment(target: string, op: string, valueNode: SyntaxNode | null, frame: Frame, range: Range, declared: boolean): Stmt[] {
    const out: Stmt[] = [];
    let value: Expr | undefined;
    if (valueNode) {
      const r = this.expr(valueNode, frame);
      out.push(...r.stmts);
      value = this.toExpr(valueNode, frame);
      const resultOps = [...r.valueOps, ...this.resultOpsOf(valueNode, frame)];
      for (const o of resultOps) {
        if (PROBE_KINDS.has(o.kind)) {
          if (o.result !== 'blocking') o.result = 'value';
        } else if (!o.tokenOut) o.tokenOut = target;
      }
      if (resultOps.length) frame.resultVars.set(target, resultOps);
      else frame.resultVars.delete(target);
    }
    out.push({ kind: 'assign', target, op, value, declared, range });
    return out;
  }

  /** Result ops carried by a variable read (`ok` after `asm("try_wait..." : "=r"(ok))`). */
  private resultOpsOf(n: SyntaxNode, frame: Frame): BarrierOp[] {
    const ops: BarrierOp[] = [];
    const visit = (x: SyntaxNode): void => {
      if (x.type === 'identifier') {
        const b = frame.scope.get(x.text);
        const ir = b?.kind === 'local' ? b.irName : x.text;
        ops.push(...(frame.resultVars.get(ir) ?? []));
      }
      if (x.type === 'call_expression' || x.type === 'lambda_expression') return;
      for (const c of named(x)) visit(c);
    };
    visit(n);
    return ops;
  }

  private exprStatement(e: SyntaxNode, frame: Frame): Stmt[] {
    // `(void)call(...)` and a bare call statement both discard the call's result.
    let core = e;
    while (core.type === 'cast_expression' && /^\(\s*void\s*\)/.test(core.text)) core = field(core, 'value') ?? core;
    while (core.type === 'parenthesized_expression' && named(core)[0]) core = named(core)[0];
    const r = this.expr(core, frame);
    if (core.type === 'call_expression') {
      for (const o of r.valueOps) if (PROBE_KINDS.has(o.kind) && !o.result) o.result = 'discarded';
    }
    return r.stmts;
  }

  private ifStatement(n: SyntaxNode, frame: Frame): Stmt[] {
    const condNode = field(n, 'condition');
    const valueNode = condNode?.type === 'condition_clause' ? field(condNode, 'value') ?? named(condNode)[0] : condNode;
    const pre: Stmt[] = [];
    let cond: Expr = { kind: 'opaque', text: condNode?.text ?? '', range: rangeOf(n) };
    if (valueNode) {
      const r = this.expr(valueNode, frame);
      pre.push(...r.stmts);
      for (const o of [...r.valueOps, ...this.resultOpsOf(valueNode, frame)]) if (PROBE_KINDS.has(o.kind) && o.result !== 'blocking') o.result = 'value';
      cond = this.toExpr(valueNode, frame);
    }
    const alt = field(n, 'alternative');
    const elseNode = alt?.type === 'else_clause' ? named(alt)[0] : alt;
    // `if constexpr` with a known condition: the branch not taken is not even instantiated.
    const known = n.children.some((c) => c?.type === 'constexpr') ? evaluate(cond, (name) => this.constants.get(name)) : undefined;
    if (known !== undefined) return [...pre, ...this.stmtBody(known ? field(n, 'consequence') : (elseNode ?? null), frame)];
    const thenStmts = this.stmtBody(field(n, 'consequence'), frame);
    const elseStmts = this.stmtBody(elseNode ?? null, frame);
    return [...pre, { kind: 'if', cond, then: thenStmts, else: elseStmts, range: rangeOf(n), ...(alt ? { elseRange: rangeOf(alt) } : {}) }];
  }

  private forStatement(n: SyntaxNode, frame: Frame): Stmt[] {
    const inner: Frame = { ...frame, scope: new Scope(frame.scope) };
    const initNode = field(n, 'initializer');
    const pre: Stmt[] = [];
    let loopVar: string | undefined;
    let init: Expr | undefined;
    if (initNode) {
      if (initNode.type === 'declaration') pre.push(...this.declaration(initNode, inner));
      else pre.push(...this.exprStatement(initNode, inner));
      const last = pre[pre.length - 1];
      if (last?.kind === 'assign') {
        loopVar = last.target;
        init = last.value;
      }
    }
    const condNode = field(n, 'condition');
    const condR = condNode ? this.expr(condNode, inner) : { stmts: [], valueOps: [] };
    const cond = condNode ? this.toExpr(condNode, inner) : undefined;
    const updateNode = field(n, 'update');
    const step = updateNode ? this.exprStatement(updateNode, inner) : [];
    const bodyNode = field(n, 'body');
    const body = this.stmtBody(bodyNode, inner);
    const probes = [...condR.valueOps, ...(condNode ? this.resultOpsOf(condNode, inner) : [])].filter((o) => PROBE_KINDS.has(o.kind));
    const waitLoop = this.asWaitLoop(probes, [...condR.stmts, ...body], body);
    if (waitLoop) return [...pre, ...waitLoop];
    return [
      ...pre,
      { kind: 'loop', var: loopVar, init, cond, step, body: [...condR.stmts, ...body], range: rangeOf(n), bodyRange: rangeOf(bodyNode ?? n) },
    ];
  }

  private whileStatement(n: SyntaxNode, frame: Frame): Stmt[] {
    const inner: Frame = { ...frame, scope: new Scope(frame.scope) };
    const condNode = field(n, 'condition');
    const valueNode = condNode?.type === 'condition_clause' ? field(condNode, 'value') ?? named(condNode)[0] : condNode;
    const bodyNode = field(n, 'body');
    const isDo = n.type === 'do_statement';
    // For do-while the body runs first, so its result variables are visible to the condition.
    const bodyFirst = isDo ? this.stmtBody(bodyNode, inner) : undefined;
    const condR = valueNode ? this.expr(valueNode, inner) : { stmts: [], valueOps: [] };
    const body = bodyFirst ?? this.stmtBody(bodyNode, inner);
    const probes = [...condR.valueOps, ...(valueNode ? this.resultOpsOf(valueNode, inner) : [])].filter((o) => PROBE_KINDS.has(o.kind));
    const all = isDo ? [...body, ...condR.stmts] : [...condR.stmts, ...body];
    const waitLoop = this.asWaitLoop(probes, all, body);
    if (waitLoop) return waitLoop;
    const cond = valueNode ? this.toExpr(valueNode, inner) : undefined;
    return [{ kind: 'loop', cond, body: all, range: rangeOf(n), bodyRange: rangeOf(bodyNode ?? n) }];
  }

  /**
   * A loop that retries a probe until it succeeds and does nothing else barrier-related is a
   * blocking wait: `while (!try_wait(...)) {}`, `do { asm(try_wait : "=r"(ok)) } while (!ok)`,
   * `for (;;) { if (try_wait(...)) break; }`.
   */
  private asWaitLoop(condProbes: BarrierOp[], all: Stmt[], body: Stmt[]): Stmt[] | undefined {
    let probes = condProbes;
    if (!probes.length) {
      // `while (true) { if (probe) break; }` / `for (;;) { ... if (done) break; }`
      const breaks = body.filter((s): s is Extract<Stmt, { kind: 'if' }> => s.kind === 'if' && s.then.length === 1 && s.then[0].kind === 'break');
      if (!breaks.length) return undefined;
      const ops = all.filter((s): s is Extract<Stmt, { kind: 'op' }> => s.kind === 'op').map((s) => s.op);
      probes = ops.filter((o) => PROBE_KINDS.has(o.kind) && o.result === 'value');
      if (!probes.length) return undefined;
    }
    const barrierStmts = all.filter((s) => s.kind === 'op' || s.kind === 'loop' || s.kind === 'sync');
    const onlyProbes = barrierStmts.every((s) => s.kind === 'op' && PROBE_KINDS.has(s.op.kind));
    if (!onlyProbes) return undefined;
    for (const p of probes) p.result = 'blocking';
    return all.filter((s) => s.kind === 'op');
  }

  /** Lowers the operations an expression performs (calls, assignments, asm), in evaluation order. */
  expr(n: SyntaxNode, frame: Frame): ExprResult {
    switch (n.type) {
      case 'call_expression':
        return this.call(n, frame);
      case 'gnu_asm_expression':
        return this.asm(n, frame);
      case 'assignment_expression': {
        const left = field(n, 'left');
        const right = field(n, 'right');
        const op = operatorOf(n) || '=';
        const target = left ? this.lvalueName(left, frame) : undefined;
        if (left && target !== undefined) {
          const stmts = this.assignment(target, op, right, frame, rangeOf(n), false);
          if (left.type === 'subscript_expression') stmts.push(...this.accesses(left, frame, true));
          return { stmts, valueOps: [] };
        }
        const r = right ? this.expr(right, frame) : { stmts: [], valueOps: [] };
        return { stmts: [...r.stmts, ...this.pointerStore(left, frame, rangeOf(n))], valueOps: [] };
      }
      case 'update_expression': {
        const arg = field(n, 'argument');
        const target = arg ? this.lvalueName(arg, frame) : undefined;
        const op = n.text.includes('++') ? '++' : '--';
        if (target) return { stmts: [{ kind: 'assign', target, op, declared: false, range: rangeOf(n) }], valueOps: [] };
        return { stmts: [], valueOps: [] };
      }
      case 'lambda_expression':
        return { stmts: [], valueOps: [] };
      case 'new_expression': {
        // Placement new of a cuda::barrier: `new (bar) barrier_t{count, completion}` is an init.
        const placement = field(n, 'placement');
        const args = named(field(n, 'arguments'));
        const target = placement ? named(placement)[0] : undefined;
        if (target && isBarrierType(field(n, 'type')?.text ?? '')) {
          const barrier = this.barrierRef(target, frame);
          if (barrier) {
            const op = this.makeOp('init', 'new cuda::barrier', n, frame, { barrier, count: args[0] ? this.toExpr(args[0], frame) : undefined });
            return { stmts: [{ kind: 'op', op, range: op.range }], valueOps: [] };
          }
        }
        return this.children(n, frame);
      }
      case 'subscript_expression': {
        const r = this.children(n, frame);
        return { stmts: [...r.stmts, ...this.accesses(n, frame, false)], valueOps: r.valueOps };
      }
      default:
        return this.children(n, frame);
    }
  }

  private children(n: SyntaxNode, frame: Frame): ExprResult {
    const stmts: Stmt[] = [];
    const valueOps: BarrierOp[] = [];
    for (const c of named(n)) {
      const r = this.expr(c, frame);
      stmts.push(...r.stmts);
      // A value flowing through parentheses, `!`, casts or comparisons is still that op's result.
      if (/^(parenthesized_expression|unary_expression|cast_expression|binary_expression|conditional_expression|argument_list)$/.test(n.type)) valueOps.push(...r.valueOps);
    }
    return { stmts, valueOps };
  }

  /** Reads/writes of `__shared__` arrays that are not barriers (buffers guarded by barriers). */
  private accesses(n: SyntaxNode, frame: Frame, write: boolean): Stmt[] {
    const arr = field(n, 'argument');
    if (!arr || arr.type !== 'identifier') return [];
    const b = frame.scope.get(arr.text);
    const ir = b?.kind === 'local' ? b.irName : arr.text;
    const decl = this.state.decls.get(ir);
    if (!decl || decl.space !== 'shared' || isBarrierType(decl.type)) return [];
    const idx = named(field(n, 'indices'))[0];
    if (!idx) return [];
    return [{ kind: 'access', array: ir, index: this.toExpr(idx, frame), write, range: rangeOf(n) }];
  }

  /** A store through a dereferenced pointer whose shared-memory byte address is known (what may overwrite a barrier). */
  private pointerStore(left: SyntaxNode | null, frame: Frame, range: Range): Stmt[] {
    const arg = left?.type === 'pointer_expression' && left.text.trimStart().startsWith('*') ? field(left, 'argument') : null;
    const address = arg ? byteAddress(this.toExpr(arg, frame), this.addressAliases, this.state.decls) : undefined;
    return address ? [{ kind: 'access', array: `*${address.base}`, index: address.offset, write: true, range, address }] : [];
  }

  private lvalueName(n: SyntaxNode, frame: Frame): string | undefined {
    if (n.type === 'identifier') {
      const b = frame.scope.get(n.text);
      if (b?.kind === 'local') return b.irName;
      if (b?.kind === 'expr') return b.expr.kind === 'var' ? b.expr.name : b.expr.kind === 'unary' && b.expr.op === '*' && b.expr.arg.kind === 'var' ? b.expr.arg.name : undefined;
      if (frame.self) return frame.self.lvalue;
      return n.text;
    }
    if (n.type === 'this') return frame.self?.lvalue;
    if (n.type === 'subscript_expression' || n.type === 'field_expression') {
      const base = field(n, 'argument');
      return base ? this.lvalueName(base, frame) : undefined;
    }
    if (n.type === 'parenthesized_expression' || n.type === 'pointer_expression') {
      const inner = named(n)[0];
      return inner ? this.lvalueName(inner, frame) : undefined;
    }
    return undefined;
  }

  private asm(n: SyntaxNode, frame: Frame): ExprResult {
    const code = field(n, 'assembly_code');
    if (!code) return { stmts: [], valueOps: [] };
    const outputs = named(field(n, 'output_operands')).filter((o) => o.type === 'gnu_asm_output_operand');
    const inputs = named(field(n, 'input_operands')).filter((o) => o.type === 'gnu_asm_input_operand');
    const operands = [...outputs, ...inputs].map((o) => {
      const sym = named(o).find((c) => c.type === 'identifier' && c !== field(o, 'value'));
      return { name: o.childForFieldName('symbol')?.text ?? sym?.text, value: field(o, 'value'), output: o.type === 'gnu_asm_output_operand' };
    });
    const text = asmStringText(code);
    const instrs = parsePtxAsm(text);
    if (this.state.asmInstructions.length < MAX_ASM_INSTRUCTIONS) this.state.asmInstructions.push(...asmInstructionsOf(code));
    const stmts: Stmt[] = [];
    const valueOps: BarrierOp[] = [];
    const operand = (ref: string): (typeof operands)[number] | undefined => {
      const m = /^%(\d+)$/.exec(ref);
      if (m) return operands[+m[1]];
      const nm = /^%\[(\w+)\]$/.exec(ref);
      if (nm) return operands.find((o) => o.name === nm[1]);
      return undefined;
    };
    const operandExpr = (ref: string | undefined): Expr | undefined => {
      if (!ref) return undefined;
      const o = operand(ref);
      if (o?.value) return this.toExpr(o.value, frame);
      const lit = parseIntLiteral(ref);
      if (lit !== undefined) return { kind: 'num', value: lit, text: ref, range: rangeOf(n) };
      return undefined;
    };
    const mappedRegisters = new Map<string, (typeof operands)[number]>(); // The string's own registers `mapa` wrote (CUTLASS ClusterBarrier::arrive(cta)).
    for (const ins of instrs) {
      if (ins.mapa) {
        // The remote address names the same barrier (in a peer CTA): alias it to the source.
        const [dest, src] = [operand(ins.mapa.dest), operand(ins.mapa.src)];
        const destName = dest?.value ? this.lvalueName(dest.value, frame) : undefined;
        if (destName && src?.value) frame.aliases.set(destName, this.toExpr(src.value, frame));
        else if (!dest && /^[A-Za-z_$][\w$]*$/.test(ins.mapa.dest) && src?.value) mappedRegisters.set(ins.mapa.dest, src);
        continue;
      }
      if (ins.sync) {
        const named = ins.named ? { id: operandExpr(ins.named.id), threads: operandExpr(ins.named.threads), arrive: ins.named.arrive } : undefined;
        stmts.push({ kind: 'sync', scope: ins.sync, api: `asm ${ins.mnemonic}`, range: rangeOf(n), ...(named ? { named } : {}) });
        continue;
      }
      if (!ins.op) continue;
      const barOperand = ins.barrier ? (operand(ins.barrier) ?? mappedRegisters.get(ins.barrier)) : undefined;
      const barrier = barOperand?.value ? this.barrierRef(barOperand.value, frame) : undefined;
      const op = this.makeOp(ins.op, `asm ${ins.mnemonic}`, n, frame, {
        barrier,
        count: operandExpr(ins.count),
        bytes: operandExpr(ins.bytes),
        parity: operandExpr(ins.parity),
        token: operandExpr(ins.token),
        remote: ins.remote,
        ctaMask: operandExpr(ins.mask),
      });
      setCopyAddresses(op, { dst: operandExpr(ins.dst), src: operandExpr(ins.src) }, this.addressAliases, this.state.decls);
      if (ins.op === 'wait-parity' || ins.op === 'wait-token') {
        if (ins.loops) op.result = 'blocking';
        else {
          const out = ins.result ? operand(ins.result) : undefined;
          const outName = out?.value ? this.lvalueName(out.value, frame) : undefined;
          if (outName) frame.resultVars.set(outName, [op]);
          else if (!ins.result || ins.result === '_') op.result = 'discarded';
          valueOps.push(op);
        }
      } else if (ins.result && ins.result !== '_') {
        const out = operand(ins.result);
        const outName = out?.value ? this.lvalueName(out.value, frame) : undefined;
        if (outName) {
          op.tokenOut = outName;
          frame.resultVars.set(outName, [op]);
        }
        valueOps.push(op);
      }
      stmts.push({ kind: 'op', op, range: op.range });
    }
    return { stmts, valueOps };
  }

  private call(n: SyntaxNode, frame: Frame): ExprResult {
    const fnNode = field(n, 'function');
    const argsNode = field(n, 'arguments');
    if (!fnNode) return { stmts: [], valueOps: [] };
    const argNodes = named(argsNode).filter((a) => a.type !== 'comment');
    const callee = calleeName(fnNode);
    const stmts: Stmt[] = [];
    // Arguments are evaluated first (they may contain calls such as barrier_native_handle()).
    const argResults = argNodes.map((a) => this.expr(a, frame));
    for (const r of argResults) stmts.push(...r.stmts);

    const sync = syncForCall(callee, fnNode.type === 'field_expression' ? field(fnNode, 'argument')?.text ?? '' : '');
    if (sync) {
      const named = sync === 'named' ? namedBarrierCall(callee, argNodes.map((a) => this.toExpr(a, frame))) : undefined;
      stmts.push({ kind: 'sync', scope: sync, api: callee, range: rangeOf(n), ...(named ? { named } : {}) });
      return { stmts, valueOps: [] };
    }

    // Member call on a barrier object: bar.arrive(), full[s]->wait(ph), ...
    let receiver: SyntaxNode | undefined;
    let method = unqualified(callee);
    if (fnNode.type === 'field_expression') {
      receiver = field(fnNode, 'argument') ?? undefined;
      method = field(fnNode, 'field')?.text ?? method;
    }

    const lambda = fnNode.type === 'identifier' ? frame.scope.get(fnNode.text) : undefined;
    if (lambda?.kind === 'lambda' && this.state.stack.length < MAX_INLINE_DEPTH) {
      return this.inlineLambda(lambda.node, n, argNodes, frame, stmts);
    }
    // Helpers defined in this file win over library tables: they are what the code actually calls.
    // A header's helpers come after the tables (a library's own definition of an API the catalogue
    // knows is what the catalogue describes), and toolkit headers are never inlined (unit.ts).
    const def = !receiver ? resolveHelper(this.fns, unqualified(callee), argNodes.length, callee.includes('::') ? callee.slice(0, callee.lastIndexOf('::')) : undefined) : undefined;
    const definitionsFirst = !!this.context?.definitionsFirst;
    if (def && (!def.file || definitionsFirst) && this.state.stack.length < MAX_INLINE_DEPTH && !this.state.stack.includes(def.name)) {
      return this.inline(def, n, fnNode, argNodes, frame, stmts);
    }

    // A member function of a class the unit defines (`ring.advance()`, `pipeline.consumer_wait(s)`):
    // inlined with the object as `this`, so barrier operations inside it are seen.
    const receiverType = receiver ? this.typeOf(receiver, frame) : undefined;
    const methodOf = (type: string | undefined): FnDef | undefined => (receiver ? resolveMethod(this.fns, method, argNodes.length, type) : undefined);
    const inlineMember = (m: FnDef | undefined, type: string | undefined, into: Stmt[]): ExprResult | undefined => {
      if (!m || !receiver || this.state.stack.length >= MAX_INLINE_DEPTH || this.state.stack.includes(m.name)) return undefined;
      return this.inline(m, n, fnNode, argNodes, frame, into, { expr: this.toExpr(receiver, frame), lvalue: this.lvalueName(receiver, frame) }, classArguments(type));
    };
    // One of a class this file defines wins over the catalogue's method of that name, as its helpers do (any
    // header's class when the models are being checked against the headers).
    const own = receiverType ? methodOf(receiverType) : undefined;
    if (own && (!own.file || definitionsFirst) && own.memberOf === unqualified(receiverType!.replace(/<.*$/s, ''))) {
      const inlined = inlineMember(own, receiverType, stmts);
      if (inlined) return inlined;
    }
    const api = apiOpForCall({
      callee,
      method,
      isMember: !!receiver,
      receiverType,
      args: argNodes.map((a) => a.text),
      argIsTokenVar: argNodes.map((a) => this.isTokenArg(a, frame)),
    });
    if (!api && def?.file && this.state.stack.length < MAX_INLINE_DEPTH && !this.state.stack.includes(def.name)) {
      return this.inline(def, n, fnNode, argNodes, frame, stmts);
    }
    // An object of a `conditional_t<c, A, B>` alias whose condition does not fold: either class's method runs.
    const choice = !api && receiver ? this.typeChoice(receiver, frame) : undefined;
    if (choice && typeof choice !== 'string') {
      const [a, b] = [inlineMember(methodOf(choice.then), choice.then, []), inlineMember(methodOf(choice.else), choice.else, [])];
      if (a && b) return { stmts: [...stmts, { kind: 'if', cond: this.toExpr(choice.cond, frame), then: a.stmts, else: b.stmts, range: rangeOf(n) }], valueOps: [] };
    }
    const viaMethod = !api ? inlineMember(methodOf(receiverType), receiverType, stmts) : undefined;
    if (viaMethod) return viaMethod;
    if (!api) {
      if (!def) this.noteNotUnderstood(callee, method, receiver, argNodes, n, frame);
      // An unknown call may modify what it is given by reference: record that, so "never changes"
      // reasoning (parity variables, tokens) stays sound. `call?` = surely reachable (&x, receiver),
      // `call-arg` = passed by name (only a C++ reference parameter could modify it).
      if (!/^(std::|cuda::std::)?move$/.test(callee)) {
        const mark = (node: SyntaxNode, op: string): void => {
          const target = this.lvalueName(node, frame);
          if (target) stmts.push({ kind: 'assign', target, op, declared: false, range: rangeOf(n) });
        };
        if (receiver) mark(receiver, 'call?');
        for (const a of argNodes) {
          if (a.type === 'pointer_expression' && a.text.trimStart().startsWith('&')) mark(a, 'call?');
          else if (a.type === 'identifier') mark(a, 'call-arg');
        }
      }
      return { stmts, valueOps: argResults.flatMap((r) => r.valueOps).filter(() => /^(std::)?move$|^cuda::std::move$/.test(callee)) };
    }
    const barrierNode = api.barrierArg === 'receiver' ? receiver : api.barrierArg !== undefined ? argNodes[api.barrierArg] : undefined;
    const barrier = barrierNode ? this.barrierRef(barrierNode, frame) : undefined;
    if (api.requiresKnownBarrier && (!barrier || !this.isBarrierBase(barrier.base, frame))) {
      return { stmts, valueOps: [] };
    }
    const pick = (i: number | undefined): Expr | undefined => (i !== undefined && argNodes[i] ? this.toExpr(argNodes[i], frame) : undefined);
    const op = this.makeOp(api.kind, api.name, n, frame, {
      barrier,
      count: api.count !== undefined ? pick(api.count) : api.defaultCount !== undefined ? { kind: 'num', value: api.defaultCount, text: String(api.defaultCount), range: rangeOf(n) } : undefined,
      bytes: pick(api.bytes),
      parity: pick(api.parity),
      token: pick(api.token),
      remote: api.remote?.(argNodes.length),
    });
    if (api.src !== undefined) setCopyAddresses(op, { src: pick(api.src) }, this.addressAliases, this.state.decls);
    stmts.push({ kind: 'op', op, range: op.range });
    if (api.blocking) op.result = 'blocking';
    if (api.thenFlip !== undefined && argNodes[api.thenFlip]) {
      const target = this.lvalueName(argNodes[api.thenFlip], frame);
      if (target) stmts.push({ kind: 'assign', target, op: '^=', value: { kind: 'num', value: 1, text: '1', range: rangeOf(n) }, declared: false, range: rangeOf(n) });
    }
    if (api.alsoArriveFirst) {
      // arrive_and_wait = wait(arrive()): one arrival, then a token wait on the phase it arrived in.
      const arrive = this.makeOp('arrive', api.name, n, frame, { barrier, count: op.count });
      stmts.splice(stmts.length - 1, 0, { kind: 'op', op: arrive, range: arrive.range });
      op.count = undefined;
      op.token = { kind: 'var', name: `<token of ${barrier?.text ?? '?'}>`, text: '', range: rangeOf(n) };
      arrive.tokenOut = op.token.kind === 'var' ? op.token.name : undefined;
      op.result = 'blocking';
    }
    // A gated operation (`bar.arrive(cta, pred)`) happens only where its predicate holds.
    const gate = api.predicate !== undefined ? pick(api.predicate) : undefined;
    const cond: Expr | undefined =
      gate && evaluate(gate, (name) => this.constants.get(name)) !== 1 ? gate : api.electOne ? { kind: 'call', callee: 'cute::elect_one_sync', args: [], text: 'cute::elect_one_sync()', range: rangeOf(n) } : undefined;
    if (cond) {
      const first = stmts.findIndex((s) => s.kind === 'op' && s.op === op);
      stmts.splice(first, 1, { kind: 'if', cond, then: [stmts[first]], else: [], range: rangeOf(n) });
    }
    return { stmts, valueOps: [op] };
  }

  private isTokenArg(a: SyntaxNode, frame: Frame): boolean {
    if (/^(cuda::)?(std::)?move\s*\(/.test(a.text)) return true;
    if (a.type !== 'identifier') return false;
    const b = frame.scope.get(a.text);
    const ir = b?.kind === 'local' ? b.irName : a.text;
    const ops = frame.resultVars.get(ir);
    if (ops?.some((o) => !PROBE_KINDS.has(o.kind))) return true;
    const decl = this.state.decls.get(ir);
    return !!decl && /token/.test(decl.type);
  }

  private typeOf(n: SyntaxNode, frame: Frame): string | undefined {
    const t = this.typeChoice(n, frame);
    return typeof t === 'string' ? t : undefined;
  }

  /** The receiver's class, through local aliases; a `conditional_t` whose condition does not fold is returned as the choice. */
  private typeChoice(n: SyntaxNode, frame: Frame): string | ReturnType<typeof conditionalType> {
    // A temporary `T()` / `ns::T{}` (CuTe's `TMEM::Allocator1Sm().free(...)`): its type is the name it constructs.
    const made = n.type === 'call_expression' ? field(n, 'function') : undefined;
    const alias = made ? frame.scope.get(made.text) : undefined;
    if (alias?.kind === 'type') {
      const choice = conditionalType(alias.node);
      if (!choice) return alias.node.text;
      const known = evaluate(this.toExpr(choice.cond, frame), (name) => this.constants.get(name));
      return known === undefined ? choice : known ? choice.then : choice.else;
    }
    if (made && (made.type === 'qualified_identifier' || made.type === 'identifier') && /^[A-Z]/.test(unqualified(made.text))) return made.text;
    let base: SyntaxNode | null = n;
    while (base && base.type !== 'identifier') base = field(base, 'argument') ?? named(base)[0] ?? null;
    if (!base) return undefined;
    const b = frame.scope.get(base.text);
    const ir = b?.kind === 'local' ? b.irName : b?.kind === 'expr' ? rootName(b.expr) : base.text;
    return ir ? this.state.decls.get(ir)?.type : undefined;
  }

  private isBarrierBase(base: string, frame: Frame): boolean {
    const decl = this.state.decls.get(base);
    if (!decl) return false;
    if (isBarrierType(decl.type)) return true;
    const alias = frame.aliases.get(base);
    return !!alias && /barrier|bar|mbar|sem/i.test(alias.text);
  }

  /** An array length written as a name the frame binds to a number (a template parameter) or a constant. */
  private boundLength(text: string, frame: Frame): number | undefined {
    const name = text.trim();
    if (!/^[A-Za-z_]\w*$/.test(name)) return undefined;
    const b = frame.scope.get(name);
    if (b?.kind === 'expr' && b.expr.kind === 'num') return b.expr.value;
    return this.constants.get(name);
  }

  /**
   * Records a call that may be a barrier operation but that nothing resolves, so that the analysis
   * can say what it did not understand instead of staying silent about it.
   */
  private noteNotUnderstood(callee: string, method: string, receiver: SyntaxNode | undefined, argNodes: SyntaxNode[], n: SyntaxNode, frame: Frame): void {
    if (this.state.notUnderstood.has(callee) || this.state.notUnderstood.size >= 50 || IDENTITY_CONVERSIONS.test(callee)) return;
    const barrierArg = argNodes.some((a) => {
      const base = /^\s*(?:&\s*)?([A-Za-z_]\w*)/.exec(a.text)?.[1];
      return !!base && this.isBarrierBase(base, frame);
    });
    if (!barrierArg && !BARRIER_CALLEE.test(method)) return;
    const name = unqualified(callee);
    let why: string;
    if (receiver) {
      const defs = this.fns.get(method);
      why = defs?.some((d) => d.memberOf) ? `a method whose class could not be told from '${receiver.text.slice(0, 40)}'` : `a method of '${receiver.text.slice(0, 40)}' that nothing in this translation unit defines`;
    } else if (this.state.stack.length >= MAX_INLINE_DEPTH) {
      why = `calls nest deeper than ${MAX_INLINE_DEPTH} levels`;
    } else if (this.state.stack.includes(name)) {
      why = 'it calls itself';
    } else {
      why = this.context?.whyUndefined(name) ?? 'not defined in this file';
    }
    this.state.notUnderstood.set(callee, { what: `${callee.startsWith('[') ? 'an immediately invoked lambda' : `'${callee.replace(/\s+/g, ' ').slice(0, 80)}'`} (${why})`, range: rangeOf(n) });
  }


  private inline(def: FnDef, call: SyntaxNode, fnNode: SyntaxNode, argNodes: SyntaxNode[], frame: Frame, pre: Stmt[], self?: Frame['self'], classArgs: string[] = []): ExprResult {
    const scope = new Scope();
    def.params.forEach((p, i) => {
      if (!p.name) return;
      const a = argNodes[i];
      scope.set(p.name, { kind: 'expr', expr: a ? this.toExpr(a, frame) : { kind: 'opaque', text: p.name, range: rangeOf(call) } });
    });
    // Explicit template arguments bind template parameters: helper<4>(...) makes STAGES = 4 inside.
    const targs = templateArgumentsOf(fnNode);
    def.templateParams.forEach((tp, i) => {
      const a = targs[i];
      if (a) scope.set(tp, { kind: 'expr', expr: this.toExpr(a, frame) });
      // A member of a class template: the class's parameters come from the object's type.
      else if (self && classArgs[i] !== undefined) scope.set(tp, { kind: 'expr', expr: argumentExpr(classArgs[i], this.constants, rangeOf(call)) });
      // Left out: the default, unless a parameter's type could deduce it (deduction wins over defaults).
      else if (def.templateDefaults?.has(tp) && !def.params.some((p) => new RegExp(`\\b${tp}\\b`).test(p.type))) scope.set(tp, { kind: 'expr', expr: argumentExpr(def.templateDefaults.get(tp)!, this.constants, rangeOf(call)) });
    });
    const callee: Frame = { fn: def, scope, resultVars: new Map(), returned: [], aliases: new Map(frame.aliases), depth: frame.depth + 1, ...(self ? { self } : {}) };
    this.state.used.add(def.name);
    this.state.stack.push(def.name);
    let body: Stmt[];
    try {
      body = this.block(def.body, callee);
    } finally {
      this.state.stack.pop();
    }
    // Returns inside a helper end the helper, not the kernel, unless they sit inside a loop of the
    // helper (an early exit from a pipeline, which is what count rules look for).
    body = dropTrailingReturns(body);
    if (self) {
      // A member's new value is not tracked (fields are not variables of the IR): the object changed in an unknown way.
      visitStmts(body, (s) => {
        if (s.kind === 'assign' && s.target === self.lvalue) {
          s.op = 'call?';
          delete (s as { value?: Expr }).value;
        }
      });
    }
    const hasStructure = containsStructure(body);
    // A thin wrapper: report its operations at the call site in the caller.
    if (!hasStructure) atCallSite(body, rangeOf(call), true);
    return { stmts: [...pre, ...body], valueOps: callee.returned };
  }

  /** Inlines a local lambda: its body sees the caller's scope (captures) plus its parameters. */
  private inlineLambda(node: SyntaxNode, call: SyntaxNode, argNodes: SyntaxNode[], frame: Frame, pre: Stmt[]): ExprResult {
    const body = field(node, 'body');
    if (!body) return { stmts: pre, valueOps: [] };
    const declarator = field(node, 'declarator');
    const params = named(declarator ? field(declarator, 'parameters') : null).filter((p) => p.type === 'parameter_declaration');
    const scope = new Scope(frame.scope);
    params.forEach((p, i) => {
      const name = declaratorName(field(p, 'declarator'))?.text;
      if (name && argNodes[i]) scope.set(name, { kind: 'expr', expr: this.toExpr(argNodes[i], frame) });
    });
    const inner: Frame = { ...frame, scope, returned: [], depth: frame.depth + 1 };
    this.state.stack.push('<lambda>');
    let stmts: Stmt[];
    try {
      stmts = dropTrailingReturns(this.block(body, inner));
    } finally {
      this.state.stack.pop();
    }
    if (!containsStructure(stmts)) atCallSite(stmts, rangeOf(call), false);
    return { stmts: [...pre, ...stmts], valueOps: inner.returned };
  }

  private makeOp(kind: BarrierOp['kind'], api: string, n: SyntaxNode, _frame: Frame, fields: Partial<BarrierOp>): BarrierOp {
    const op: BarrierOp = { kind, api, range: rangeOf(n), via: [] };
    for (const [k, v] of Object.entries(fields)) if (v !== undefined) (op as unknown as Record<string, unknown>)[k] = v;
    return op;
  }

  /** Resolves a barrier operand (`&full[s]`, `bar + 2`, `barrier_native_handle(b)`, an alias) to base + slot. */
  barrierRef(n: SyntaxNode, frame: Frame): BarrierRef | undefined {
    const e = this.toExpr(n, frame);
    // Name the barrier as the caller wrote it: `to_smem(bar)` inside a helper is `&full[s]` at the call.
    let shown = e;
    while (shown.kind === 'call' && shown.callee !== 'move' && shown.args.length >= 1) shown = shown.args[0];
    const ref = resolveBarrier(e, frame.aliases, this.state.decls, shown.kind === 'opaque' ? n.text : shown.text);
    const storage = ref ? byteAddress(e, this.addressAliases, this.state.decls) : undefined;
    const root = shown.kind === 'unary' && shown.op === '*' ? shown.arg : shown;
    const through = root.kind === 'var' && ref && root.name !== ref.base && frame.aliases.has(root.name) ? root.name : undefined;
    return ref ? { ...ref, ...(storage ? { storage } : {}), ...(through ? { through } : {}) } : ref;
  }

  /** Converts a syntax node to an IR expression, substituting helper parameters. */
  toExpr(n: SyntaxNode, frame: Frame): Expr {
    const range = rangeOf(n);
    const text = n.text;
    switch (n.type) {
      case 'number_literal': {
        const v = parseIntLiteral(text);
        if (v !== undefined) return { kind: 'num', value: v, text, range };
        const f = parseFloat(text);
        return Number.isFinite(f) ? { kind: 'num', value: f, text, range } : { kind: 'opaque', text, range };
      }
      case 'true':
        return { kind: 'num', value: 1, text, range };
      case 'false':
        return { kind: 'num', value: 0, text, range };
      case 'identifier': {
        const b = frame.scope.get(text);
        if (b?.kind === 'expr') return b.expr;
        if (b?.kind === 'local') return { kind: 'var', name: b.irName, text, range };
        if (frame.self && !this.constants.has(text)) return { kind: 'member', object: frame.self.expr, field: text, text, range };
        return { kind: 'var', name: text, text, range };
      }
      case 'this':
        return frame.self ? frame.self.expr : { kind: 'opaque', text, range };
      case 'type_descriptor':
      case 'type_identifier': {
        // A template argument that names a value (`commit<ncta>`) parses as a type: a bound name is its value.
        const b = /^[A-Za-z_]\w*$/.test(text) ? frame.scope.get(text) : undefined;
        if (b?.kind === 'expr') return b.expr;
        return n.type === 'type_identifier' ? { kind: 'var', name: text.replace(/\s+/g, ''), text, range } : { kind: 'opaque', text, range };
      }
      case 'qualified_identifier':
      case 'namespace_identifier':
        return { kind: 'var', name: text.replace(/\s+/g, ''), text, range };
      case 'parenthesized_expression':
      case 'condition_clause': {
        const inner = field(n, 'value') ?? named(n)[0];
        return inner ? this.toExpr(inner, frame) : { kind: 'opaque', text, range };
      }
      case 'field_expression': {
        const obj = field(n, 'argument');
        const f = field(n, 'field');
        if (!obj || !f) return { kind: 'opaque', text, range };
        return { kind: 'member', object: this.toExpr(obj, frame), field: f.text, text, range };
      }
      case 'subscript_expression': {
        const obj = field(n, 'argument');
        const idx = named(field(n, 'indices'))[0];
        if (!obj || !idx) return { kind: 'opaque', text, range };
        return { kind: 'index', object: this.toExpr(obj, frame), index: this.toExpr(idx, frame), text, range };
      }
      case 'pointer_expression': {
        const arg = field(n, 'argument');
        const op = text.trimStart().startsWith('&') ? '&' : '*';
        return arg ? { kind: 'unary', op, arg: this.toExpr(arg, frame), text, range } : { kind: 'opaque', text, range };
      }
      case 'unary_expression': {
        const arg = field(n, 'argument');
        return arg ? { kind: 'unary', op: operatorOf(n), arg: this.toExpr(arg, frame), text, range } : { kind: 'opaque', text, range };
      }
      case 'binary_expression': {
        const l = field(n, 'left');
        const r = field(n, 'right');
        if (!l || !r) return { kind: 'opaque', text, range };
        return { kind: 'binary', op: operatorOf(n), left: this.toExpr(l, frame), right: this.toExpr(r, frame), text, range };
      }
      case 'conditional_expression': {
        const c = field(n, 'condition');
        const t = field(n, 'consequence');
        const a = field(n, 'alternative');
        if (!c || !t || !a) return { kind: 'opaque', text, range };
        return { kind: 'cond', test: this.toExpr(c, frame), then: this.toExpr(t, frame), else: this.toExpr(a, frame), text, range };
      }
      case 'cast_expression': {
        const v = field(n, 'value');
        return v ? this.toExpr(v, frame) : { kind: 'opaque', text, range };
      }
      case 'update_expression': {
        // `++stage == STAGES`: the value read is the variable itself after the update.
        const arg = field(n, 'argument');
        const inner = arg ? this.toExpr(arg, frame) : undefined;
        const pre = /^\s*(\+\+|--)/.test(text);
        if (!inner) return { kind: 'opaque', text, range };
        return pre ? inner : { kind: 'unary', op: text.includes('++') ? 'post++' : 'post--', arg: inner, text, range };
      }
      case 'call_expression': {
        const f = field(n, 'function');
        const callee = f ? calleeName(f) : '';
        const args = named(field(n, 'arguments')).map((a) => this.toExpr(a, frame));
        // Casts and address conversions keep the identity of what they convert.
        if (IDENTITY_CONVERSIONS.test(callee) && args.length === 1) {
          return /move$/.test(callee) ? { kind: 'call', callee: 'move', args, text, range } : args[0];
        }
        if (f?.type === 'field_expression') {
          const obj = field(f, 'argument');
          const method = field(f, 'field')?.text ?? '';
          return { kind: 'call', callee: `.${method}`, args: obj ? [this.toExpr(obj, frame), ...args] : args, text, range };
        }
        return { kind: 'call', callee, args, text, range };
      }
      case 'template_function':
      case 'template_type':
        return { kind: 'var', name: text.replace(/\s+/g, ''), text, range };
      case 'sizeof_expression': {
        const size = sizeOfType(text);
        return size !== undefined ? { kind: 'num', value: size, text, range } : { kind: 'opaque', text, range };
      }
      case 'string_literal':
      case 'char_literal':
        return { kind: 'opaque', text, range };
      default:
        return { kind: 'opaque', text, range };
    }
  }
}
