// Base classes of the structs the compiler lays out. Only empty bases are modelled (the trait idiom
// `struct is_a<A> : std::true_type {}`, CuTe's `is_integral : bool_constant<…>`): they take no space and
// lend their members; a base with data members stops the run rather than be laid out wrongly.
import type { SyntaxNode } from '../parser';
import type { CompilerContext, FnCx } from './context';
import { named, unsupported } from './syntax';
import { packLen, templateParams } from './templates';
import type { StructDef } from './types';

/**
 * The base classes of a struct, when each is empty (`struct is_a<A> : std::true_type {}`, CuTe's
 * `is_integral : bool_constant<…>`): such a base sits at offset 0 and lends its static members, member
 * typedefs, member functions and conversions. A base with data members, a virtual one, or one that is not
 * a class stops the run: its layout and construction are not modelled.
 */
export function emptyBases(c: CompilerContext, def: StructDef, node: SyntaxNode, mcx: FnCx): StructDef[] {
  const clause = named(node).find((x) => x.type === 'base_class_clause');
  if (!clause) return [];
  const out: StructDef[] = [];
  for (const b of named(clause)) {
    if (b.type === 'access_specifier') continue;
    if (b.type === 'virtual' || b.text === 'virtual') unsupported(`a virtual base class of ${def.name}`, b);
    const t = c.baseType(mcx, b);
    if (t.k !== 'struct') unsupported(`base class '${b.text}' of ${def.name}`, b);
    if (t.def.fields.length || t.def.size > 1 || t.def.ctors?.length || t.def.fieldInits?.size) unsupported(`base class '${b.text}' of ${def.name} with data members or constructors (only empty bases, such as std::true_type, are modelled)`, b);
    // Its own template parameters are not names in the derived class.
    const list = t.def.node?.parent?.type === 'template_declaration' ? t.def.node.parent.childForFieldName('parameters') : null;
    const params = new Set(list ? templateParams(list).flatMap((p) => [p.name, packLen(p.name)]) : []);
    for (const [k, m] of t.def.members ?? []) if (!params.has(k) && !k.includes('#') && !def.members!.has(k)) def.members!.set(k, m);
    out.push(t.def);
  }
  return out;
}

/** Member functions of the bases, where the class declares none of that name (a declared one hides them all), and their conversions. */
export function inheritMethods(def: StructDef, bases: StructDef[]): void {
  for (const b of bases) {
    for (const [name, list] of b.methods) if (!def.methods.has(name)) def.methods.set(name, [...list]);
    if (!def.conversions && b.conversions) def.conversions = [...b.conversions];
  }
}
