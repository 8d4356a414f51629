// Base classes of the structs the compiler lays out: empty bases (the trait idiom) and one base with data
// members laid out first (CUTLASS's barrier classes), as nvcc lays them out; anything else stops the run
// rather than be laid out wrongly.
import type { SyntaxNode } from '../parser';
import type { CompilerContext, FnCx, FnDecl } from './context';
import { named, unsupported } from './syntax';
import { packLen, templateParams } from './templates';
import { type FieldDecl, sizeOfType, type StructDef } from './types';

/**
 * The base classes of a struct and the storage they take. Empty bases (`struct is_a<A> : std::true_type {}`,
 * CuTe's `is_integral : bool_constant<…>`) sit at offset 0 and take none. One base with data members
 * (CUTLASS's `ClusterTransactionBarrier : ClusterBarrier`) is laid out first, at offset 0, as nvcc (the
 * Itanium ABI) does when the base has no tail padding the derived class could reuse; its fields become the
 * derived class's. Every base lends its static members, member typedefs, member functions and conversions.
 * A virtual base, a second base with data members, a base with tail padding, or one that must be constructed
 * (a constructor with a body, default member initialisers) stops the run: those layouts and constructions are
 * not modelled. The base's storage goes first in `storage` (the derived class's fields, empty so far).
 */
export function baseClasses(c: CompilerContext, def: StructDef, node: SyntaxNode, mcx: FnCx, storage: FieldDecl[]): StructDef[] {
  const clause = named(node).find((x) => x.type === 'base_class_clause');
  if (!clause) return [];
  const bases: StructDef[] = [];
  for (const b of named(clause)) {
    if (b.type === 'access_specifier') continue;
    if (b.type === 'virtual' || b.text === 'virtual') unsupported(`a virtual base class of ${def.name}`, b);
    const t = c.baseType(mcx, b);
    if (t.k !== 'struct') unsupported(`base class '${b.text}' of ${def.name}`, b);
    const base = t.def;
    const constructed = (base.ctors as FnDecl[] | undefined)?.some((f) => f.node.childForFieldName('body')) || base.fieldInits?.size;
    if (constructed) unsupported(`base class '${b.text}' of ${def.name}, which has constructors or default member initialisers`, b);
    if (base.fields.length) {
      if (storage.length || bases.length) unsupported(`base class '${b.text}' of ${def.name}: only the first base may have data members`, b);
      const end = Math.max(...base.fields.map((f) => f.offset + (f.bits ? Math.ceil((f.bits.pos + f.bits.width) / 8) : sizeOfType(f.type))));
      if (base.union || end !== base.size) unsupported(`base class '${b.text}' of ${def.name}, a union or with tail padding (its layout in a derived class is not modelled)`, b);
      storage.push({ name: '', type: t, anon: true });
    }
    // Its own template parameters are not names in the derived class.
    const list = base.node?.parent?.type === 'template_declaration' ? base.node.parent.childForFieldName('parameters') : null;
    const params = new Set(list ? templateParams(list, c).flatMap((p) => [p.name, packLen(p.name)]) : []);
    for (const [k, m] of base.members ?? []) if (!params.has(k) && !k.includes('#') && !def.members!.has(k)) def.members!.set(k, m);
    bases.push(base);
  }
  return bases;
}

/** Member functions of the bases, where the class declares none of that name (a declared one hides them all), and their conversions. */
export function inheritMethods(def: StructDef, bases: StructDef[]): void {
  for (const b of bases) {
    for (const [name, list] of b.methods) if (!def.methods.has(name)) def.methods.set(name, [...list]);
    if (!def.conversions && b.conversions) def.conversions = [...b.conversions];
    if (!def.conversions && !def.constant && b.constant) def.constant = b.constant;
  }
}
