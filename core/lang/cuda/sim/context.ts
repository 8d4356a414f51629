// The compiler's shared vocabulary: compiled expressions (`Ex`), lvalues, symbols, declared and
// compiled functions, the per-function compile context (`FnCx`), and `CompilerContext`, the face of
// the compiler that its parts (declarations, statements, expressions, calls) and the builtins and
// inline PTX compile against. Those parts call each other through it, so none imports another's
// module and the builtins never import the compiler.
import type { SyntaxNode } from '../parser';
import type { SourceLoc } from '../../../sim/machine';
import type { Buffer, Pointer } from '../../../sim/memory';
import type { CompiledFn, Frame, Instr, LocalVar, MemLocal, RowFx, VFn } from './runtime';
import type { DeclQuals } from './syntax';
import { type CType, type StructDef, type StructMember, VOID } from './types';

/** A class template instance being defined: its name and arguments, and the members they bind. */
export interface StructTemplate {
  name: string;
  args: (CType | number)[];
  members: Map<string, StructMember>;
}

/** A compiled expression's closure: evaluates it in a frame. */
export type Fn = (f: Frame) => any;

/** An lvalue: a slot of some frame on the env chain, or bytes in a buffer. */
/** Where a value lives: a frame slot, or memory (a bit-field: `width` bits from bit `pos` of the bytes at `off`). */
export type LV = { k: 'slot'; depth: number; idx: number; num?: boolean } | { k: 'mem'; buf: Fn; off: Fn; bits?: { pos: number; width: number }; elem?: ElemLanes };

/**
 * An array element `base[i]` whose index has a lane-vector form: a warp-lockstep row finds its
 * lanes' addresses (`buf`, `base` + index × `es`) with the index evaluated once for all of them.
 */
export interface ElemLanes {
  buf: Fn;
  base: Fn;
  index: VFn;
  es: number;
}

/** A compiled expression. */
export interface Ex {
  t: CType;
  ev: Fn;
  lv?: LV;
  /** Compile-time constant value. */
  cv?: number;
  /** Reads a temp only: evaluating it has no effect (skip it as a statement). */
  pure?: boolean;
  /** String literal text (printf formats). */
  str?: string;
  /** Lane-vector form (lanes.ts): the same value for a warp-lockstep row's lanes at once, where the expression has one. */
  vec?: VFn;
  /** Row form of an expression with effects (a barrier arrival; runtime.ts RowFx), where it has one. */
  row?: RowFx;
}

/** What a name in scope stands for. */
export type Sym =
  | { k: 'var'; type: CType; where: 'slot' | 'num' | 'mem' | 'ref'; idx: number; cx: FnCx }
  | { k: 'const'; type: CType; value: number }
  | { k: 'shared'; type: CType; idx: number }
  | { k: 'dyn'; type: CType }
  /** A `__device__` / `__constant__` variable or function-scope static: `Compiler.globals[index]` (its compile-time image; a run reads and writes its own copy, RunStorage). */
  | { k: 'global'; type: CType; index: number }
  | { k: 'type'; type: CType };

/** A user function (free, member or template) as declared. */
export interface FnDecl {
  name: string;
  node: SyntaxNode; // function_definition
  tparams?: SyntaxNode; // template_parameter_list
  owner?: StructDef;
  /** A constructor of `owner`: its member-init list and default member initialisers run first. */
  ctor?: boolean;
  /** Names bound around the function: an out-of-class member definition's own names for its class template's arguments. */
  outer?: Map<string, Sym>;
}

/** A user function compiled for one binding of its template parameters. */
export interface FnInst {
  decl: FnDecl;
  fn: CompiledFn;
  ret: CType;
  params: { name: string; type: CType; ref: boolean }[];
}

/** A compiled lambda (called with its defining frame as environment). */
export interface LambdaInfo {
  id: number;
  fn: CompiledFn;
  ret: CType;
  params: { name: string; type: CType; ref: boolean }[];
}

/** A `__shared__` variable, laid out in each block's shared memory. */
export interface SharedVar {
  name: string;
  type: CType;
  align: number;
}

/** One function being compiled: its code, slots, frame memory, scopes, loops and return type. */
export class FnCx {
  code: Instr[] = [];
  nslots = 0;
  mem: MemLocal[] = [];
  locals: LocalVar[] = [];
  scopes: Map<string, Sym>[] = [new Map()];
  loops: { brk: Instr[]; cont: Instr[]; sw: boolean }[] = [];
  ret: CType = VOID;
  retDeduce = false;
  addrTaken = new Set<string>();
  /** A while/do condition whose probe is retried: try_wait/test_wait there block until done. */
  retryProbe?: SyntaxNode;
  /** Host code (a whole program's `main` and the host functions it calls): host builtins apply. */
  host = false;
  readonly fn: CompiledFn;
  constructor(
    readonly name: string,
    readonly parent: FnCx | null,
    readonly tbind: Map<string, CType | number>,
    readonly owner: StructDef | undefined,
    loc: SourceLoc,
  ) {
    this.fn = { name, code: this.code, nslots: 0, mem: this.mem, locals: this.locals, loc };
  }
  slot(): number {
    return this.nslots++;
  }
  finish(): CompiledFn {
    this.fn.nslots = this.nslots;
    return this.fn;
  }
}

let ids = 0;

/** A fresh number for a lambda or an anonymous struct (one counter for both, as names show it). */
export function freshId(): number {
  return ids++;
}

/** Is `cx` (or a function it is nested in, for lambdas) a member function? */
export function hasOwner(cx: FnCx): boolean {
  for (let c: FnCx | null = cx; c; c = c.parent) if (c.owner) return true;
  return false;
}

/** The struct whose member function encloses `cx`, and how many frames up its `this` lives. */
export function ownerOf(cx: FnCx): { def: StructDef; depth: number } | undefined {
  let d = 0;
  for (let c: FnCx | null = cx; c; c = c.parent, d++) if (c.owner) return { def: c.owner, depth: d };
  return undefined;
}

/**
 * What a whole program adds to the compiler for host code (host-hooks.ts): library calls by name,
 * and the expressions only host code has (kernel launches, `new`/`delete`, `v[i]` on std::vector).
 * Each gives undefined when the construct is not theirs. Only host functions (`FnCx.host`) consult
 * them; the host library's types come from a prelude parsed ahead of the file (host-prelude.ts).
 */
export interface HostHooks {
  call(c: CompilerContext, cx: FnCx, fullName: string, argNodes: SyntaxNode[], n: SyntaxNode, targs?: SyntaxNode[]): Ex | undefined;
  expr(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex | undefined;
}

/** A declarator applied to its base type. */
export interface DeclaratorInfo {
  name: string;
  type: CType;
  ref: boolean;
  init?: SyntaxNode;
  node: SyntaxNode;
}

/** A callee as `emitCall` needs it: its code (looked up when called), return and parameter types. */
export interface CallTarget {
  fn: () => CompiledFn;
  ret: CType;
  params: { type: CType; ref: boolean; name?: string }[];
}

/**
 * What the parts of the compiler see of it: whole-file state and every operation that crosses
 * module lines. `Compiler` (compile.ts) implements it by delegating to declarations.ts,
 * statements.ts, lvalues.ts, expressions.ts and calls.ts. Everything here runs at compile time;
 * the closures it produces never call back into it.
 */
export interface CompilerContext {
  /** Includes of the translation unit that were not found (`"mbar.cuh"`), for messages about undefined calls. */
  readonly missingIncludes: readonly string[];
  readonly functions: Map<string, FnDecl[]>;
  readonly structs: Map<string, StructDef>;
  readonly fileScope: Map<string, Sym>;
  readonly instances: Map<string, FnInst>;
  readonly lambdas: Map<number, LambdaInfo>;
  readonly shared: SharedVar[];
  readonly kernels: FnDecl[];
  usesDynamicShared: boolean;
  /** The largest alignment an `extern __shared__` declaration asks for (`__align__(1024)`): where dynamic shared memory starts. */
  dynamicSharedAlign: number;
  /** Global `__device__` / `__constant__` buffers. */
  readonly globals: Buffer[];
  readonly lazyStructs: Map<string, SyntaxNode>;
  /** Struct definitions by name, then by namespace-qualified name (namespaces.ts tells same-named ones apart). */
  readonly structPaths: Map<string, Map<string, SyntaxNode>>;
  readonly templateStructs: Map<string, SyntaxNode>;
  /** Alias templates (`template <class T> using Ptr = T*;`) by name: their alias_declaration, inside its template_declaration. */
  readonly aliasTemplates: Map<string, SyntaxNode>;
  /** C++20 concepts by their namespace-qualified name (`kittens::ducks::st::all`): their concept_definition. */
  readonly concepts: Map<string, SyntaxNode>;
  readonly fileDeclarations: SyntaxNode[];
  /** `#define NAME VALUE` lines not read yet (read on first use of NAME). */
  readonly defines: Map<string, SyntaxNode>;
  /** `#define NAME(params) BODY` lines (the first definition of each name): expanded where device code calls them. */
  readonly functionMacros: Map<string, SyntaxNode>;
  /** The id of a new global buffer. */
  newGlobalId(): number;
  /** Set when a whole program runs (harness mode): what host code may use beyond device code. */
  host?: HostHooks;

  // Declarations and types (declarations.ts).
  prepareFileScope(): void;
  typeDecl(cx: FnCx, d: SyntaxNode): void;
  enumDecl(cx: FnCx, d: SyntaxNode): void;
  lookup(cx: FnCx | null, name: string): { sym: Sym; depth: number } | undefined;
  structDef(cx: FnCx, name: string, n: SyntaxNode): StructDef | undefined;
  defineStruct(cx: FnCx, node: SyntaxNode, name: string, template?: StructTemplate): StructDef;
  /** The instance of class template `name` for the template arguments `args` (compiled once per argument list). */
  classTemplate(cx: FnCx, name: string, args: SyntaxNode[], n: SyntaxNode): StructDef;
  /** The struct a scope names (`Ring<4>` in `Ring<4>::kStages`), if it names one. */
  scopeStruct(cx: FnCx, scope: SyntaxNode): StructDef | undefined;
  /** Starts the life of a struct object at `self`: its constructor, or its default member initialisers. */
  construct(cx: FnCx, self: Fn, def: StructDef, init: SyntaxNode | undefined, n: SyntaxNode): boolean;
  /** Does a struct need code to start its life (constructors or default member initialisers, here or in its fields)? */
  needsConstruction(t: CType): boolean;
  /** A constructor's prologue: member-init list and default member initialisers, in declaration order. */
  emitFieldInits(cx: FnCx, def: StructDef, memberInits: SyntaxNode | undefined): void;
  baseType(cx: FnCx, n: SyntaxNode): CType;
  typeDescriptor(cx: FnCx, n: SyntaxNode): CType;
  declarator(cx: FnCx, base: CType, d: SyntaxNode): DeclaratorInfo;
  constEval(cx: FnCx, n: SyntaxNode, t?: CType): number;
  typeOf(cx: FnCx, n: SyntaxNode): CType;
  declaration(cx: FnCx, n: SyntaxNode): void;
  declareVar(cx: FnCx, info: { name: string; type: CType; ref: boolean; init?: SyntaxNode }, quals: DeclQuals, n: SyntaxNode): void;
  initAggregate(cx: FnCx, lv: LV & { k: 'mem' }, type: CType, init: SyntaxNode, n: SyntaxNode): void;
  declareParam(cx: FnCx, name: string, type: CType, ref: boolean, n: SyntaxNode): void;
  memLocal(cx: FnCx, name: string, type: CType): number;
  scanAddressTaken(n: SyntaxNode, out: Set<string>): void;

  // Instructions and statements (statements.ts).
  emit(cx: FnCx, n: SyntaxNode, run: (f: Frame) => number, stmt?: boolean): Instr;
  emitExec(cx: FnCx, n: SyntaxNode, ev: Fn, vec?: VFn, fx?: RowFx): void;
  emitJump(cx: FnCx, n: SyntaxNode): Instr;
  emitBranchFalse(cx: FnCx, n: SyntaxNode, cond: Fn, vec?: VFn): Instr;
  emitBranchTrue(cx: FnCx, n: SyntaxNode, cond: Fn, target: number, vec?: VFn): void;
  emitBlocking(cx: FnCx, n: SyntaxNode, t: CType, op: (f: Frame) => unknown, fx?: RowFx): Ex;
  toTemp(cx: FnCx, n: SyntaxNode, e: Ex): Ex;
  emitReturn(cx: FnCx, value: Fn | undefined, n: SyntaxNode): void;
  block(cx: FnCx, n: SyntaxNode): void;
  stmt(cx: FnCx, n: SyntaxNode): void;
  truth(e: Ex, n: SyntaxNode): Fn;

  // Lvalues and conversions (lvalues.ts).
  loadFn(lv: LV, t: CType): Fn;
  storeFn(lv: LV, t: CType): (f: Frame, v: any) => void;
  addressOf(e: Ex, n: SyntaxNode): Fn;
  /** `e` converted to `t`; with `cx`, a struct's conversion operator is called when it has one to a number or pointer. */
  convertTo(e: Ex, t: CType, n: SyntaxNode, cx?: FnCx): Ex;
  decayFn(e: Ex): Fn;
  rv(e: Ex): Ex;

  // Expressions (expressions.ts).
  expr(cx: FnCx, n: SyntaxNode): Ex;
  symbolEx(cx: FnCx, s: Sym, depth: number, name: string, n: SyntaxNode): Ex;
  binary(cx: FnCx, n: SyntaxNode): Ex;
  binop(op: string, l: Ex, r: Ex, n: SyntaxNode): Ex;
  cast(cx: FnCx, t: CType, e: Ex, n: SyntaxNode): Ex;

  // Calls (calls.ts).
  instantiate(decl: FnDecl, tbind: Map<string, CType | number>, at: SyntaxNode): FnInst;
  emitCall(cx: FnCx, n: SyntaxNode, target: CallTarget, args: Ex[], self?: Fn, env?: Fn): Ex;
  call(cx: FnCx, n: SyntaxNode): Ex;
  /** `obj.f<K>(args)` read by the grammar as comparisons, when `f` is a member template of obj's struct. */
  misparsedTemplateCall(cx: FnCx, n: SyntaxNode): Ex | undefined;
  callUser(cx: FnCx, decls: FnDecl[], argNodes: SyntaxNode[], n: SyntaxNode, targs?: SyntaxNode[], self?: Fn): Ex;
  lambda(cx: FnCx, n: SyntaxNode): Ex;
}
