// Declarations and types for the CUDA compiler: the file scan (functions, kernels, structs,
// file-scope constants and device variables), C++ types as written (primitives, typedefs, structs,
// templates' bound parameters, enums, decltype, declarators), compile-time constants, and local
// variables and parameters with their storage (a frame slot, frame memory, a reference, shared memory).
import { SCALAR_DTYPES } from '../c-types';
import type { SyntaxNode } from '../parser';
import { SimError } from '../../../sim/machine';
import { Buffer } from '../../../sim/memory';
import { type CompilerContext, type DeclaratorInfo, type Ex, type FnDecl, FnCx, freshId, type LV, type StructTemplate, type Sym } from './context';
import { type Frame, storer } from './runtime';
import { allChildren, type DeclQuals, declQualifiers, fail, findFunctionDeclarator, findNode, innermostName, lastName, locOf, missingIncludesNote, named, unsupported, requiredField } from './syntax';
import { PIPELINE_ROLE_TYPE, PIPELINE_TYPE, sharedStateDef } from './pipeline-builtins';
import { declareSlotLocal } from './slot-locals';
import { keptSnippet, snippetConstant } from './snippets';
import { integerSequence, isAliasTemplate, templateArg, templateNameType, templateParams, templateScope } from './templates';
import { baseClasses, inheritMethods } from './base-classes';
import { addStruct, qualifiedPath, structNamed } from './namespaces';
import { ENABLE_IF_FALSE, fromExpression, fundamental, qualifiedAs, scopeOf, stdTrait, traitStruct, withCxx } from './type-traits';
import { alignOfType, convFn, type CType, decay, elemDtype, type FieldDecl, isFloatDt, isNum, layoutStruct, num, ptr, S32, shapeOf, sizeOfType, type StructDef, tensorMapType, typeName, U64, vectorType, VOID } from './types';

/** Primitive and standard type names by their dtype: the CUDA folder's one table (c-types.ts). */
const PRIMS = SCALAR_DTYPES;


// ------------------------------------------------------------------ file scan

/** Records the file's functions, kernels, structs and file-scope declarations (compiled on first use). */
export function collectFile(c: CompilerContext, root: SyntaxNode): void {
  collect(c, root, undefined);
}

function collect(c: CompilerContext, n: SyntaxNode, tparams: SyntaxNode | undefined): void {
  for (const child of named(n)) {
    switch (child.type) {
      case 'function_definition':
        addFunction(c, child, tparams, undefined);
        break;
      case 'template_declaration': {
        const tp = child.childForFieldName('parameters') ?? undefined;
        const inner = named(child).filter((x) => x !== tp);
        for (const d of inner) {
          if (d.type === 'function_definition') addFunction(c, d, tp, undefined);
          else if (d.type === 'struct_specifier' || d.type === 'class_specifier' || d.type === 'union_specifier') c.templateStructs.set(d.childForFieldName('name')?.text ?? '', d);
          else if (d.type === 'concept_definition') c.concepts.set(qualifiedPath(d), d);
          else if (d.type === 'alias_declaration') {
            const name = d.childForFieldName('name')?.text;
            if (name) c.aliasTemplates.set(name, d);
          }
        }
        break;
      }
      case 'namespace_definition':
      case 'linkage_specification': {
        const body = child.childForFieldName('body');
        if (body) collect(c, body, undefined);
        break;
      }
      case 'declaration_list':
        collect(c, child, undefined);
        break;
      case 'struct_specifier':
      case 'class_specifier':
      case 'union_specifier':
        addStruct(c, child);
        break;
      case 'declaration':
        c.fileDeclarations.push(child);
        for (const s of named(child)) if (s.type === 'struct_specifier' || s.type === 'class_specifier' || s.type === 'union_specifier') addStruct(c, s);
        break;
      case 'type_definition':
      case 'alias_declaration':
      case 'enum_specifier':
        c.fileDeclarations.push(child);
        break;
      case 'preproc_def': {
        const name = child.childForFieldName('name')?.text;
        if (name && !c.defines.has(name)) c.defines.set(name, child);
        break;
      }
      case 'preproc_function_def': {
        const name = child.childForFieldName('name')?.text;
        if (name && !c.functionMacros.has(name)) c.functionMacros.set(name, child);
        break;
      }
      case 'preproc_if':
      case 'preproc_ifdef':
        collect(c, child, undefined);
        break;
      default:
        break;
    }
  }
}

function addFunction(c: CompilerContext, node: SyntaxNode, tparams: SyntaxNode | undefined, owner: StructDef | undefined): void {
  const decl = node.childForFieldName('declarator');
  const fd = decl ? findFunctionDeclarator(decl) : undefined;
  const nameNode = fd?.childForFieldName('declarator');
  if (!nameNode) return;
  // `operator +` and `operator+` name one function (binary operators on structs call it).
  const name = lastName(nameNode.text).replace(/^operator\s+/, 'operator');
  const d: FnDecl = { name, node, tparams, owner };
  let list = c.functions.get(name);
  if (!list) c.functions.set(name, (list = []));
  list.push(d);
  if (allChildren(node).some((x) => x.type === '__global__' || x.text === '__global__')) c.kernels.push(d);
}

/** File-scope declarations (constants, typedefs, enums, structs); `Compiler.prepareFileScope` runs this once, on first use. */
export function prepareFileScope(c: CompilerContext): void {
  const cx = new FnCx('<file>', null, new Map(), undefined, { line: 0 });
  cx.scopes = [c.fileScope];
  for (const d of c.fileDeclarations) fileDecl(c, cx, d);
}

function fileDecl(c: CompilerContext, cx: FnCx, d: SyntaxNode): void {
  switch (d.type) {
    case 'type_definition':
    case 'alias_declaration':
      try {
        c.typeDecl(cx, d);
      } catch (e) {
        // A header's alias the kernel never uses may name types we do not model (CUTLASS's
        // `using int4b_t = integer_subbyte<4, true>`): a use of it reports the type there.
        if (!(e instanceof SimError)) throw e;
      }
      return;
    case 'enum_specifier':
      c.enumDecl(cx, d);
      return;
    case 'declaration': {
      const quals = declQualifiers(d);
      const tn = d.childForFieldName('type');
      if (tn?.type === 'enum_specifier') c.enumDecl(cx, tn);
      for (const dn of d.childrenForFieldName('declarator')) {
        if (!dn) continue;
        if (dn.type === 'function_declarator') continue; // prototype
        let info: DeclaratorInfo;
        try {
          info = c.declarator(cx, c.baseType(cx, tn!), dn);
        } catch {
          continue; // a file-scope declaration the kernel never uses may use types we do not model
        }
        if (info.init && (quals.constexpr || quals.const) && isNum(info.type)) {
          try {
            const v = c.constEval(cx, info.init, info.type);
            c.fileScope.set(info.name, { k: 'const', type: info.type, value: v });
            continue;
          } catch {
            /* not a constant: a device variable below */
          }
        }
        if (quals.device || quals.constant || quals.managed) {
          const size = sizeOfType(info.type);
          const buf = new Buffer(c.newGlobalId(), info.name, quals.constant ? 'const' : 'global', Math.max(size, 1), undefined, elemDtype(info.type), shapeOf(info.type));
          const index = c.globals.push(buf) - 1;
          if (info.init) staticInit(c, cx, buf, info.type, info.init);
          c.fileScope.set(info.name, { k: 'global', type: info.type, index });
        }
      }
      return;
    }
  }
}

function staticInit(c: CompilerContext, cx: FnCx, buf: Buffer, t: CType, init: SyntaxNode): void {
  const flat: { off: number; t: CType; node: SyntaxNode }[] = [];
  flattenInit(c, cx, t, init, 0, flat);
  for (const e of flat) {
    if (!isNum(e.t)) unsupported('a non-numeric initialiser of a device variable', e.node);
    storer(e.t.dt)(buf, e.off, c.constEval(cx, e.node, e.t));
  }
}

export function typeDecl(c: CompilerContext, cx: FnCx, d: SyntaxNode): void {
  if (d.type === 'alias_declaration') {
    const name = requiredField(d, 'name').text;
    const td = requiredField(d, 'type');
    scopeTop(c, cx).set(name, { k: 'type', type: c.typeDescriptor(cx, td) });
    return;
  }
  const tn = d.childForFieldName('type');
  if (!tn) return;
  const base = qualifiedAs(c.baseType(cx, tn), d);
  for (const dn of d.childrenForFieldName('declarator')) {
    if (!dn) continue;
    const info = c.declarator(cx, base, dn);
    scopeTop(c, cx).set(info.name, { k: 'type', type: info.ref ? withCxx(info.type, { ref: /&&/.test(dn.text) ? '&&' : '&' }) : info.type });
  }
}

export function enumDecl(c: CompilerContext, cx: FnCx, d: SyntaxNode): void {
  const list = named(d).find((x) => x.type === 'enumerator_list');
  const name = d.childForFieldName('name')?.text;
  const base = d.childForFieldName('base');
  let t = base ? c.baseType(cx, base) : S32;
  if (name) t = withCxx(t, { name: `enum ${name}` }); // its underlying integer, which the traits know to be an enum
  if (name) scopeTop(c, cx).set(name, { k: 'type', type: t });
  if (!list) return;
  let next = 0;
  for (const e of named(list)) {
    if (e.type !== 'enumerator') continue;
    const en = requiredField(e, 'name').text;
    const v = e.childForFieldName('value');
    if (v) next = c.constEval(cx, v, t);
    scopeTop(c, cx).set(en, { k: 'const', type: t, value: next });
    if (name) scopeTop(c, cx).set(`${name}::${en}`, { k: 'const', type: t, value: next });
    next++;
  }
}

function scopeTop(c: CompilerContext, cx: FnCx): Map<string, Sym> {
  return cx.scopes[cx.scopes.length - 1];
}

/**
 * A `#define NAME <constant expression>` read as a constant where the name is used (the simulator
 * sees the file unpreprocessed; object-like numeric macros are all a template argument needs).
 */
function defineConstant(c: CompilerContext, name: string): Sym | undefined {
  const d = c.defines.get(name);
  if (!d) return undefined;
  c.defines.delete(name); // read once, and a macro naming itself ends here
  const text = d.childForFieldName('value')?.text.trim();
  if (!text || !/^[\w\s()+\-*/%<>&|^~!?:.']+$/.test(text)) return undefined;
  const v = snippetConstant(c, d, text);
  if (!v) return undefined;
  const sym: Sym = { k: 'const', type: v.type, value: v.value };
  c.fileScope.set(name, sym);
  return sym;
}

// -------------------------------------------------------------- types

export function lookup(c: CompilerContext, cx: FnCx | null, name: string): { sym: Sym; depth: number } | undefined {
  let depth = 0;
  for (let c = cx; c; c = c.parent, depth++) {
    for (let i = c.scopes.length - 1; i >= 0; i--) {
      const s = c.scopes[i].get(name);
      if (s) return { sym: s, depth };
    }
    const tb = c.tbind.get(name);
    if (tb !== undefined) return { sym: typeof tb === 'number' ? { k: 'const', type: S32, value: tb } : { k: 'type', type: tb }, depth };
    // Inside a member function: the struct's static members, typedefs and template arguments.
    const m = c.owner?.members?.get(name);
    if (m) return { sym: m, depth };
  }
  const s = c.fileScope.get(name) ?? defineConstant(c, name);
  return s ? { sym: s, depth: 0 } : undefined;
}

export function structDef(c: CompilerContext, cx: FnCx, name: string, n: SyntaxNode): StructDef | undefined {
  const [key, node] = structNamed(c, name, n);
  const have = c.structs.get(key);
  if (have) return have;
  return node ? c.defineStruct(cx, node, key) : undefined;
}

export function defineStruct(c: CompilerContext, cx: FnCx, node: SyntaxNode, name: string, template?: StructTemplate): StructDef {
  const body = node.childForFieldName('body');
  // Placeholder so self-referencing pointers resolve.
  const def: StructDef = { name, fields: [], size: 0, align: 1, methods: new Map(), members: new Map(template?.members), node };
  if (template) def.template = { name: template.name, args: template.args };
  c.structs.set(name, def);
  try {
    defineMembers(c, def, node, body, template, cx);
  } catch (e) {
    // A struct that cannot be modelled must not stay behind half-defined for the next compile.
    c.structs.delete(name);
    throw e;
  }
  return def;
}

function defineMembers(c: CompilerContext, def: StructDef, node: SyntaxNode, body: SyntaxNode | null, template: StructTemplate | undefined, cx: FnCx): void {
  const name = def.name;
  const fields: FieldDecl[] = [];
  const methods: { node: SyntaxNode; tparams?: SyntaxNode }[] = [];
  const declared: SyntaxNode[] = [];
  const deferred: SyntaxNode[] = [];
  // Members see the struct's static members, typedefs and template arguments (its own scope, where
  // typedefs and enums inside it land); a local struct also sees its function's constants.
  const mcx = new FnCx(`<${name}>`, template ? null : cx, new Map(), def, locOf(node));
  mcx.scopes = [def.members!];
  const baseName = template?.name ?? name;
  const bases = baseClasses(c, def, node, mcx, fields);
  for (const m of body ? named(body) : []) {
    switch (m.type) {
      case 'field_declaration':
        fieldDeclaration(c, mcx, def, m, fields, declared);
        break;
      case 'function_definition':
        methods.push({ node: m });
        break;
      case 'template_declaration': {
        const tp = m.childForFieldName('parameters') ?? undefined;
        for (const d of named(m)) {
          if (d.type === 'template_parameter_list') continue;
          if (d.type === 'function_definition') methods.push({ node: d, tparams: tp });
          else unsupported(`member template 'template ${tp?.text ?? '<>'} ${d.text.split(/[({;]/)[0].trim()}' of ${name} (only member function templates defined in the class are)`, d);
        }
        break;
      }
      case 'declaration':
        // A constructor declared here and defined outside the class.
        for (const dn of m.childrenForFieldName('declarator')) if (dn && findFunctionDeclarator(dn)) declared.push(dn);
        break;
      case 'alias_declaration':
      case 'type_definition':
        try {
          c.typeDecl(mcx, m);
        } catch (e) {
          // `using type = decltype(select_type());` needs the member functions declared below: again after them.
          if (!(e instanceof SimError)) throw e;
          deferred.push(m);
        }
        break;
      case 'enum_specifier':
        c.enumDecl(mcx, m);
        break;
      default:
        break;
    }
  }
  const laid = layoutStruct(name, fields, node.type === 'union_specifier');
  Object.assign(def, { fields: laid.fields, size: laid.size, align: laid.align, union: laid.union });
  const add = (fd: FnDecl) => {
    if (fd.ctor) (def.ctors ??= []).push(fd);
    else {
      let list = def.methods.get(fd.name);
      if (!list) def.methods.set(fd.name, (list = []));
      list.push(fd);
    }
  };
  for (const m of methods) {
    const dn = requiredField(m.node, 'declarator');
    if (dn.type === 'operator_cast') {
      // `operator uint64_t() const`: called where the struct converts implicitly or by a cast.
      if (m.tparams) unsupported(`a conversion operator template in ${name}`, dn);
      let to = c.baseType(mcx, requiredField(dn, 'type'));
      for (let d: SyntaxNode | null = dn.childForFieldName('declarator'); d && d.type !== 'abstract_function_declarator'; d = d.childForFieldName('declarator') ?? named(d)[0] ?? null) if (d.type === 'abstract_pointer_declarator') to = ptr(to);
      (def.conversions ??= []).push({ to, fn: { name: `operator ${typeName(to)}`, node: m.node, owner: def } satisfies FnDecl });
      continue;
    }
    const fd = findFunctionDeclarator(dn);
    const nameNode = fd?.childForFieldName('declarator');
    if (!nameNode || nameNode.type === 'destructor_name') continue;
    const mn = lastName(nameNode.text.replace(/\s+/g, ''));
    if (mn) add({ name: mn, node: m.node, tparams: m.tparams, owner: def, ctor: mn === baseName && !m.node.childForFieldName('type') });
  }
  for (const dn of declared) outOfClassMember(c, def, baseName, dn, add);
  for (const m of deferred) c.typeDecl(mcx, m);
  inheritMethods(def, bases);
}

/** A data member, a static constexpr member, or a member function declared for definition outside the class. */
function fieldDeclaration(c: CompilerContext, mcx: FnCx, def: StructDef, m: SyntaxNode, fields: FieldDecl[], declared: SyntaxNode[]): void {
  const tn = m.childForFieldName('type');
  if (!tn) return;
  const quals = declQualifiers(m);
  const base = c.baseType(mcx, tn);
  // Declarators and their default member initialisers alternate: `int a = 0, b = 1;`; a bit-field's
  // width follows its declarator (`uint16_t start : 14, : 2;`, the unnamed one a missing name).
  let current: SyntaxNode | undefined;
  const inits = new Map<SyntaxNode, SyntaxNode>();
  const widths = new Map<SyntaxNode, SyntaxNode>();
  const order: SyntaxNode[] = [];
  for (let i = 0; i < m.childCount; i++) {
    const f = m.fieldNameForChild(i);
    const ch = m.child(i)!;
    if (f === 'declarator') order.push((current = ch));
    else if (f === 'default_value' && current) inits.set(current, ch);
    else if (ch.type === 'bitfield_clause' && current) widths.set(current, ch);
  }
  // An anonymous union or struct member (`union { uint64_t desc; uint32_t reg[2]; };`).
  if (!order.length && (tn.type === 'union_specifier' || tn.type === 'struct_specifier') && !tn.childForFieldName('name') && base.k === 'struct') {
    fields.push({ name: '', type: base, anon: true });
    return;
  }
  for (const dn of order) {
    const wn = widths.get(dn);
    if (wn) {
      if (!isNum(base) || isFloatDt(base.dt)) fail(`bit-field of type ${typeName(base)}`, wn);
      const width = c.constEval(mcx, named(wn)[0], S32);
      const max = sizeOfType(base) * 8;
      if (width < 0 || width > max || (width === 0 && !dn.isMissing)) fail(`bit-field width ${width} (the type has ${max} bits; only an unnamed one may be 0)`, wn);
      if (quals.static) fail('a static bit-field', m);
      fields.push({ name: dn.isMissing ? '' : dn.text, type: base, width });
      continue;
    }
    if (findFunctionDeclarator(dn)) {
      declared.push(dn);
      continue;
    }
    const info = c.declarator(mcx, base, dn);
    const init = inits.get(dn);
    if (quals.static) {
      if ((quals.constexpr || quals.const) && init && isNum(info.type)) {
        def.members!.set(info.name, { k: 'const', type: info.type, value: c.constEval(mcx, init, info.type) });
        continue;
      }
      // `static constexpr auto value = v;` (CuTe's C<v>): the initialiser's type, when it is a number.
      if (quals.constexpr && init && info.type.k === 'obj' && info.type.n === -1 && !info.ref) {
        const scratch = new FnCx('<const>', mcx, new Map(), mcx.owner, locOf(init));
        scratch.scopes = [new Map()];
        const e = c.expr(scratch, init);
        if (isNum(e.t) && e.cv !== undefined) {
          def.members!.set(info.name, { k: 'const', type: decay(e.t), value: e.cv });
          continue;
        }
      }
      unsupported(`static data member '${info.name}' of ${def.name} (only static constexpr numbers are)`, m);
    }
    fields.push({ name: info.name, type: info.type });
    if (init) (def.fieldInits ??= new Map()).set(info.name, init);
  }
}

/** The out-of-class definition (`void Ring<S>::advance() {...}`) of a member function declared in the class. */
function outOfClassMember(c: CompilerContext, def: StructDef, baseName: string, dn: SyntaxNode, add: (fd: FnDecl) => void): void {
  const fdn = findFunctionDeclarator(dn)!;
  const nameNode = fdn.childForFieldName('declarator');
  if (!nameNode || nameNode.type === 'destructor_name') return;
  const mn = lastName(nameNode.text.replace(/\s+/g, ''));
  for (const d of c.functions.get(mn) ?? []) {
    const q = findFunctionDeclarator(requiredField(d.node, 'declarator'))?.childForFieldName('declarator');
    const scope = q?.type === 'qualified_identifier' ? q.childForFieldName('scope') : null;
    if (!scope) continue;
    const scopeName = scope.type === 'template_type' ? scope.childForFieldName('name')?.text : scope.text;
    if (scopeName !== baseName) continue;
    // A class template's member: its definition names the class's parameters its own way (`Ring<S>::`).
    let outer: Map<string, Sym> | undefined;
    if (def.template && d.tparams) {
      const params = templateParams(d.tparams, c);
      outer = templateScope(c, params, new Map(params.map((p, i) => [p.name, def.template!.args[i]])));
    }
    add({ name: mn, node: d.node, owner: def, outer, ctor: mn === baseName && !d.node.childForFieldName('type') });
  }
}

/** The type named by a declaration's type node (before declarators). */
export function baseType(c: CompilerContext, cx: FnCx, n: SyntaxNode): CType {
  switch (n.type) {
    case 'primitive_type':
    case 'sized_type_specifier': {
      const text = n.text.replace(/\s+/g, ' ').trim();
      if (text === 'void') return VOID;
      const dt = PRIMS[text] ?? (n.type === 'sized_type_specifier' ? PRIMS[text.replace(/ int$/, '')] : undefined);
      if (dt) return fundamental(num(dt), PRIMS[text] ? text : text.replace(/ int$/, ''));
      if (/^(unsigned|signed)$/.test(text)) return fundamental(num(text === 'unsigned' ? 'u32' : 's32'), text);
      return namedType(c, cx, text, n);
    }
    case 'type_identifier':
      return namedType(c, cx, n.text, n);
    case 'placeholder_type_specifier':
      return { k: 'obj', obj: 'tag', n: -1 }; // `auto`: replaced by the initialiser's type
    case 'template_type':
      return templateNameType(c, cx, n, false) ?? namedType(c, cx, n.text.replace(/\s+/g, ''), n);
    case 'qualified_identifier': {
      const inner = innermostName(n);
      const innerName = inner.childForFieldName('name')?.text ?? '';
      if (inner.type === 'template_type' && (c.templateStructs.has(innerName) || isAliasTemplate(c, innerName) || stdTrait(c, scopeOf(inner), innerName))) return c.baseType(cx, inner);
      // A member typedef of a struct (`Ring<4>::Slot`, `ns::Sel<64>::type`: the scope next to the name).
      let q = n;
      while (q.childForFieldName('name')?.type === 'qualified_identifier') q = q.childForFieldName('name')!;
      const scope = q.childForFieldName('scope');
      const member = q.childForFieldName('name');
      if (scope && member?.type === 'type_identifier') {
        const sd = c.scopeStruct(cx, scope);
        const m = sd?.members?.get(member.text);
        if (m?.k === 'type') return m.type;
        // `typename std::enable_if<false, T>::type`: the substitution fails (SFINAE removes such an overload).
        if (sd?.template?.name.endsWith('::enable_if') && member.text === 'type') fail(`${sd.name} has no member 'type' (${ENABLE_IF_FALSE})`, n);
      }
      return namedType(c, cx, n.text.replace(/\s+/g, ''), n);
    }
    case 'dependent_type':
      return c.baseType(cx, named(n)[0]);
    case 'struct_specifier':
    case 'class_specifier':
    case 'union_specifier': {
      const name = n.childForFieldName('name')?.text ?? `anon${freshId()}`;
      if (n.childForFieldName('body')) return { k: 'struct', def: c.defineStruct(cx, n, name) };
      const d = c.structDef(cx, name, n);
      if (!d) unsupported(`struct ${name} without a definition`, n);
      return { k: 'struct', def: d };
    }
    case 'enum_specifier':
      c.enumDecl(cx, n);
      return S32;
    case 'decltype': {
      const e = named(n)[0];
      return fromExpression(decay(c.typeOf(cx, e)), { top: true, ref: true }); // no cv or reference kept: traits on it stop
    }
    case 'type_descriptor':
      return c.typeDescriptor(cx, n);
  }
  unsupported(`type '${n.text}'`, n);
}

function namedType(c: CompilerContext, cx: FnCx, raw: string, n: SyntaxNode): CType {
  const text = raw.replace(/^::/, '');
  const s = c.lookup(cx, text);
  if (s?.sym.k === 'type') return s.sym.type;
  const prim = PRIMS[text] ?? PRIMS[lastName(text)];
  if (prim && !text.includes('<')) return fundamental(num(prim), PRIMS[text] ? text : lastName(text));
  const vec = vectorType(lastName(text));
  if (vec) return { k: 'struct', def: vec };
  if (/^(cuda::)?(std::)?(barrier|cuda::barrier)</.test(text) || /^cuda::barrier</.test(text) || /^barrier<cuda::thread_scope/.test(text)) return { k: 'barrier' };
  if (/arrival_token$/.test(text)) return U64;
  if (/^(cuda::)?pipeline<[\s\S]*>$/.test(text)) return PIPELINE_TYPE;
  if (/^(cuda::)?pipeline_role$/.test(text)) return PIPELINE_ROLE_TYPE;
  if (/^(cuda::)?pipeline_shared_state</.test(text)) {
    const tt = findNode(n, 'template_argument_list');
    const targs = tt ? named(tt) : [];
    if (targs.length !== 2) unsupported(`type '${text}' (cuda::pipeline_shared_state<scope, stages>)`, n);
    const stages = templateArg(c, cx, { name: 'stages', kind: 'value' }, targs[1]) as number;
    if (!(stages >= 1 && stages <= 255)) fail(`cuda::pipeline_shared_state: ${stages} stages (1..255)`, n);
    return { k: 'struct', def: sharedStateDef(stages) };
  }
  if (/^(cooperative_groups|cg)::thread_block$/.test(text)) return { k: 'obj', obj: 'thread_block' };
  if (/^(cooperative_groups|cg)::grid_group$/.test(text)) return { k: 'obj', obj: 'grid' };
  if (/^(cooperative_groups|cg)::cluster_group$/.test(text)) return { k: 'obj', obj: 'cluster' };
  const tp = /^(?:cooperative_groups|cg)::thread_block_tile<(\d+)>$/.exec(text);
  if (tp) return { k: 'obj', obj: 'tile', n: Number(tp[1]) };
  const as = /^(?:std::|cuda::std::)?aligned_storage<(.*)>(?:::type)?$/.exec(text);
  if (as && n.type === 'qualified_identifier') {
    const tt = findNode(n, 'template_argument_list');
    const args = tt ? named(tt) : [];
    const size = args[0] ? c.constEval(cx, args[0], U64) : 8;
    const align = args[1] ? c.constEval(cx, args[1], U64) : 8;
    const def = layoutStruct('aligned_storage', [{ name: '__data', type: { k: 'arr', of: num('u8'), n: size } }]);
    def.align = align;
    def.size = Math.ceil(size / align) * align;
    return { k: 'struct', def };
  }
  const seq = integerSequence(c, cx, text, n);
  if (seq) return seq;
  // `[\s\S]` rather than `.`: the cut then matches at the first bracket instead of retrying every one (quadratic).
  const base = text.replace(/<[\s\S]*$/, '');
  const sd = (base.includes('::') ? c.structDef(cx, base, n) : undefined) ?? c.structDef(cx, lastName(base), n);
  if (sd) return { k: 'struct', def: sd };
  const tmap = tensorMapType(lastName(text));
  if (tmap) return { k: 'struct', def: tmap };
  // A namespace-qualified enum or alias (`GMMA::Major` inside namespace SM90): found by its last name, as structs are.
  const last = base === text ? c.lookup(cx, lastName(text)) : undefined;
  if (last?.sym.k === 'type') return last.sym.type;
  // `true_type`, `std::false_type` (no arguments); a <type_traits> name the simulator does not model stops here.
  const ns = text.includes('::') ? text.slice(0, text.lastIndexOf('::')) : undefined;
  if (!text.includes('<') && stdTrait(c, ns, lastName(text))?.form === 'class') {
    const def = traitStruct(c, cx, ns, lastName(text), [], n);
    if (def) return { k: 'struct', def };
  }
  unsupported(`type '${text}'${missingIncludesNote(c.missingIncludes)}`, n);
}

export function typeDescriptor(c: CompilerContext, cx: FnCx, n: SyntaxNode): CType {
  if (n.type !== 'type_descriptor') return c.baseType(cx, n);
  const tn = requiredField(n, 'type');
  let t = qualifiedAs(c.baseType(cx, tn), n);
  const ad = n.childForFieldName('declarator');
  if (ad) t = abstractDeclarator(c, cx, t, ad);
  return t;
}

function abstractDeclarator(c: CompilerContext, cx: FnCx, t: CType, d: SyntaxNode): CType {
  switch (d.type) {
    case 'abstract_pointer_declarator': {
      const inner = d.childForFieldName('declarator');
      const p = qualifiedAs(ptr(t), d);
      return inner ? abstractDeclarator(c, cx, p, inner) : p;
    }
    case 'abstract_reference_declarator': {
      const inner = named(d).find((x) => x.type.startsWith('abstract_'));
      const r = withCxx(t, { ref: d.text.trimStart().startsWith('&&') ? '&&' : '&' });
      return inner ? abstractDeclarator(c, cx, r, inner) : r;
    }
    case 'abstract_array_declarator': {
      const size = d.childForFieldName('size');
      const at: CType = { k: 'arr', of: t, n: size ? c.constEval(cx, size, U64) : -1 };
      const inner = d.childForFieldName('declarator');
      return inner ? abstractDeclarator(c, cx, at, inner) : at;
    }
    case 'abstract_function_declarator':
      return t;
  }
  unsupported(`type declarator '${d.text}'`, d);
}

/** Applies a declarator to a base type: name, full type, reference-ness, initialiser. */
export function declarator(c: CompilerContext, cx: FnCx, base: CType, d: SyntaxNode): DeclaratorInfo {
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
        t = qualifiedAs(ptr(t), cur);
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
          t = { k: 'arr', of: t, n: s ? c.constEval(cx, s, U64) : -1 };
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

export function constEval(c: CompilerContext, cx: FnCx, n: SyntaxNode, t?: CType): number {
  const scratch = new FnCx('<const>', cx, new Map(), cx.owner, locOf(n));
  scratch.scopes = [new Map()];
  const e = c.expr(scratch, n);
  if (e.cv === undefined) throw new SimError(`'${n.text}' is not a compile-time constant`, locOf(n), 'unsupported');
  if (t && isNum(t) && isNum(e.t)) {
    const f = convFn(e.t.dt, t.dt);
    return f ? f(e.cv) : e.cv;
  }
  return e.cv;
}

/** Static type of an expression without keeping its code (sizeof, decltype). */
export function typeOf(c: CompilerContext, cx: FnCx, n: SyntaxNode): CType {
  if (n.type === 'parenthesized_expression') return c.typeOf(cx, named(n)[0]);
  // `sizeof(Ring<3>)`, `sizeof(std::conditional_t<…>)`, `sizeof(Ptr<int>)` parse as template functions.
  const tf = n.type === 'template_function' ? n : n.type === 'qualified_identifier' && innermostName(n).type === 'template_function' ? innermostName(n) : undefined;
  const named_ = tf && templateNameType(c, cx, tf, true);
  if (named_) return named_;
  if (n.type === 'qualified_identifier' && ['template_type', 'type_identifier'].includes(innermostName(n).type)) return c.baseType(cx, n); // `sizeof(ns::Tile)`
  if (n.type === 'identifier' || n.type === 'type_identifier') {
    const s = c.lookup(cx, n.text);
    if (s && s.sym.k !== 'const') return s.sym.type;
    if (s) return s.sym.type;
    try {
      return namedType(c, cx, n.text, n);
    } catch (e) {
      if (c.lazyStructs.has(n.text)) throw e; // a struct the simulator cannot lay out: say why
    }
  }
  const mark = cx.code.length;
  const slots = cx.nslots;
  const e = c.expr(cx, n);
  cx.code.length = mark;
  cx.nslots = Math.max(slots, cx.nslots);
  return e.t;
}

// ------------------------------------------------------------------ variables and parameters

/** Parameters occupy the first slots in order (the call instruction fills them). */
export function declareParam(c: CompilerContext, cx: FnCx, name: string, type: CType, ref: boolean, n: SyntaxNode): void {
  const idx = cx.slot();
  const scope = cx.scopes[0];
  if (ref) {
    scope.set(name, { k: 'var', type, where: 'ref', idx, cx });
    cx.locals.push({ name, type, where: 'ref', index: idx, from: 0, to: Infinity });
    return;
  }
  if (type.k === 'struct' || type.k === 'barrier' || cx.addrTaken.has(name)) {
    // Copied into frame memory on entry by a prologue instruction.
    const m = c.memLocal(cx, name, type);
    scope.set(name, { k: 'var', type, where: 'mem', idx: m, cx });
    cx.locals.push({ name, type, where: 'mem', index: m, from: 0, to: Infinity });
    const st = c.storeFn({ k: 'mem', buf: (f) => f.mem[m], off: () => 0 }, type);
    c.emit(cx, n, (f) => {
      st(f, f.v[idx]);
      return f.pc + 1;
    }, false);
    return;
  }
  scope.set(name, { k: 'var', type, where: 'slot', idx, cx });
  cx.locals.push({ name, type, where: 'slot', index: idx, from: 0, to: Infinity });
}

export function memLocal(c: CompilerContext, cx: FnCx, name: string, type: CType): number {
  cx.mem.push({ name, size: Math.max(1, sizeOfType(type)) });
  return cx.mem.length - 1;
}

/**
 * Names whose address is taken (`&x`) or that are bound to a reference (a `T&` parameter of a
 * user function, `T& r = x`): they live in frame memory instead of a slot.
 */
/** The function a call names, without template arguments: `fma` for `S<Major::K>::fma` and `Atom::fma`. */
function calleeName(text: string): string {
  let t = text.replace(/\s+/g, '');
  // Innermost argument lists first, so nested ones (`S<T<1>>`) go too; bounded by the text's length.
  for (let prev = ''; prev !== t && t.includes('<'); ) [prev, t] = [t, t.replace(/<[^<>]*>/g, '')];
  return lastName(t.replace(/<[\s\S]*$/, ''));
}

/** Member functions named `name` in the class templates (not instantiated yet, so not in `c.functions`). */
function templateMethods(c: CompilerContext, name: string): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (const node of c.templateStructs.values()) {
    const body = node.childForFieldName('body');
    for (const m of body ? named(body) : []) {
      const def = m.type === 'template_declaration' ? named(m).find((x) => x.type === 'function_definition') : m;
      const fd = def?.type === 'function_definition' ? findFunctionDeclarator(requiredField(def, 'declarator')) : undefined;
      if (fd && lastName(fd.childForFieldName('declarator')?.text ?? '') === name) out.push(def!);
    }
  }
  return out;
}

export function scanAddressTaken(c: CompilerContext, n: SyntaxNode, out: Set<string>): void {
  if (n.type === 'pointer_expression' && n.childForFieldName('operator')?.text === '&') {
    const a = n.childForFieldName('argument');
    if (a?.type === 'identifier') out.add(a.text);
  }
  if (n.type === 'call_expression') {
    const fnNode = n.childForFieldName('function');
    // `[\s\S]` rather than `.`: the cut then matches at the first bracket instead of retrying every one (quadratic).
    const name = fnNode ? calleeName(fnNode.text) : '';
    const decls = c.functions.get(name)?.map((d) => d.node) ?? templateMethods(c, name);
    const args = named(requiredField(n, 'arguments'));
    args.forEach((a, i) => {
      if (a.type !== 'identifier') return;
      for (const node of decls) {
        const fd = findFunctionDeclarator(requiredField(node, 'declarator'));
        const ps = fd ? named(requiredField(fd, 'parameters')).filter((x) => x.type === 'parameter_declaration' || x.type === 'optional_parameter_declaration' || x.type === 'variadic_parameter_declaration') : [];
        // A trailing pack (`Ts&... xs`) takes every argument from its position on.
        const p = ps[i] ?? (ps[ps.length - 1]?.type === 'variadic_parameter_declaration' ? ps[ps.length - 1] : undefined);
        // `T&&` too: a forwarding reference given an lvalue binds to it (T deduces as `A&`).
        if (p && /&/.test(p.childForFieldName('declarator')?.text ?? '')) out.add(a.text);
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
  for (const child of named(n)) c.scanAddressTaken(child, out);
}

export function declaration(c: CompilerContext, cx: FnCx, n: SyntaxNode): void {
  const quals = declQualifiers(n);
  const tn = n.childForFieldName('type');
  if (!tn) fail('declaration without a type', n);
  const base = c.baseType(cx, tn);
  for (const dn of n.childrenForFieldName('declarator')) {
    if (!dn) continue;
    if (dn.type === 'function_declarator') {
      // `std::vector<float> a(M * K);` reads as a prototype to the grammar (C++'s most vexing parse), but a
      // "parameter" naming a variable makes it a constructor call: declare it as `T a{M * K};` would be.
      const ctor = constructorReadAsPrototype(c, cx, tn, dn);
      if (ctor) c.declareVar(cx, c.declarator(cx, base, ctor), quals, n);
      continue;
    }
    const info = c.declarator(cx, base, dn);
    c.declareVar(cx, info, quals, n);
  }
}

/**
 * The declarator `name{args}` for a local `T name(args)` whose parenthesised list cannot be parameters
 * (one of its "types" is a variable in scope), parsed from a rewritten text; undefined for a real prototype.
 */
function constructorReadAsPrototype(c: CompilerContext, cx: FnCx, tn: SyntaxNode, dn: SyntaxNode): SyntaxNode | undefined {
  const name = dn.childForFieldName('declarator');
  const params = dn.childForFieldName('parameters');
  if (!name || name.type !== 'identifier' || !params) return undefined;
  const namesValue = named(params).some((p) => {
    const t = p.childForFieldName('type');
    if (!t || (t.type !== 'type_identifier' && t.type !== 'identifier')) return false;
    const sym = c.lookup(cx, t.text)?.sym;
    return sym !== undefined && sym.k !== 'type';
  });
  if (!namesValue) return undefined;
  const inner = params.text.slice(1, -1);
  const root = keptSnippet(dn, `void __phaseflip_ctor() { ${tn.text} ${name.text}{${inner}}; }`);
  return root ? findNode(root, 'init_declarator') ?? undefined : undefined;
}

/**
 * A function-scope `static` variable: one object for the whole program (here: for the launch, or the
 * whole program's host run), zero-initialised or constant-initialised before anything runs. A
 * dynamic initialiser runs once, the first time control passes the declaration: in host code only,
 * as nvcc rejects a dynamically initialised static in device code.
 */
function staticLocal(c: CompilerContext, cx: FnCx, info: { name: string; ref: boolean; init?: SyntaxNode }, type: CType, n: SyntaxNode): void {
  if (info.ref || (type.k === 'obj' && type.n === -1)) unsupported(`static local '${info.name}' declared as a reference or with auto`, n);
  if (type.k === 'struct' && c.needsConstruction(type)) unsupported(`static local '${info.name}' of a type with constructors`, n);
  const buf = new Buffer(c.newGlobalId(), info.name, 'global', Math.max(sizeOfType(type), 1), undefined, elemDtype(type), shapeOf(type));
  const index = c.globals.push(buf) - 1;
  cx.scopes[cx.scopes.length - 1].set(info.name, { k: 'global', type, index });
  if (!info.init) return;
  try {
    staticInit(c, cx, buf, type, info.init);
    return;
  } catch (e) {
    if (!(e instanceof SimError)) throw e;
    buf.bytes.fill(0);
  }
  if (!cx.host) fail(`dynamic initialization of the function-scope static '${info.name}' in device code (nvcc rejects it: the initialiser must be a constant)`, info.init);
  // Whether the initialiser ran is the run's (RunStorage), as the variable is.
  const ran = {};
  const br = c.emitBranchFalse(cx, n, (f) => !f.ts.ex.storage.value(ran, () => false));
  const lv: LV = { k: 'mem', buf: (f) => f.ts.ex.storage.global(index), off: () => 0 };
  if (info.init.type === 'initializer_list' || info.init.type === 'argument_list') c.initAggregate(cx, lv as LV & { k: 'mem' }, type, info.init, n);
  else {
    const st = c.storeFn(lv, type);
    const v = c.convertTo(c.expr(cx, info.init), type, info.init, cx).ev;
    c.emitExec(cx, n, (f) => st(f, v(f)));
  }
  c.emitExec(cx, n, (f) => f.ts.ex.storage.set(ran, true));
  br.target = cx.code.length;
}

export function declareVar(c: CompilerContext, cx: FnCx, info: { name: string; type: CType; ref: boolean; init?: SyntaxNode }, quals: DeclQuals, n: SyntaxNode): void {
  const scope = cx.scopes[cx.scopes.length - 1];
  let type = info.type;
  const isAuto = type.k === 'obj' && type.obj === 'tag' && type.n === -1;
  if (quals.shared) {
    if (info.init) unsupported('an initialiser on a __shared__ variable', n);
    if (quals.extern || (type.k === 'arr' && type.n < 0)) {
      c.usesDynamicShared = true;
      c.dynamicSharedAlign = Math.max(c.dynamicSharedAlign, quals.align ?? 0, alignOfType(type.k === 'arr' ? type.of : type));
      scope.set(info.name, { k: 'dyn', type });
      return;
    }
    const idx = c.shared.length;
    c.shared.push({ name: info.name, type, align: Math.max(quals.align ?? 0, alignOfType(type)) });
    scope.set(info.name, { k: 'shared', type, idx });
    return;
  }
  if (quals.static && !(quals.constexpr && isNum(type)) && !(quals.const && isNum(type) && info.init && !cx.addrTaken.has(info.name))) {
    staticLocal(c, cx, info, type, n);
    return;
  }
  // Initialiser first: `int x = x + 1` sees the outer x, and `auto` needs the type.
  let init: Ex | undefined;
  const initNode = info.init;
  if (initNode && initNode.type !== 'initializer_list' && initNode.type !== 'argument_list') {
    init = c.expr(cx, initNode);
    if (isAuto) type = decay(init.t);
  } else if (isAuto) {
    if (initNode?.type === 'initializer_list' && named(initNode).length === 1) {
      init = c.expr(cx, named(initNode)[0]);
      type = decay(init.t);
    } else fail(`cannot deduce the type of '${info.name}'`, n);
  }
  if (info.ref) {
    if (!init) fail(`reference '${info.name}' without an initialiser`, n);
    const idx = cx.slot();
    const addr = c.addressOf(init, initNode!);
    c.emitExec(cx, n, (f) => (f.v[idx] = addr(f)));
    scope.set(info.name, { k: 'var', type, where: 'ref', idx, cx });
    cx.locals.push({ name: info.name, type, where: 'ref', index: idx, from: cx.code.length, to: Infinity });
    return;
  }
  if ((quals.constexpr || quals.const) && init?.cv !== undefined && isNum(type) && !cx.addrTaken.has(info.name)) {
    const v = c.convertTo(init, type, n).ev;
    scope.set(info.name, { k: 'const', type, value: v(null as unknown as Frame) });
    return;
  }
  const inMem = type.k === 'arr' || type.k === 'struct' || type.k === 'barrier' || cx.addrTaken.has(info.name);
  if (type.k === 'arr' && type.n < 0) {
    if (initNode?.type === 'initializer_list') type = { k: 'arr', of: type.of, n: named(initNode).length };
    else fail(`array '${info.name}' without a size`, n);
  }
  if (inMem) {
    const m = c.memLocal(cx, info.name, type);
    const lv: LV = { k: 'mem', buf: (f) => f.mem[m], off: () => 0 };
    if (!init && c.needsConstruction(type) && constructLocal(c, cx, m, type, initNode, n)) {
      /* constructed: a constructor or default member initialisers */
    } else if (initNode?.type === 'initializer_list' || initNode?.type === 'argument_list') c.initAggregate(cx, lv, type, initNode, n);
    else if (init) {
      const st = c.storeFn(lv, type);
      const v = c.convertTo(init, type, initNode!, cx).ev;
      c.emitExec(cx, n, (f) => st(f, v(f)));
    }
    scope.set(info.name, { k: 'var', type, where: 'mem', idx: m, cx });
    cx.locals.push({ name: info.name, type, where: 'mem', index: m, from: cx.code.length, to: Infinity });
    return;
  }
  declareSlotLocal(c, cx, n, info.name, type, init, initNode, scope);
}

/** Constructs a local struct (or each struct of a local array) in frame memory `m`; false for a plain aggregate initialiser. */
function constructLocal(c: CompilerContext, cx: FnCx, m: number, type: CType, init: SyntaxNode | undefined, n: SyntaxNode): boolean {
  if (type.k === 'struct') return c.construct(cx, (f) => ({ buf: f.mem[m], offset: 0 }), type.def, init, n);
  if (type.k !== 'arr' || type.of.k !== 'struct') unsupported('an array of arrays of objects with constructors or default member initialisers', n);
  if (init) unsupported('an initialiser for an array of objects with constructors or default member initialisers', n);
  if (type.n > 256) unsupported(`an array of ${type.n} objects with constructors or default member initialisers`, n);
  const size = sizeOfType(type.of);
  for (let i = 0; i < type.n; i++) c.construct(cx, (f) => ({ buf: f.mem[m], offset: i * size }), type.of.def, undefined, n);
  return true;
}

/** Brace (or constructor-argument) initialisation of an array or struct in memory. */
export function initAggregate(c: CompilerContext, cx: FnCx, lv: LV & { k: 'mem' }, type: CType, init: SyntaxNode, n: SyntaxNode): void {
  const flat: { off: number; t: CType; node: SyntaxNode }[] = [];
  if (type.k === 'barrier') unsupported('constructing a cuda::barrier with arguments (use init())', n);
  if (type.k === 'struct' && init.type === 'argument_list' && named(init).length === 1) {
    const e = c.expr(cx, named(init)[0]);
    const st = c.storeFn(lv, type);
    const v = c.convertTo(e, type, init).ev;
    c.emitExec(cx, n, (f) => st(f, v(f)));
    return;
  }
  flattenInit(c, cx, type, init, 0, flat);
  const size = sizeOfType(type);
  const buf = lv.buf;
  const base = lv.off;
  const stores = flat.map((e) => {
    const x = c.expr(cx, e.node);
    const off = e.off;
    const st = c.storeFn({ k: 'mem', buf, off: (f) => base(f) + off }, e.t);
    const v = c.convertTo(x, e.t, e.node).ev;
    return (f: Frame) => st(f, v(f));
  });
  c.emitExec(cx, n, (f) => {
    const at = base(f);
    buf(f).bytes.fill(0, at, at + size);
    for (const s of stores) s(f);
  });
}

/** Element offsets of a brace initialiser for an aggregate of type `t`. */
function flattenInit(c: CompilerContext, cx: FnCx, t: CType, init: SyntaxNode, base: number, out: { off: number; t: CType; node: SyntaxNode }[]): void {
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
    // A union's brace initialiser initialises its first member; anonymous members' own fields are not elements.
    const fields = t.def.fields.filter((f) => !f.via).slice(0, t.def.union ? 1 : undefined);
    if (items.length > fields.length) fail(`too many initialisers for ${t.def.name}`, init);
    items.forEach((it, i) => {
      if (it.type === 'initializer_pair') unsupported('designated initialisers', it);
      if (fields[i].bits) unsupported(`a brace initialiser of ${t.def.name}, which has bit-fields`, it);
      flattenInit(c, cx, fields[i].type, it, base + fields[i].offset, out);
    });
    return;
  }
  if (items.length > 1) fail('too many initialisers for a scalar', init);
  if (items.length) out.push({ off: base, t, node: items[0] });
}
