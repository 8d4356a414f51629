// Which function a call in a kernel reaches, for the lowering (lower.ts): a helper by name and
// arity, a member function by the receiver's class, a class template's arguments from a declared
// type; and which unresolved calls look like barrier operations worth a "not understood" note.
import type { Range } from '../../api';
import type { Expr } from '../../ir/types';
import { parseIntLiteral } from './constants';
import type { FnDef, FunctionLookup } from './scan';
import { unqualified } from './syntax-nodes';

/** Callee names that suggest a barrier operation: an unresolved call so named is reported as not understood. */
export const BARRIER_CALLEE = /barrier|mbar|arrive|wait|expect_tx|complete_tx|semaphore|producer_|consumer_|_acquire|_release|_commit/i;

/**
 * The helper a call `name(...)` with `argc` arguments reaches. A function with more parameters is a
 * candidate only when the ones the call leaves out have defaults: an overload the unit does not define
 * (its #ifdef not taken) must not be stood in for by another one.
 */
export function resolveHelper(fns: FunctionLookup, name: string, argc: number, qualifier?: string): FnDef | undefined {
  let defs = fns.get(name);
  if (!defs) return undefined;
  // `Atom::fma(...)`: a static member of a class the call names; many classes (CuTe's MMA and copy atoms)
  // define a member of the same name and arity, and only the named one is what the call runs.
  const cls = qualifier ? unqualified(qualifier.replace(/<.*$/s, '')) : undefined;
  const members = cls ? defs.filter((d) => d.memberOf === cls) : [];
  if (members.length) defs = members;
  return defs.find((d) => d.params.length === argc && !d.isKernel) ?? defs.find((d) => d.params.length > argc && d.params.slice(argc).every((p) => p.hasDefault) && !d.isKernel);
}

/** The member function `name` of a receiver of type `type`: by that class when known, else the only class defining it. */
export function resolveMethod(fns: FunctionLookup, name: string, argc: number, type: string | undefined): FnDef | undefined {
  const defs = fns.get(name)?.filter((d) => d.memberOf && !d.isKernel && d.params.length >= argc);
  if (!defs?.length) return undefined;
  const cls = type ? unqualified(type.replace(/<.*$/s, '').replace(/\b(const|volatile|struct|class)\b|[&*\s]/g, '')) : undefined;
  const byType = cls ? defs.filter((d) => d.memberOf === cls) : [];
  if (byType.length) return byType.find((d) => d.params.length === argc) ?? byType[0];
  // Without a known type, only an unambiguous class is taken.
  const classes = new Set(defs.map((d) => `${d.file ?? ''}:${d.memberOf}`));
  return classes.size === 1 ? (defs.find((d) => d.params.length === argc) ?? defs[0]) : undefined;
}

/** Template arguments of a declared type (`Ring<4>` gives ['4']), split at top-level commas. */
export function classArguments(type: string | undefined): string[] {
  // The first `<` to the last `>` by hand: `/<(.*)>/s` rescanned the rest from every `<` when no `>` closed it.
  const open = type?.indexOf('<') ?? -1;
  const close = type?.lastIndexOf('>') ?? -1;
  if (!type || open < 0 || close <= open) return [];
  const inner = type.slice(open + 1, close);
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of inner) {
    if (ch === '<' || ch === '(') depth++;
    if (ch === '>' || ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

/** A template argument written in a type (`4`, `kStages`, `2 * N`) as an expression of the IR. */
export function argumentExpr(text: string, constants: ReadonlyMap<string, number>, range: Range): Expr {
  const v = parseIntLiteral(text) ?? constants.get(text);
  if (v !== undefined) return { kind: 'num', value: v, text, range };
  if (/^[A-Za-z_]\w*$/.test(text)) return { kind: 'var', name: text, text, range };
  return { kind: 'opaque', text, range };
}

