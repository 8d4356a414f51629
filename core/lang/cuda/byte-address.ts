// Shared-memory addresses as byte offsets from a declared buffer: `reinterpret_cast<uint64_t*>(buf + hidden_bytes)`,
// `&bars[2]`, a uint32 address from `__cvta_generic_to_shared(p) + 16`, with local aliases followed and element sizes
// folded in. What the lowering dropped (a cast inside an expression) makes the address unknown, never a guess.
import { NO_RANGE } from '../../ir/expr';
import type { BarrierDecl, ByteAddress, Expr } from '../../ir/types';
import { sizeOfTypeName } from './c-types';

interface Address extends ByteAddress {
  /** Size of the element that pointer arithmetic on this address steps by; undefined when not known. */
  elem?: number;
}

const num = (value: number): Expr => ({ kind: 'num', value, text: String(value), range: NO_RANGE });

function plus(a: Expr, b: Expr, op: '+' | '-'): Expr {
  if (b.kind === 'num' && b.value === 0) return a;
  if (a.kind === 'num' && b.kind === 'num') return num(op === '+' ? a.value + b.value : a.value - b.value);
  if (op === '+' && a.kind === 'num' && a.value === 0) return b;
  return { kind: 'binary', op, left: a, right: b, text: `${a.text} ${op} ${b.text}`, range: NO_RANGE };
}

function times(e: Expr, k: number): Expr {
  if (k === 1) return e;
  if (e.kind === 'num') return num(e.value * k);
  return { kind: 'binary', op: '*', left: e, right: num(k), text: `(${e.text}) * ${k}`, range: NO_RANGE };
}

/**
 * The element size pointer arithmetic on a declared variable steps by: `T*` and arrays of `T` step by `sizeof(T)`;
 * integer addresses (`uint32_t smem = __cvta_generic_to_shared(p)`) step by bytes. Undefined for `auto` (the alias
 * then says) and for types whose size is not known.
 */
function declaredElement(decl: BarrierDecl | undefined): number | undefined {
  if (!decl) return undefined;
  const type = decl.type.replace(/\b(const|volatile|__restrict__|__shared__|extern|static|__align__\s*\(\s*\d+\s*\))\b/g, '').replace(/\s+/g, ' ').trim();
  // A trailing `*` by hand: `/^(.*?)\s*\*$/` backtracked quadratically on long blank runs.
  if (type.endsWith('*')) return sizeOfTypeName(type.slice(0, -1).trim());
  if (/\bauto\b|[<&]/.test(type)) return undefined;
  // Shared storage (`extern __shared__ uint8_t smem[]`, `__shared__ uint64_t bars[4]`) steps by its element.
  if (decl.length !== undefined || decl.lengthExpr || decl.space === 'shared') return sizeOfTypeName(type);
  // A scalar integer holding an address: byte arithmetic.
  return /^(unsigned( int)?|int|uint32_t|uint64_t|size_t|int64_t|unsigned long long)$/.test(type) ? 1 : undefined;
}

/** Whether the lowering kept `outer` as written around `inner` (a cast it dropped would change the element size). */
function keptAsWritten(outer: Expr, inner: Expr): boolean {
  return outer.text.replace(/\s+/g, '').startsWith(inner.text.replace(/\s+/g, ''));
}

function address(e: Expr, aliases: ReadonlyMap<string, Expr>, decls: ReadonlyMap<string, BarrierDecl>, depth: number): Address | undefined {
  if (depth > 16) return undefined;
  switch (e.kind) {
    case 'var': {
      const decl = decls.get(e.name);
      const alias = aliases.get(e.name);
      const own = declaredElement(decl);
      if (alias && !(decl && (decl.length !== undefined || decl.lengthExpr))) {
        const inner = address(alias, aliases, decls, depth + 1);
        if (!inner) return undefined;
        return { base: inner.base, offset: inner.offset, via: [e.name, ...inner.via], elem: own ?? (decl && !/\bauto\b/.test(decl.type) ? undefined : inner.elem) };
      }
      return { base: e.name, offset: num(0), via: [], elem: own };
    }
    case 'unary': {
      // `&p` of a pointer alias is where the pointer itself lives, not what it points at.
      if (e.op !== '&' || (e.arg.kind === 'var' && aliases.has(e.arg.name))) return undefined;
      return address(e.arg, aliases, decls, depth + 1);
    }
    case 'index': {
      if (!keptAsWritten(e, e.object)) return undefined;
      const inner = address(e.object, aliases, decls, depth + 1);
      if (!inner?.elem) return undefined;
      return { ...inner, offset: plus(inner.offset, times(e.index, inner.elem), '+') };
    }
    case 'binary': {
      if ((e.op !== '+' && e.op !== '-') || !keptAsWritten(e, e.left)) return undefined;
      const inner = address(e.left, aliases, decls, depth + 1);
      if (!inner?.elem) return undefined;
      return { ...inner, offset: plus(inner.offset, times(e.right, inner.elem), e.op) };
    }
    default:
      return undefined;
  }
}

/** The byte address an expression denotes, or undefined when any step of it cannot be read. */
export function byteAddress(e: Expr, aliases: ReadonlyMap<string, Expr>, decls: ReadonlyMap<string, BarrierDecl>): ByteAddress | undefined {
  const a = address(e, aliases, decls, 0);
  return a ? { base: a.base, offset: a.offset, via: a.via } : undefined;
}
