// Barrier operands to barrier identities: an address expression (`&full[s]`, `bar + 2`, an alias of
// either, a member path) resolved to the declared base variable and a slot index.
import { NO_RANGE } from '../../ir/expr';
import type { BarrierDecl, BarrierRef, Expr } from '../../ir/types';
import { isBarrierType } from './api';

export function rootName(e: Expr): string | undefined {
  switch (e.kind) {
    case 'var':
      return e.name;
    case 'member':
      return rootName(e.object);
    case 'index':
      return rootName(e.object);
    case 'unary':
      return rootName(e.arg);
    case 'binary':
      return rootName(e.left);
    case 'call':
      return e.args[0] ? rootName(e.args[0]) : undefined;
    default:
      return undefined;
  }
}

/** Splits an address expression into base variable and slot index, following local aliases. */
export function resolveBarrier(e: Expr, aliases: Map<string, Expr>, decls: Map<string, BarrierDecl>, text: string, depth = 0): BarrierRef | undefined {
  if (depth > 16) return undefined;
  const add = (a: Expr | undefined, b: Expr | undefined): Expr | undefined => {
    if (!a) return b;
    if (!b) return a;
    if (a.kind === 'num' && a.value === 0) return b;
    if (b.kind === 'num' && b.value === 0) return a;
    if (a.kind === 'num' && b.kind === 'num') return { kind: 'num', value: a.value + b.value, text: String(a.value + b.value), range: NO_RANGE };
    return { kind: 'binary', op: '+', left: a, right: b, text: `${a.text} + ${b.text}`, range: NO_RANGE };
  };
  switch (e.kind) {
    case 'var': {
      const alias = aliases.get(e.name);
      if (alias && !decls.get(e.name)?.length) {
        const r = resolveBarrier(alias, aliases, decls, text, depth + 1);
        // Follow an alias only to barrier storage: a barrier pointer carved out of a byte buffer
        // (`auto bars = reinterpret_cast<Barrier*>(smem + off)`) is its own identity.
        const root = r ? decls.get(r.base) : undefined;
        if (r && (!root || isBarrierType(root.type) || /uint64_t|__mbarrier_t/.test(root.type) || root.space === 'param')) return { ...r, text };
      }
      return { base: e.name, text };
    }
    case 'unary':
      if (e.op === '&' || e.op === '*') return resolveBarrier(e.arg, aliases, decls, text, depth + 1);
      return undefined;
    case 'index': {
      const inner = resolveBarrier(e.object, aliases, decls, text, depth + 1);
      return inner ? { ...inner, index: add(inner.index, e.index) } : undefined;
    }
    case 'binary': {
      if (e.op === '+') {
        const inner = resolveBarrier(e.left, aliases, decls, text, depth + 1);
        return inner ? { ...inner, index: add(inner.index, e.right) } : undefined;
      }
      return undefined;
    }
    case 'member': {
      // `full_barrier.value`, `bars->full` etc.: keep the member path as the barrier identity.
      return { base: `${e.object.text}.${e.field}`.replace(/\s+/g, ''), text };
    }
    case 'call':
      return e.args[0] && e.callee !== 'move' ? resolveBarrier(e.args[0], aliases, decls, text, depth + 1) : undefined;
    default:
      return undefined;
  }
}
