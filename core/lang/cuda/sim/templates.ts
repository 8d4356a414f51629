// Templates for the CUDA compiler: template parameter lists, binding template arguments (given,
// defaulted, non-type values with their declared types), class template instances (one struct per
// argument list, `Ring<4>` and `Ring<kStages>` alike), how a binding is spelled (`k<4, float>`), and
// parameter packs (bound element by element as `Ts#0`, `Ts#1`, …; expansions, index sequences).
import type { SyntaxNode } from '../parser';
import { SCALAR_DTYPES } from '../c-types';
import { type CompilerContext, type Ex, FnCx, type Sym } from './context';
import { fail, findNode, locOf, named, unsupported, requiredField } from './syntax';
import { conceptNamed, requireConcept } from './concepts';
import { isNumericLimits, numericLimitsStruct } from './numeric-limits';
import { ENABLE_IF_FALSE, scopeOf, spellCxx, stdTrait, traitMember, traitStruct } from './type-traits';
import { convFn, type CType, isNum, layoutStruct, type StructDef, type StructMember, U64 } from './types';

/** One parameter of a template: a type (`typename T`) or a value (`int kStages`), with its default. */
export interface TemplateParam {
  name: string;
  kind: 'type' | 'value';
  /** The declared type of a value parameter. */
  type?: SyntaxNode;
  dflt?: SyntaxNode;
  /** A parameter pack (`typename... Ts`, `size_t... Idx`): bound as `Ts#0`, `Ts#1`, … and its length as `...Ts`. */
  pack?: boolean;
  /**
   * A parameter without a name (`typename = std::enable_if_t<…>`, `std::enable_if_t<…, int> = 0`): it only
   * constrains the others; its type or default is evaluated (a false enable_if fails the substitution).
   */
  unnamed?: boolean;
  /** A type parameter constrained by a concept (`template <ducks::st::all ST>`): the concept's name and where it is written. */
  constraint?: { concept: string; node: SyntaxNode };
}

/** The binding keys of a pack's elements and length. */
export const packElem = (name: string, i: number): string => `${name}#${i}`;
export const packLen = (name: string): string => `...${name}`;

/** Template arguments by parameter name: types, or the values of non-type parameters. */
export type TemplateBinding = Map<string, CType | number>;

/** The parameters of a template; with the compiler, a parameter whose type names a concept is a constrained type parameter. */
export function templateParams(list: SyntaxNode, c?: CompilerContext): TemplateParam[] {
  const out: TemplateParam[] = [];
  for (const p of named(list)) {
    const unnamed = `<unnamed ${out.length}>`;
    switch (p.type) {
      case 'type_parameter_declaration':
      case 'optional_type_parameter_declaration': {
        const dflt = p.childForFieldName('default_type')?.id;
        const nm = p.childForFieldName('name') ?? named(p).find((x) => x.type === 'type_identifier' && x.id !== dflt);
        out.push({ name: nm?.text ?? unnamed, kind: 'type', dflt: p.childForFieldName('default_type') ?? undefined, ...(nm ? {} : { unnamed: true }) });
        break;
      }
      case 'parameter_declaration':
      case 'optional_parameter_declaration': {
        const dn = p.childForFieldName('declarator');
        if (!dn || dn.type.startsWith('abstract_')) {
          out.push({ name: unnamed, kind: 'value', type: p.childForFieldName('type') ?? undefined, dflt: p.childForFieldName('default_value') ?? undefined, unnamed: true });
          break;
        }
        if (dn.type !== 'identifier') unsupported(`template parameter '${p.text}'`, p);
        const tn = p.childForFieldName('type');
        const concept = c && tn ? conceptNamed(c, tn.text, tn) : undefined;
        if (concept) {
          out.push({ name: dn.text, kind: 'type', dflt: p.childForFieldName('default_value') ?? undefined, constraint: { concept, node: tn! } });
          break;
        }
        out.push({ name: dn.text, kind: 'value', type: p.childForFieldName('type') ?? undefined, dflt: p.childForFieldName('default_value') ?? undefined });
        break;
      }
      case 'variadic_type_parameter_declaration': {
        const nm = named(p).find((x) => x.type === 'type_identifier');
        if (!nm) unsupported(`template parameter pack '${p.text}'`, p);
        out.push({ name: nm.text, kind: 'type', pack: true });
        break;
      }
      case 'variadic_parameter_declaration': {
        const vd = p.childForFieldName('declarator');
        const id = vd?.type === 'variadic_declarator' ? named(vd).find((x) => x.type === 'identifier') : undefined;
        if (!id) unsupported(`template parameter pack '${p.text}'`, p);
        out.push({ name: id.text, kind: 'value', type: p.childForFieldName('type') ?? undefined, pack: true });
        break;
      }
      default:
        unsupported(`template parameter '${p.text}'`, p);
    }
  }
  return out;
}

// -------------------------------------------------------------- parameter packs

/** The parameter packs (template or function) named in `n`. */
export function packsIn(c: CompilerContext, cx: FnCx, n: SyntaxNode): string[] {
  const out = new Set<string>();
  const walk = (x: SyntaxNode) => {
    if ((x.type === 'identifier' || x.type === 'type_identifier') && c.lookup(cx, packLen(x.text))) out.add(x.text);
    // A nested expansion expands its own packs.
    if (x.type !== 'parameter_pack_expansion') for (const ch of named(x)) walk(ch);
  };
  walk(n);
  return [...out];
}

export function packLength(c: CompilerContext, cx: FnCx, packs: string[], at: SyntaxNode): number {
  const lens = packs.map((p) => c.lookup(cx, packLen(p))!.sym as { value: number });
  if (lens.some((l) => l.value !== lens[0].value)) fail(`packs of different lengths expanded together (${packs.join(', ')})`, at);
  return lens[0].value;
}

/** Compiles `fn` with each pack in `packs` standing for its element `i`. */
export function withPackElement<T>(cx: FnCx, packs: string[], i: number, c: CompilerContext, fn: () => T): T {
  const scope = new Map<string, Sym>();
  for (const p of packs) {
    const e = c.lookup(cx, packElem(p, i));
    if (e) scope.set(p, e.sym);
  }
  cx.scopes.push(scope);
  try {
    return fn();
  } finally {
    cx.scopes.pop();
  }
}

/** A pattern expanded (`xs...`, `d[Idx]...`, `f(args)...`): one expression per element of its packs. */
export function expandPattern(c: CompilerContext, cx: FnCx, pattern: SyntaxNode, at: SyntaxNode): Ex[] {
  const packs = packsIn(c, cx, pattern);
  if (!packs.length) fail(`'${at.text}' expands no parameter pack`, at);
  const len = packLength(c, cx, packs, at);
  const out: Ex[] = [];
  for (let i = 0; i < len; i++) out.push(withPackElement(cx, packs, i, c, () => c.expr(cx, pattern)));
  return out;
}

/** Call arguments, pack expansions among them expanded. */
export function callArgs(c: CompilerContext, cx: FnCx, argNodes: SyntaxNode[]): Ex[] {
  return argNodes.flatMap((a) => (a.type === 'parameter_pack_expansion' ? expandPattern(c, cx, requiredField(a, 'pattern'), a) : [c.expr(cx, a)]));
}

/**
 * `std::make_index_sequence<N>`, `make_integer_sequence<T, N>`, `index_sequence<I...>` (std:: and
 * cute:: alike, whose own are aliases of the compiler's): an empty object whose type carries the
 * values 0..N-1 as its template arguments, so `template <size_t... Idx> f(index_sequence<Idx...>)`
 * deduces the pack from it (DeepGEMM's FP8MMA::wgmma expands `d[Idx]...` this way).
 */
export function integerSequence(c: CompilerContext, cx: FnCx, text: string, n: SyntaxNode): CType | undefined {
  // Any namespace: CuTe's own alias the standard ones through a macro (`CUTE_STL_NAMESPACE::make_integer_sequence`).
  const m = /^(?:[\w:]+::)?(make_index_sequence|make_integer_sequence|index_sequence|integer_sequence)</.exec(text);
  if (!m) return undefined;
  const tt = findNode(n, 'template_argument_list');
  const args = tt ? named(tt) : [];
  const value = (a: SyntaxNode) => {
    const tn = a.type === 'type_descriptor' && !a.childForFieldName('declarator') ? a.childForFieldName('type') : a;
    const s = tn && (tn.type === 'type_identifier' || tn.type === 'identifier') ? c.lookup(cx, tn.text) : undefined;
    return s?.sym.k === 'const' ? s.sym.value : c.constEval(cx, tn ?? a, U64);
  };
  let values: number[];
  if (m[1].startsWith('make_')) {
    const len = value(args[m[1] === 'make_index_sequence' ? 0 : 1]);
    if (!(len >= 0 && len <= 4096)) fail(`${m[1]} of length ${len}`, n);
    values = Array.from({ length: len }, (_, i) => i);
  } else
    values = args.slice(m[1] === 'index_sequence' ? 0 : 1).flatMap((a) => {
      if (a.type !== 'parameter_pack_expansion') return [value(a)];
      // `index_sequence<Idx...>` inside the function deduced from one: the pack's values.
      const pattern = requiredField(a, 'pattern');
      const packs = packsIn(c, cx, pattern);
      if (!packs.length) fail(`'${a.text}' expands no parameter pack`, a);
      return Array.from({ length: packLength(c, cx, packs, a) }, (_, i) => withPackElement(cx, packs, i, c, () => value(pattern)));
    });
  const def = layoutStruct(`index_sequence<${values.join(', ')}>`, []);
  def.size = 1;
  def.template = { name: 'index_sequence', args: values };
  return { k: 'struct', def };
}

/** One template argument as written (`4`, `float`, `kStages`), evaluated in `cx` for parameter `p`. */
export function templateArg(c: CompilerContext, cx: FnCx, p: TemplateParam, a: SyntaxNode): CType | number {
  if (p.kind === 'type') return a.type === 'type_descriptor' ? c.typeDescriptor(cx, a) : c.baseType(cx, a);
  // A lone name parses as a type (`Ring<kStages>`): it is a value here.
  if (a.type === 'type_descriptor' && !a.childForFieldName('declarator')) {
    const tn = a.childForFieldName('type');
    if (tn?.type === 'type_identifier' || tn?.type === 'primitive_type') {
      const s = c.lookup(cx, tn.text);
      if (s?.sym.k === 'const') return s.sym.value;
      fail(`template argument '${tn.text}' of '${p.name}' is not a compile-time constant`, a);
    }
    if (tn?.type === 'qualified_identifier' || tn?.type === 'template_type') return c.constEval(cx, tn);
  }
  return c.constEval(cx, a);
}

/** Binds the arguments given (`args`, in order) to `params`; `what` names the template in errors. */
export function bindTemplateArgs(c: CompilerContext, cx: FnCx, params: TemplateParam[], args: SyntaxNode[], what: string, at: SyntaxNode, into: TemplateBinding = new Map()): TemplateBinding {
  const pack = params.findIndex((p) => p.pack);
  // An expansion among the arguments (`Seq<Is...>` inside a function deduced from one) gives one argument per element.
  const items: { node: SyntaxNode; eval: (p: TemplateParam) => CType | number }[] = args.flatMap((a) => {
    if (a.type !== 'parameter_pack_expansion') return [{ node: a, eval: (p: TemplateParam) => templateArg(c, cx, p, a) }];
    const pattern = requiredField(a, 'pattern');
    const packs = packsIn(c, cx, pattern);
    if (!packs.length) fail(`'${a.text}' expands no parameter pack`, a);
    return Array.from({ length: packLength(c, cx, packs, a) }, (_, i) => ({ node: a, eval: (p: TemplateParam) => withPackElement(cx, packs, i, c, () => templateArg(c, cx, p, pattern)) }));
  });
  if (items.length > params.length && pack < 0) fail(`too many template arguments for '${what}' (${items.length} for ${params.length})`, at);
  items.forEach((a, i) => {
    if (pack >= 0 && i >= pack) into.set(packElem(params[pack].name, i - pack), a.eval(params[pack]));
    else into.set(params[i].name, a.eval(params[i]));
  });
  args = items.map((x) => x.node);
  if (pack >= 0 && args.length > pack) into.set(packLen(params[pack].name), args.length - pack);
  return into;
}

/** Fills the parameters left unbound from their defaults (which see the earlier arguments); the names still missing. */
export function applyDefaults(c: CompilerContext, params: TemplateParam[], binding: TemplateBinding, at: SyntaxNode): string[] {
  const missing: string[] = [];
  for (const p of params) {
    if (p.pack) {
      // A pack neither given nor deduced is empty.
      if (!binding.has(packLen(p.name))) binding.set(packLen(p.name), 0);
      continue;
    }
    if (binding.has(p.name)) continue;
    if (p.unnamed && p.kind === 'value') {
      // Nothing can name its value (often `nullptr`, CuTe's CUTE_REQUIRES); its type is checked in templateScope.
      binding.set(p.name, 0);
      continue;
    }
    if (!p.dflt) {
      missing.push(p.name);
      continue;
    }
    const scratch = new FnCx('<template>', null, binding, undefined, locOf(at));
    scratch.scopes = [templateScope(c, params.filter((q) => binding.has(q.name)), binding)];
    binding.set(p.name, templateArg(c, scratch, p, p.dflt));
  }
  return missing;
}

/**
 * The names a binding declares, as symbols: types, and values with their declared types (a
 * `uint32_t kStages` is unsigned in arithmetic, not an int).
 */
export function templateScope(c: CompilerContext, params: TemplateParam[], binding: TemplateBinding): Map<string, StructMember> {
  const out = new Map<string, StructMember>();
  const cx = new FnCx('<template>', null, binding, undefined, { line: 0 });
  cx.scopes = [out];
  for (const p of params) {
    if (p.pack) {
      const len = binding.get(packLen(p.name));
      if (typeof len !== 'number') continue;
      out.set(packLen(p.name), { k: 'const', type: { k: 'num', dt: 'u64' }, value: len });
      for (let i = 0; i < len; i++) {
        const v = binding.get(packElem(p.name, i))!;
        if (typeof v !== 'number') out.set(packElem(p.name, i), { k: 'type', type: v });
        else {
          const t = p.type && p.type.type !== 'placeholder_type_specifier' ? c.baseType(cx, p.type) : { k: 'num' as const, dt: 's32' as const };
          out.set(packElem(p.name, i), { k: 'const', type: t, value: v });
        }
      }
      continue;
    }
    const v = binding.get(p.name);
    if (v === undefined) continue;
    if (p.constraint && typeof v !== 'number') requireConcept(c, p.constraint.concept, v, p.constraint.node);
    if (p.unnamed) {
      // `std::enable_if_t<cond, int> = 0`: the type is evaluated so a false condition fails the substitution.
      if (p.kind === 'value' && p.type) c.baseType(cx, p.type);
      continue;
    }
    if (typeof v !== 'number') {
      out.set(p.name, { k: 'type', type: v });
      continue;
    }
    let t: CType = { k: 'num', dt: 's32' };
    if (p.type && p.type.type !== 'placeholder_type_specifier') t = c.baseType(cx, p.type);
    if (!isNum(t)) unsupported(`non-type template parameter '${p.name}' of type '${p.type?.text}'`, p.type ?? p.dflt!);
    const conv = convFn('s64', t.dt);
    out.set(p.name, { k: 'const', type: t, value: conv && Number.isInteger(v) ? conv(v) : v });
  }
  return out;
}

const C_NAMES: Record<string, string> = {};
for (const [name, dt] of Object.entries(SCALAR_DTYPES)) if (!(dt in C_NAMES) && !/_t$|^uint$|^half$|^nv_|^signed$|^unsigned$|int $/.test(name)) C_NAMES[dt] = name;
Object.assign(C_NAMES, { s32: 'int', u32: 'unsigned int', s64: 'long long', u64: 'unsigned long long', s8: 'signed char', u8: 'unsigned char', s16: 'short', u16: 'unsigned short', f16: '__half', bf16: '__nv_bfloat16' });

/**
 * A type as C++ spells it (`float`, `unsigned int`, `Ring<4>*`). With `unknownMarks`, what deduction may have
 * lost is spelled too (function instances keep `T = int*` apart from a deduced `T`, whose pointee's cv is
 * unknown, so a trait is never answered from the other); class template instances unify them, as before.
 */
export function spellType(t: CType, unknownMarks = false): string {
  return spellCxx(t, spellCore(t, unknownMarks), unknownMarks);
}

function spellCore(t: CType, marks: boolean): string {
  switch (t.k) {
    case 'num':
      return C_NAMES[t.dt] ?? t.dt;
    case 'ptr':
      return `${spellType(t.to, marks)}*`;
    case 'arr':
      return `${spellType(t.of, marks)}[${t.n < 0 ? '' : t.n}]`;
    case 'struct':
      return t.def.name;
    case 'barrier':
      return 'cuda::barrier<cuda::thread_scope_block>';
    default:
      return t.k;
  }
}

/** Template arguments as C++ spells them, comma-separated (`4, float`). */
export function spellArgs(args: (CType | number)[]): string {
  return args.map((a) => (typeof a === 'number' ? String(a) : spellType(a))).join(', ');
}

/** A binding's arguments in order, a pack's elements in its place. */
function boundArgs(params: TemplateParam[], binding: TemplateBinding): (CType | number)[] {
  return params.flatMap((p) => {
    if (!p.pack) return [binding.get(p.name)!];
    const len = binding.get(packLen(p.name)) as number;
    return Array.from({ length: len }, (_, i) => binding.get(packElem(p.name, i))!);
  });
}

/** The instance of class template `name` for the arguments written at `n` (evaluated in `cx`). */
export function classTemplate(c: CompilerContext, cx: FnCx, name: string, argNodes: SyntaxNode[], n: SyntaxNode): StructDef {
  const node = c.templateStructs.get(name);
  const list = node?.parent?.type === 'template_declaration' ? node.parent.childForFieldName('parameters') : null;
  if (!node || !list) unsupported(`class template '${name}' without a definition`, n);
  const params = templateParams(list, c);
  const binding = bindTemplateArgs(c, cx, params, argNodes, name, n);
  const missing = applyDefaults(c, params, binding, n);
  if (missing.length) fail(`missing template argument${missing.length > 1 ? 's' : ''} ${missing.map((m) => `'${m}'`).join(', ')} of '${name}'`, n);
  const args = boundArgs(params, binding);
  const key = `${name}<${spellArgs(args)}>`;
  const have = c.structs.get(key);
  if (have) return have;
  const special = specialisation(c, name, params, key, n, args);
  if (special) {
    const file = new FnCx('<file>', null, special.binding ?? new Map(), undefined, locOf(special.node));
    const members = special.binding ? templateScope(c, special.params!, special.binding) : new Map();
    return c.defineStruct(file, special.node, key, { name, args, members });
  }
  return c.defineStruct(cx, node, key, { name, args, members: templateScope(c, params, binding) });
}

/**
 * A partial specialisation (`template <typename T> struct R<T, 0>`) these arguments match: each of its
 * arguments is one of its own parameters (bound to the argument there, the same each time it recurs)
 * or a value or type equal to the argument. Patterns inside arguments (`R<T*, N>`, `R<Foo<T>>`) do not
 * match, and the first matching one is taken (no "more specialised" ordering): its binding.
 */
function partialSpecialisation(c: CompilerContext, node: SyntaxNode, list: SyntaxNode, params: TemplateParam[], args: (CType | number)[]): TemplateBinding | undefined {
  const argList = node.childForFieldName('name')?.childForFieldName('arguments');
  if (!argList) return undefined;
  const own = templateParams(list, c);
  if (own.some((p) => p.pack)) return undefined;
  const items = named(argList);
  if (items.length !== args.length) return undefined;
  const binding: TemplateBinding = new Map();
  for (let i = 0; i < items.length; i++) {
    const text = items[i].text.replace(/\s+/g, '');
    const p = own.find((q) => q.name === text);
    const want = args[i];
    if (p) {
      const have = binding.get(p.name);
      if (have !== undefined && spellArgs([have]) !== spellArgs([want])) return undefined;
      if ((p.kind === 'value') !== (typeof want === 'number')) return undefined;
      binding.set(p.name, want);
      continue;
    }
    const cx = new FnCx('<specialisation>', null, binding, undefined, locOf(node));
    cx.scopes = [templateScope(c, own.filter((q) => binding.has(q.name)), binding)];
    const kind = params[i]?.kind ?? (typeof want === 'number' ? 'value' : 'type');
    let got: CType | number;
    try {
      got = templateArg(c, cx, { name: params[i]?.name ?? '', kind, type: params[i]?.type }, items[i]);
    } catch {
      return undefined; // names a parameter inside a pattern: not modelled, no match
    }
    if (spellArgs([got]) !== spellArgs([want])) return undefined;
  }
  return own.every((p) => binding.has(p.name)) ? binding : undefined;
}

/** A specialisation for exactly these arguments: a full one (`template <> struct Ring<0>`), else a partial one that matches. */
function specialisation(c: CompilerContext, name: string, params: TemplateParam[], key: string, n: SyntaxNode, args: (CType | number)[]): { node: SyntaxNode; binding?: TemplateBinding; params?: TemplateParam[] } | undefined {
  let partial: { node: SyntaxNode; binding?: TemplateBinding; params?: TemplateParam[] } | undefined;
  for (const [k, node] of c.templateStructs) {
    if (!k.startsWith(`${name}<`) && !k.startsWith(`${name} <`)) continue;
    const list = node.parent?.childForFieldName('parameters');
    if (list && named(list).length) {
      const binding = partial ? undefined : partialSpecialisation(c, node, list, params, args);
      if (binding) partial = { node, binding, params: templateParams(list, c) };
      continue;
    }
    const argList = node.childForFieldName('name')?.childForFieldName('arguments');
    if (!argList) continue;
    const file = new FnCx('<file>', null, new Map(), undefined, locOf(node));
    const binding = bindTemplateArgs(c, file, params, named(argList), name, node);
    applyDefaults(c, params, binding, node);
    if (`${name}<${spellArgs(boundArgs(params, binding))}>` === key) return { node };
  }
  return partial;
}

/** The struct a scope names (`Ring<4>` in `Ring<4>::kStages`, `S` in `S::kN`, `std::is_same<T, U>`), if it names one. */
export function scopeStruct(c: CompilerContext, cx: FnCx, scope: SyntaxNode): StructDef | undefined {
  if (scope.type === 'template_type') {
    const name = scope.childForFieldName('name')?.text ?? '';
    const args = named(requiredField(scope, 'arguments'));
    // `std::is_same<…>`: the standard trait even where a header defines its own (libcu++'s implementation).
    const ns = scopeOf(scope);
    if (isNumericLimits(c, ns, name)) {
      if (args.length !== 1) fail(`std::numeric_limits takes one template argument`, scope);
      const t = args[0].type === 'type_descriptor' ? c.typeDescriptor(cx, args[0]) : c.baseType(cx, args[0]);
      return numericLimitsStruct(c, t, `std::numeric_limits<${spellType(t)}>`, scope);
    }
    if (ns !== undefined && !/cute/.test(ns)) {
      const trait = traitStruct(c, cx, ns, name, args, scope);
      if (trait) return trait;
    }
    if (c.templateStructs.has(name)) return c.classTemplate(cx, name, args, scope);
    if (isAliasTemplate(c, name)) {
      const t = aliasTemplate(c, cx, name, args, scope);
      return t.k === 'struct' ? t.def : undefined;
    }
    return traitStruct(c, cx, scopeOf(scope), name, args, scope);
  }
  // `decltype(x)::value` (CuTe's idiom for a compile-time integer held in a value).
  if (scope.type === 'decltype') {
    const t = c.baseType(cx, scope);
    return t.k === 'struct' ? t.def : undefined;
  }
  if (scope.type !== 'namespace_identifier' && scope.type !== 'type_identifier') return undefined;
  const s = c.lookup(cx, scope.text);
  if (s?.sym.k === 'type') return s.sym.type.k === 'struct' ? s.sym.type.def : undefined;
  return c.structDef(cx, scope.text, scope) ?? traitStruct(c, cx, scopeOf(scope), scope.text, [], scope);
}

/**
 * The type a template name with arguments names, or undefined when it names no template: a class template
 * instance (`Ring<4>`), an alias template's type (`Ptr<int>`), a trait's type (`std::conditional_t<…>`) or the
 * trait itself (`std::integral_constant<int, 4>`). Written with std:: a trait is the standard one even where a
 * header defines its own (libcu++'s implementation). A trait's `_v` is a value: undefined with `valueOk`.
 */
export function templateNameType(c: CompilerContext, cx: FnCx, n: SyntaxNode, valueOk: boolean): CType | undefined {
  const tname = n.childForFieldName('name')?.text ?? '';
  const args = named(requiredField(n, 'arguments'));
  const scope = scopeOf(n);
  const trait = stdTrait(c, scope, tname);
  const standard = trait && scope !== undefined && !/cute/.test(scope);
  if (!standard && c.templateStructs.has(tname)) return { k: 'struct', def: c.classTemplate(cx, tname, args, n) };
  if (!standard && isAliasTemplate(c, tname)) return aliasTemplate(c, cx, tname, args, n);
  if (trait?.form === 't') {
    const m = traitMember(c, cx, scope, tname, args, n, 't');
    if (m?.k !== 'type') fail(`'${n.text}' names no type (${ENABLE_IF_FALSE})`, n);
    return m.type;
  }
  if (trait?.form === 'class') return { k: 'struct', def: traitStruct(c, cx, scope, tname, args, n)! };
  if (trait && !valueOk) fail(`'${n.text}' is a value, not a type`, n);
  return undefined;
}

/**
 * The type an alias template names for these arguments (`Ptr<float>` for `template <class T> using Ptr = T*;`):
 * the aliased type evaluated with the parameters bound, defaults and packs as for class templates.
 */
export function aliasTemplate(c: CompilerContext, cx: FnCx, name: string, argNodes: SyntaxNode[], n: SyntaxNode): CType {
  const node = c.aliasTemplates.get(name)!;
  expanding.add(name);
  try {
    return expandAlias(c, cx, node, name, argNodes, n);
  } finally {
    expanding.delete(name);
  }
}

/**
 * Alias templates being expanded. One that names another of the same name (CuTe's `template <size_t N>
 * using make_index_sequence = std::make_index_sequence<N>;`, found again by its last name) means that other one.
 */
const expanding = new Set<string>();

/** Whether `name` is an alias template to expand here (not the one being expanded). */
export function isAliasTemplate(c: CompilerContext, name: string): boolean {
  // The index sequences are modelled whatever a header aliases them to (integerSequence).
  return c.aliasTemplates.has(name) && !expanding.has(name) && !SEQUENCES.test(name);
}

const SEQUENCES = /^(make_index_sequence|make_integer_sequence|index_sequence|integer_sequence)$/;

function expandAlias(c: CompilerContext, cx: FnCx, node: SyntaxNode, name: string, argNodes: SyntaxNode[], n: SyntaxNode): CType {
  const list = node.parent?.childForFieldName('parameters');
  if (!list) unsupported(`alias template '${name}' without a parameter list`, n);
  const params = templateParams(list, c);
  const binding = bindTemplateArgs(c, cx, params, argNodes, name, n);
  const missing = applyDefaults(c, params, binding, n);
  if (missing.length) fail(`missing template argument${missing.length > 1 ? 's' : ''} ${missing.map((m) => `'${m}'`).join(', ')} of '${name}'`, n);
  const acx = new FnCx(`<alias ${name}>`, null, binding, undefined, locOf(node));
  acx.scopes = [templateScope(c, params, binding)];
  return c.typeDescriptor(acx, requiredField(node, 'type'));
}
