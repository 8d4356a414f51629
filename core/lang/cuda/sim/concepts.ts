// C++20 concepts as the compiler checks them (ThunderKittens constrains its operations so: `template
// <ducks::st::all ST> void load(ST& dst, …)`): a concept is a constant expression over its parameters —
// `&&`, `||`, other concepts, type traits, and `requires { typename T::identifier; … }` — evaluated for the
// type a constrained parameter is bound to. An unsatisfied constraint removes a template from overload
// resolution, like a false enable_if. A requirement the simulator cannot judge stops the run: a
// requirement it wrongly judged unmet would choose another overload silently.
import type { SyntaxNode } from '../parser';
import { type CompilerContext, type Ex, FnCx } from './context';
import { fail, locOf, named, requiredField, unsupported } from './syntax';
import { namespacesOf } from './namespaces';
import { BOOL, type CType } from './types';

/** What an error says when a constraint is not satisfied (a substitution failure: see type-traits.ts). */
export const CONSTRAINT_UNSATISFIED = 'the constraint is not satisfied';

/** The concept a name written at `at` means (looked up from the innermost enclosing namespace outward, then by a unique suffix), if it names one. */
export function conceptNamed(c: CompilerContext, written: string, at: SyntaxNode): string | undefined {
  if (!c.concepts.size) return undefined;
  const name = written.replace(/\s+/g, '').replace(/^::/, '');
  if (/[<>]/.test(name)) return undefined;
  const ns = namespacesOf(at);
  for (let i = ns.length; i >= 0; i--) {
    const key = [...ns.slice(0, i), name].join('::');
    if (c.concepts.has(key)) return key;
  }
  // Through a using-directive (`using namespace kittens;`): the one concept whose qualified name ends so.
  const found = [...c.concepts.keys()].filter((k) => k.endsWith(`::${name}`));
  return found.length === 1 ? found[0] : undefined;
}

/** Whether type `t` satisfies the concept named `key`. */
export function satisfies(c: CompilerContext, key: string, t: CType, at: SyntaxNode): boolean {
  const def = c.concepts.get(key)!;
  const list = def.parent?.type === 'template_declaration' ? def.parent.childForFieldName('parameters') : null;
  if (!list) unsupported(`concept ${key} without a template parameter list`, at);
  const params = named(list);
  const param = params[0]?.type === 'type_parameter_declaration' ? named(params[0]).find((x) => x.type === 'type_identifier') : undefined;
  if (params.length !== 1 || !param) unsupported(`concept ${key} (only concepts of one type parameter are modelled)`, at);
  const nameId = def.childForFieldName('name')?.id;
  const expr = named(def).find((x) => x.id !== nameId);
  if (!expr) fail(`concept ${key} without a constraint expression`, def);
  // The parameter is found through the context's template binding.
  const cx = new FnCx(`<concept ${key}>`, null, new Map([[param.text, t]]), undefined, locOf(def));
  cx.scopes = [new Map()];
  return constraint(c, cx, expr);
}

/**
 * A constraint expression: a conjunction stops at its first unsatisfied operand and a disjunction at its first
 * satisfied one, without substituting into the rest (`requires { typename T::x; } && is_same_v<typename T::x, …>`
 * is false, not ill-formed, for a T without x); anything else is a constant expression.
 */
function constraint(c: CompilerContext, cx: FnCx, e: SyntaxNode): boolean {
  if (e.type === 'parenthesized_expression' && named(e).length === 1) return constraint(c, cx, named(e)[0]);
  if (e.type === 'binary_expression') {
    const op = e.childForFieldName('operator')?.text;
    if (op === '&&' || op === 'and') return constraint(c, cx, requiredField(e, 'left')) && constraint(c, cx, requiredField(e, 'right'));
    if (op === '||' || op === 'or') return constraint(c, cx, requiredField(e, 'left')) || constraint(c, cx, requiredField(e, 'right'));
  }
  return !!c.constEval(cx, e);
}

/** Stops the substitution (a removable failure) when `t` does not satisfy the concept `key`. */
export function requireConcept(c: CompilerContext, key: string, t: CType, at: SyntaxNode): void {
  if (!satisfies(c, key, t, at)) fail(`${key} is not satisfied by the template argument (${CONSTRAINT_UNSATISFIED})`, at);
}

/** A concept-id used as a value (`ducks::st::all<T>` in `if constexpr` or another concept), or undefined when `n` names none. */
export function conceptValue(c: CompilerContext, cx: FnCx, n: SyntaxNode, written: string): Ex | undefined {
  const key = conceptNamed(c, written, n);
  if (!key) return undefined;
  const args = named(requiredField(n, 'arguments'));
  if (args.length !== 1) unsupported(`concept ${key} with ${args.length} arguments`, n);
  const t = args[0].type === 'type_descriptor' ? c.typeDescriptor(cx, args[0]) : c.baseType(cx, args[0]);
  const v = satisfies(c, key, t, n) ? 1 : 0;
  return { t: BOOL, ev: () => v, cv: v };
}

/**
 * `requires { typename T::identifier; … }`: true when every requirement holds. A type requirement holds when the
 * type exists (a class without that member type does not have it); an expression requirement when the
 * expression compiles. What the simulator cannot model stops, rather than read as unmet.
 */
export function requiresExpression(c: CompilerContext, cx: FnCx, n: SyntaxNode): Ex {
  if (n.childForFieldName('parameters')) unsupported('a requires expression with parameters', n);
  const seq = requiredField(n, 'requirements');
  let ok = true;
  for (const r of named(seq)) {
    if (!ok) break;
    switch (r.type) {
      case 'type_requirement':
        ok = typeExists(c, cx, named(r)[0] ?? r);
        break;
      case 'simple_requirement': {
        const e = named(r)[0];
        if (e) ok = compiles(c, cx, e);
        break;
      }
      case 'nested_requirement':
        ok = !!c.constEval(cx, named(r)[0] ?? r);
        break;
      default:
        unsupported(`a ${r.type.replace(/_/g, ' ')} in a requires expression`, r);
    }
  }
  const v = ok ? 1 : 0;
  return { t: BOOL, ev: () => v, cv: v };
}

/** `typename A::B`: false when A is not a class or has no member type B; otherwise whether the type can be named. */
function typeExists(c: CompilerContext, cx: FnCx, t: SyntaxNode): boolean {
  if (t.type === 'qualified_identifier') {
    const scope = t.childForFieldName('scope');
    const member = t.childForFieldName('name');
    if (scope && member && member.type === 'type_identifier') {
      const s = scope.type === 'type_identifier' || scope.type === 'namespace_identifier' ? c.lookup(cx, scope.text) : undefined;
      if (s?.sym.k === 'type' && s.sym.type.k !== 'struct') return false; // `int::identifier`
      const def = c.scopeStruct(cx, scope);
      if (def?.members?.get(member.text)?.k === 'type') return true;
      if (def) {
        // A member the simulator keeps elsewhere (a nested class, a name of a base) is not known to be absent.
        if (new RegExp(`\\b${member.text}\\b`).test(def.node?.childForFieldName('body')?.text ?? '') || (def.node && named(def.node).some((x) => x.type === 'base_class_clause'))) unsupported(`requirement 'typename ${t.text}' (${def.name} may declare ${member.text} in a way the simulator does not record)`, t);
        return false;
      }
    }
  }
  return compiles(c, cx, t, true);
}

/** Whether an expression (or, with `type`, a type) compiles; "not supported" propagates. */
function compiles(c: CompilerContext, cx: FnCx, e: SyntaxNode, type = false): boolean {
  try {
    if (type) c.baseType(cx, e);
    else c.typeOf(cx, e);
    return true;
  } catch (err) {
    if ((err as { kind?: string }).kind === 'unsupported') throw err;
    return false;
  }
}
