// Reading the tree-sitter CUDA syntax the compiler walks: named children, qualified names, function
// declarators and declaration qualifiers; and errors reported at a node's position.
import type { SyntaxNode } from '../parser';
import { fileOf } from '../syntax-nodes';
import { type SourceLoc, SimError } from '../../../sim/machine';

export function locOf(n: SyntaxNode, func?: string): SourceLoc {
  const file = fileOf(n);
  const loc: SourceLoc = { line: n.startPosition.row, character: n.startPosition.column, func };
  if (file !== undefined) loc.file = file;
  return loc;
}

export function unsupported(what: string, n: SyntaxNode): never {
  throw new SimError(what, locOf(n, enclosingFunction(n)), 'unsupported');
}

/** The name of the function definition around `n` (reports name the call sites that led into it). */
export function enclosingFunction(n: SyntaxNode): string | undefined {
  for (let p = n.parent; p; p = p.parent) {
    if (p.type !== 'function_definition') continue;
    const declarator = p.childForFieldName('declarator');
    const name = declarator ? findFunctionDeclarator(declarator)?.childForFieldName('declarator') : undefined;
    return name ? lastName(name.text) : undefined;
  }
  return undefined;
}

/**
 * What to add to "not supported: call to 'f'" or "type 'T'" when includes of the translation unit
 * were not found: the name most likely lives in one of them.
 */
export function missingIncludesNote(missing: readonly string[]): string {
  if (!missing.length) return '';
  return ` (not defined in this translation unit; not found on the include path: ${missing.slice(0, 3).join(', ')}${missing.length > 3 ? ', ...' : ''}; give -I or a compile_flags.txt)`;
}

/** C++'s alternative tokens (`and`, `or`, `not` …: DeepGEMM writes them) as the operators they spell. */
const ALTERNATIVE_TOKENS: Readonly<Record<string, string>> = { and: '&&', or: '||', not: '!', bitand: '&', bitor: '|', xor: '^', compl: '~', not_eq: '!=', and_eq: '&=', or_eq: '|=', xor_eq: '^=' };

/** The operator of a unary, binary or assignment expression, alternative tokens spelled as operators. */
export function operatorOf(n: SyntaxNode): string {
  const op = requiredField(n, 'operator').text;
  return ALTERNATIVE_TOKENS[op] ?? op;
}

export function fail(what: string, n: SyntaxNode): never {
  throw new SimError(what, locOf(n), 'error');
}

/** The child in a field of `n`; a syntax error at `n` when the source lacks it (`out[]`, `a +`, `f(x,)`). */
export function requiredField(n: SyntaxNode, name: string): SyntaxNode {
  const c = n.childForFieldName(name);
  if (!c) fail(`syntax error: incomplete '${n.text.slice(0, 40)}' (no ${name})`, n);
  return c;
}

/**
 * What the compiler throws when its walk meets a construct it could not read: a SimError stays as it is;
 * a TypeError (a child the code expected is absent) or a RangeError (too deep to walk) becomes "not
 * supported by the simulator" at `n`, never an internal error.
 */
export function asCompileError(err: unknown, n: SyntaxNode): unknown {
  if (err instanceof SimError) return err;
  if (err instanceof RangeError) return new SimError(`too deeply nested for the simulator: '${n.text.slice(0, 40)}'`, locOf(n), 'unsupported');
  if (err instanceof TypeError) return new SimError(`not supported by the simulator: '${n.text.slice(0, 40)}'`, locOf(n), 'unsupported');
  return err;
}

export function named(n: SyntaxNode): SyntaxNode[] {
  const out: SyntaxNode[] = [];
  for (let i = 0; i < n.namedChildCount; i++) {
    const c = n.namedChild(i);
    if (c && c.type !== 'comment') out.push(c);
  }
  return out;
}

/** Storage classes and qualifiers of a declaration (`__shared__`, `extern`, `constexpr`, alignment …). */
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

/** The last component of a qualified name (`a::b::f<T>` gives `f<T>`). */
export function innermostName(n: SyntaxNode): SyntaxNode {
  let cur = n;
  while (cur.type === 'qualified_identifier') cur = cur.childForFieldName('name')!;
  return cur;
}

/** The first node of a type in a subtree (depth first). */
export function findNode(n: SyntaxNode, type: string): SyntaxNode | undefined {
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
    // A conversion operator (`operator uint64_t() const`): its parameters hang off the operator_cast.
    if (cur.type === 'abstract_function_declarator' && cur.parent?.type === 'operator_cast') return cur;
    cur = cur.childForFieldName('declarator') ?? named(cur).find((x) => x.type.endsWith('declarator')) ?? null;
  }
  return undefined;
}

/** Expression kinds whose evaluation may change state (assignments, increments, calls, which may be builtins with effects). */
const EFFECT_NODES = new Set(['assignment_expression', 'update_expression', 'call_expression', 'comma_expression', 'lambda_expression', 'new_expression', 'delete_expression', 'co_await_expression', 'gnu_asm_expression']);

/** Expression nodes whose value is computed from their operands' (a full expression is made of them). */
const OPERATOR_NODES = new Set(['parenthesized_expression', 'binary_expression', 'unary_expression', 'conditional_expression', 'cast_expression', 'assignment_expression']);

/**
 * Whether nothing with an effect can be evaluated before or with sub-expression `n` in its full
 * expression: the full expression is free of effects, or is an assignment whose value side is
 * (its one store comes last). A warp's row may then stop in the middle of evaluating `n` and let
 * the lanes run the statement one by one instead, with nothing done twice.
 */
export function nothingDoneBefore(n: SyntaxNode): boolean {
  let top = n;
  while (top.parent && OPERATOR_NODES.has(top.parent.type)) top = top.parent;
  if (top.type === 'assignment_expression') {
    const right = top.childForFieldName('right');
    const left = top.childForFieldName('left');
    return !!right && !!left && effectFree(right) && effectFree(left);
  }
  return effectFree(top);
}

/** Whether evaluating expression `n` has no effect (so evaluating it again gives the same value and changes nothing). */
export function effectFree(n: SyntaxNode): boolean {
  const stack = [n];
  while (stack.length) {
    const x = stack.pop()!;
    if (EFFECT_NODES.has(x.type)) return false;
    for (let i = 0; i < x.namedChildCount; i++) stack.push(x.namedChild(i)!);
  }
  return true;
}
