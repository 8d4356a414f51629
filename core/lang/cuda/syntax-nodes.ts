// Reading tree-sitter-cuda nodes for the front end: source ranges, named children, fields, operator
// tokens, declarator names and callee spellings. No IR, no lowering.
import type { Range } from '../../api';
import type { SyntaxNode, Tree } from './parser';

/** Trees of headers, by the file they were parsed from: ranges of their nodes name that file. */
const headerTrees = new WeakMap<Tree, string>();

/** Marks `tree` as parsed from the header `file` (a file of the translation unit other than the document). */
export function registerHeaderTree(tree: Tree, file: string): void {
  headerTrees.set(tree, file);
}

/** The header a node was parsed from; undefined for the analysed document's own nodes. */
export function fileOf(n: SyntaxNode): string | undefined {
  return headerTrees.get(n.tree);
}

export function rangeOf(n: SyntaxNode): Range {
  const file = headerTrees.get(n.tree);
  const range: Range = {
    start: { line: n.startPosition.row, character: n.startPosition.column },
    end: { line: n.endPosition.row, character: n.endPosition.column },
  };
  if (file !== undefined) range.file = file;
  return range;
}

export function named(n: SyntaxNode | null | undefined): SyntaxNode[] {
  if (!n) return [];
  // One call for all children: namedChild(i) walks from the first child every time.
  return n.namedChildren.filter((c): c is SyntaxNode => !!c);
}

export function field(n: SyntaxNode, name: string): SyntaxNode | null {
  return n.childForFieldName(name);
}

/** The operator token of a binary/assignment/update node (anonymous child). */
export function operatorOf(n: SyntaxNode): string {
  for (const c of n.children) {
    if (c && !c.isNamed && c.type !== '(' && c.type !== ')') return c.type;
  }
  return '';
}

/** Identifier text of a declarator (strips pointers, references, arrays, init). */
export function declaratorName(n: SyntaxNode | null): SyntaxNode | null {
  let cur = n;
  while (cur) {
    if (cur.type === 'identifier' || cur.type === 'field_identifier') return cur;
    if (cur.type === 'qualified_identifier' || cur.type === 'destructor_name' || cur.type === 'operator_name') return cur;
    const next = field(cur, 'declarator') ?? named(cur).find((c) => c.type.endsWith('declarator') || c.type === 'identifier');
    if (!next || next === cur) return null;
    cur = next;
  }
  return null;
}

export function unqualified(name: string): string {
  const i = name.lastIndexOf('::');
  return i < 0 ? name : name.slice(i + 2);
}

/** The explicit template arguments of a callee (`f<4>`, `ns::detail::f<4>`), at any qualification depth. */
export function templateArgumentsOf(f: SyntaxNode): SyntaxNode[] {
  let name: SyntaxNode | null = f;
  while (name?.type === 'qualified_identifier') name = field(name, 'name');
  return name?.type === 'template_function' ? named(field(name, 'arguments')) : [];
}

export function calleeName(f: SyntaxNode): string {
  if (f.type === 'template_function') return (field(f, 'name') ?? f).text;
  if (f.type === 'qualified_identifier') {
    const name = field(f, 'name');
    // `detail::tcgen05::commit<1>` nests one qualified name per scope: the template arguments go at any depth.
    if (name?.type === 'template_function' || name?.type === 'qualified_identifier') return `${field(f, 'scope')?.text ?? ''}::${calleeName(name)}`;
  }
  return f.text.replace(/\s+/g, '');
}
