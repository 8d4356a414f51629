// Compiles the tree-sitter CUDA syntax of a kernel and the device functions, methods and lambdas it
// reaches into flat instruction arrays of JS closures (see runtime.ts). Expressions become
// `(frame) => value` closures specialised by type at compile time; calls to user functions and
// blocking builtins are hoisted into their own instructions so a thread can block (and a debugger
// can show a real frame) in the middle of an expression. Builtins live in builtins.ts and inline
// PTX in ptx.ts; this file knows C++.
import type { SyntaxNode } from '../parser';
import { coerce, type DType } from '../../../sim/dtypes';
import { type SourceLoc, SimError } from '../../../sim/machine';
import { Buffer, type Pointer } from '../../../sim/memory';
import { compileBuiltinCall, compileMethodCall, isKnownPure } from './builtins';
import { BLOCKED, type Closure, type CompiledFn, FRAME, Frame, type Instr, type LocalVar, type MemLocal, fromGenericAddress, genericAddress, loader, loadPointer, storePointer, storer } from './runtime';
import {
  alignOfType,
  arith,
  BOOL,
  bitNot,
  commonType,
  compare,
  convFn,
  type CType,
  F32,
  F64,
  isFloatDt,
  isNum,
  layoutStruct,
  negate,
  num,
  promote,
  ptr,
  S32,
  S64,
  sameType,
  shift,
  sizeOfType,
  type StructDef,
  typeName,
  U32,
  U64,
  VOID,
} from './types';

export type Fn = (f: Frame) => any;

/** An lvalue: a slot of some frame on the env chain, or bytes in a buffer. */
export type LV = { k: 'slot'; depth: number; idx: number } | { k: 'mem'; buf: Fn; off: Fn };

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
}

export type Sym =
  | { k: 'var'; type: CType; where: 'slot' | 'mem' | 'ref'; idx: number; cx: FnCx }
  | { k: 'const'; type: CType; value: number }
  | { k: 'shared'; type: CType; idx: number }
  | { k: 'dyn'; type: CType }
  | { k: 'global'; type: CType; p: Pointer }
  | { k: 'type'; type: CType };

/** A user function (free, member or template) as declared. */
export interface FnDecl {
  name: string;
  node: SyntaxNode; // function_definition
  tparams?: SyntaxNode; // template_parameter_list
  owner?: StructDef;
}

export interface FnInst {
  decl: FnDecl;
  fn: CompiledFn;
  ret: CType;
  params: { name: string; type: CType; ref: boolean }[];
}

export interface LambdaInfo {
  id: number;
  fn: CompiledFn;
  ret: CType;
  params: { name: string; type: CType; ref: boolean }[];
}

export interface SharedVar {
  name: string;
  type: CType;
  align: number;
}

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

export function locOf(n: SyntaxNode, func?: string): SourceLoc {
  return { line: n.startPosition.row, character: n.startPosition.column, func };
}

export function unsupported(what: string, n: SyntaxNode): never {
  throw new SimError(what, locOf(n), 'unsupported');
}

export function fail(what: string, n: SyntaxNode): never {
  throw new SimError(what, locOf(n), 'error');
}

export function named(n: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let i = 0; i < n.namedChildCount; i++) {
    const c = n.namedChild(i);
    if (c && c.type !== 'comment') out.push(c);
  }
  return out;
}

const PRIMS: Record<string, DType> = {
  int: 's32',
  'signed int': 's32',
  signed: 's32',
  unsigned: 'u32',
  'unsigned int': 'u32',
  short: 's16',
  'short int': 's16',
  'unsigned short': 'u16',
  'unsigned short int': 'u16',
  char: 's8',
  'signed char': 's8',
  'unsigned char': 'u8',
  long: 's64',
  'long int': 's64',
  'long long': 's64',
  'long long int': 's64',
  'unsigned long': 'u64',
  'unsigned long int': 'u64',
  'unsigned long long': 'u64',
  'unsigned long long int': 'u64',
  'signed long long': 's64',
  size_t: 'u64',
  ptrdiff_t: 's64',
  intptr_t: 's64',
  uintptr_t: 'u64',
  int8_t: 's8',
  int16_t: 's16',
  int32_t: 's32',
  int64_t: 's64',
  uint8_t: 'u8',
  uint16_t: 'u16',
  uint32_t: 'u32',
  uint64_t: 'u64',
  uint: 'u32',
  float: 'f32',
  double: 'f64',
  bool: 'bool',
  __half: 'f16',
  half: 'f16',
  __nv_bfloat16: 'bf16',
  nv_bfloat16: 'bf16',
  __mbarrier_t: 'u64',
  __mbarrier_token_t: 'u64',
  arrival_token: 'u64',
  clock_t: 's64',
  'unsigned long long int ': 'u64',
};

let lambdaIds = 0;

/** Whole-file knowledge: functions, structs, types, constants, shared variables. */
export class Compiler {
  readonly functions = new Map<string, FnDecl[]>();
  readonly structs = new Map<string, StructDef>();
  readonly fileScope = new Map<string, Sym>();
  readonly instances = new Map<string, FnInst>();
  readonly lambdas = new Map<number, LambdaInfo>();
  readonly shared: SharedVar[] = [];
  readonly kernels: FnDecl[] = [];
  usesDynamicShared = false;
  /** Global `__device__` / `__constant__` buffers. */
  readonly globals: Buffer[] = [];
  private nextGlobalId: () => number;

  constructor(root: SyntaxNode, nextBufferId: () => number) {
    this.nextGlobalId = nextBufferId;
    this.collect(root, undefined);
  }

  // -------------------------------------------------------------- file scan

  private collect(n: SyntaxNode, tparams: SyntaxNode | undefined): void {
    for (const c of named(n)) {
      switch (c.type) {
        case 'function_definition':
          this.addFunction(c, tparams, undefined);
          break;
        case 'template_declaration': {
          const tp = c.childForFieldName('parameters') ?? undefined;
          const inner = named(c).filter((x) => x !== tp);
          for (const d of inner) {
            if (d.type === 'function_definition') this.addFunction(d, tp, undefined);
            else if (d.type === 'struct_specifier' || d.type === 'class_specifier') this.templateStructs.set(d.childForFieldName('name')?.text ?? '', d);
          }
          break;
        }
        case 'namespace_definition':
        case 'linkage_specification': {
          const body = c.childForFieldName('body');
          if (body) this.collect(body, undefined);
          break;
        }
        case 'declaration_list':
          this.collect(c, undefined);
          break;
        case 'struct_specifier':
        case 'class_specifier':
          this.lazyStructs.set(c.childForFieldName('name')?.text ?? '', c);
          break;
        case 'declaration':
          this.fileDeclarations.push(c);
          for (const s of named(c)) if (s.type === 'struct_specifier' || s.type === 'class_specifier') this.lazyStructs.set(s.childForFieldName('name')?.text ?? '', s);
          break;
        case 'type_definition':
        case 'alias_declaration':
        case 'enum_specifier':
          this.fileDeclarations.push(c);
          break;
        case 'preproc_if':
        case 'preproc_ifdef':
          this.collect(c, undefined);
          break;
        default:
          break;
      }
    }
  }

  readonly lazyStructs = new Map<string, SyntaxNode>();
  readonly templateStructs = new Map<string, SyntaxNode>();
  readonly fileDeclarations: SyntaxNode[] = [];
  private fileReady = false;

  private addFunction(node: SyntaxNode, tparams: SyntaxNode | undefined, owner: StructDef | undefined): void {
    const decl = node.childForFieldName('declarator');
    const fd = decl ? findFunctionDeclarator(decl) : undefined;
    const nameNode = fd?.childForFieldName('declarator');
    if (!nameNode) return;
    const name = lastName(nameNode.text);
    const d: FnDecl = { name, node, tparams, owner };
    let list = this.functions.get(name);
    if (!list) this.functions.set(name, (list = []));
    list.push(d);
    if (allChildren(node).some((x) => x.type === '__global__' || x.text === '__global__')) this.kernels.push(d);
  }

  /** File-scope declarations (constants, typedefs, enums, structs) on first use. */
  prepareFileScope(): void {
    if (this.fileReady) return;
    this.fileReady = true;
    const cx = new FnCx('<file>', null, new Map(), undefined, { line: 0 });
    cx.scopes = [this.fileScope];
    for (const d of this.fileDeclarations) this.fileDecl(cx, d);
  }

  private fileDecl(cx: FnCx, d: SyntaxNode): void {
    switch (d.type) {
      case 'type_definition':
      case 'alias_declaration':
        this.typeDecl(cx, d);
        return;
      case 'enum_specifier':
        this.enumDecl(cx, d);
        return;
      case 'declaration': {
        const quals = declQualifiers(d);
        const tn = d.childForFieldName('type');
        if (tn?.type === 'enum_specifier') this.enumDecl(cx, tn);
        for (const dn of d.childrenForFieldName('declarator')) {
          if (!dn) continue;
          if (dn.type === 'function_declarator') continue; // prototype
          let info: ReturnType<Compiler['declarator']>;
          try {
            info = this.declarator(cx, this.baseType(cx, tn!), dn);
          } catch {
            continue; // a file-scope declaration the kernel never uses may use types we do not model
          }
          if (info.init && (quals.constexpr || quals.const) && isNum(info.type)) {
            try {
              const v = this.constEval(cx, info.init, info.type);
              this.fileScope.set(info.name, { k: 'const', type: info.type, value: v });
              continue;
            } catch {
              /* not a constant: a device variable below */
            }
          }
          if (quals.device || quals.constant || quals.managed) {
            const size = sizeOfType(info.type);
            const buf = new Buffer(this.nextGlobalId(), info.name, quals.constant ? 'const' : 'global', Math.max(size, 1), undefined, elemDtype(info.type), shapeOf(info.type));
            this.globals.push(buf);
            if (info.init) this.staticInit(cx, buf, info.type, info.init);
            this.fileScope.set(info.name, { k: 'global', type: info.type, p: { buf, offset: 0 } });
          }
        }
        return;
      }
    }
  }

  private staticInit(cx: FnCx, buf: Buffer, t: CType, init: SyntaxNode): void {
    const flat: { off: number; t: CType; node: SyntaxNode }[] = [];
    flattenInit(this, cx, t, init, 0, flat);
    for (const e of flat) {
      if (!isNum(e.t)) unsupported('a non-numeric initialiser of a device variable', e.node);
      storer(e.t.dt)(buf, e.off, this.constEval(cx, e.node, e.t));
    }
  }

  typeDecl(cx: FnCx, d: SyntaxNode): void {
    if (d.type === 'alias_declaration') {
      const name = d.childForFieldName('name')!.text;
      const td = d.childForFieldName('type')!;
      this.scopeTop(cx).set(name, { k: 'type', type: this.typeDescriptor(cx, td) });
      return;
    }
    const tn = d.childForFieldName('type');
    if (!tn) return;
    const base = this.baseType(cx, tn);
    for (const dn of d.childrenForFieldName('declarator')) {
      if (!dn) continue;
      const info = this.declarator(cx, base, dn);
      this.scopeTop(cx).set(info.name, { k: 'type', type: info.type });
    }
  }

  enumDecl(cx: FnCx, d: SyntaxNode): void {
    const list = named(d).find((x) => x.type === 'enumerator_list');
    const name = d.childForFieldName('name')?.text;
    const base = d.childForFieldName('base');
    const t = base ? this.baseType(cx, base) : S32;
    if (name) this.scopeTop(cx).set(name, { k: 'type', type: t });
    if (!list) return;
    let next = 0;
    for (const e of named(list)) {
      if (e.type !== 'enumerator') continue;
      const en = e.childForFieldName('name')!.text;
      const v = e.childForFieldName('value');
      if (v) next = this.constEval(cx, v, t);
      this.scopeTop(cx).set(en, { k: 'const', type: t, value: next });
      if (name) this.scopeTop(cx).set(`${name}::${en}`, { k: 'const', type: t, value: next });
      next++;
    }
  }

  private scopeTop(cx: FnCx): Map<string, Sym> {
    return cx.scopes[cx.scopes.length - 1];
  }

  // -------------------------------------------------------------- types

  lookup(cx: FnCx | null, name: string): { sym: Sym; depth: number } | undefined {
    let depth = 0;
    for (let c = cx; c; c = c.parent, depth++) {
      for (let i = c.scopes.length - 1; i >= 0; i--) {
        const s = c.scopes[i].get(name);
        if (s) return { sym: s, depth };
      }
      const tb = c.tbind.get(name);
      if (tb !== undefined) return { sym: typeof tb === 'number' ? { k: 'const', type: S32, value: tb } : { k: 'type', type: tb }, depth };
    }
    const s = this.fileScope.get(name);
    return s ? { sym: s, depth: 0 } : undefined;
  }

  structDef(cx: FnCx, name: string, n: SyntaxNode): StructDef | undefined {
    const have = this.structs.get(name);
    if (have) return have;
    const node = this.lazyStructs.get(name);
    if (!node) return undefined;
    return this.defineStruct(cx, node, name);
  }

  defineStruct(cx: FnCx, node: SyntaxNode, name: string): StructDef {
    const body = node.childForFieldName('body');
    const fields: { name: string; type: CType }[] = [];
    const methods: SyntaxNode[] = [];
    // Placeholder so self-referencing pointers resolve.
    const def: StructDef = { name, fields: [], size: 0, align: 1, methods: new Map() };
    this.structs.set(name, def);
    for (const m of body ? named(body) : []) {
      if (m.type === 'field_declaration') {
        const tn = m.childForFieldName('type');
        if (!tn) continue;
        const base = this.baseType(cx, tn);
        for (const dn of m.childrenForFieldName('declarator')) {
          if (!dn) continue;
          if (dn.type === 'function_declarator') continue;
          const info = this.declarator(cx, base, dn);
          fields.push({ name: info.name, type: info.type });
        }
      } else if (m.type === 'function_definition') methods.push(m);
      else if (m.type === 'template_declaration') unsupported(`member template in struct ${name}`, m);
    }
    const laid = layoutStruct(name, fields);
    Object.assign(def, { fields: laid.fields, size: laid.size, align: laid.align });
    for (const m of methods) {
      const fd = findFunctionDeclarator(m.childForFieldName('declarator')!);
      const mn = fd ? lastName(fd.childForFieldName('declarator')!.text) : '';
      if (mn) def.methods.set(mn, { name: mn, node: m, owner: def } satisfies FnDecl);
    }
    return def;
  }

  /** The type named by a declaration's type node (before declarators). */
  baseType(cx: FnCx, n: SyntaxNode): CType {
    switch (n.type) {
      case 'primitive_type':
      case 'sized_type_specifier': {
        const text = n.text.replace(/\s+/g, ' ').trim();
        if (text === 'void') return VOID;
        const dt = PRIMS[text] ?? (n.type === 'sized_type_specifier' ? PRIMS[text.replace(/ int$/, '')] : undefined);
        if (dt) return num(dt);
        if (/^(unsigned|signed)$/.test(text)) return num(text === 'unsigned' ? 'u32' : 's32');
        return this.namedType(cx, text, n);
      }
      case 'type_identifier':
        return this.namedType(cx, n.text, n);
      case 'placeholder_type_specifier':
        return { k: 'obj', obj: 'tag', n: -1 }; // `auto`: replaced by the initialiser's type
      case 'qualified_identifier':
      case 'template_type':
        return this.namedType(cx, n.text.replace(/\s+/g, ''), n);
      case 'struct_specifier':
      case 'class_specifier': {
        const name = n.childForFieldName('name')?.text ?? `anon${lambdaIds++}`;
        if (n.childForFieldName('body')) return { k: 'struct', def: this.defineStruct(cx, n, name) };
        const d = this.structDef(cx, name, n);
        if (!d) unsupported(`struct ${name} without a definition`, n);
        return { k: 'struct', def: d };
      }
      case 'enum_specifier':
        this.enumDecl(cx, n);
        return S32;
      case 'decltype': {
        const e = named(n)[0];
        return decay(this.typeOf(cx, e));
      }
      case 'type_descriptor':
        return this.typeDescriptor(cx, n);
    }
    unsupported(`type '${n.text}'`, n);
  }

  private namedType(cx: FnCx, raw: string, n: SyntaxNode): CType {
    const text = raw.replace(/^::/, '');
    const s = this.lookup(cx, text);
    if (s?.sym.k === 'type') return s.sym.type;
    const prim = PRIMS[text] ?? PRIMS[lastName(text)];
    if (prim && !text.includes('<')) return num(prim);
    if (/^(cuda::)?(std::)?(barrier|cuda::barrier)</.test(text) || /^cuda::barrier</.test(text) || /^barrier<cuda::thread_scope/.test(text)) return { k: 'barrier' };
    if (/arrival_token$/.test(text)) return U64;
    if (/^(cooperative_groups|cg)::thread_block$/.test(text)) return { k: 'obj', obj: 'thread_block' };
    if (/^(cooperative_groups|cg)::grid_group$/.test(text)) return { k: 'obj', obj: 'grid' };
    const tp = /^(?:cooperative_groups|cg)::thread_block_tile<(\d+)>$/.exec(text);
    if (tp) return { k: 'obj', obj: 'tile', n: Number(tp[1]) };
    const as = /^(?:std::|cuda::std::)?aligned_storage<(.*)>(?:::type)?$/.exec(text);
    if (as && n.type === 'qualified_identifier') {
      const tt = findNode(n, 'template_argument_list');
      const args = tt ? named(tt) : [];
      const size = args[0] ? this.constEval(cx, args[0], U64) : 8;
      const align = args[1] ? this.constEval(cx, args[1], U64) : 8;
      const def = layoutStruct('aligned_storage', [{ name: '__data', type: { k: 'arr', of: num('u8'), n: size } }]);
      def.align = align;
      def.size = Math.ceil(size / align) * align;
      return { k: 'struct', def };
    }
    const base = text.replace(/<.*$/, '');
    const sd = this.structDef(cx, lastName(base), n) ?? this.structDef(cx, base, n);
    if (sd) return { k: 'struct', def: sd };
    unsupported(`type '${text}'`, n);
  }

  typeDescriptor(cx: FnCx, n: SyntaxNode): CType {
    if (n.type !== 'type_descriptor') return this.baseType(cx, n);
    const tn = n.childForFieldName('type')!;
    let t = this.baseType(cx, tn);
    const ad = n.childForFieldName('declarator');
    if (ad) t = this.abstractDeclarator(cx, t, ad);
    return t;
  }

  private abstractDeclarator(cx: FnCx, t: CType, d: SyntaxNode): CType {
    switch (d.type) {
      case 'abstract_pointer_declarator': {
        const inner = d.childForFieldName('declarator');
        return inner ? this.abstractDeclarator(cx, ptr(t), inner) : ptr(t);
      }
      case 'abstract_reference_declarator': {
        const inner = named(d).find((x) => x.type.startsWith('abstract_'));
        return inner ? this.abstractDeclarator(cx, t, inner) : t;
      }
      case 'abstract_array_declarator': {
        const size = d.childForFieldName('size');
        const at: CType = { k: 'arr', of: t, n: size ? this.constEval(cx, size, U64) : -1 };
        const inner = d.childForFieldName('declarator');
        return inner ? this.abstractDeclarator(cx, at, inner) : at;
      }
      case 'abstract_function_declarator':
        return t;
    }
    unsupported(`type declarator '${d.text}'`, d);
  }

  /** Applies a declarator to a base type: name, full type, reference-ness, initialiser. */
  declarator(cx: FnCx, base: CType, d: SyntaxNode): { name: string; type: CType; ref: boolean; init?: SyntaxNode; node: SyntaxNode } {
    let t = base;
    let ref = false;
    let init: SyntaxNode | undefined;
    let cur: SyntaxNode | null = d;
    while (cur) {
      switch (cur.type) {
        case 'init_declarator':
          init = cur.childForFieldName('value') ?? undefined;
          cur = cur.childForFieldName('declarator');
          continue;
        case 'pointer_declarator':
          t = ptr(t);
          cur = cur.childForFieldName('declarator');
          continue;
        case 'reference_declarator':
          ref = true;
          cur = named(cur).find((x) => x.type !== 'type_qualifier') ?? null;
          continue;
        case 'array_declarator': {
          // Collect the sizes of nested array declarators: `a[4][8]` is array_decl(array_decl(a, 4), 8).
          const sizes: (SyntaxNode | null)[] = [];
          let a: SyntaxNode | null = cur;
          while (a && a.type === 'array_declarator') {
            sizes.unshift(a.childForFieldName('size'));
            a = a.childForFieldName('declarator');
          }
          for (let i = sizes.length - 1; i >= 0; i--) {
            const s = sizes[i];
            t = { k: 'arr', of: t, n: s ? this.constEval(cx, s, U64) : -1 };
          }
          cur = a;
          continue;
        }
        case 'parenthesized_declarator':
          cur = named(cur)[0] ?? null;
          continue;
        case 'attributed_declarator':
          cur = named(cur)[0] ?? null;
          continue;
        case 'identifier':
        case 'field_identifier':
          return { name: cur.text, type: t, ref, init, node: d };
        case 'function_declarator':
          unsupported('a function declaration inside a function', cur);
          break;
        default:
          unsupported(`declarator '${cur.text}'`, cur);
      }
    }
    fail('declaration without a name', d);
  }

  // -------------------------------------------------------------- constants

  constEval(cx: FnCx, n: SyntaxNode, t?: CType): number {
    const scratch = new FnCx('<const>', cx, new Map(), cx.owner, locOf(n));
    scratch.scopes = [new Map()];
    const e = this.expr(scratch, n);
    if (e.cv === undefined) throw new SimError(`'${n.text}' is not a compile-time constant`, locOf(n), 'unsupported');
    if (t && isNum(t) && isNum(e.t)) {
      const f = convFn(e.t.dt, t.dt);
      return f ? f(e.cv) : e.cv;
    }
    return e.cv;
  }

  /** Static type of an expression without keeping its code (sizeof, decltype). */
  typeOf(cx: FnCx, n: SyntaxNode): CType {
    if (n.type === 'parenthesized_expression') return this.typeOf(cx, named(n)[0]);
    if (n.type === 'identifier' || n.type === 'type_identifier') {
      const s = this.lookup(cx, n.text);
      if (s && s.sym.k !== 'const') return s.sym.type;
      if (s) return s.sym.type;
      try {
        return this.namedType(cx, n.text, n);
      } catch {
        /* fall through */
      }
    }
    const mark = cx.code.length;
    const slots = cx.nslots;
    const e = this.expr(cx, n);
    cx.code.length = mark;
    cx.nslots = Math.max(slots, cx.nslots);
    return e.t;
  }

  // -------------------------------------------------------------- functions

  /** Compiles (once per template binding) a user function. */
  instantiate(decl: FnDecl, tbind: Map<string, CType | number>, at: SyntaxNode): FnInst {
    this.prepareFileScope();
    const key = `${decl.owner?.name ?? ''}::${decl.name}@${decl.node.startIndex}<${[...tbind].map(([k, v]) => `${k}=${typeof v === 'number' ? v : typeName(v)}`).join(',')}>`;
    const have = this.instances.get(key);
    if (have) return have;
    const fd = findFunctionDeclarator(decl.node.childForFieldName('declarator')!)!;
    const cx = new FnCx(decl.owner ? `${decl.owner.name}::${decl.name}` : decl.name, null, tbind, decl.owner, locOf(decl.node, decl.name));
    const inst: FnInst = { decl, fn: cx.fn, ret: VOID, params: [] };
    this.instances.set(key, inst);
    try {
      this.compileFunction(decl, cx, inst, fd, at);
    } catch (e) {
      this.instances.delete(key);
      throw e;
    }
    return inst;
  }

  private compileFunction(decl: FnDecl, cx: FnCx, inst: FnInst, fd: SyntaxNode, at: SyntaxNode): void {
    const tn = decl.node.childForFieldName('type');
    let ret = tn ? this.baseType(cx, tn) : VOID;
    // Pointer/reference return declarators wrap the function declarator.
    for (let d = decl.node.childForFieldName('declarator'); d && d !== fd; d = d.childForFieldName('declarator') ?? named(d)[0] ?? null) {
      if (d.type === 'pointer_declarator') ret = ptr(ret);
    }
    if (ret.k === 'obj' && ret.obj === 'tag' && ret.n === -1) {
      cx.retDeduce = true;
      ret = VOID;
    }
    cx.ret = ret;
    inst.ret = ret;
    this.scanAddressTaken(decl.node, cx.addrTaken);
    for (const p of named(fd.childForFieldName('parameters')!)) {
      if (p.type === 'variadic_parameter') unsupported('variadic function', p);
      if (p.type !== 'parameter_declaration' && p.type !== 'optional_parameter_declaration') continue;
      const ptn = p.childForFieldName('type')!;
      const base = this.baseType(cx, ptn);
      const dn = p.childForFieldName('declarator');
      if (!dn) {
        if (base.k === 'void') continue;
        inst.params.push({ name: '', type: base, ref: false });
        cx.slot();
        continue;
      }
      const info = this.declarator(cx, base, dn);
      const type = info.type.k === 'arr' && !info.ref ? ptr(info.type.of) : info.type;
      inst.params.push({ name: info.name, type, ref: info.ref });
      this.declareParam(cx, info.name, type, info.ref, p);
    }
    const body = decl.node.childForFieldName('body');
    if (!body) unsupported(`function ${decl.name} has no body`, at);
    this.block(cx, body);
    this.emitReturn(cx, undefined, body);
    inst.ret = cx.ret;
    cx.finish();
  }

  /** Parameters occupy the first slots in order (the call instruction fills them). */
  declareParam(cx: FnCx, name: string, type: CType, ref: boolean, n: SyntaxNode): void {
    const idx = cx.slot();
    const scope = cx.scopes[0];
    if (ref) {
      scope.set(name, { k: 'var', type, where: 'ref', idx, cx });
      cx.locals.push({ name, type, where: 'ref', index: idx, from: 0, to: Infinity });
      return;
    }
    if (type.k === 'struct' || type.k === 'barrier' || cx.addrTaken.has(name)) {
      // Copied into frame memory on entry by a prologue instruction.
      const m = this.memLocal(cx, name, type);
      scope.set(name, { k: 'var', type, where: 'mem', idx: m, cx });
      cx.locals.push({ name, type, where: 'mem', index: m, from: 0, to: Infinity });
      const st = this.storeFn({ k: 'mem', buf: (f) => f.mem[m], off: () => 0 }, type);
      this.emit(cx, n, (f) => {
        st(f, f.v[idx]);
        return f.pc + 1;
      }, false);
      return;
    }
    scope.set(name, { k: 'var', type, where: 'slot', idx, cx });
    cx.locals.push({ name, type, where: 'slot', index: idx, from: 0, to: Infinity });
  }

  memLocal(cx: FnCx, name: string, type: CType): number {
    cx.mem.push({ name, size: Math.max(1, sizeOfType(type)) });
    return cx.mem.length - 1;
  }

  /**
   * Names whose address is taken (`&x`) or that are bound to a reference (a `T&` parameter of a
   * user function, `T& r = x`): they live in frame memory instead of a slot.
   */
  scanAddressTaken(n: SyntaxNode, out: Set<string>): void {
    if (n.type === 'pointer_expression' && n.childForFieldName('operator')?.text === '&') {
      const a = n.childForFieldName('argument');
      if (a?.type === 'identifier') out.add(a.text);
    }
    if (n.type === 'call_expression') {
      const fnNode = n.childForFieldName('function');
      const name = fnNode ? lastName(fnNode.text.replace(/\s+/g, '').replace(/<.*$/, '')) : '';
      const decls = this.functions.get(name) ?? [];
      const args = named(n.childForFieldName('arguments')!);
      args.forEach((a, i) => {
        if (a.type !== 'identifier') return;
        for (const d of decls) {
          const fd = findFunctionDeclarator(d.node.childForFieldName('declarator')!);
          const p = fd ? named(fd.childForFieldName('parameters')!).filter((x) => x.type === 'parameter_declaration' || x.type === 'optional_parameter_declaration')[i] : undefined;
          if (p && /&/.test(p.childForFieldName('declarator')?.text ?? '') && !/&&/.test(p.childForFieldName('declarator')?.text ?? '')) out.add(a.text);
        }
      });
    }
    if (n.type === 'declaration') {
      for (const d of n.childrenForFieldName('declarator')) {
        if (d?.type !== 'init_declarator') continue;
        const inner = d.childForFieldName('declarator');
        const v = d.childForFieldName('value');
        if (inner?.type === 'reference_declarator' && v?.type === 'identifier') out.add(v.text);
      }
    }
    for (const c of named(n)) this.scanAddressTaken(c, out);
  }

  // -------------------------------------------------------------- instruction emission

  emit(cx: FnCx, n: SyntaxNode, run: (f: Frame) => number, stmt = true): Instr {
    const ins: Instr = { run, loc: locOf(n, cx.name), stmt, target: -1, site: -1 };
    cx.code.push(ins);
    return ins;
  }

  /** An instruction that evaluates `ev` for its effect and falls through. */
  emitExec(cx: FnCx, n: SyntaxNode, ev: Fn): void {
    const next = cx.code.length + 1;
    this.emit(cx, n, (f) => {
      ev(f);
      return next;
    });
  }

  emitJump(cx: FnCx, n: SyntaxNode): Instr {
    const ins: Instr = { run: () => ins.target, loc: locOf(n, cx.name), stmt: false, target: -1, site: -1 };
    cx.code.push(ins);
    return ins;
  }

  emitBranchFalse(cx: FnCx, n: SyntaxNode, cond: Fn): Instr {
    const next = cx.code.length + 1;
    const ins: Instr = { run: (f) => (cond(f) ? next : ins.target), loc: locOf(n, cx.name), stmt: true, target: -1, site: -1 };
    cx.code.push(ins);
    return ins;
  }

  emitBranchTrue(cx: FnCx, n: SyntaxNode, cond: Fn, target: number): void {
    const next = cx.code.length + 1;
    this.emit(cx, n, (f) => (cond(f) ? target : next));
  }

  /**
   * A blocking operation as its own instruction: `op(f)` returns undefined while the thread must
   * wait (it has been blocked by a machine service) and the value otherwise; the value lands in a
   * temp slot the expression reads.
   */
  emitBlocking(cx: FnCx, n: SyntaxNode, t: CType, op: (f: Frame) => unknown): Ex {
    const dst = cx.slot();
    const next = cx.code.length + 1;
    this.emit(cx, n, (f) => {
      const v = op(f);
      if (v === undefined) return BLOCKED;
      f.v[dst] = v;
      return next;
    });
    return { t, ev: (f) => f.v[dst], pure: true };
  }

  /** Evaluates `e` now into a temp (so a following blocking instruction can re-run without side effects). */
  toTemp(cx: FnCx, n: SyntaxNode, e: Ex): Ex {
    if (e.cv !== undefined || e.pure) return e;
    const dst = cx.slot();
    const ev = e.ev;
    this.emitExec(cx, n, (f) => (f.v[dst] = ev(f)));
    return { t: e.t, ev: (f) => f.v[dst], pure: true, str: e.str };
  }

  emitReturn(cx: FnCx, value: Fn | undefined, n: SyntaxNode): void {
    this.emit(cx, n, (f) => {
      const v = value ? value(f) : undefined;
      const c = f.caller;
      f.ts.frame = c as Frame;
      if (c && f.retSlot >= 0) c.v[f.retSlot] = v;
      return FRAME;
    });
  }

  /** Calls a user function or lambda: arguments evaluated, frame pushed; the result lands in a temp. */
  emitCall(cx: FnCx, n: SyntaxNode, target: { fn: () => CompiledFn; ret: CType; params: { type: CType; ref: boolean }[] }, args: Ex[], self?: Fn, env?: Fn): Ex {
    const dst = cx.slot();
    const argFns = args.map((a, i) => {
      const p = target.params[i];
      if (!p) return a.ev;
      if (p.ref) return this.addressOf(a, n);
      return this.convertTo(a, p.type, n).ev;
    });
    const nargs = argFns.length;
    const next = cx.code.length + 1;
    this.emit(cx, n, (f) => {
      const nf = new Frame(target.fn(), f.ts, f);
      for (let i = 0; i < nargs; i++) nf.v[i] = argFns[i](f);
      if (self) nf.self = self(f);
      if (env) nf.env = env(f);
      nf.retSlot = dst;
      f.pc = next;
      f.ts.frame = nf;
      return FRAME;
    });
    return { t: target.ret, ev: (f) => f.v[dst], pure: true };
  }

  // -------------------------------------------------------------- statements

  block(cx: FnCx, n: SyntaxNode): void {
    cx.scopes.push(new Map());
    const start = cx.code.length;
    for (const s of named(n)) this.stmt(cx, s);
    this.closeScope(cx, start);
  }

  private closeScope(cx: FnCx, _start: number): void {
    cx.scopes.pop();
    const end = cx.code.length;
    for (const l of cx.locals) if (l.to === Infinity && l.from >= _start && !cx.scopes.some((s) => [...s.values()].some((v) => v.k === 'var' && v.idx === l.index && v.where === l.where))) l.to = end;
  }

  stmt(cx: FnCx, n: SyntaxNode): void {
    switch (n.type) {
      case 'compound_statement':
        this.block(cx, n);
        return;
      case 'declaration':
        this.declaration(cx, n);
        return;
      case 'expression_statement': {
        const e = named(n)[0];
        if (!e) return;
        const x = this.expr(cx, e);
        if (!x.pure && x.cv === undefined) this.emitExec(cx, n, x.ev);
        return;
      }
      case 'if_statement': {
        if (named(n).some((c) => c.text === 'constexpr')) {
          /* if constexpr: treated as a plain if */
        }
        const cond = this.condition(cx, n.childForFieldName('condition')!);
        const cons = n.childForFieldName('consequence')!;
        const alt = n.childForFieldName('alternative');
        if (cond.cv !== undefined) {
          // Constant condition: compile only the live branch (template-dependent code).
          if (cond.cv) this.scoped(cx, cons);
          else if (alt) this.scoped(cx, named(alt)[0] ?? alt);
          return;
        }
        const br = this.emitBranchFalse(cx, n, cond.ev);
        this.scoped(cx, cons);
        if (alt) {
          const j = this.emitJump(cx, alt);
          br.target = cx.code.length;
          this.scoped(cx, named(alt)[0] ?? alt);
          j.target = cx.code.length;
        } else br.target = cx.code.length;
        return;
      }
      case 'while_statement': {
        const top = cx.code.length;
        const condNode = n.childForFieldName('condition')!;
        const saved = cx.retryProbe;
        cx.retryProbe = retriedProbe(condNode);
        const cond = this.condition(cx, condNode);
        cx.retryProbe = saved;
        const br = this.emitBranchFalse(cx, n, cond.ev);
        const loop = { brk: [] as Instr[], cont: [] as Instr[], sw: false };
        cx.loops.push(loop);
        this.scoped(cx, n.childForFieldName('body')!);
        cx.loops.pop();
        const j = this.emitJump(cx, n);
        j.target = top;
        br.target = cx.code.length;
        for (const b of loop.brk) b.target = cx.code.length;
        for (const c of loop.cont) c.target = top;
        return;
      }
      case 'do_statement': {
        const top = cx.code.length;
        const loop = { brk: [] as Instr[], cont: [] as Instr[], sw: false };
        cx.loops.push(loop);
        this.scoped(cx, n.childForFieldName('body')!);
        cx.loops.pop();
        const contAt = cx.code.length;
        const condNode = n.childForFieldName('condition')!;
        const saved = cx.retryProbe;
        cx.retryProbe = retriedProbe(condNode);
        const cond = this.expr(cx, condNode);
        cx.retryProbe = saved;
        this.emitBranchTrue(cx, condNode, this.truth(cond, condNode), top);
        for (const b of loop.brk) b.target = cx.code.length;
        for (const c of loop.cont) c.target = contAt;
        return;
      }
      case 'for_statement': {
        cx.scopes.push(new Map());
        const start = cx.code.length;
        const init = n.childForFieldName('initializer');
        if (init) {
          if (init.type === 'declaration') this.declaration(cx, init);
          else {
            const e = this.expr(cx, init);
            if (!e.pure && e.cv === undefined) this.emitExec(cx, init, e.ev);
          }
        }
        const top = cx.code.length;
        const condNode = n.childForFieldName('condition');
        let br: Instr | undefined;
        if (condNode) {
          const cond = this.expr(cx, condNode);
          if (cond.cv === undefined || !cond.cv) br = this.emitBranchFalse(cx, condNode, this.truth(cond, condNode));
        }
        const loop = { brk: [] as Instr[], cont: [] as Instr[], sw: false };
        cx.loops.push(loop);
        this.scoped(cx, n.childForFieldName('body')!);
        cx.loops.pop();
        const contAt = cx.code.length;
        const upd = n.childForFieldName('update');
        if (upd) {
          const e = this.expr(cx, upd);
          if (!e.pure && e.cv === undefined) this.emitExec(cx, upd, e.ev);
        }
        const j = this.emitJump(cx, n);
        j.target = top;
        if (br) br.target = cx.code.length;
        for (const b of loop.brk) b.target = cx.code.length;
        for (const c of loop.cont) c.target = contAt;
        this.closeScope(cx, start);
        return;
      }
      case 'for_range_loop':
        unsupported('range-based for loop', n);
        break;
      case 'break_statement': {
        const l = cx.loops[cx.loops.length - 1];
        if (!l) fail('break outside a loop or switch', n);
        l.brk.push(this.emitJump(cx, n));
        return;
      }
      case 'continue_statement': {
        let l: (typeof cx.loops)[number] | undefined;
        for (let i = cx.loops.length - 1; i >= 0; i--)
          if (!cx.loops[i].sw) {
            l = cx.loops[i];
            break;
          }
        if (!l) fail('continue outside a loop', n);
        // A continue is a statement of its own (the debugger stops on it).
        const ins = this.emitJump(cx, n);
        ins.stmt = true;
        l.cont.push(ins);
        return;
      }
      case 'return_statement': {
        const v = named(n)[0];
        if (!v) {
          this.emitReturn(cx, undefined, n);
          return;
        }
        const e = this.expr(cx, v);
        if (cx.retDeduce && cx.ret.k === 'void') cx.ret = decay(e.t);
        const ev = cx.ret.k === 'void' ? e.ev : this.convertTo(e, cx.ret, v).ev;
        this.emitReturn(cx, ev, n);
        return;
      }
      case 'switch_statement':
        this.switchStmt(cx, n);
        return;
      case 'type_definition':
      case 'alias_declaration':
        this.typeDecl(cx, n);
        return;
      case 'static_assert_declaration':
      case 'using_declaration':
      case 'namespace_alias_definition':
      case 'comment':
        return;
      case 'preproc_call':
      case 'preproc_def':
      case 'preproc_function_def':
        return; // #pragma unroll, nv_diag_suppress …
      case 'labeled_statement': {
        // Labels without goto are harmless; goto is unsupported.
        const s = named(n).filter((c) => c.type !== 'statement_identifier');
        for (const c of s) this.stmt(cx, c);
        return;
      }
      case 'goto_statement':
        unsupported('goto', n);
        break;
      case 'struct_specifier':
      case 'class_specifier':
        this.baseType(cx, n);
        return;
      case 'enum_specifier':
        this.enumDecl(cx, n);
        return;
      case 'ERROR':
        fail(`syntax error near '${n.text.slice(0, 40)}'`, n);
        break;
      case 'try_statement':
      case 'throw_statement':
        unsupported('exceptions', n);
        break;
      default:
        unsupported(`statement '${n.type}'`, n);
    }
  }

  /** A sub-statement with its own scope. */
  private scoped(cx: FnCx, n: SyntaxNode): void {
    if (n.type === 'compound_statement') return this.block(cx, n);
    cx.scopes.push(new Map());
    const s = cx.code.length;
    this.stmt(cx, n);
    this.closeScope(cx, s);
  }

  private condition(cx: FnCx, n: SyntaxNode): Ex {
    // condition_clause / parenthesized_expression
    let inner = n;
    if (n.type === 'condition_clause' || n.type === 'parenthesized_expression') {
      const v = n.childForFieldName('value') ?? named(n)[0];
      if (v?.type === 'declaration') unsupported('a declaration in a condition', v);
      inner = v!;
    }
    const e = this.expr(cx, inner);
    return { t: BOOL, ev: this.truth(e, inner), cv: e.cv !== undefined ? (e.cv ? 1 : 0) : undefined };
  }

  truth(e: Ex, n: SyntaxNode): Fn {
    const ev = e.ev;
    if (e.t.k === 'ptr') return (f) => (ev(f) ? 1 : 0);
    if (!isNum(e.t)) unsupported(`a ${typeName(e.t)} used as a condition`, n);
    return ev;
  }

  private switchStmt(cx: FnCx, n: SyntaxNode): void {
    const cond = this.condition(cx, n.childForFieldName('condition')!);
    const body = n.childForFieldName('body')!;
    const tmp = cx.slot();
    const cev = cond.ev;
    this.emitExec(cx, n, (f) => (f.v[tmp] = cev(f)));
    const cases = named(body).filter((c) => c.type === 'case_statement');
    const jumps: { ins: Instr; c: SyntaxNode }[] = [];
    for (const c of cases) {
      const v = c.childForFieldName('value');
      if (!v) continue;
      const val = this.constEval(cx, v);
      const next = cx.code.length + 1;
      const ins: Instr = { run: (f) => (f.v[tmp] === val ? ins.target : next), loc: locOf(c, cx.name), stmt: false, target: -1, site: -1 };
      cx.code.push(ins);
      jumps.push({ ins, c });
    }
    const dflt = this.emitJump(cx, n);
    const loop = { brk: [] as Instr[], cont: [] as Instr[], sw: true };
    cx.loops.push(loop);
    cx.scopes.push(new Map());
    let sawDefault = false;
    for (const c of named(body)) {
      if (c.type !== 'case_statement') {
        this.stmt(cx, c);
        continue;
      }
      const at = cx.code.length;
      for (const j of jumps) if (j.c.startIndex === c.startIndex) j.ins.target = at;
      if (!c.childForFieldName('value')) {
        dflt.target = at;
        sawDefault = true;
      }
      const v = c.childForFieldName('value');
      for (const s of named(c)) if (!v || s.startIndex !== v.startIndex) this.stmt(cx, s);
    }
    cx.scopes.pop();
    cx.loops.pop();
    if (!sawDefault) dflt.target = cx.code.length;
    for (const b of loop.brk) b.target = cx.code.length;
  }

  // -------------------------------------------------------------- declarations

  declaration(cx: FnCx, n: SyntaxNode): void {
    const quals = declQualifiers(n);
    const tn = n.childForFieldName('type');
    if (!tn) fail('declaration without a type', n);
    const base = this.baseType(cx, tn);
    for (const dn of n.childrenForFieldName('declarator')) {
      if (!dn) continue;
      if (dn.type === 'function_declarator') continue;
      const info = this.declarator(cx, base, dn);
      this.declareVar(cx, info, quals, n);
    }
  }

  declareVar(cx: FnCx, info: { name: string; type: CType; ref: boolean; init?: SyntaxNode }, quals: DeclQuals, n: SyntaxNode): void {
    const scope = cx.scopes[cx.scopes.length - 1];
    let type = info.type;
    const isAuto = type.k === 'obj' && type.obj === 'tag' && type.n === -1;
    if (quals.shared) {
      if (info.init) unsupported('an initialiser on a __shared__ variable', n);
      if (quals.extern || (type.k === 'arr' && type.n < 0)) {
        this.usesDynamicShared = true;
        scope.set(info.name, { k: 'dyn', type });
        return;
      }
      const idx = this.shared.length;
      this.shared.push({ name: info.name, type, align: Math.max(quals.align ?? 0, alignOfType(type)) });
      scope.set(info.name, { k: 'shared', type, idx });
      return;
    }
    if (quals.static && !quals.constexpr && !quals.const) unsupported(`static local variable '${info.name}'`, n);
    // Initialiser first: `int x = x + 1` sees the outer x, and `auto` needs the type.
    let init: Ex | undefined;
    const initNode = info.init;
    if (initNode && initNode.type !== 'initializer_list' && initNode.type !== 'argument_list') {
      init = this.expr(cx, initNode);
      if (isAuto) type = decay(init.t);
    } else if (isAuto) {
      if (initNode?.type === 'initializer_list' && named(initNode).length === 1) {
        init = this.expr(cx, named(initNode)[0]);
        type = decay(init.t);
      } else fail(`cannot deduce the type of '${info.name}'`, n);
    }
    if (info.ref) {
      if (!init) fail(`reference '${info.name}' without an initialiser`, n);
      const idx = cx.slot();
      const addr = this.addressOf(init, initNode!);
      this.emitExec(cx, n, (f) => (f.v[idx] = addr(f)));
      scope.set(info.name, { k: 'var', type, where: 'ref', idx, cx });
      cx.locals.push({ name: info.name, type, where: 'ref', index: idx, from: cx.code.length, to: Infinity });
      return;
    }
    if ((quals.constexpr || quals.const) && init?.cv !== undefined && isNum(type) && !cx.addrTaken.has(info.name)) {
      const v = this.convertTo(init, type, n).ev;
      scope.set(info.name, { k: 'const', type, value: v(null as unknown as Frame) });
      return;
    }
    const inMem = type.k === 'arr' || type.k === 'struct' || type.k === 'barrier' || cx.addrTaken.has(info.name);
    if (type.k === 'arr' && type.n < 0) {
      if (initNode?.type === 'initializer_list') type = { k: 'arr', of: type.of, n: named(initNode).length };
      else fail(`array '${info.name}' without a size`, n);
    }
    if (inMem) {
      const m = this.memLocal(cx, info.name, type);
      const lv: LV = { k: 'mem', buf: (f) => f.mem[m], off: () => 0 };
      if (initNode?.type === 'initializer_list' || initNode?.type === 'argument_list') this.initAggregate(cx, lv, type, initNode, n);
      else if (init) {
        const st = this.storeFn(lv, type);
        const v = this.convertTo(init, type, initNode!).ev;
        this.emitExec(cx, n, (f) => st(f, v(f)));
      }
      scope.set(info.name, { k: 'var', type, where: 'mem', idx: m, cx });
      cx.locals.push({ name: info.name, type, where: 'mem', index: m, from: cx.code.length, to: Infinity });
      return;
    }
    const idx = cx.slot();
    if (initNode?.type === 'initializer_list' || initNode?.type === 'argument_list') {
      const items = named(initNode);
      if (items.length > 1) fail(`too many initialisers for '${info.name}'`, initNode);
      init = items.length ? this.expr(cx, items[0]) : { t: type, ev: () => (type.k === 'ptr' ? null : 0), cv: 0 };
    }
    if (init) {
      const v = this.convertTo(init, type, initNode!).ev;
      this.emitExec(cx, n, (f) => (f.v[idx] = v(f)));
    } else {
      const zero = type.k === 'ptr' ? null : 0;
      this.emitExec(cx, n, (f) => (f.v[idx] = zero));
    }
    scope.set(info.name, { k: 'var', type, where: 'slot', idx, cx });
    cx.locals.push({ name: info.name, type, where: 'slot', index: idx, from: cx.code.length, to: Infinity });
  }

  /** Brace (or constructor-argument) initialisation of an array or struct in memory. */
  initAggregate(cx: FnCx, lv: LV & { k: 'mem' }, type: CType, init: SyntaxNode, n: SyntaxNode): void {
    const flat: { off: number; t: CType; node: SyntaxNode }[] = [];
    if (type.k === 'barrier') unsupported('constructing a cuda::barrier with arguments (use init())', n);
    if (type.k === 'struct' && init.type === 'argument_list' && named(init).length === 1) {
      const e = this.expr(cx, named(init)[0]);
      const st = this.storeFn(lv, type);
      const v = this.convertTo(e, type, init).ev;
      this.emitExec(cx, n, (f) => st(f, v(f)));
      return;
    }
    flattenInit(this, cx, type, init, 0, flat);
    const size = sizeOfType(type);
    const buf = lv.buf;
    const stores = flat.map((e) => {
      const x = this.expr(cx, e.node);
      const off = e.off;
      const st = this.storeFn({ k: 'mem', buf, off: () => off }, e.t);
      const v = this.convertTo(x, e.t, e.node).ev;
      return (f: Frame) => st(f, v(f));
    });
    this.emitExec(cx, n, (f) => {
      buf(f).bytes.fill(0, 0, size);
      for (const s of stores) s(f);
    });
  }

  // -------------------------------------------------------------- lvalues

  /** Reads a value of type `t` from an lvalue. */
  loadFn(lv: LV, t: CType): Fn {
    if (lv.k === 'slot') return slotReader(lv.depth, lv.idx);
    const B = lv.buf;
    const O = lv.off;
    switch (t.k) {
      case 'num': {
        const ld = loader(t.dt);
        const size = sizeOfType(t);
        return (f) => {
          const b = B(f);
          const o = O(f);
          const v = ld(b, o);
          if (b.space === 'shared' && f.ts.race) f.ts.m.access(f.ts.t, b, o, size, false);
          return v;
        };
      }
      case 'ptr':
        return (f) => loadPointer(B(f), O(f));
      case 'arr':
      case 'struct':
      case 'barrier':
        return (f) => ({ buf: B(f), offset: O(f) });
      default:
        unsupported(`a ${typeName(t)} stored in memory`, undefined as unknown as SyntaxNode);
    }
  }

  /** Writes a value of type `t` into an lvalue. */
  storeFn(lv: LV, t: CType): (f: Frame, v: any) => void {
    if (lv.k === 'slot') {
      const { depth, idx } = lv;
      if (depth === 0) return (f, v) => (f.v[idx] = v);
      return (f, v) => (envOf(f, depth).v[idx] = v);
    }
    const B = lv.buf;
    const O = lv.off;
    switch (t.k) {
      case 'num': {
        const st = storer(t.dt);
        const size = sizeOfType(t);
        return (f, v) => {
          const b = B(f);
          const o = O(f);
          st(b, o, v);
          if (b.space === 'shared' && f.ts.race) f.ts.m.access(f.ts.t, b, o, size, true);
        };
      }
      case 'ptr':
        return (f, v) => storePointer(B(f), O(f), v);
      case 'arr':
      case 'struct':
      case 'barrier': {
        const size = sizeOfType(t);
        return (f, v: Pointer) => {
          const b = B(f);
          const o = O(f);
          if (!v) throw new SimError('copy from a null pointer');
          if (o < 0 || o + size > b.size) throw new SimError(`struct copy out of bounds of '${b.name}'`, undefined, 'oob');
          b.bytes.set(v.buf.bytes.subarray(v.offset, v.offset + size), o);
          if (b.space === 'shared' && f.ts.race) f.ts.m.access(f.ts.t, b, o, size, true);
        };
      }
      default:
        return () => {
          throw new SimError(`cannot store a ${typeName(t)} in memory`, undefined, 'unsupported');
        };
    }
  }

  /** Pointer to an lvalue (`&x`, reference binding). */
  addressOf(e: Ex, n: SyntaxNode): Fn {
    if (!e.lv) {
      if (e.t.k === 'struct' || e.t.k === 'arr' || e.t.k === 'barrier') return e.ev; // rvalue aggregate: its storage
      // A reference to a temporary: materialise it in a fresh local buffer.
      if (isNum(e.t)) {
        const t = e.t;
        const st = storer(t.dt);
        const ev = e.ev;
        return (f) => {
          const b = new Buffer(f.ts.ex.nextBufferId(), 'temporary', 'local', sizeOfType(t));
          st(b, 0, ev(f));
          return { buf: b, offset: 0 };
        };
      }
      fail(`cannot take the address of '${n.text}'`, n);
    }
    const lv = e.lv;
    if (lv.k === 'slot') unsupported(`taking the address of '${n.text}' (a register variable)`, n);
    const B = lv.buf;
    const O = lv.off;
    return (f) => ({ buf: B(f), offset: O(f) });
  }

  // -------------------------------------------------------------- conversions

  convertTo(e: Ex, t: CType, n: SyntaxNode): Ex {
    const from = e.t;
    if (t.k === 'void') return e;
    if (isNum(t)) {
      if (isNum(from)) {
        const c = convFn(from.dt, t.dt);
        if (!c) return { ...e, t, lv: undefined };
        const ev = e.ev;
        const out: Ex = { t, ev: (f) => c(ev(f)) };
        if (e.cv !== undefined) out.cv = c(e.cv);
        if (out.cv !== undefined) {
          const k = out.cv;
          out.ev = () => k;
        }
        return out;
      }
      if (from.k === 'ptr' || from.k === 'arr') {
        const ev = from.k === 'arr' ? this.decayFn(e) : e.ev;
        if (t.dt === 'bool') return { t, ev: (f) => (ev(f) ? 1 : 0) };
        return { t, ev: (f) => genericAddress(f.ts.ex, ev(f)) };
      }
      if (from.k === 'obj' && from.obj === 'nullptr') return { t, ev: () => 0, cv: 0 };
      unsupported(`conversion from ${typeName(from)} to ${typeName(t)}`, n);
    }
    if (t.k === 'ptr') {
      if (from.k === 'ptr') return { t, ev: e.ev };
      if (from.k === 'arr') return { t, ev: this.decayFn(e) };
      if (from.k === 'obj' && from.obj === 'nullptr') return { t, ev: () => null };
      if (isNum(from)) {
        if (e.cv === 0) return { t, ev: () => null };
        const ev = e.ev;
        return { t, ev: (f) => fromGenericAddress(f.ts.ex, ev(f)) };
      }
      unsupported(`conversion from ${typeName(from)} to ${typeName(t)}`, n);
    }
    if (t.k === 'struct' || t.k === 'barrier' || t.k === 'arr') {
      if (from.k === t.k && (t.k !== 'struct' || (from as typeof t).def === t.def)) return e;
      if (t.k === 'struct' && from.k === 'struct' && from.def.size === t.def.size) return e;
      unsupported(`conversion from ${typeName(from)} to ${typeName(t)}`, n);
    }
    return e;
  }

  decayFn(e: Ex): Fn {
    if (e.lv?.k === 'mem') {
      const B = e.lv.buf;
      const O = e.lv.off;
      return (f) => ({ buf: B(f), offset: O(f) });
    }
    return e.ev;
  }

  /** Rvalue with arrays decayed to pointers. */
  rv(e: Ex): Ex {
    if (e.t.k === 'arr') return { t: ptr(e.t.of), ev: this.decayFn(e) };
    return e;
  }

  // -------------------------------------------------------------- expressions

  expr(cx: FnCx, n: SyntaxNode): Ex {
    switch (n.type) {
      case 'number_literal':
        return numberLiteral(n);
      case 'char_literal': {
        const c = n.text.slice(1, -1);
        const v = c.startsWith('\\') ? ({ n: 10, t: 9, '0': 0, '\\': 92, "'": 39, r: 13 } as Record<string, number>)[c[1]] ?? c.charCodeAt(1) : c.charCodeAt(0);
        return { t: num('s8'), ev: () => v, cv: v };
      }
      case 'true':
        return { t: BOOL, ev: () => 1, cv: 1 };
      case 'false':
        return { t: BOOL, ev: () => 0, cv: 0 };
      case 'null':
      case 'nullptr':
        return { t: { k: 'obj', obj: 'nullptr' }, ev: () => null, cv: 0 };
      case 'string_literal':
      case 'concatenated_string': {
        const s = stringValue(n);
        return { t: { k: 'obj', obj: 'string' }, ev: () => s, str: s };
      }
      case 'parenthesized_expression':
        return this.expr(cx, named(n)[0]);
      case 'identifier':
        return this.identifier(cx, n);
      case 'qualified_identifier':
        return this.qualified(cx, n);
      case 'this':
        if (!cx.owner) fail("'this' outside a member function", n);
        return { t: ptr({ k: 'struct', def: cx.owner }), ev: (f) => selfOf(f) };
      case 'field_expression':
        return this.field(cx, n);
      case 'subscript_expression':
        return this.subscript(cx, n);
      case 'pointer_expression':
        return this.pointerExpr(cx, n);
      case 'unary_expression':
        return this.unary(cx, n);
      case 'binary_expression':
        return this.binary(cx, n);
      case 'update_expression':
        return this.update(cx, n);
      case 'assignment_expression':
        return this.assignment(cx, n);
      case 'conditional_expression':
        return this.conditional(cx, n);
      case 'comma_expression': {
        const l = this.expr(cx, n.childForFieldName('left')!);
        const r = this.expr(cx, n.childForFieldName('right')!);
        const a = l.ev;
        const b = r.ev;
        return { t: r.t, ev: (f) => (a(f), b(f)), lv: undefined };
      }
      case 'cast_expression': {
        const t = this.typeDescriptor(cx, n.childForFieldName('type')!);
        return this.cast(cx, t, this.expr(cx, n.childForFieldName('value')!), n);
      }
      case 'sizeof_expression': {
        const tn = n.childForFieldName('type');
        const vn = n.childForFieldName('value') ?? named(n)[0];
        const t = tn ? this.typeDescriptor(cx, tn) : this.typeOf(cx, vn);
        const v = sizeOfType(t);
        return { t: U64, ev: () => v, cv: v };
      }
      case 'alignof_expression': {
        const tn = named(n)[0];
        const t = tn.type === 'type_descriptor' ? this.typeDescriptor(cx, tn) : this.typeOf(cx, tn);
        const v = alignOfType(t);
        return { t: U64, ev: () => v, cv: v };
      }
      case 'call_expression':
        return this.call(cx, n);
      case 'lambda_expression':
        return this.lambda(cx, n);
      case 'initializer_list': {
        const items = named(n);
        if (items.length === 1) return this.expr(cx, items[0]);
        unsupported('a brace list used as a value', n);
        break;
      }
      case 'new_expression':
        return compileBuiltinCall(this, cx, 'operator new', [], n) ?? unsupported('new', n);
      case 'gnu_asm_expression':
        return compileBuiltinCall(this, cx, 'asm', [], n) ?? unsupported('asm', n);
      case 'template_function':
        unsupported(`template function '${n.text}' used as a value`, n);
        break;
      case 'ERROR':
        fail(`syntax error near '${n.text.slice(0, 40)}'`, n);
        break;
      case 'user_defined_literal':
      case 'compound_literal_expression':
      case 'delete_expression':
      case 'throw_expression':
      default:
        unsupported(`expression '${n.type}'`, n);
    }
  }

  private identifier(cx: FnCx, n: SyntaxNode): Ex {
    const name = n.text;
    const r = this.lookup(cx, name);
    if (r) return this.symbolEx(cx, r.sym, r.depth, name, n);
    if (cx.owner || hasOwner(cx)) {
      const owner = ownerOf(cx)!;
      const fld = owner.def.fields.find((x) => x.name === name);
      if (fld) {
        const d = owner.depth;
        const off = fld.offset;
        const lv: LV = { k: 'mem', buf: (f) => selfOf(envOf(f, d)).buf, off: (f) => selfOf(envOf(f, d)).offset + off };
        return { t: fld.type, ev: this.loadFn(lv, fld.type), lv };
      }
    }
    const special = builtinIdentifier(name);
    if (special) return special;
    if (this.functions.has(name)) unsupported(`function '${name}' used as a value`, n);
    fail(`unknown identifier '${name}'`, n);
  }

  symbolEx(cx: FnCx, s: Sym, depth: number, name: string, n: SyntaxNode): Ex {
    switch (s.k) {
      case 'const': {
        const v = s.value;
        return { t: s.type, ev: () => v, cv: v };
      }
      case 'var': {
        if (s.where === 'slot') {
          const lv: LV = { k: 'slot', depth, idx: s.idx };
          return { t: s.type, ev: slotReader(depth, s.idx), lv };
        }
        if (s.where === 'mem') {
          const m = s.idx;
          const lv: LV = depth === 0 ? { k: 'mem', buf: (f) => f.mem[m], off: () => 0 } : { k: 'mem', buf: (f) => envOf(f, depth).mem[m], off: () => 0 };
          return { t: s.type, ev: this.loadFn(lv, s.type), lv };
        }
        const rd = slotReader(depth, s.idx);
        const lv: LV = {
          k: 'mem',
          buf: (f) => {
            const p = rd(f) as Pointer | null;
            if (!p) throw new SimError(`reference '${name}' is null`);
            return p.buf;
          },
          off: (f) => (rd(f) as Pointer).offset,
        };
        return { t: s.type, ev: this.loadFn(lv, s.type), lv };
      }
      case 'shared': {
        const i = s.idx;
        const lv: LV = { k: 'mem', buf: (f) => f.ts.blk.shared[i], off: () => 0 };
        return { t: s.type, ev: this.loadFn(lv, s.type), lv };
      }
      case 'dyn': {
        const lv: LV = { k: 'mem', buf: (f) => f.ts.blk.dynamic, off: () => 0 };
        return { t: s.type, ev: this.loadFn(lv, s.type), lv };
      }
      case 'global': {
        const p = s.p;
        const lv: LV = { k: 'mem', buf: () => p.buf, off: () => 0 };
        return { t: s.type, ev: this.loadFn(lv, s.type), lv };
      }
      case 'type':
        fail(`type '${name}' used as a value`, n);
    }
  }

  private qualified(cx: FnCx, n: SyntaxNode): Ex {
    const text = n.text.replace(/\s+/g, '').replace(/^::/, '');
    const r = this.lookup(cx, text);
    if (r) return this.symbolEx(cx, r.sym, r.depth, text, n);
    // cuda::ptx tags (sem_release, scope_cta, space_shared …) select overloads; they carry no value.
    if (/(^|::)(sem|scope|space|op|kind|dst|src|cta_group)_\w+$/.test(text)) return { t: { k: 'obj', obj: 'tag' }, ev: () => text, str: lastName(text) };
    const last = lastName(text);
    const r2 = this.lookup(cx, last);
    if (r2 && (r2.sym.k === 'const' || r2.sym.k === 'global')) return this.symbolEx(cx, r2.sym, r2.depth, last, n);
    const special = builtinIdentifier(text) ?? builtinIdentifier(last);
    if (special) return special;
    fail(`unknown name '${text}'`, n);
  }

  private field(cx: FnCx, n: SyntaxNode): Ex {
    const arg = n.childForFieldName('argument')!;
    const fname = n.childForFieldName('field')!.text;
    const arrow = n.childForFieldName('operator')?.text === '->';
    if (!arrow && arg.type === 'identifier' && /^(threadIdx|blockIdx|blockDim|gridDim)$/.test(arg.text) && !this.lookup(cx, arg.text)) {
      const e = dim3Field(arg.text, fname);
      if (e) return e;
      fail(`${arg.text} has no field '${fname}'`, n);
    }
    const base = this.expr(cx, arg);
    let st: CType;
    let B: Fn;
    let O: Fn;
    if (arrow) {
      const pt = this.rv(base).t;
      if (pt.k !== 'ptr') fail(`'->' on a ${typeName(pt)}`, n);
      st = pt.to;
      const pv = this.rv(base).ev;
      B = (f) => {
        const p = pv(f) as Pointer | null;
        if (!p) throw new SimError(`null pointer dereference in '${n.text}'`);
        return p.buf;
      };
      O = (f) => (pv(f) as Pointer).offset;
      if (st.k === 'struct') {
        const fld = st.def.fields.find((x) => x.name === fname);
        if (!fld) fail(`${st.def.name} has no field '${fname}'`, n);
        const fo = fld.offset;
        // One pointer evaluation per access.
        const lv: LV = { k: 'mem', buf: B, off: (f) => (pv(f) as Pointer).offset + fo };
        return { t: fld.type, ev: this.loadFn(lv, fld.type), lv };
      }
    } else {
      st = base.t;
      if (st.k === 'struct') {
        const fld = st.def.fields.find((x) => x.name === fname);
        if (!fld) fail(`${st.def.name} has no field '${fname}'`, n);
        const fo = fld.offset;
        if (base.lv?.k === 'mem') {
          const bb = base.lv.buf;
          const bo = base.lv.off;
          const lv: LV = { k: 'mem', buf: bb, off: (f) => bo(f) + fo };
          return { t: fld.type, ev: this.loadFn(lv, fld.type), lv };
        }
        // Rvalue struct (a call's result): its storage pointer.
        const pv = base.ev;
        const lv: LV = { k: 'mem', buf: (f) => (pv(f) as Pointer).buf, off: (f) => (pv(f) as Pointer).offset + fo };
        return { t: fld.type, ev: this.loadFn(lv, fld.type), lv };
      }
    }
    fail(`'${fname}' is not a field of ${typeName(st)} (methods must be called)`, n);
  }

  private subscript(cx: FnCx, n: SyntaxNode): Ex {
    const a = this.expr(cx, n.childForFieldName('argument')!);
    const idxList = n.childForFieldName('indices') ?? named(n)[1];
    const idxNode = idxList.type === 'subscript_argument_list' ? named(idxList)[0] : idxList;
    const i = this.expr(cx, idxNode);
    if (!isNum(i.t)) fail(`array index '${idxNode.text}' is not an integer`, idxNode);
    let ie = i.ev;
    if (isFloatDt(i.t.dt)) fail(`array index '${idxNode.text}' is a ${i.t.dt}`, idxNode);
    if (a.t.k === 'arr') {
      const et = a.t.of;
      const es = sizeOfType(et);
      if (a.lv?.k !== 'mem') unsupported(`indexing '${n.text}'`, n);
      const B = a.lv.buf;
      const O = a.lv.off;
      const n0 = a.t.n;
      // Arrays with a known bound are checked per dimension (C would silently index the next row).
      if (n0 > 0 && a.t.of.k === 'arr') {
        const name = n.childForFieldName('argument')!.text;
        const raw = ie;
        ie = (f) => {
          const x = raw(f);
          if (x < 0 || x >= n0) throw new SimError(`index ${x} out of bounds of '${name}' (dimension of ${n0})`, undefined, 'oob');
          return x;
        };
      }
      if (i.cv !== undefined) {
        const k = i.cv * es;
        const lv: LV = { k: 'mem', buf: B, off: (f) => O(f) + k };
        return { t: et, ev: this.loadFn(lv, et), lv };
      }
      const lv: LV = { k: 'mem', buf: B, off: (f) => O(f) + ie(f) * es };
      return { t: et, ev: this.loadFn(lv, et), lv };
    }
    if (a.t.k === 'ptr') {
      const et = a.t.to;
      const es = sizeOfType(et);
      if (et.k === 'void') fail('indexing a void pointer', n);
      const pv = a.ev;
      const lv: LV = {
        k: 'mem',
        buf: (f) => {
          const p = pv(f) as Pointer | null;
          if (!p) throw new SimError(`null pointer dereference in '${n.text}'`);
          return p.buf;
        },
        off: (f) => (pv(f) as Pointer).offset + ie(f) * es,
      };
      return { t: et, ev: this.loadFn(lv, et), lv };
    }
    unsupported(`indexing a ${typeName(a.t)}`, n);
  }

  private pointerExpr(cx: FnCx, n: SyntaxNode): Ex {
    const op = n.childForFieldName('operator')!.text;
    const arg = n.childForFieldName('argument')!;
    const a = this.expr(cx, arg);
    if (op === '&') {
      if (a.t.k === 'lambda') return a;
      return { t: ptr(a.t), ev: this.addressOf(a, arg) };
    }
    const r = this.rv(a);
    if (r.t.k !== 'ptr') fail(`'*' on a ${typeName(r.t)}`, n);
    const et = r.t.to;
    const pv = r.ev;
    const lv: LV = {
      k: 'mem',
      buf: (f) => {
        const p = pv(f) as Pointer | null;
        if (!p) throw new SimError(`null pointer dereference in '${n.text}'`);
        return p.buf;
      },
      off: (f) => (pv(f) as Pointer).offset,
    };
    return { t: et, ev: et.k === 'void' ? pv : this.loadFn(lv, et), lv };
  }

  private unary(cx: FnCx, n: SyntaxNode): Ex {
    const op = n.childForFieldName('operator')!.text;
    const a = this.rv(this.expr(cx, n.childForFieldName('argument')!));
    if (op === '!') {
      const t = this.truth(a, n);
      return fold({ t: BOOL, ev: (f) => (t(f) ? 0 : 1) }, a);
    }
    if (!isNum(a.t)) fail(`unary ${op} on a ${typeName(a.t)}`, n);
    const dt = promote(a.t.dt);
    const c = this.convertTo(a, num(dt), n);
    if (op === '+') return c;
    if (op === '-') return fold({ t: num(dt), ev: negate(dt, c.ev) }, c);
    if (op === '~') return fold({ t: num(dt), ev: bitNot(dt, c.ev) }, c);
    unsupported(`unary operator ${op}`, n);
  }

  binary(cx: FnCx, n: SyntaxNode): Ex {
    const op = n.childForFieldName('operator')!.text;
    const ln = n.childForFieldName('left')!;
    const rn = n.childForFieldName('right')!;
    if (op === '&&' || op === '||') return this.logical(cx, op, ln, rn, n);
    const l = this.rv(this.expr(cx, ln));
    const r = this.rv(this.expr(cx, rn));
    return this.binop(op, l, r, n);
  }

  binop(op: string, l: Ex, r: Ex, n: SyntaxNode): Ex {
    // Pointer arithmetic and comparison.
    if (l.t.k === 'ptr' || r.t.k === 'ptr' || (l.t.k === 'obj' && l.t.obj === 'nullptr') || (r.t.k === 'obj' && r.t.obj === 'nullptr')) return this.pointerBinop(op, l, r, n);
    if (!isNum(l.t) || !isNum(r.t)) fail(`operator ${op} on ${typeName(l.t)} and ${typeName(r.t)}`, n);
    let out: Ex;
    if (op === '<<' || op === '>>') {
      const dt = promote(l.t.dt);
      if (isFloatDt(dt)) fail(`shift of a ${dt}`, n);
      const a = this.convertTo(l, num(dt), n);
      const b = this.convertTo(r, num(promote(r.t.dt)), n);
      out = { t: num(dt), ev: shift(op, dt, a.ev, b.ev) };
    } else {
      const dt = commonType(l.t.dt, r.t.dt);
      const a = this.convertTo(l, num(dt), n);
      const b = this.convertTo(r, num(dt), n);
      if (op === '<' || op === '>' || op === '<=' || op === '>=' || op === '==' || op === '!=') out = { t: BOOL, ev: compare(op, a.ev, b.ev) };
      else {
        if (isFloatDt(dt) && (op === '%' || op === '&' || op === '|' || op === '^')) fail(`operator ${op} on ${dt}`, n);
        out = { t: num(dt), ev: arith(op, dt, a.ev, b.ev) };
      }
    }
    if (l.cv !== undefined && r.cv !== undefined) {
      const v = out.ev(null as unknown as Frame);
      return { t: out.t, ev: () => v, cv: v };
    }
    return out;
  }

  private pointerBinop(op: string, l: Ex, r: Ex, n: SyntaxNode): Ex {
    const lp = l.t.k === 'ptr' || (l.t.k === 'obj' && l.t.obj === 'nullptr');
    const rp = r.t.k === 'ptr' || (r.t.k === 'obj' && r.t.obj === 'nullptr');
    if ((op === '+' || op === '-') && lp && !rp && isNum(r.t)) {
      const pt = l.t as { k: 'ptr'; to: CType };
      const es = pt.to.k === 'void' ? 1 : sizeOfType(pt.to);
      const A = l.ev;
      const B = r.ev;
      const sign = op === '-' ? -1 : 1;
      return {
        t: l.t,
        ev: (f) => {
          const p = A(f) as Pointer | null;
          if (!p) throw new SimError(`arithmetic on a null pointer in '${n.text}'`);
          return { buf: p.buf, offset: p.offset + sign * B(f) * es };
        },
      };
    }
    if (op === '+' && rp && !lp && isNum(l.t)) return this.pointerBinop(op, r, l, n);
    if (op === '-' && lp && rp) {
      const pt = l.t as { k: 'ptr'; to: CType };
      const es = Math.max(1, sizeOfType(pt.to));
      const A = l.ev;
      const B = r.ev;
      return {
        t: S64,
        ev: (f) => {
          const a = A(f) as Pointer;
          const b = B(f) as Pointer;
          if (!a || !b || a.buf !== b.buf) throw new SimError(`subtracting pointers into different buffers in '${n.text}'`);
          return Math.trunc((a.offset - b.offset) / es);
        },
      };
    }
    if (op === '==' || op === '!=' || op === '<' || op === '>' || op === '<=' || op === '>=') {
      const A = lp ? l.ev : l.cv === 0 ? () => null : undefined;
      const B = rp ? r.ev : r.cv === 0 ? () => null : undefined;
      if (!A || !B) fail(`comparing a pointer with a non-pointer in '${n.text}'`, n);
      const key = (p: Pointer | null) => (p ? p.offset : -1);
      const same = (a: Pointer | null, b: Pointer | null) => a === b || (!!a && !!b && a.buf === b.buf && a.offset === b.offset);
      switch (op) {
        case '==':
          return { t: BOOL, ev: (f) => (same(A(f), B(f)) ? 1 : 0) };
        case '!=':
          return { t: BOOL, ev: (f) => (same(A(f), B(f)) ? 0 : 1) };
        default: {
          const cmp = compare(op, (f) => key(A(f)), (f) => key(B(f)));
          return { t: BOOL, ev: cmp };
        }
      }
    }
    fail(`operator ${op} on pointers`, n);
  }

  private logical(cx: FnCx, op: string, ln: SyntaxNode, rn: SyntaxNode, n: SyntaxNode): Ex {
    const l = this.rv(this.expr(cx, ln));
    const lt = this.truth(l, ln);
    if (!needsHoist(this, cx, rn)) {
      const r = this.rv(this.expr(cx, rn));
      const rt = this.truth(r, rn);
      const out: Ex = op === '&&' ? { t: BOOL, ev: (f) => (lt(f) && rt(f) ? 1 : 0) } : { t: BOOL, ev: (f) => (lt(f) || rt(f) ? 1 : 0) };
      if (l.cv !== undefined && r.cv !== undefined) {
        const v = out.ev(null as unknown as Frame);
        return { t: BOOL, ev: () => v, cv: v };
      }
      if (l.cv !== undefined && op === '&&' && !l.cv) return { t: BOOL, ev: () => 0, cv: 0 };
      if (l.cv !== undefined && op === '||' && l.cv) return { t: BOOL, ev: () => 1, cv: 1 };
      return out;
    }
    // The right side calls a function or blocks: real control flow keeps short-circuiting.
    const tmp = cx.slot();
    this.emitExec(cx, ln, (f) => (f.v[tmp] = lt(f) ? 1 : 0));
    const next = cx.code.length + 1;
    const skip: Instr = { run: (f) => ((op === '&&' ? f.v[tmp] : !f.v[tmp]) ? next : skip.target), loc: locOf(n, cx.name), stmt: false, target: -1, site: -1 };
    cx.code.push(skip);
    const r = this.rv(this.expr(cx, rn));
    const rt = this.truth(r, rn);
    this.emitExec(cx, rn, (f) => (f.v[tmp] = rt(f) ? 1 : 0));
    skip.target = cx.code.length;
    return { t: BOOL, ev: (f) => f.v[tmp], pure: true };
  }

  private conditional(cx: FnCx, n: SyntaxNode): Ex {
    const cn = n.childForFieldName('condition')!;
    const an = n.childForFieldName('consequence')!;
    const bn = n.childForFieldName('alternative')!;
    const c = this.rv(this.expr(cx, cn));
    const ct = this.truth(c, cn);
    if (!needsHoist(this, cx, an) && !needsHoist(this, cx, bn)) {
      const a = this.rv(this.expr(cx, an));
      const b = this.rv(this.expr(cx, bn));
      const t = resultType(a.t, b.t);
      const A = this.convertTo(a, t, an).ev;
      const B = this.convertTo(b, t, bn).ev;
      if (c.cv !== undefined) return c.cv ? this.convertTo(a, t, an) : this.convertTo(b, t, bn);
      return { t, ev: (f) => (ct(f) ? A(f) : B(f)) };
    }
    const tmp = cx.slot();
    const br = this.emitBranchFalse(cx, cn, ct);
    br.stmt = false;
    const mark = cx.code.length;
    const a = this.rv(this.expr(cx, an));
    // Types of both arms must be known before converting; compile b's type by a dry run.
    const bt = this.rv({ t: this.typeOf(cx, bn), ev: () => 0 }).t;
    const t = resultType(a.t, bt);
    const A = this.convertTo(a, t, an).ev;
    this.emitExec(cx, an, (f) => (f.v[tmp] = A(f)));
    const j = this.emitJump(cx, n);
    br.target = cx.code.length;
    void mark;
    const b = this.rv(this.expr(cx, bn));
    const B = this.convertTo(b, t, bn).ev;
    this.emitExec(cx, bn, (f) => (f.v[tmp] = B(f)));
    j.target = cx.code.length;
    return { t, ev: (f) => f.v[tmp], pure: true };
  }

  private update(cx: FnCx, n: SyntaxNode): Ex {
    const op = n.childForFieldName('operator')!.text;
    const argN = n.childForFieldName('argument')!;
    const a = this.expr(cx, argN);
    const prefix = n.firstChild?.type === '++' || n.firstChild?.type === '--';
    if (!a.lv) fail(`'${argN.text}' is not assignable`, n);
    const one: Ex = { t: S32, ev: () => 1, cv: 1 };
    const bop = op === '++' ? '+' : '-';
    const newV = a.t.k === 'ptr' ? this.pointerBinop(bop, a, one, n).ev : this.convertTo(this.binop(bop, a, one, n), a.t, n).ev;
    return this.modify(a, newV, prefix ? 'new' : 'old');
  }

  /** Read-modify-write of an lvalue evaluating its address once. */
  private modify(a: Ex, newV: Fn, result: 'new' | 'old'): Ex {
    const lv = a.lv!;
    const t = a.t;
    if (lv.k === 'slot') {
      const { depth, idx } = lv;
      if (depth === 0) {
        if (result === 'new') return { t, ev: (f) => (f.v[idx] = newV(f)) };
        return {
          t,
          ev: (f) => {
            const old = f.v[idx];
            f.v[idx] = newV(f);
            return old;
          },
        };
      }
      return {
        t,
        ev: (f) => {
          const e = envOf(f, depth);
          const old = e.v[idx];
          const v = newV(f);
          e.v[idx] = v;
          return result === 'new' ? v : old;
        },
      };
    }
    // Memory: newV reads through a.lv again; pin buffer and offset for this evaluation.
    const st = this.storeFn(lv, t);
    return {
      t,
      ev: (f) => {
        const old = a.ev(f);
        const v = newV(f);
        st(f, v);
        return result === 'new' ? v : old;
      },
    };
  }

  private assignment(cx: FnCx, n: SyntaxNode): Ex {
    const op = n.childForFieldName('operator')!.text;
    const ln = n.childForFieldName('left')!;
    const rn = n.childForFieldName('right')!;
    // Right side first: hoisted calls in it run before the store.
    const r = this.rv(rn.type === 'initializer_list' && named(rn).length === 1 ? this.expr(cx, named(rn)[0]) : this.expr(cx, rn));
    const l = this.expr(cx, ln);
    if (!l.lv) fail(`'${ln.text}' is not assignable`, n);
    if (l.t.k === 'arr') fail(`cannot assign to array '${ln.text}'`, n);
    if (op === '=') {
      const v = this.convertTo(r, l.t, rn).ev;
      const lv = l.lv;
      if (lv.k === 'slot' && lv.depth === 0) {
        const idx = lv.idx;
        return { t: l.t, ev: (f) => (f.v[idx] = v(f)) };
      }
      const st = this.storeFn(lv, l.t);
      return {
        t: l.t,
        ev: (f) => {
          const x = v(f);
          st(f, x);
          return x;
        },
      };
    }
    const bop = op.slice(0, -1);
    const rr = { ...r, cv: undefined };
    const nv = l.t.k === 'ptr' ? this.pointerBinop(bop, l, rr, n).ev : this.convertTo(this.binop(bop, this.rv(l), rr, n), l.t, n).ev;
    return this.modify(l, nv, 'new');
  }

  cast(cx: FnCx, t: CType, e: Ex, n: SyntaxNode): Ex {
    if (t.k === 'void') return { t: VOID, ev: e.ev, pure: e.pure };
    const r = this.rv(e);
    if (t.k === 'ptr' && r.t.k === 'ptr') return { t, ev: r.ev };
    if (t.k === 'struct' && r.t.k === 'struct' && r.t.def === t.def) return e;
    return this.convertTo(r, t, n);
  }

  // -------------------------------------------------------------- calls

  call(cx: FnCx, n: SyntaxNode): Ex {
    const fnNode = n.childForFieldName('function')!;
    const argsNode = n.childForFieldName('arguments')!;
    const argNodes = named(argsNode);
    let targs: SyntaxNode[] | undefined;
    let callee = fnNode;
    if (callee.type === 'qualified_identifier') {
      const inner = innermostName(callee);
      if (inner.type === 'template_function') {
        targs = named(inner.childForFieldName('arguments')!);
      }
    }
    if (callee.type === 'template_function') {
      targs = named(callee.childForFieldName('arguments')!);
      callee = callee.childForFieldName('name')!;
    }
    if (callee.type === 'field_expression') return this.methodCall(cx, callee, argNodes, n, targs);
    if (/^(static_cast|reinterpret_cast|const_cast|bit_cast|std::bit_cast|cuda::std::bit_cast)$/.test(callee.text) && targs?.length === 1 && argNodes.length === 1) {
      const t = targs[0].type === 'type_descriptor' ? this.typeDescriptor(cx, targs[0]) : this.baseType(cx, targs[0]);
      const e = this.expr(cx, argNodes[0]);
      if (/bit_cast/.test(callee.text)) unsupported('bit_cast', n);
      return this.cast(cx, t, e, n);
    }
    if (callee.type === 'parenthesized_expression') unsupported('calling through a parenthesised expression', n);
    const fullName = callee.text.replace(/\s+/g, '').replace(/<.*$/, '').replace(/^::/, '');
    const name = lastName(fullName);
    // A lambda or callable held in a variable.
    if (callee.type === 'identifier') {
      const s = this.lookup(cx, name);
      if (s && s.sym.k === 'var' && s.sym.type.k === 'lambda') {
        const info = this.lambdas.get(s.sym.type.id)!;
        const cl = this.symbolEx(cx, s.sym, s.depth, name, callee).ev;
        const args = argNodes.map((a) => this.rv(this.expr(cx, a)));
        if (args.length !== info.params.length) fail(`lambda '${name}' takes ${info.params.length} argument(s), got ${args.length}`, n);
        return this.emitCall(cx, n, { fn: () => info.fn, ret: info.ret, params: info.params }, args, undefined, (f) => (cl(f) as Closure).env);
      }
    }
    // Member function called without `this->` inside another member.
    const owner = ownerOf(cx);
    if (owner && callee.type === 'identifier') {
      const md = owner.def.methods.get(name) as FnDecl | undefined;
      if (md) {
        const d = owner.depth;
        return this.callUser(cx, [md], argNodes, n, targs, (f) => selfOf(envOf(f, d)));
      }
    }
    const user = this.functions.get(name);
    if (user && !(fullName.startsWith('cuda::') || fullName.startsWith('std::'))) return this.callUser(cx, user, argNodes, n, targs);
    const b = compileBuiltinCall(this, cx, fullName, argNodes, n, targs);
    if (b) return b;
    if (user) return this.callUser(cx, user, argNodes, n, targs);
    unsupported(`call to '${fullName}'`, n);
  }

  private methodCall(cx: FnCx, callee: SyntaxNode, argNodes: SyntaxNode[], n: SyntaxNode, targs?: SyntaxNode[]): Ex {
    const objNode = callee.childForFieldName('argument')!;
    const mname = callee.childForFieldName('field')!.text;
    const arrow = callee.childForFieldName('operator')?.text === '->';
    const obj = this.expr(cx, objNode);
    let t = obj.t;
    let selfFn: Fn;
    if (arrow) {
      const r = this.rv(obj);
      if (r.t.k !== 'ptr') fail(`'->' on a ${typeName(r.t)}`, callee);
      t = r.t.to;
      selfFn = r.ev;
    } else selfFn = t.k === 'struct' || t.k === 'barrier' ? this.addressOf(obj, objNode) : obj.ev;
    if (t.k === 'struct') {
      const md = t.def.methods.get(mname) as FnDecl | undefined;
      if (!md) fail(`${t.def.name} has no member function '${mname}'`, callee);
      return this.callUser(cx, [md], argNodes, n, targs, selfFn);
    }
    const b = compileMethodCall(this, cx, t, selfFn, mname, argNodes, n, targs);
    if (b) return b;
    unsupported(`member function '${mname}' of ${typeName(t)}`, n);
  }

  /** Picks an overload by argument count, deduces template arguments, compiles and calls it. */
  callUser(cx: FnCx, decls: FnDecl[], argNodes: SyntaxNode[], n: SyntaxNode, targs?: SyntaxNode[], self?: Fn): Ex {
    const args = argNodes.map((a) => this.expr(cx, a));
    const fits = decls.filter((d) => {
      const fd = findFunctionDeclarator(d.node.childForFieldName('declarator')!);
      const ps = fd ? named(fd.childForFieldName('parameters')!).filter((p) => p.type === 'parameter_declaration' || p.type === 'optional_parameter_declaration') : [];
      const required = ps.filter((p) => p.type === 'parameter_declaration' && !(p.namedChildCount === 1 && p.text === 'void')).length;
      return args.length <= ps.length && args.length >= required;
    });
    if (!fits.length) fail(`no overload of '${decls[0].name}' takes ${args.length} argument(s)`, n);
    // Prefer an overload whose parameter types match exactly (simple overload resolution).
    let decl = fits[0];
    if (fits.length > 1) {
      for (const d of fits) {
        if (d.tparams) continue;
        try {
          const inst = this.instantiate(d, new Map(), n);
          if (inst.params.every((p, i) => !args[i] || sameType(decay(p.type), decay(this.rv(args[i]).t)))) {
            decl = d;
            break;
          }
        } catch {
          /* try the next */
        }
      }
    }
    const tbind = new Map<string, CType | number>();
    if (decl.tparams) this.bindTemplate(cx, decl, tbind, args, n, targs);
    const inst = this.instantiate(decl, tbind, n);
    const pargs = args.map((a, i) => (inst.params[i]?.ref ? a : this.rv(a)));
    // Default arguments.
    const fd = findFunctionDeclarator(decl.node.childForFieldName('declarator')!)!;
    const ps = named(fd.childForFieldName('parameters')!).filter((p) => p.type === 'parameter_declaration' || p.type === 'optional_parameter_declaration');
    for (let i = args.length; i < ps.length; i++) {
      const dv = ps[i].childForFieldName('default_value');
      if (!dv) fail(`missing argument ${i + 1} of '${decl.name}'`, n);
      pargs.push(this.expr(cx, dv));
    }
    return this.emitCall(cx, n, { fn: () => inst.fn, ret: inst.ret, params: inst.params }, pargs, self);
  }

  private bindTemplate(cx: FnCx, decl: FnDecl, tbind: Map<string, CType | number>, args: Ex[], n: SyntaxNode, targs?: SyntaxNode[]): void {
    const tps = named(decl.tparams!);
    const names: { name: string; type: boolean; dflt?: SyntaxNode }[] = [];
    for (const p of tps) {
      if (p.type === 'type_parameter_declaration' || p.type === 'optional_type_parameter_declaration') {
        const nm = named(p).find((x) => x.type === 'type_identifier');
        names.push({ name: nm?.text ?? '', type: true, dflt: p.childForFieldName('default_type') ?? undefined });
      } else if (p.type === 'parameter_declaration' || p.type === 'optional_parameter_declaration') {
        const nm = p.childForFieldName('declarator');
        names.push({ name: nm?.text ?? '', type: false, dflt: p.childForFieldName('default_value') ?? undefined });
      } else unsupported(`template parameter '${p.text}'`, p);
    }
    (targs ?? []).forEach((a, i) => {
      const tp = names[i];
      if (!tp) fail(`too many template arguments for '${decl.name}'`, n);
      if (tp.type) tbind.set(tp.name, a.type === 'type_descriptor' ? this.typeDescriptor(cx, a) : this.baseType(cx, a));
      else tbind.set(tp.name, this.constEval(cx, a));
    });
    // Deduce the rest from the function parameters.
    const fd = findFunctionDeclarator(decl.node.childForFieldName('declarator')!)!;
    const ps = named(fd.childForFieldName('parameters')!).filter((p) => p.type === 'parameter_declaration' || p.type === 'optional_parameter_declaration');
    ps.forEach((p, i) => {
      const a = args[i];
      if (!a) return;
      deduce(p.childForFieldName('type')!, p.childForFieldName('declarator'), a.t, names, tbind);
    });
    for (const tp of names) {
      if (tbind.has(tp.name)) continue;
      if (tp.dflt) {
        const scratch = new FnCx('<tmpl>', null, tbind, undefined, locOf(n));
        tbind.set(tp.name, tp.type ? this.typeDescriptor(scratch, tp.dflt) : this.constEval(scratch, tp.dflt));
        continue;
      }
      fail(`cannot deduce template argument '${tp.name}' of '${decl.name}'`, n);
    }
  }

  private lambda(cx: FnCx, n: SyntaxNode): Ex {
    const id = lambdaIds++;
    const name = `lambda@${n.startPosition.row + 1}`;
    const lcx = new FnCx(name, cx, new Map(), undefined, locOf(n, name));
    const info: LambdaInfo = { id, fn: lcx.fn, ret: VOID, params: [] };
    this.lambdas.set(id, info);
    const decl = n.childForFieldName('declarator');
    const body = n.childForFieldName('body')!;
    this.scanAddressTaken(body, lcx.addrTaken);
    const params = decl?.childForFieldName('parameters');
    if (params)
      for (const p of named(params)) {
        if (p.type !== 'parameter_declaration') continue;
        const tn = p.childForFieldName('type')!;
        if (tn.type === 'placeholder_type_specifier') unsupported('a generic lambda (auto parameter)', p);
        const base = this.baseType(lcx, tn);
        const dn = p.childForFieldName('declarator');
        const info2 = dn ? this.declarator(lcx, base, dn) : { name: '', type: base, ref: false };
        const type = info2.type.k === 'arr' ? ptr(info2.type.of) : info2.type;
        info.params.push({ name: info2.name, type, ref: info2.ref });
        this.declareParam(lcx, info2.name, type, info2.ref, p);
      }
    const rt = decl?.childForFieldName('type') ?? named(decl ?? n).find((x) => x.type === 'trailing_return_type');
    if (rt) lcx.ret = this.typeDescriptor(lcx, rt.type === 'trailing_return_type' ? named(rt)[0] : rt);
    else lcx.retDeduce = true;
    this.block(lcx, body);
    this.emitReturn(lcx, undefined, body);
    info.ret = lcx.ret;
    lcx.finish();
    return { t: { k: 'lambda', id }, ev: (f) => ({ fn: info.fn, env: f }) satisfies Closure };
  }
}

// ------------------------------------------------------------------ helpers

export interface DeclQuals {
  shared?: boolean;
  extern?: boolean;
  static?: boolean;
  const?: boolean;
  constexpr?: boolean;
  device?: boolean;
  constant?: boolean;
  managed?: boolean;
  align?: number;
}

export function declQualifiers(n: SyntaxNode): DeclQuals {
  const q: DeclQuals = {};
  for (const c of allChildren(n)) {
    if (c.type === 'type_qualifier' || c.type === 'storage_class_specifier' || c.type === 'attribute_specifier' || c.type === 'ms_declspec_modifier') {
      const t = c.text;
      if (t === '__shared__') q.shared = true;
      else if (t === 'extern') q.extern = true;
      else if (t === 'static') q.static = true;
      else if (t === 'const') q.const = true;
      else if (t === 'constexpr') q.constexpr = true;
      else if (t === '__device__') q.device = true;
      else if (t === '__constant__') q.constant = true;
      else if (t === '__managed__') q.managed = true;
      const al = /(?:alignas|__align__)\s*\(\s*(\d+)\s*\)/.exec(t);
      if (al) q.align = Number(al[1]);
    }
    if (c.type === '__shared__' || c.text === '__shared__') q.shared = true;
    if (c.type === '__device__' || c.text === '__device__') q.device = true;
    if (c.type === '__constant__' || c.text === '__constant__') q.constant = true;
  }
  return q;
}

export function allChildren(n: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let i = 0; i < n.childCount; i++) {
    const c = n.child(i);
    if (c) out.push(c);
  }
  return out;
}

export function lastName(s: string): string {
  const i = s.lastIndexOf('::');
  return i >= 0 ? s.slice(i + 2) : s;
}

function innermostName(n: SyntaxNode): SyntaxNode {
  let cur = n;
  while (cur.type === 'qualified_identifier') cur = cur.childForFieldName('name')!;
  return cur;
}

function findNode(n: SyntaxNode, type: string): SyntaxNode | undefined {
  if (n.type === type) return n;
  for (const c of named(n)) {
    const r = findNode(c, type);
    if (r) return r;
  }
  return undefined;
}

export function findFunctionDeclarator(d: SyntaxNode): SyntaxNode | undefined {
  let cur: SyntaxNode | null = d;
  while (cur) {
    if (cur.type === 'function_declarator') return cur;
    cur = cur.childForFieldName('declarator') ?? named(cur).find((x) => x.type.endsWith('declarator')) ?? null;
  }
  return undefined;
}

export function decay(t: CType): CType {
  return t.k === 'arr' ? ptr(t.of) : t;
}

function resultType(a: CType, b: CType): CType {
  if (isNum(a) && isNum(b)) return num(commonType(a.dt, b.dt));
  if (a.k === 'ptr') return a;
  if (b.k === 'ptr') return b;
  return a;
}

function fold(out: Ex, a: Ex): Ex {
  if (a.cv === undefined) return out;
  const v = out.ev(null as unknown as Frame);
  return { t: out.t, ev: () => v, cv: v };
}

export function envOf(f: Frame, depth: number): Frame {
  let e = f;
  for (let i = 0; i < depth; i++) e = e.env as Frame;
  return e;
}

function selfOf(f: Frame): Pointer {
  if (!f.self) throw new SimError('member function called without an object');
  return f.self;
}

function hasOwner(cx: FnCx): boolean {
  for (let c: FnCx | null = cx; c; c = c.parent) if (c.owner) return true;
  return false;
}

function ownerOf(cx: FnCx): { def: StructDef; depth: number } | undefined {
  let d = 0;
  for (let c: FnCx | null = cx; c; c = c.parent, d++) if (c.owner) return { def: c.owner, depth: d };
  return undefined;
}

function slotReader(depth: number, idx: number): Fn {
  if (depth === 0) return (f) => f.v[idx];
  if (depth === 1) return (f) => (f.env as Frame).v[idx];
  return (f) => envOf(f, depth).v[idx];
}

function numberLiteral(n: SyntaxNode): Ex {
  let text = n.text.replace(/'/g, '');
  const lower = text.toLowerCase();
  const isHex = lower.startsWith('0x');
  const isFloat = !isHex && /[.e]/.test(lower);
  if (isFloat) {
    const f32 = /f$/.test(lower);
    text = text.replace(/[fFlL]+$/, '');
    const v = f32 ? Math.fround(Number(text)) : Number(text);
    const t = f32 ? F32 : F64;
    return { t, ev: () => v, cv: v };
  }
  const suf = /[uUlL]+$/.exec(text)?.[0].toLowerCase() ?? '';
  const digits = text.slice(0, text.length - suf.length);
  let v: number;
  if (isHex) v = Number(digits);
  else if (/^0b/i.test(digits)) v = parseInt(digits.slice(2), 2);
  else if (/^0[0-7]+$/.test(digits)) v = parseInt(digits, 8);
  else v = Number(digits);
  const unsigned = suf.includes('u');
  const long = suf.includes('l');
  let dt: DType;
  if (!long && !unsigned && v <= 0x7fffffff) dt = 's32';
  else if (!long && (unsigned || isHex) && v <= 0xffffffff) dt = 'u32';
  else if (unsigned) dt = 'u64';
  else dt = v <= Number.MAX_SAFE_INTEGER ? 's64' : 'u64';
  if (v > Number.MAX_SAFE_INTEGER) throw new SimError(`integer literal ${n.text} is beyond 2^53`, locOf(n), 'unsupported');
  return { t: num(dt), ev: () => v, cv: v };
}

function stringValue(n: SyntaxNode): string {
  if (n.type === 'concatenated_string') return named(n).map(stringValue).join('');
  let s = '';
  for (const c of named(n)) {
    if (c.type === 'string_content') s += c.text;
    else if (c.type === 'escape_sequence') {
      const e = c.text;
      const map: Record<string, string> = { n: '\n', t: '\t', '\\': '\\', '"': '"', "'": "'", r: '\r', '0': '\0', a: '\x07' };
      if (e[1] === 'x') s += String.fromCharCode(parseInt(e.slice(2), 16));
      else s += map[e[1]] ?? e.slice(1);
    }
  }
  return s;
}

/** threadIdx.x and friends, warpSize. */
function dim3Field(obj: string, field: string): Ex | undefined {
  const j = field === 'x' ? 0 : field === 'y' ? 1 : field === 'z' ? 2 : -1;
  if (j < 0) return undefined;
  const i = j as 0 | 1 | 2;
  switch (obj) {
    case 'threadIdx':
      return { t: U32, ev: (f) => f.ts.t.threadIdx[i] };
    case 'blockIdx':
      return { t: U32, ev: (f) => f.ts.t.blockIdx[i] };
    case 'blockDim':
      return { t: U32, ev: (f) => f.ts.m.blockDim[i] };
    case 'gridDim':
      return { t: U32, ev: (f) => f.ts.m.grid[i] };
  }
  return undefined;
}

function builtinIdentifier(name: string): Ex | undefined {
  switch (name) {
    case 'warpSize':
      return { t: S32, ev: () => 32, cv: 32 };
    case 'NULL':
      return { t: { k: 'obj', obj: 'nullptr' }, ev: () => null, cv: 0 };
    case 'INT_MAX':
      return { t: S32, ev: () => 2147483647, cv: 2147483647 };
    case 'INT_MIN':
      return { t: S32, ev: () => -2147483648, cv: -2147483648 };
    case 'UINT_MAX':
      return { t: U32, ev: () => 4294967295, cv: 4294967295 };
    case 'FLT_MAX':
      return { t: F32, ev: () => 3.4028234663852886e38, cv: 3.4028234663852886e38 };
    case 'INFINITY':
      return { t: F32, ev: () => Infinity, cv: Infinity };
    case 'NAN':
      return { t: F32, ev: () => NaN, cv: NaN };
  }
  return undefined;
}

/** Does evaluating `n` need its own instructions (a user call or a blocking builtin)? */
export function needsHoist(c: Compiler, cx: FnCx, n: SyntaxNode): boolean {
  if (n.type === 'call_expression') {
    const fnNode = n.childForFieldName('function')!;
    const name = lastName(fnNode.text.replace(/\s+/g, '').replace(/<.*$/, ''));
    if (fnNode.type === 'field_expression') return true;
    if (c.functions.has(name)) return true;
    const s = c.lookup(cx, name);
    if (s?.sym.k === 'var') return true;
    if (!isKnownPure(name)) return true;
  }
  if (n.type === 'gnu_asm_expression' || n.type === 'lambda_expression' || n.type === 'new_expression') return true;
  for (const ch of named(n)) if (needsHoist(c, cx, ch)) return true;
  return false;
}


/** `while (!probe(...))` / `do {} while (!probe(...))`: the probe node, if the condition is one. */
function retriedProbe(cond: SyntaxNode): SyntaxNode | undefined {
  let n = cond;
  while (n.type === 'parenthesized_expression' || n.type === 'condition_clause') n = n.childForFieldName('value') ?? named(n)[0];
  if (n.type === 'unary_expression' && n.childForFieldName('operator')?.text === '!') {
    let a = n.childForFieldName('argument')!;
    while (a.type === 'parenthesized_expression') a = named(a)[0];
    if (a.type === 'call_expression') return a;
  }
  return undefined;
}

function deduce(tn: SyntaxNode, decl: SyntaxNode | null, arg: CType, names: { name: string; type: boolean }[], out: Map<string, CType | number>): void {
  const tname = tn.text.replace(/\s+/g, '');
  const isParam = names.find((x) => x.type && x.name === tname);
  // Walk the declarator to the identifier, peeling pointers from the argument type.
  let t = arg;
  let ref = false;
  let arrN: SyntaxNode | null = null;
  let cur = decl;
  while (cur && cur.type !== 'identifier') {
    if (cur.type === 'pointer_declarator') {
      if (t.k === 'ptr') t = t.to;
      else if (t.k === 'arr') t = t.of;
      else return;
    } else if (cur.type === 'reference_declarator') ref = true;
    else if (cur.type === 'array_declarator') {
      arrN = cur.childForFieldName('size');
      if (t.k === 'arr') {
        if (arrN?.type === 'identifier' && names.some((x) => !x.type && x.name === arrN!.text)) out.set(arrN.text, t.n);
        t = t.of;
      }
    }
    cur = cur.childForFieldName('declarator') ?? named(cur).find((x) => x.type.endsWith('declarator') || x.type === 'identifier') ?? null;
  }
  if (isParam && !out.has(tname)) out.set(tname, ref ? t : decay(t));
}

/** Element offsets of a brace initialiser for an aggregate of type `t`. */
function flattenInit(c: Compiler, cx: FnCx, t: CType, init: SyntaxNode, base: number, out: { off: number; t: CType; node: SyntaxNode }[]): void {
  if (init.type !== 'initializer_list' && init.type !== 'argument_list') {
    if (t.k === 'arr' && init.type === 'string_literal') unsupported('string initialiser', init);
    out.push({ off: base, t, node: init });
    return;
  }
  const items = named(init);
  if (t.k === 'arr') {
    const es = sizeOfType(t.of);
    if (t.n >= 0 && items.length > t.n) fail(`too many initialisers (${items.length} for ${t.n} elements)`, init);
    items.forEach((it, i) => flattenInit(c, cx, t.of, it, base + i * es, out));
    return;
  }
  if (t.k === 'struct') {
    if (items.length > t.def.fields.length) fail(`too many initialisers for ${t.def.name}`, init);
    items.forEach((it, i) => {
      if (it.type === 'initializer_pair') unsupported('designated initialisers', it);
      flattenInit(c, cx, t.def.fields[i].type, it, base + t.def.fields[i].offset, out);
    });
    return;
  }
  if (items.length > 1) fail('too many initialisers for a scalar', init);
  if (items.length) out.push({ off: base, t, node: items[0] });
}

function elemDtype(t: CType): DType | undefined {
  while (t.k === 'arr') t = t.of;
  return t.k === 'num' ? t.dt : undefined;
}

export function shapeOf(t: CType): number[] | undefined {
  const s: number[] = [];
  while (t.k === 'arr') {
    s.push(t.n);
    t = t.of;
  }
  return s.length ? s : undefined;
}

export { coerce };
