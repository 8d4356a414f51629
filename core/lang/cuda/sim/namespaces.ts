// Namespaces, as far as the compiler needs them: the path of a declaration, and which of several
// same-named structs a name means where it is written (ThunderKittens declares `struct identifier {}` in
// each of its `ducks::st`, `ducks::rt` … namespaces, and its concepts tell tiles apart by them). Structs
// whose name is defined in one namespace only are found by that name anywhere, as before.
import type { SyntaxNode } from '../parser';
import type { CompilerContext } from './context';
import { lastName, unsupported } from './syntax';

/** The namespaces around a node, outermost first. */
export function namespacesOf(n: SyntaxNode): string[] {
  const out: string[] = [];
  for (let p = n.parent; p; p = p.parent) if (p.type === 'namespace_definition') out.unshift(...(p.childForFieldName('name')?.text.replace(/\s+/g, '').split('::') ?? []));
  return out.filter(Boolean);
}

/** A declaration's name qualified by its namespaces (`kittens::ducks::st::all`). */
export function qualifiedPath(def: SyntaxNode): string {
  return [...namespacesOf(def), def.childForFieldName('name')?.text ?? ''].join('::');
}

/** Records a struct found in the file scan: by its name, and (when it has a body) by its qualified name. */
export function addStruct(c: CompilerContext, node: SyntaxNode): void {
  const name = node.childForFieldName('name')?.text ?? '';
  c.lazyStructs.set(name, node);
  if (!name || !node.childForFieldName('body')) return;
  let paths = c.structPaths.get(name);
  if (!paths) c.structPaths.set(name, (paths = new Map()));
  paths.set(qualifiedPath(node), node);
}

/**
 * The key and definition of the struct `written` names at `at`: the name itself while one namespace defines
 * it; else the qualified name found from the innermost namespace around `at` outward, or a stop when none is.
 */
export function structNamed(c: CompilerContext, written: string, at: SyntaxNode): [string, SyntaxNode | undefined] {
  const paths = c.structPaths.get(lastName(written));
  if (!paths || paths.size < 2) return [written, c.lazyStructs.get(written)];
  if (paths.has(written)) return [written, paths.get(written)];
  const ns = namespacesOf(at);
  for (let i = ns.length; i >= 0; i--) {
    const key = [...ns.slice(0, i), written.replace(/^::/, '')].join('::');
    if (paths.has(key)) return [key, paths.get(key)];
  }
  unsupported(`struct '${written}': ${[...paths.keys()].join(', ')} are all defined, and which one is meant here is not worked out`, at);
}
