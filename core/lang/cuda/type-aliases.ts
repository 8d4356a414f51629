// Function-local type aliases for the lowering (`using Allocator = ...;`, `typedef ... T;`): which class a
// temporary `Allocator()` or an object of an alias type is, including a compile-time pick between two classes
// (`cute::conditional_t<kNumMulticast == 1, Allocator1Sm, Allocator2Sm>`, `std::conditional<c, A, B>::type`).
import type { SyntaxNode } from './parser';
import { field, named, unqualified } from './syntax-nodes';

/** An alias a declaration statement introduces: its name and the type node it stands for. */
export function localTypeAlias(n: SyntaxNode): { name: string; type: SyntaxNode } | undefined {
  if (n.type === 'alias_declaration') {
    const name = field(n, 'name');
    const type = field(n, 'type');
    return name && type ? { name: name.text, type } : undefined;
  }
  if (n.type === 'type_definition') {
    const declarator = field(n, 'declarator');
    const type = field(n, 'type');
    return declarator?.type === 'type_identifier' && type ? { name: declarator.text, type } : undefined;
  }
  return undefined;
}

/** A compile-time choice between two classes: the condition (an expression node) and both alternatives. */
export interface ConditionalType {
  cond: SyntaxNode;
  then: string;
  else: string;
}

const CONDITIONAL = /^conditional(_t)?$/;

/**
 * `conditional_t<c, A, B>` (any namespace) or `conditional<c, A, B>::type`, looked for through a
 * `type_descriptor` and namespace qualifiers; anything else is not a choice.
 */
export function conditionalType(typeNode: SyntaxNode): ConditionalType | undefined {
  let n: SyntaxNode | null = typeNode;
  for (let hops = 0; n && hops < 8; hops++) {
    if (n.type === 'type_descriptor') n = field(n, 'type');
    else if (n.type === 'dependent_type') n = named(n)[0] ?? null;
    else if (n.type === 'qualified_identifier') {
      // `std::conditional<...>::type`: the template is the scope and `type` the name.
      const scope = field(n, 'scope');
      const name = field(n, 'name');
      if (scope?.type === 'template_type' && name?.text === 'type') n = scope;
      else n = name;
    } else break;
  }
  if (!n || n.type !== 'template_type') return undefined;
  const name = field(n, 'name')?.text ?? '';
  if (!CONDITIONAL.test(unqualified(name))) return undefined;
  const args = named(field(n, 'arguments') ?? n);
  // The condition may parse as a type (`conditional_t<kIsLeader, A, B>`): the lowering reads both as expressions.
  if (args.length !== 3) return undefined;
  return { cond: args[0], then: args[1].text, else: args[2].text };
}
