// The fields of a class the translation unit defines, as the lowering needs them: a local object of
// the class starts with its default member initialisers (`uint32_t phase = 0;`), so that a ring cursor's
// phase and stage are known values the replay can follow through its inlined member functions.
import type { SyntaxNode } from './parser';
import { declaratorName, field, named, unqualified } from './syntax-nodes';

/** A field with a default member initialiser: its name and the initialiser's expression node. */
export interface FieldInit {
  name: string;
  value: SyntaxNode;
}

/** The class a declared type names (`pf::Ring<2>`, `const Ring<4>&` give `Ring`), or undefined for pointers. */
export function classNameOf(type: string): string | undefined {
  if (/[*&]/.test(type)) return undefined;
  const name = unqualified(type.replace(/<.*$/s, '').replace(/\b(const|volatile|struct|class|typename)\b/g, '').trim());
  return /^[A-Za-z_]\w*$/.test(name) ? name : undefined;
}

/** The default member initialisers of a class body (`int stage = 0;`, `uint32_t phase{1};`), in order. */
export function fieldInits(body: SyntaxNode): FieldInit[] {
  const out: FieldInit[] = [];
  for (const f of named(body)) {
    if (f.type !== 'field_declaration') continue;
    const value = field(f, 'default_value');
    const declarator = field(f, 'declarator');
    const name = declarator ? declaratorName(declarator)?.text : undefined;
    if (!name || !value) continue;
    // `x{1}`: the initialiser list's one element.
    const expr = value.type === 'initializer_list' ? named(value)[0] : value;
    if (expr) out.push({ name, value: expr });
  }
  return out;
}
