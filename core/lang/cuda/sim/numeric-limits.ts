// `std::numeric_limits<T>` (<limits>, also as cuda::std::) for the arithmetic types, as nvcc's LP64 host
// library defines it: the constants (`digits`, `is_signed` …) are members of an empty struct, so
// `numeric_limits<T>::digits` reads like any static constexpr member, and the functions (`max()`,
// `lowest()`, `infinity()` …) are compile-time constants of type T. 64-bit extremes are exact (bigint).
// __half and __nv_bfloat16 stop: the standard library does not specialise numeric_limits for them.
import type { SyntaxNode } from '../parser';
import type { CompilerContext, Ex } from './context';
import { fail, unsupported } from './syntax';
import { BOOL, type CType, layoutStruct, type StructDef, type StructMember, S32, wide } from './types';

const F32_MAX = 3.4028234663852886e38;

/** Whether a name spells numeric_limits in a standard namespace (or unqualified, where the program defines none). */
export function isNumericLimits(c: CompilerContext, scope: string | undefined, name: string): boolean {
  if (name !== 'numeric_limits') return false;
  if (scope === undefined) return !c.templateStructs.has(name);
  return /^(?:::)?(?:std|cuda::std)$/.test(scope);
}

/** The limits of a number type (integers exact to 64 bits). */
function limits(t: CType, n: SyntaxNode): { consts: Record<string, number>; fns: Record<string, number | bigint> } {
  if (t.k !== 'num' || t.dt === 'f16' || t.dt === 'bf16') unsupported(`std::numeric_limits of a type the standard library does not specialise it for`, n);
  if (t.dt === 'f32' || t.dt === 'f64') {
    const f = t.dt === 'f32';
    const fns = {
      max: f ? F32_MAX : Number.MAX_VALUE,
      min: f ? 2 ** -126 : 2 ** -1022,
      lowest: f ? -F32_MAX : -Number.MAX_VALUE,
      epsilon: f ? 2 ** -23 : 2 ** -52,
      round_error: 0.5,
      infinity: Infinity,
      quiet_NaN: NaN,
      signaling_NaN: NaN,
      denorm_min: f ? 2 ** -149 : 2 ** -1074,
    };
    const consts = { is_specialized: 1, is_signed: 1, is_integer: 0, is_exact: 0, has_infinity: 1, has_quiet_NaN: 1, has_signaling_NaN: 1, is_iec559: 1, is_bounded: 1, is_modulo: 0, radix: 2, digits: f ? 24 : 53, digits10: f ? 6 : 15, max_digits10: f ? 9 : 17, min_exponent: f ? -125 : -1021, min_exponent10: f ? -37 : -307, max_exponent: f ? 128 : 1024, max_exponent10: f ? 38 : 308 };
    return { consts, fns };
  }
  const bits = t.dt === 'bool' ? 1 : Number(t.dt.slice(1));
  const signed = t.dt.startsWith('s');
  const lo = t.dt === 'bool' || !signed ? 0n : -(1n << BigInt(bits - 1));
  const hi = t.dt === 'bool' ? 1n : signed ? (1n << BigInt(bits - 1)) - 1n : (1n << BigInt(bits)) - 1n;
  const v = (x: bigint) => wide(x, signed);
  const digits = t.dt === 'bool' ? 1 : signed ? bits - 1 : bits;
  const fns = { max: v(hi), min: v(lo), lowest: v(lo), epsilon: 0, round_error: 0, infinity: 0, quiet_NaN: 0, signaling_NaN: 0, denorm_min: 0 };
  const consts = { is_specialized: 1, is_signed: signed ? 1 : 0, is_integer: 1, is_exact: 1, has_infinity: 0, has_quiet_NaN: 0, has_signaling_NaN: 0, is_iec559: 0, is_bounded: 1, is_modulo: signed || t.dt === 'bool' ? 0 : 1, radix: 2, digits, digits10: Math.floor(digits * Math.log10(2)), max_digits10: 0, min_exponent: 0, min_exponent10: 0, max_exponent: 0, max_exponent10: 0 };
  return { consts, fns };
}

const BOOL_CONSTS = new Set(['is_specialized', 'is_signed', 'is_integer', 'is_exact', 'has_infinity', 'has_quiet_NaN', 'has_signaling_NaN', 'is_iec559', 'is_bounded', 'is_modulo']);

/** `std::numeric_limits<T>` as a struct whose members are its constants. */
export function numericLimitsStruct(c: CompilerContext, t: CType, key: string, n: SyntaxNode): StructDef {
  const have = c.structs.get(key);
  if (have) return have;
  const { consts } = limits(t, n);
  const members = new Map<string, StructMember>();
  for (const [k, v] of Object.entries(consts)) members.set(k, { k: 'const', type: BOOL_CONSTS.has(k) ? BOOL : S32, value: v });
  const def = layoutStruct(key, []);
  def.size = 1;
  def.members = members;
  def.template = { name: 'std::numeric_limits', args: [t] };
  c.structs.set(key, def);
  return def;
}

/** `std::numeric_limits<T>::max()` and the other member functions: a constant of type T. */
export function numericLimitsCall(t: CType, fn: string, argCount: number, n: SyntaxNode): Ex {
  if (argCount) fail(`std::numeric_limits<…>::${fn}() takes no arguments`, n);
  const { fns } = limits(t, n);
  if (!(fn in fns)) unsupported(`std::numeric_limits<…>::${fn}`, n);
  const v = (fns as Record<string, number | bigint>)[fn] as number;
  return { t, ev: () => v, cv: v };
}
