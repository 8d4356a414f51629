// The standard library's type traits (<type_traits>, as std::, cuda::std:: and CuTe's re-exports spell
// them), evaluated at compile time exactly as C++17/20 defines them: `is_same_v<T, U>`,
// `is_same<T, U>::value`, `conditional_t<B, T, F>`, `enable_if_t<B, T>`, `integral_constant<T, v>`, the
// primary and composite type categories, `remove_cv` / `remove_reference` / `decay` and their kin. Each
// trait instance is a struct (`std::is_same<int, float>`) with the members C++ gives it (`value`,
// `value_type`, `type`), so `::value`, `::type` and the `_v` / `_t` forms all read the same instance.
// Answers depend on cv-qualifiers, references and which fundamental type a number is (`long` is not
// `long long`); where the compiler lost that (a type deduced from an argument, decltype) the trait stops
// with "not supported" instead of guessing. A trait of <type_traits> that is not modelled stops too.
import type { SyntaxNode } from '../parser';
import type { CompilerContext, Ex, FnCx } from './context';
import { fail, named, unsupported } from './syntax';
import { BOOL, convFn, type CType, type CxxInfo, layoutStruct, num, sameType, type StructDef, type StructMember } from './types';

/** The canonical C++ name of each fundamental type by the names kernels write (LP64, as nvcc on Linux). */
const FUNDAMENTAL: Readonly<Record<string, string>> = {
  int: 'int', 'signed int': 'int', signed: 'int', int32_t: 'int',
  unsigned: 'unsigned int', 'unsigned int': 'unsigned int', uint: 'unsigned int', uint32_t: 'unsigned int',
  short: 'short', 'short int': 'short', 'signed short': 'short', int16_t: 'short',
  'unsigned short': 'unsigned short', 'unsigned short int': 'unsigned short', uint16_t: 'unsigned short',
  char: 'char', 'signed char': 'signed char', int8_t: 'signed char', 'unsigned char': 'unsigned char', uint8_t: 'unsigned char',
  long: 'long', 'long int': 'long', 'signed long': 'long', int64_t: 'long', ptrdiff_t: 'long', intptr_t: 'long', clock_t: 'long',
  'unsigned long': 'unsigned long', 'unsigned long int': 'unsigned long', uint64_t: 'unsigned long', size_t: 'unsigned long', uintptr_t: 'unsigned long',
  'long long': 'long long', 'long long int': 'long long', 'signed long long': 'long long',
  'unsigned long long': 'unsigned long long', 'unsigned long long int': 'unsigned long long',
  float: 'float', double: 'double', bool: 'bool',
  __half: '__half', half: '__half', __nv_bfloat16: '__nv_bfloat16', nv_bfloat16: '__nv_bfloat16',
};

/** Numbers whose dtype is one fundamental type only, so a number of that dtype without a name is still exact. */
const ONE_TYPE: Readonly<Record<string, string>> = { bool: 'bool', s16: 'short', u16: 'unsigned short', s32: 'int', u32: 'unsigned int', u8: 'unsigned char', f32: 'float', f64: 'double', f16: '__half', bf16: '__nv_bfloat16' };

/** Numbers of a dtype shared by two fundamental types: how an unnamed one is spelled in messages. */
const AMBIGUOUS: Readonly<Record<string, string>> = { s8: '(char or signed char)', s64: '(long or long long)', u64: '(unsigned long or unsigned long long)' };

/** `t` as the fundamental type a name spells (`int64_t` is `long`), when the name is one. */
export function fundamental(t: CType, written: string): CType {
  const name = FUNDAMENTAL[written.replace(/^(?:::)?std::/, '').replace(/\s+/g, ' ').trim()];
  return name && t.k === 'num' ? withCxx(t, { name }) : t;
}

/** `t` with the cv-qualifiers written among `n`'s own children (`const int`, `int* const`), for the type traits. */
export function qualifiedAs(t: CType, n: SyntaxNode): CType {
  let c = false;
  let v = false;
  for (const q of named(n)) {
    if (q.type !== 'type_qualifier') continue;
    if (q.text === 'const') c = true;
    else if (q.text === 'volatile') v = true;
  }
  return c || v ? withCxx(t, { ...(c ? { c } : {}), ...(v ? { v } : {}) }) : t;
}

/** A copy of `t` with C++ information added (the type objects are shared, so never mutated). */
export function withCxx(t: CType, extra: CxxInfo): CType {
  return { ...t, cxx: { ...t.cxx, ...extra } };
}

/** `t` without the top-level cv-qualifiers and reference named (`cv`, `ref`); the rest kept. */
function strip(t: CType, what: { cv?: boolean; ref?: boolean }): CType {
  if (!t.cxx) return t;
  const q: CxxInfo = { ...t.cxx };
  if (what.cv) {
    delete q.c;
    delete q.v;
    delete q.cvUnknown;
  }
  if (what.ref) {
    delete q.ref;
    delete q.refUnknown;
  }
  return { ...t, cxx: q };
}

/**
 * A type made from an expression (template argument deduction, decltype): its cv-qualifiers, at every
 * level, may have been lost (`const float*` and `float*` are one type to the rest of the compiler), and
 * with `ref` its reference-ness too. `top: false` keeps the top level exact (deduction from a by-value
 * argument drops top-level cv as C++ does).
 */
export function fromExpression(t: CType, opts: { top: boolean; ref?: boolean }): CType {
  const inner = (x: CType): CType => {
    switch (x.k) {
      case 'ptr':
        return withCxx({ ...x, to: inner(x.to) }, { cvUnknown: true });
      case 'arr':
        return withCxx({ ...x, of: inner(x.of) }, { cvUnknown: true });
      default:
        return withCxx(x, { cvUnknown: true });
    }
  };
  let out: CType = t.k === 'ptr' ? { ...t, to: inner(t.to) } : t.k === 'arr' ? { ...t, of: inner(t.of) } : { ...t };
  out = strip(out, { cv: true, ref: true });
  if (opts.top) out = withCxx(out, { cvUnknown: true });
  if (opts.ref) out = withCxx(out, { refUnknown: true });
  return out;
}

/** A std::integral_constant object (or a trait's, `std::is_same<T, U>{}`) as the constant it converts to; any other expression as it is. */
export function constantOf(e: Ex): Ex {
  if (e.t.k !== 'struct' || !e.t.def.constant) return e;
  const { type, value } = e.t.def.constant;
  return { t: type, ev: () => value, cv: value };
}

/** How C++ spells what a type carries besides its layout (instance keys tell `T = const int` from `T = int`). */
export function spellCxx(t: CType, core: string, unknownMarks = true): string {
  const q = t.cxx;
  if (!q) return core;
  let s = q.name && t.k === 'num' ? q.name : core;
  if (q.c) s = t.k === 'ptr' ? `${s} const` : `const ${s}`;
  if (q.v) s = t.k === 'ptr' ? `${s} volatile` : `volatile ${s}`;
  if (q.cvUnknown && unknownMarks) s += ' (cv unknown)';
  if (q.ref) s += q.ref;
  if (q.refUnknown && unknownMarks) s += ' (reference unknown)';
  return s;
}

// -------------------------------------------------------------- comparing types

/** Tri-state: true, false, or undefined when what the compiler kept cannot tell. */
type Answer = boolean | undefined;

/** `std::is_same<a, b>`: false as soon as anything known differs; undefined if a difference may be hidden. */
function same(a: CType, b: CType): Answer {
  // Kinds are layouts: types of different kinds differ whatever qualifiers were lost.
  if (a.k !== b.k) return false;
  if (a.k === 'ptr' || a.k === 'arr') {
    const element = (x: CType): CType => (x.k === 'ptr' ? x.to : x.k === 'arr' ? x.of : x);
    if (a.k === 'arr' && b.k === 'arr' && a.n !== b.n) return false;
    const inner = same(element(a), element(b));
    if (inner === false) return false;
    const top = qualsSame(a, b);
    return top === false ? false : inner === undefined || top === undefined ? undefined : true;
  }
  if (!sameType(a, b)) return false;
  let core: Answer = true;
  if (a.k === 'num' && b.k === 'num') {
    const na = a.cxx?.name ?? ONE_TYPE[a.dt];
    const nb = b.cxx?.name ?? ONE_TYPE[b.dt];
    core = na && nb ? na === nb : undefined;
  }
  if (core === false) return false;
  const top = qualsSame(a, b);
  return top === false ? false : core === undefined || top === undefined ? undefined : true;
}

function qualsSame(a: CType, b: CType): Answer {
  const qa = a.cxx ?? {};
  const qb = b.cxx ?? {};
  let known = true;
  if (qa.refUnknown || qb.refUnknown) known = false;
  else if ((qa.ref ?? '') !== (qb.ref ?? '')) return false;
  if (qa.cvUnknown || qb.cvUnknown) known = false;
  else if (!!qa.c !== !!qb.c || !!qa.v !== !!qb.v) return false;
  return known ? true : undefined;
}

// -------------------------------------------------------------- the traits

/** What an error says when enable_if's condition is false (isSubstitutionFailure recognises it). */
export const ENABLE_IF_FALSE = "enable_if's condition is false";

/** The namespaces whose traits are the standard ones: std, cuda::std and CuTe's (which re-exports them). */
const STD_SCOPE = /^(?:::)?(?:std|cuda::std|_CUDA_VSTD|cute|CUTE_STL_NAMESPACE)$/;

type Arg = CType | number;

/** Every class template and alias of <type_traits>, to stop on one the simulator does not model. */
const ALL_TRAITS = new Set(
  (
    'is_void is_null_pointer is_integral is_floating_point is_array is_enum is_union is_class is_function is_pointer is_lvalue_reference ' +
    'is_rvalue_reference is_member_object_pointer is_member_function_pointer is_fundamental is_arithmetic is_scalar is_object is_compound ' +
    'is_reference is_member_pointer is_const is_volatile is_trivial is_trivially_copyable is_standard_layout is_pod is_literal_type ' +
    'has_unique_object_representations is_empty is_polymorphic is_abstract is_final is_aggregate is_signed is_unsigned is_bounded_array ' +
    'is_unbounded_array is_scoped_enum is_constructible is_trivially_constructible is_nothrow_constructible is_default_constructible ' +
    'is_trivially_default_constructible is_nothrow_default_constructible is_copy_constructible is_trivially_copy_constructible ' +
    'is_nothrow_copy_constructible is_move_constructible is_trivially_move_constructible is_nothrow_move_constructible is_assignable ' +
    'is_trivially_assignable is_nothrow_assignable is_copy_assignable is_trivially_copy_assignable is_nothrow_copy_assignable ' +
    'is_move_assignable is_trivially_move_assignable is_nothrow_move_assignable is_destructible is_trivially_destructible ' +
    'is_nothrow_destructible has_virtual_destructor is_swappable_with is_swappable is_nothrow_swappable_with is_nothrow_swappable ' +
    'alignment_of rank extent is_same is_base_of is_convertible is_nothrow_convertible is_layout_compatible ' +
    'is_pointer_interconvertible_base_of is_invocable is_invocable_r is_nothrow_invocable is_nothrow_invocable_r remove_cv remove_const ' +
    'remove_volatile add_cv add_const add_volatile remove_reference add_lvalue_reference add_rvalue_reference remove_pointer add_pointer ' +
    'make_signed make_unsigned remove_extent remove_all_extents aligned_storage aligned_union decay remove_cvref enable_if conditional ' +
    'common_type common_reference underlying_type result_of invoke_result void_t type_identity conjunction disjunction negation ' +
    'integral_constant bool_constant true_type false_type unwrap_reference unwrap_ref_decay'
  ).split(' '),
);

/** Traits answering a question about one type: whether it may be answered exactly is checked per trait. */
const UNARY_BOOL = new Set(['is_void', 'is_null_pointer', 'is_integral', 'is_floating_point', 'is_arithmetic', 'is_signed', 'is_unsigned', 'is_pointer', 'is_array', 'is_class', 'is_union', 'is_enum', 'is_lvalue_reference', 'is_rvalue_reference', 'is_reference', 'is_const', 'is_volatile', 'is_fundamental', 'is_scalar', 'is_object', 'is_compound']);
const TYPE_TRAITS = new Set(['remove_cv', 'remove_const', 'remove_volatile', 'add_cv', 'add_const', 'add_volatile', 'remove_reference', 'add_lvalue_reference', 'add_rvalue_reference', 'remove_pointer', 'add_pointer', 'remove_extent', 'remove_all_extents', 'decay', 'remove_cvref', 'type_identity', 'enable_if', 'conditional', 'make_signed', 'make_unsigned']);

function modelled(trait: string): boolean {
  return /^(integral_constant|bool_constant|true_type|false_type|is_same)$/.test(trait) || UNARY_BOOL.has(trait) || TYPE_TRAITS.has(trait);
}

/**
 * The standard trait a name spells in a scope, or undefined: `std::is_same_v`, `cuda::std::conditional_t`,
 * `cute::is_same_v`; an unqualified one only when the program defines no template of that name (CuTe's
 * own code inside `namespace cute` names them unqualified).
 */
export function stdTrait(c: CompilerContext, scope: string | undefined, name: string): { trait: string; form: 'v' | 't' | 'class' } | undefined {
  if (scope !== undefined && !STD_SCOPE.test(scope)) return undefined;
  const m = /^(\w+?)(_v|_t)?$/.exec(name);
  if (!m) return undefined;
  let trait = m[1];
  let form: 'v' | 't' | 'class' = m[2] === '_v' ? 'v' : m[2] === '_t' ? 't' : 'class';
  // `void_t`, `aligned_storage_t` … end in _t by name, not form; a name that is a trait as written wins.
  if (form !== 'class' && !ALL_TRAITS.has(trait) && ALL_TRAITS.has(name)) [trait, form] = [name, 'class'];
  // aligned_storage is laid out where types are named (declarations.ts).
  if (!ALL_TRAITS.has(trait) || trait === 'aligned_storage') return undefined;
  if (scope === undefined && (c.templateStructs.has(name) || c.aliasTemplates.has(name) || c.functions.has(name))) return undefined;
  // CuTe defines its own integral_constant, bool_constant (C<b>), true_type, false_type and is_integral
  // (cute/numeric/integral_constant.hpp); the rest it re-exports from the standard library (cute/util/type_traits.hpp).
  if (scope !== undefined && /cute/.test(scope) && /^(integral_constant|bool_constant|true_type|false_type|is_integral)$/.test(trait)) return undefined;
  return { trait, form };
}

/** The namespace written before a name node (`std` for `std::is_same_v<…>`), or undefined when unqualified. */
export function scopeOf(n: SyntaxNode): string | undefined {
  const parts: string[] = [];
  let cur = n;
  while (cur.parent?.type === 'qualified_identifier' && cur.parent.childForFieldName('name')?.id === cur.id) {
    const s = cur.parent.childForFieldName('scope');
    parts.unshift(s ? s.text.replace(/\s+/g, '') : '');
    cur = cur.parent;
  }
  if (parts.length === 0) return undefined;
  return parts.join('::') || '::';
}

/** `std::X<args>` as a struct with its members, or undefined when X is not a trait (`scope` as written before X). */
export function traitStruct(c: CompilerContext, cx: FnCx, scope: string | undefined, name: string, argNodes: SyntaxNode[], n: SyntaxNode): StructDef | undefined {
  const t = stdTrait(c, scope, name);
  if (!t) return undefined;
  if (!modelled(t.trait)) unsupported(`${scope ? `${scope}::` : 'std::'}${name}`, n);
  const ns = scope && /cute/.test(scope) ? 'cute' : 'std';
  const args = traitArgs(c, cx, t.trait, argNodes, n);
  return instance(c, ns, t.trait, args, n);
}

/** What `X_v<args>` reads, or `X_t<args>` names: the instance's `value` or `type`. */
export function traitMember(c: CompilerContext, cx: FnCx, scope: string | undefined, name: string, argNodes: SyntaxNode[], n: SyntaxNode, want: 'v' | 't'): StructMember | undefined {
  const t = stdTrait(c, scope, name);
  if (!t || t.form !== want) return undefined;
  const def = traitStruct(c, cx, scope, name, argNodes, n)!;
  const m = def.members?.get(want === 'v' ? 'value' : 'type');
  if (!m) fail(`'${n.text}' names no ${want === 'v' ? 'value' : `type (${ENABLE_IF_FALSE})`}`, n);
  return m;
}

/** The arguments of a trait: types, except the values of `integral_constant<T, v>`, `bool_constant<b>`, `conditional<b, …>`, `enable_if<b, …>`. */
function traitArgs(c: CompilerContext, cx: FnCx, trait: string, argNodes: SyntaxNode[], n: SyntaxNode): Arg[] {
  const valueAt = (i: number) => (trait === 'integral_constant' ? i === 1 : (trait === 'bool_constant' || trait === 'conditional' || trait === 'enable_if') && i === 0);
  return argNodes.map((a, i) => {
    if (a.type === 'parameter_pack_expansion') unsupported(`a pack expansion in the arguments of std::${trait}`, a);
    if (!valueAt(i)) return a.type === 'type_descriptor' ? c.typeDescriptor(cx, a) : c.baseType(cx, a);
    // A lone name parses as a type (`bool_constant<kFlag>`): it is a value here.
    const tn = a.type === 'type_descriptor' && !a.childForFieldName('declarator') ? a.childForFieldName('type') : null;
    return c.constEval(cx, tn && (tn.type === 'type_identifier' || tn.type === 'qualified_identifier' || tn.type === 'template_type') ? tn : a);
  });
}

function instance(c: CompilerContext, ns: string, trait: string, args: Arg[], n: SyntaxNode): StructDef {
  const spelled = args.map((a) => (typeof a === 'number' ? String(a) : spellForKey(a))).join(', ');
  const key = `${ns}::${trait}<${spelled}>`;
  const have = c.structs.get(key);
  if (have) return have;
  const members = new Map<string, StructMember>();
  const want = (count: number) => {
    if (args.length !== count) fail(`std::${trait} takes ${count} template argument${count === 1 ? '' : 's'}, got ${args.length}`, n);
  };
  const type = (i: number): CType => {
    const a = args[i];
    if (typeof a === 'number') fail(`template argument ${i + 1} of std::${trait} must be a type`, n);
    return a;
  };
  const value = (i: number): number => {
    const a = args[i];
    if (typeof a !== 'number') fail(`template argument ${i + 1} of std::${trait} must be a constant`, n);
    return a;
  };
  const constant = (vt: CType, v: number) => {
    members.set('value', { k: 'const', type: vt, value: v });
    members.set('value_type', { k: 'type', type: vt });
  };
  if (trait === 'integral_constant' || trait === 'bool_constant' || trait === 'true_type' || trait === 'false_type') {
    let vt: CType = BOOL;
    let v: number;
    if (trait === 'integral_constant') {
      want(2);
      vt = type(0);
      if (vt.k !== 'num') unsupported(`std::integral_constant of a ${spellForKey(vt)}`, n);
      const conv = convFn(Number.isInteger(value(1)) ? 's64' : 'f64', vt.dt);
      v = conv ? conv(value(1)) : value(1);
    } else if (trait === 'bool_constant') {
      want(1);
      v = value(0) ? 1 : 0;
    } else {
      want(0);
      v = trait === 'true_type' ? 1 : 0;
    }
    // true_type is bool_constant<true> is integral_constant<bool, true>: one type, whatever the spelling.
    if (trait !== 'integral_constant') return instance(c, ns, 'integral_constant', [BOOL, v], n);
    const def = define(c, key, ns, trait, args, members);
    constant(vt, v);
    members.set('type', { k: 'type', type: { k: 'struct', def } });
    def.constant = { type: vt, value: v };
    return def;
  }
  if (trait === 'is_same') {
    want(2);
    const a = type(0);
    const b = type(1);
    const r = same(a, b);
    if (r === undefined) {
      const what = `std::is_same<${spellForKey(a)}, ${spellForKey(b)}>`;
      if (a.k === 'num' && b.k === 'num' && (!a.cxx?.name || !b.cxx?.name) && AMBIGUOUS[a.dt])
        unsupported(`${what}: the type of an expression (an argument a template parameter was deduced from) does not say which of the two fundamental types it is, on which the answer depends`, n);
      undecidable(what, n);
    }
    return boolTrait(c, key, ns, trait, args, members, r, n);
  }
  if (UNARY_BOOL.has(trait)) {
    want(1);
    return boolTrait(c, key, ns, trait, args, members, category(trait, type(0), n), n);
  }
  if (TYPE_TRAITS.has(trait)) {
    const result = transform(trait, args, n, type, value, want);
    const def = define(c, key, ns, trait, args, members);
    if (result) members.set('type', { k: 'type', type: result });
    return def;
  }
  unsupported(`std::${trait}`, n);
}

function spellForKey(t: CType): string {
  const core = (() => {
    switch (t.k) {
      case 'num':
        return ONE_TYPE[t.dt] ?? AMBIGUOUS[t.dt] ?? t.dt;
      case 'ptr':
        return `${spellForKey(t.to)}*`;
      case 'arr':
        return `${spellForKey(t.of)}[${t.n}]`;
      case 'struct':
        return t.def.name;
      default:
        return t.k;
    }
  })();
  return spellCxx(t, core);
}

function define(c: CompilerContext, key: string, ns: string, trait: string, args: Arg[], members: Map<string, StructMember>): StructDef {
  const def = layoutStruct(key, []);
  def.size = 1; // an empty class
  def.members = members;
  def.template = { name: `${ns}::${trait}`, args };
  c.structs.set(key, def);
  return def;
}

function boolTrait(c: CompilerContext, key: string, ns: string, trait: string, args: Arg[], members: Map<string, StructMember>, v: boolean, n: SyntaxNode): StructDef {
  const def = define(c, key, ns, trait, args, members);
  def.constant = { type: BOOL, value: v ? 1 : 0 };
  members.set('value', { k: 'const', type: BOOL, value: v ? 1 : 0 });
  members.set('value_type', { k: 'type', type: BOOL });
  members.set('type', { k: 'type', type: { k: 'struct', def: instance(c, ns, 'integral_constant', [BOOL, v ? 1 : 0], n) } });
  return def;
}

function undecidable(what: string, n: SyntaxNode): never {
  unsupported(`${what}: the simulator does not keep the cv-qualifiers or reference of a type deduced from an argument or named by decltype, on which the answer depends`, n);
}

/** The primary and composite type categories, and is_const / is_signed …, as C++ defines them (LP64; `char` is signed). */
function category(trait: string, t: CType, n: SyntaxNode): boolean {
  const q = t.cxx ?? {};
  const what = `std::${trait}<${spellForKey(t)}>`;
  const needRef = () => {
    if (q.refUnknown) undecidable(what, n);
    return q.ref;
  };
  const needCv = () => {
    if (q.cvUnknown) undecidable(what, n);
  };
  switch (trait) {
    case 'is_lvalue_reference':
      return needRef() === '&';
    case 'is_rvalue_reference':
      return needRef() === '&&';
    case 'is_reference':
      return needRef() !== undefined;
    case 'is_const':
      if (needRef()) return false;
      needCv();
      return !!q.c;
    case 'is_volatile':
      if (needRef()) return false;
      needCv();
      return !!q.v;
  }
  // Every other category ignores cv; a reference is a compound type and nothing else.
  if (needRef()) return trait === 'is_compound';
  // __half and __nv_bfloat16 are classes in C++ (cuda_fp16.hpp), whatever arithmetic the simulator gives them;
  // an enum is its underlying integer to the simulator, and its name says it is an enum.
  const half = t.k === 'num' && (t.dt === 'f16' || t.dt === 'bf16');
  const isEnum = t.k === 'num' && !!q.name?.startsWith('enum ');
  const integral = t.k === 'num' && !half && !isEnum && !/^f/.test(t.dt);
  const floating = t.k === 'num' && (t.dt === 'f32' || t.dt === 'f64');
  const arithmetic = integral || floating;
  const nullptr = t.k === 'obj' && t.obj === 'nullptr';
  switch (trait) {
    case 'is_void':
      return t.k === 'void';
    case 'is_null_pointer':
      return nullptr;
    case 'is_integral':
      return integral;
    case 'is_floating_point':
      return floating;
    case 'is_arithmetic':
      return arithmetic;
    case 'is_signed':
      // arithmetic && T(-1) < T(0): the float types and the signed integers (char is signed on x86-64).
      return floating || (integral && t.k === 'num' && /^s/.test(t.dt));
    case 'is_unsigned':
      return integral && t.k === 'num' && (/^u/.test(t.dt) || t.dt === 'bool');
    case 'is_pointer':
      return t.k === 'ptr';
    case 'is_array':
      return t.k === 'arr';
    case 'is_enum':
      return isEnum;
    case 'is_class':
      return t.k === 'struct' ? !t.def.union : half || t.k === 'barrier' || t.k === 'lambda';
    case 'is_union':
      return t.k === 'struct' && !!t.def.union;
    case 'is_fundamental':
      return arithmetic || t.k === 'void' || nullptr;
    case 'is_scalar':
      return arithmetic || isEnum || t.k === 'ptr' || nullptr;
    case 'is_object':
      return t.k !== 'void';
    case 'is_compound':
      return !(arithmetic || t.k === 'void' || nullptr);
  }
  unsupported(what, n);
}

/** The type a transforming trait names (`remove_cv_t<const int>` is int), or undefined when it names none (`enable_if<false>`). */
function transform(trait: string, args: Arg[], n: SyntaxNode, type: (i: number) => CType, value: (i: number) => number, want: (count: number) => void): CType | undefined {
  if (trait === 'conditional') {
    want(3);
    return value(0) ? type(1) : type(2);
  }
  if (trait === 'enable_if') {
    if (args.length < 1 || args.length > 2) fail(`std::enable_if takes 1 or 2 template arguments, got ${args.length}`, n);
    return value(0) ? (args.length === 2 ? type(1) : { k: 'void' }) : undefined;
  }
  want(1);
  const t = type(0);
  const q = t.cxx ?? {};
  const refKnown = () => {
    if (q.refUnknown) undecidable(`std::${trait}<${spellForKey(t)}>`, n);
  };
  switch (trait) {
    case 'type_identity':
      return t;
    case 'remove_cv':
      return strip(t, { cv: true });
    case 'remove_const':
      if (q.cvUnknown) undecidable(`std::${trait}<${spellForKey(t)}>`, n);
      return q.c ? withCxx(strip(t, { cv: true }), q.v ? { v: true } : {}) : t;
    case 'remove_volatile':
      if (q.cvUnknown) undecidable(`std::${trait}<${spellForKey(t)}>`, n);
      return q.v ? withCxx(strip(t, { cv: true }), q.c ? { c: true } : {}) : t;
    case 'add_const':
    case 'add_volatile':
    case 'add_cv':
      refKnown();
      // References and functions are unchanged; so is a type already so qualified.
      if (q.ref) return t;
      return withCxx(t, trait === 'add_const' ? { c: true } : trait === 'add_volatile' ? { v: true } : { c: true, v: true });
    case 'remove_reference':
      return strip(t, { ref: true });
    case 'remove_cvref':
      return strip(t, { cv: true, ref: true });
    case 'add_lvalue_reference':
      refKnown();
      return t.k === 'void' ? t : withCxx(t, { ref: '&' });
    case 'add_rvalue_reference':
      refKnown();
      return t.k === 'void' || q.ref ? t : withCxx(t, { ref: '&&' });
    case 'remove_pointer': {
      refKnown();
      return t.k === 'ptr' && !q.ref ? t.to : t;
    }
    case 'add_pointer': {
      refKnown();
      return { k: 'ptr', to: strip(t, { ref: true }) };
    }
    case 'remove_extent':
      return t.k === 'arr' && !q.ref ? t.of : t;
    case 'remove_all_extents': {
      let x = t;
      while (x.k === 'arr' && !x.cxx?.ref) x = x.of;
      return x;
    }
    case 'decay': {
      refKnown();
      const u = strip(t, { ref: true });
      if (u.k === 'arr') return { k: 'ptr', to: u.of };
      return strip(u, { cv: true });
    }
    case 'make_signed':
    case 'make_unsigned': {
      refKnown();
      if (t.k !== 'num' || /^f|^bool$/.test(t.dt)) fail(`std::${trait} of ${spellForKey(t)}, which is not an integer type`, n);
      if (t.cxx?.name?.startsWith('enum ')) unsupported(`std::${trait} of ${t.cxx.name}`, n);
      const width = t.dt.slice(1);
      const dt = `${trait === 'make_signed' ? 's' : 'u'}${width}` as 's32';
      const name = t.cxx?.name;
      const base = name ? name.replace(/^(unsigned|signed) /, '') : undefined;
      // char → signed char / unsigned char; long stays long; the cv-qualifiers stay.
      const spelled = base === undefined ? undefined : trait === 'make_signed' ? (base === 'char' ? 'signed char' : base) : `unsigned ${base}`;
      const out = withCxx(num(dt), { ...t.cxx, name: spelled });
      if (!spelled) delete out.cxx!.name;
      return out;
    }
  }
  unsupported(`std::${trait}`, n);
}

/** Whether an error is a substitution failure (enable_if's condition false), which removes a template from overload resolution. */
export function isSubstitutionFailure(e: { message: string }): boolean {
  return e.message.includes(ENABLE_IF_FALSE);
}
