// Compiles the tree-sitter CUDA syntax of a kernel and the device functions, methods and lambdas it
// reaches into flat instruction arrays of JS closures (see runtime.ts). Expressions become
// `(frame) => value` closures specialised by type at compile time; calls to user functions and
// blocking builtins are hoisted into their own instructions so a thread can block (and a debugger
// can show a real frame) in the middle of an expression.
// `Compiler` holds what is known of the whole file and implements `CompilerContext` (context.ts) by
// delegating to the parts: declarations.ts (types, declarations, storage), statements.ts (emission,
// control flow, hoisting), lvalues.ts (loads, stores, conversions), expressions.ts (operators,
// names, member and index access), calls.ts (user functions, templates, lambdas, builtins),
// templates.ts (template arguments, class template instances) and construction.ts (constructors,
// default member initialisers).
// Builtins live in builtins.ts and inline PTX in ptx.ts. The delegation runs at compile time only:
// the closures the parts produce never call back into the compiler.
import type { SyntaxNode } from '../parser';
import type { Buffer } from '../../../sim/memory';
import * as calls from './calls';
import * as construction from './construction';
import type { CallTarget, CompilerContext, DeclaratorInfo, Ex, Fn, FnCx, FnDecl, FnInst, HostHooks, LambdaInfo, LV, SharedVar, StructTemplate, Sym } from './context';
import * as declarations from './declarations';
import * as expressions from './expressions';
import type { VFn } from './lanes';
import * as lvalues from './lvalues';
import type { Frame, Instr, RowFx } from './runtime';
import * as statements from './statements';
import * as templates from './templates';
import { asCompileError, type DeclQuals, locOf } from './syntax';
import { SimError } from '../../../sim/machine';
import type { CType, StructDef } from './types';

// Names this module exported before the compiler was split; other modules import them from here.
export { coerce } from '../../../sim/dtypes';
export { type Ex, type Fn, FnCx, type FnDecl, type FnInst, type LambdaInfo, type LV, type SharedVar, type Sym } from './context';
export { needsHoist } from './statements';
export { envOf } from './runtime';
export { allChildren, type DeclQuals, declQualifiers, fail, findFunctionDeclarator, lastName, locOf, named, unsupported } from './syntax';
export { decay, shapeOf } from './types';

/** Whole-file knowledge: functions, structs, types, constants, shared variables. */
export class Compiler implements CompilerContext {
  readonly functions = new Map<string, FnDecl[]>();
  readonly structs = new Map<string, StructDef>();
  readonly fileScope = new Map<string, Sym>();
  readonly instances = new Map<string, FnInst>();
  readonly lambdas = new Map<number, LambdaInfo>();
  readonly shared: SharedVar[] = [];
  readonly kernels: FnDecl[] = [];
  usesDynamicShared = false;
  dynamicSharedAlign = 0;
  /** Global `__device__` / `__constant__` buffers. */
  readonly globals: Buffer[] = [];
  readonly lazyStructs = new Map<string, SyntaxNode>();
  readonly structPaths = new Map<string, Map<string, SyntaxNode>>();
  readonly templateStructs = new Map<string, SyntaxNode>();
  readonly aliasTemplates = new Map<string, SyntaxNode>();
  readonly concepts = new Map<string, SyntaxNode>();
  readonly fileDeclarations: SyntaxNode[] = [];
  missingIncludes: readonly string[] = [];
  readonly defines = new Map<string, SyntaxNode>();
  readonly functionMacros = new Map<string, SyntaxNode>();
  host?: HostHooks;
  private fileReady = false;

  /** `headers`: the roots of the translation unit's headers, in inclusion order (the file's own declarations come last and win). */
  constructor(
    root: SyntaxNode,
    /**
     * Numbers the buffers compiling makes (global variables, statics). A whole program compiles each kernel
     * at its first launch, so a cached compile takes them from the run compiling now (host-program.ts).
     */
    public bufferIds: () => number,
    headers: readonly SyntaxNode[] = [],
  ) {
    for (const h of headers) declarations.collectFile(this, h);
    declarations.collectFile(this, root);
  }

  newGlobalId(): number {
    return this.bufferIds();
  }

  private sites = 0;

  /**
   * A new arrive-site number (runtime.ts Instr.site, assigned on an instruction's first arrive): one
   * counter per compiled program, so numbers stay unique when a cached program serves several launches.
   */
  newSite(): number {
    return this.sites++;
  }

  // -------------------------------------------------------------- declarations and types

  /** File-scope declarations (constants, typedefs, enums, structs) on first use. */
  prepareFileScope(): void {
    if (this.fileReady) return;
    this.fileReady = true;
    declarations.prepareFileScope(this);
  }
  typeDecl(cx: FnCx, d: SyntaxNode): void {
    declarations.typeDecl(this, cx, d);
  }
  enumDecl(cx: FnCx, d: SyntaxNode): void {
    declarations.enumDecl(this, cx, d);
  }
  lookup(cx: FnCx | null, name: string): { sym: Sym; depth: number } | undefined {
    return declarations.lookup(this, cx, name);
  }
  structDef(cx: FnCx, name: string, n: SyntaxNode): StructDef | undefined {
    return declarations.structDef(this, cx, name, n);
  }
  defineStruct(cx: FnCx, node: SyntaxNode, name: string, template?: StructTemplate): StructDef {
    return declarations.defineStruct(this, cx, node, name, template);
  }
  classTemplate(cx: FnCx, name: string, args: SyntaxNode[], n: SyntaxNode): StructDef {
    return templates.classTemplate(this, cx, name, args, n);
  }
  scopeStruct(cx: FnCx, scope: SyntaxNode): StructDef | undefined {
    return templates.scopeStruct(this, cx, scope);
  }
  construct(cx: FnCx, self: Fn, def: StructDef, init: SyntaxNode | undefined, n: SyntaxNode): boolean {
    return construction.construct(this, cx, self, def, init, n);
  }
  needsConstruction(t: CType): boolean {
    return construction.needsConstruction(this, t);
  }
  emitFieldInits(cx: FnCx, def: StructDef, memberInits: SyntaxNode | undefined): void {
    construction.emitFieldInits(this, cx, def, memberInits);
  }
  /** The type named by a declaration's type node (before declarators). */
  baseType(cx: FnCx, n: SyntaxNode): CType {
    return declarations.baseType(this, cx, n);
  }
  typeDescriptor(cx: FnCx, n: SyntaxNode): CType {
    return declarations.typeDescriptor(this, cx, n);
  }
  /** Applies a declarator to a base type: name, full type, reference-ness, initialiser. */
  declarator(cx: FnCx, base: CType, d: SyntaxNode): DeclaratorInfo {
    return declarations.declarator(this, cx, base, d);
  }
  constEval(cx: FnCx, n: SyntaxNode, t?: CType): number {
    return declarations.constEval(this, cx, n, t);
  }
  /** Static type of an expression without keeping its code (sizeof, decltype). */
  typeOf(cx: FnCx, n: SyntaxNode): CType {
    return declarations.typeOf(this, cx, n);
  }
  declaration(cx: FnCx, n: SyntaxNode): void {
    declarations.declaration(this, cx, n);
  }
  declareVar(cx: FnCx, info: { name: string; type: CType; ref: boolean; init?: SyntaxNode }, quals: DeclQuals, n: SyntaxNode): void {
    declarations.declareVar(this, cx, info, quals, n);
  }
  /** Brace (or constructor-argument) initialisation of an array or struct in memory. */
  initAggregate(cx: FnCx, lv: LV & { k: 'mem' }, type: CType, init: SyntaxNode, n: SyntaxNode): void {
    declarations.initAggregate(this, cx, lv, type, init, n);
  }
  /** Parameters occupy the first slots in order (the call instruction fills them). */
  declareParam(cx: FnCx, name: string, type: CType, ref: boolean, n: SyntaxNode): void {
    declarations.declareParam(this, cx, name, type, ref, n);
  }
  memLocal(cx: FnCx, name: string, type: CType): number {
    return declarations.memLocal(this, cx, name, type);
  }
  scanAddressTaken(n: SyntaxNode, out: Set<string>): void {
    declarations.scanAddressTaken(this, n, out);
  }

  // -------------------------------------------------------------- instructions and statements

  emit(cx: FnCx, n: SyntaxNode, run: (f: Frame) => number, stmt = true): Instr {
    return statements.emit(this, cx, n, run, stmt);
  }
  /** An instruction that evaluates `ev` for its effect and falls through. */
  emitExec(cx: FnCx, n: SyntaxNode, ev: Fn, vec?: VFn, fx?: RowFx): void {
    statements.emitExec(this, cx, n, ev, vec, fx);
  }
  emitJump(cx: FnCx, n: SyntaxNode): Instr {
    return statements.emitJump(this, cx, n);
  }
  emitBranchFalse(cx: FnCx, n: SyntaxNode, cond: Fn, vec?: VFn): Instr {
    return statements.emitBranchFalse(this, cx, n, cond, vec);
  }
  emitBranchTrue(cx: FnCx, n: SyntaxNode, cond: Fn, target: number, vec?: VFn): void {
    statements.emitBranchTrue(this, cx, n, cond, target, vec);
  }
  /** A blocking operation as its own instruction; its value lands in a temp the expression reads. */
  emitBlocking(cx: FnCx, n: SyntaxNode, t: CType, op: (f: Frame) => unknown, fx?: RowFx): Ex {
    return statements.emitBlocking(this, cx, n, t, op, fx);
  }
  /** Evaluates `e` now into a temp (so a following blocking instruction can re-run without side effects). */
  toTemp(cx: FnCx, n: SyntaxNode, e: Ex): Ex {
    return statements.toTemp(this, cx, n, e);
  }
  emitReturn(cx: FnCx, value: Fn | undefined, n: SyntaxNode): void {
    statements.emitReturn(this, cx, value, n);
  }
  block(cx: FnCx, n: SyntaxNode): void {
    statements.block(this, cx, n);
  }
  stmt(cx: FnCx, n: SyntaxNode): void {
    this.within(n, () => statements.stmt(this, cx, n));
  }
  truth(e: Ex, n: SyntaxNode): Fn {
    return statements.truth(this, e, n);
  }

  // -------------------------------------------------------------- lvalues and conversions

  /** Reads a value of type `t` from an lvalue. */
  loadFn(lv: LV, t: CType): Fn {
    return lvalues.loadFn(this, lv, t);
  }
  /** Writes a value of type `t` into an lvalue. */
  storeFn(lv: LV, t: CType): (f: Frame, v: any) => void {
    return lvalues.storeFn(this, lv, t);
  }
  /** Pointer to an lvalue (`&x`, reference binding). */
  addressOf(e: Ex, n: SyntaxNode): Fn {
    return lvalues.addressOf(this, e, n);
  }
  convertTo(e: Ex, t: CType, n: SyntaxNode, cx?: FnCx): Ex {
    return lvalues.convertTo(this, e, t, n, cx);
  }
  decayFn(e: Ex): Fn {
    return lvalues.decayFn(this, e);
  }
  /** Rvalue with arrays decayed to pointers. */
  rv(e: Ex): Ex {
    return lvalues.rv(this, e);
  }

  // -------------------------------------------------------------- expressions

  expr(cx: FnCx, n: SyntaxNode): Ex {
    return this.within(n, () => expressions.expr(this, cx, n));
  }

  /** The statement or expression being compiled, innermost: where a missing child is reported. */
  private at: SyntaxNode | undefined;

  /**
   * Compiles `n` by `compile`. Malformed source (a child absent: `out[]`, `f(a,)`) is reported at `n`, or at the
   * enclosing construct when `n` itself is absent, as a syntax error or "not supported", never as an internal
   * error of the simulator.
   */
  private within<T>(n: SyntaxNode | undefined | null, compile: () => T): T {
    if (!n) {
      const at = this.at;
      throw at ? new SimError(`syntax error: incomplete '${at.text.slice(0, 40)}'`, locOf(at), 'error') : new SimError('syntax error: an expression or statement is missing');
    }
    const outer = this.at;
    this.at = n;
    try {
      return compile();
    } catch (err) {
      throw asCompileError(err, n);
    } finally {
      this.at = outer;
    }
  }
  symbolEx(cx: FnCx, s: Sym, depth: number, name: string, n: SyntaxNode): Ex {
    return expressions.symbolEx(this, cx, s, depth, name, n);
  }
  binary(cx: FnCx, n: SyntaxNode): Ex {
    return expressions.binary(this, cx, n);
  }
  binop(op: string, l: Ex, r: Ex, n: SyntaxNode): Ex {
    return expressions.binop(this, op, l, r, n);
  }
  cast(cx: FnCx, t: CType, e: Ex, n: SyntaxNode): Ex {
    return expressions.cast(this, cx, t, e, n);
  }

  // -------------------------------------------------------------- calls

  /** Compiles (once per template binding) a user function. */
  instantiate(decl: FnDecl, tbind: Map<string, CType | number>, at: SyntaxNode): FnInst {
    return calls.instantiate(this, decl, tbind, at);
  }
  /** Calls a user function or lambda: arguments evaluated, frame pushed; the result lands in a temp. */
  emitCall(cx: FnCx, n: SyntaxNode, target: CallTarget, args: Ex[], self?: Fn, env?: Fn): Ex {
    return calls.emitCall(this, cx, n, target, args, self, env);
  }
  call(cx: FnCx, n: SyntaxNode): Ex {
    return calls.call(this, cx, n);
  }
  misparsedTemplateCall(cx: FnCx, n: SyntaxNode): Ex | undefined {
    return calls.misparsedTemplateCall(this, cx, n);
  }
  /** Picks an overload by argument count, deduces template arguments, compiles and calls it. */
  callUser(cx: FnCx, decls: FnDecl[], argNodes: SyntaxNode[], n: SyntaxNode, targs?: SyntaxNode[], self?: Fn): Ex {
    return calls.callUser(this, cx, decls, argNodes, n, targs, self);
  }
  lambda(cx: FnCx, n: SyntaxNode): Ex {
    return calls.lambda(this, cx, n);
  }
}
