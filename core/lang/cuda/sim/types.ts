// C/C++ types of the CUDA executor and their exact arithmetic: layouts (size, alignment, struct
// fields), the usual arithmetic conversions, and closures for every operator specialised by result
// type, so integer wrap-around, unsigned comparison, shifts and f16/bf16/f32 rounding match the GPU.
// 64-bit integers are JS numbers while exact; a result beyond 2^53 stops the run (SimError).
import { coerce, type DType, sizeOf as dtSize } from '../../../sim/dtypes';
import { SimError } from '../../../sim/machine';
import type { SyntaxNode } from '../parser';

export interface StructField {
  name: string;
  type: CType;
  offset: number;
  /** A bit-field: its `width` bits start `pos` bits into the bytes from `offset` (little-endian, GCC's layout). */
  bits?: { pos: number; width: number };
  /** A member of an anonymous union/struct member, reached by name through it (not initialised or shown on its own). */
  via?: boolean;
}

/** A member as declared, before layout: a bit-field has a width (an unnamed one has name ''). */
export interface FieldDecl {
  name: string;
  type: CType;
  width?: number;
  /** An anonymous union/struct member: its fields become the enclosing struct's, at its offset. */
  anon?: boolean;
}

export interface StructDef {
  name: string;
  fields: StructField[];
  size: number;
  align: number;
  /** Member functions by name, overloads and member templates included (FnDecl[]; compiled on first call). */
  methods: Map<string, unknown[]>;
  /** Static constexpr members, member typedefs and enums, and a class template instance's arguments. */
  members?: Map<string, StructMember>;
  /** Default member initialisers (`int index = 0;`) by field name. */
  fieldInits?: Map<string, SyntaxNode>;
  /** Constructors (FnDecl[]). */
  ctors?: unknown[];
  /** The struct's definition (where its construction is reported). */
  node?: SyntaxNode;
  /** A class template instance: the template's name and its arguments in order. */
  template?: { name: string; args: (CType | number)[] };
  /** Compiled default member initialisers, for structs whose initialisers are not all constants (CompiledFn). */
  initFn?: unknown;
  /** A union: every member at offset 0; a brace initialiser initialises the first. */
  union?: boolean;
  /** Conversion operators (`operator uint64_t() const`): the target type and the member function (FnDecl). */
  conversions?: { to: CType; fn: unknown }[];
  /** An empty class that converts to a constant: std::integral_constant and the traits derived from it (`std::is_same<T, U>{}`). */
  constant?: { type: CType; value: number };
}

/** What a name declared inside a struct stands for, besides fields and methods. */
export type StructMember = { k: 'const'; type: CType; value: number } | { k: 'type'; type: CType };

/** Opaque runtime objects that live in slots only (cooperative groups, PTX tags). */
export type ObjKind = 'thread_block' | 'tile' | 'grid' | 'cluster' | 'tag' | 'string' | 'nullptr' | 'pipeline' | 'pipeline_role';

/**
 * What C++ sees of a type beyond its layout, kept for the type traits only (the rest of the compiler
 * ignores it): top-level cv-qualifiers, a reference, and which fundamental type a number is (`long` and
 * `long long` are both s64). A type made from an expression (deduced, decltype) may have lost its
 * qualifiers: `cvUnknown` / `refUnknown` say so, and a trait that depends on them stops rather than guess.
 */
export interface CxxInfo {
  c?: boolean;
  v?: boolean;
  ref?: '&' | '&&';
  /** The canonical C++ name of a number's fundamental type (`long`, `signed char`, `__half`). */
  name?: string;
  cvUnknown?: boolean;
  refUnknown?: boolean;
}

export type CType = (
  | { k: 'void' }
  | { k: 'num'; dt: DType }
  | { k: 'ptr'; to: CType }
  | { k: 'arr'; of: CType; n: number }
  | { k: 'struct'; def: StructDef }
  /** cuda::barrier<scope[, CompletionF]>: the 8-byte mbarrier word in memory. */
  | { k: 'barrier' }
  | { k: 'lambda'; id: number }
  | { k: 'obj'; obj: ObjKind; n?: number }
) & { cxx?: CxxInfo };

export const VOID: CType = { k: 'void' };
export const num = (dt: DType): CType => ({ k: 'num', dt });
export const S32 = num('s32');
export const U32 = num('u32');
export const S64 = num('s64');
export const U64 = num('u64');
export const F32 = num('f32');
export const F64 = num('f64');
export const BOOL = num('bool');
export const ptr = (to: CType): CType => ({ k: 'ptr', to });

export function isNum(t: CType): t is { k: 'num'; dt: DType } {
  return t.k === 'num';
}
export function isFloatDt(dt: DType): boolean {
  return dt === 'f32' || dt === 'f64' || dt === 'f16' || dt === 'bf16';
}
export function isIntDt(dt: DType): boolean {
  return !isFloatDt(dt);
}
export function isPtrLike(t: CType): boolean {
  return t.k === 'ptr' || t.k === 'arr';
}

export function sizeOfType(t: CType): number {
  switch (t.k) {
    case 'num':
      return dtSize(t.dt);
    case 'ptr':
      return 8;
    case 'arr':
      return Math.max(0, t.n) * sizeOfType(t.of);
    case 'struct':
      return t.def.size;
    case 'barrier':
      return 8;
    default:
      return 0;
  }
}

export function alignOfType(t: CType): number {
  switch (t.k) {
    case 'num':
      return dtSize(t.dt);
    case 'ptr':
    case 'barrier':
      return 8;
    case 'arr':
      return alignOfType(t.of);
    case 'struct':
      return t.def.align;
    default:
      return 1;
  }
}

export function typeName(t: CType): string {
  switch (t.k) {
    case 'void':
      return 'void';
    case 'num':
      return t.dt;
    case 'ptr':
      return `${typeName(t.to)}*`;
    case 'arr':
      return `${typeName(t.of)}[${t.n < 0 ? '' : t.n}]`;
    case 'struct':
      return t.def.name;
    case 'barrier':
      return 'cuda::barrier';
    case 'lambda':
      return 'lambda';
    case 'obj':
      return t.obj;
  }
}

export function sameType(a: CType, b: CType): boolean {
  if (a.k !== b.k) return false;
  switch (a.k) {
    case 'num':
      return a.dt === (b as typeof a).dt;
    case 'ptr':
      return sameType(a.to, (b as typeof a).to);
    case 'arr':
      return a.n === (b as typeof a).n && sameType(a.of, (b as typeof a).of);
    case 'struct':
      return a.def === (b as typeof a).def;
    case 'lambda':
      return a.id === (b as typeof a).id;
    case 'obj':
      return a.obj === (b as typeof a).obj && a.n === (b as typeof a).n;
    default:
      return true;
  }
}

/**
 * Lays out struct (or union) fields in declaration order with natural alignment, like nvcc (the
 * SysV/GCC rules): a bit-field goes at the next free bit unless it would straddle a unit of its
 * declared type's size (aligned to that size), then it starts the next unit; a zero-width one
 * closes the unit; unnamed bit-fields do not add to the alignment; in a union every member starts
 * at offset 0. Anonymous union/struct members lend their fields to the enclosing type.
 */
export function layoutStruct(name: string, fields: FieldDecl[], union = false): StructDef {
  let bit = 0;
  let end = 0;
  let align = 1;
  const out: StructField[] = [];
  for (const f of fields) {
    if (union) bit = 0;
    const a = alignOfType(f.type);
    if (f.width !== undefined) {
      const unit = sizeOfType(f.type) * 8;
      if (f.width === 0) bit = Math.ceil(bit / unit) * unit;
      else if (Math.floor(bit / unit) !== Math.floor((bit + f.width - 1) / unit)) bit = Math.ceil(bit / unit) * unit;
      if (f.name) {
        const offset = Math.floor(bit / 8);
        out.push({ name: f.name, type: f.type, offset, bits: { pos: bit - offset * 8, width: f.width } });
        align = Math.max(align, a);
      }
      bit += f.width;
      end = Math.max(end, bit);
      continue;
    }
    const off = Math.ceil(Math.ceil(bit / 8) / a) * a;
    if (f.anon && f.type.k === 'struct') {
      for (const inner of f.type.def.fields) out.push({ ...inner, offset: off + inner.offset, via: true });
    }
    out.push({ name: f.name, type: f.type, offset: off });
    bit = (off + sizeOfType(f.type)) * 8;
    end = Math.max(end, bit);
    align = Math.max(align, a);
  }
  const bytes = Math.ceil(end / 8);
  return { name, fields: out, size: Math.ceil(bytes / align) * align || 0, align, methods: new Map(), ...(union ? { union } : {}) };
}

// ------------------------------------------------------------------ CUDA's built-in vector types

const VECTOR_ELEMENTS: Record<string, DType> = {
  char: 's8', uchar: 'u8', short: 's16', ushort: 'u16', int: 's32', uint: 'u32', long: 's64', ulong: 'u64',
  longlong: 's64', ulonglong: 'u64', float: 'f32', double: 'f64',
};
const VECTOR_FIELDS = ['x', 'y', 'z', 'w'];
const vectorTypes = new Map<string, StructDef>();

/**
 * `float4`, `int2`, `uint4`, `double2`, `__half2`, `__nv_bfloat162`, … as vector_types.h and cuda_fp16.h declare them: fields
 * x, y, z, w of the element type, aligned to their whole size for 1, 2 and 4 components (16 bytes for `float4`), and
 * to one element for 3; undefined for any other name.
 */
export function vectorType(name: string): StructDef | undefined {
  const cached = vectorTypes.get(name);
  if (cached) return cached;
  let dt: DType | undefined;
  let n = 0;
  const m = /^(char|uchar|short|ushort|int|uint|long|ulong|longlong|ulonglong|float|double)([1-4])$/.exec(name);
  if (m) {
    dt = VECTOR_ELEMENTS[m[1]];
    n = Number(m[2]);
  } else if (/^(__)?half2$/.test(name)) [dt, n] = ['f16', 2];
  else if (name === '__nv_bfloat162') [dt, n] = ['bf16', 2];
  if (!dt) return undefined;
  const def = layoutStruct(name, VECTOR_FIELDS.slice(0, n).map((f) => ({ name: f, type: num(dt!) })));
  if (n !== 3) {
    def.align = def.size;
  }
  vectorTypes.set(name, def);
  return def;
}

let tensorMapStruct: StructDef | undefined;

/**
 * `CUtensorMap` as cuda.h declares it (`struct CUtensorMap_st { alignas(64) cuuint64_t opaque[16]; }`):
 * 128 bytes, 64-byte aligned; the simulator's encoding of the map lives in those bytes
 * (core/sim/tensor-map.ts). Undefined for any other name.
 */
export function tensorMapType(name: string): StructDef | undefined {
  if (name !== 'CUtensorMap' && name !== 'CUtensorMap_st') return undefined;
  if (!tensorMapStruct) {
    tensorMapStruct = layoutStruct('CUtensorMap', [{ name: 'opaque', type: { k: 'arr', of: num('u64'), n: 16 } }]);
    tensorMapStruct.align = 64;
  }
  return tensorMapStruct;
}

/** Whether `t` is the `CUtensorMap` struct. */
export function isTensorMapType(t: CType): boolean {
  return t.k === 'struct' && t.def === tensorMapType('CUtensorMap');
}

// ------------------------------------------------------------------ integer/float conversions

const RANK: Record<DType, number> = { bool: 0, s8: 1, u8: 1, s16: 2, u16: 2, s32: 3, u32: 3, s64: 4, u64: 4, f16: 5, bf16: 5, f32: 6, f64: 7 };
const SIGNED = new Set<DType>(['s8', 's16', 's32', 's64']);
const TWO32 = 4294967296;
const TWO64 = 18446744073709551616;

export function isSigned(dt: DType): boolean {
  return SIGNED.has(dt);
}

/** Integer promotion: everything narrower than int becomes int. */
export function promote(dt: DType): DType {
  return RANK[dt] < 3 ? 's32' : dt;
}

/** The usual arithmetic conversions of C++. */
export function commonType(a: DType, b: DType): DType {
  if (isFloatDt(a) || isFloatDt(b)) {
    if (a === b) return a;
    // __half op __half stays half; mixing half with bf16 or float goes to float.
    const fa = isFloatDt(a) ? a : undefined;
    const fb = isFloatDt(b) ? b : undefined;
    if (fa && fb) return RANK[fa] >= RANK[fb] ? (fa === 'bf16' && fb === 'f16' ? 'f32' : fa) : fb === 'bf16' && fa === 'f16' ? 'f32' : fb;
    return (fa ?? fb)!;
  }
  const pa = promote(a);
  const pb = promote(b);
  if (pa === pb) return pa;
  const sa = isSigned(pa);
  const sb = isSigned(pb);
  if (sa === sb) return RANK[pa] >= RANK[pb] ? pa : pb;
  const [s, u] = sa ? [pa, pb] : [pb, pa];
  if (RANK[u] >= RANK[s]) return u;
  if (RANK[s] > RANK[u]) return s; // s64 holds every u32
  return s === 's64' ? 'u64' : 'u32';
}

export function tooWide(v: number): never {
  throw new SimError(`64-bit integer value ${v} is beyond 2^53, which the simulator cannot hold exactly`, undefined, 'unsupported');
}

/**
 * A 64-bit integer value: a number while it is exact (|v| < 2^53), a bigint beyond (wgmma/UMMA
 * descriptors keep their swizzle mode in bits 62-63). The form is canonical, so `===` compares values.
 */
export type Int64 = number | bigint;
const MAX_SAFE = 9007199254740991;
const MAX_SAFE_BIG = 9007199254740991n;

/** `v` wrapped to 64 bits (two's complement), in canonical form. */
export function wide(v: bigint, signed: boolean): Int64 {
  const r = signed ? BigInt.asIntN(64, v) : BigInt.asUintN(64, v);
  return r <= MAX_SAFE_BIG && r >= -MAX_SAFE_BIG ? Number(r) : r;
}

const toBig = (v: Int64): bigint => (typeof v === 'bigint' ? v : BigInt(v));

/** A 64-bit value as a JS number (rounded when it is a bigint), for conversions to floating point. */
const toNumber = (v: Int64): number => (typeof v === 'bigint' ? Number(v) : v);

/** The low 32 bits of a 64-bit value as a signed number (narrowing conversions). */
const low32 = (v: Int64): number => (typeof v === 'bigint' ? Number(BigInt.asIntN(32, v)) : v | 0);

export function chk64(v: number): number {
  if (typeof v === 'bigint') return v;
  if (v > MAX_SAFE || v < -MAX_SAFE) tooWide(v);
  return v;
}

function floatToInt(v: number, lo: number, hi: number): number {
  // cvt.rzi saturates on the GPU; NaN becomes 0.
  if (Number.isNaN(v)) return 0;
  const t = Math.trunc(v);
  return t < lo ? lo : t > hi ? hi : t;
}

/** A float converted to a 64-bit integer (saturating like cvt.rzi), exact beyond 2^53. */
function floatTo64(v: number, signed: boolean): Int64 {
  const t = floatToInt(v, signed ? -9223372036854775808 : 0, TWO64);
  if (t <= MAX_SAFE && t >= -MAX_SAFE) return t;
  if (!signed && t >= TWO64) return 0xffffffffffffffffn;
  if (signed && t >= 9223372036854775808) return 0x7fffffffffffffffn;
  return wide(BigInt(t), signed);
}

/** Conversion of a value of type `from` to `to`; undefined when it is the identity. */
export function convFn(from: DType, to: DType): ((v: number) => number) | undefined {
  if (from === to) return undefined;
  const ff = isFloatDt(from);
  switch (to) {
    case 'f64':
      return from === 's64' || from === 'u64' ? toNumber : undefined;
    case 'f32':
      if (from === 'f16' || from === 'bf16' || from === 'bool' || RANK[from] <= 2) return undefined;
      return from === 's64' || from === 'u64' ? (v) => Math.fround(toNumber(v)) : Math.fround;
    case 'f16':
      return (v) => coerce('f16', toNumber(v));
    case 'bf16':
      return (v) => coerce('bf16', toNumber(v));
    case 'bool':
      return (v) => (v !== 0 ? 1 : 0);
  }
  if ((from === 's64' || from === 'u64') && to !== 's64' && to !== 'u64') {
    const narrow = convFn('s32', to);
    return narrow ? (v) => narrow(low32(v)) : low32;
  }
  switch (to) {
    case 's8':
      return ff ? (v) => (floatToInt(v, -128, 127) << 24) >> 24 : (v) => (v << 24) >> 24;
    case 'u8':
      return ff ? (v) => floatToInt(v, 0, 255) : (v) => v & 0xff;
    case 's16':
      return ff ? (v) => floatToInt(v, -32768, 32767) : (v) => (v << 16) >> 16;
    case 'u16':
      return ff ? (v) => floatToInt(v, 0, 65535) : (v) => v & 0xffff;
    case 's32':
      if (from === 'bool' || from === 's8' || from === 'u8' || from === 's16' || from === 'u16') return undefined;
      return ff ? (v) => floatToInt(v, -2147483648, 2147483647) : (v) => v | 0;
    case 'u32':
      if (from === 'bool' || from === 'u8' || from === 'u16') return undefined;
      return ff ? (v) => floatToInt(v, 0, 4294967295) : (v) => v >>> 0;
    case 's64':
      if (ff) return (v) => floatTo64(v, true) as number;
      return from === 'u64' ? (v) => (typeof v === 'bigint' ? wide(v, true) : v) as number : undefined;
    case 'u64':
      if (ff) return (v) => floatTo64(v, false) as number;
      if (!isSigned(from)) return undefined;
      return (v) => (v < 0 ? wide(toBig(v), false) : v) as number;
  }
  return undefined;
}

export function convert(v: number, from: DType, to: DType): number {
  const f = convFn(from, to);
  return f ? f(v) : v;
}

// ------------------------------------------------------------------ operators

type Fn = (f: any) => any;

/** 64-bit bitwise operation through BigInt (operands beyond 32 bits). */
function big(op: string, a: Int64, b: Int64, signed: boolean): Int64 {
  const A = BigInt(a);
  const B = BigInt(b);
  let r: bigint;
  switch (op) {
    case '&':
      r = A & B;
      break;
    case '|':
      r = A | B;
      break;
    default:
      r = A ^ B;
  }
  return wide(r, signed);
}

/**
 * 64-bit + - * / %: in numbers while the result is exact, through BigInt beyond (wrapping like the
 * hardware: unsigned modulo 2^64, signed two's complement).
 */
function arith64(op: string, signed: boolean): (a: Int64, b: Int64) => Int64 {
  const viaBig = (a: Int64, b: Int64): Int64 => {
    const A = toBig(a);
    const B = toBig(b);
    if ((op === '/' || op === '%') && B === 0n) divZero();
    return wide(op === '+' ? A + B : op === '-' ? A - B : op === '*' ? A * B : op === '/' ? A / B : A % B, signed);
  };
  return (a, b) => {
    if (typeof a !== 'number' || typeof b !== 'number') return viaBig(a, b);
    let r: number;
    switch (op) {
      case '+':
        r = a + b;
        break;
      case '-':
        r = a - b;
        break;
      case '*':
        r = a * b;
        break;
      case '/':
        if (b === 0) divZero();
        return Math.trunc(a / b);
      default:
        if (b === 0) divZero();
        return a % b;
    }
    return r <= MAX_SAFE && r >= (signed ? -MAX_SAFE : 0) ? r : viaBig(a, b);
  };
}

function divZero(): never {
  throw new SimError('integer division by zero');
}

/** Binary arithmetic/bitwise operator on operands already converted to `dt`. */
export function arith(op: string, dt: DType, A: Fn, B: Fn): Fn {
  switch (dt) {
    case 's32':
      switch (op) {
        case '+':
          return (f) => (A(f) + B(f)) | 0;
        case '-':
          return (f) => (A(f) - B(f)) | 0;
        case '*':
          return (f) => Math.imul(A(f), B(f));
        // Operands as int32 (they are: s32 values), so V8 divides integers even when a value came
        // from a typed slot as a double (a float modulo is a C call).
        case '/':
          return (f) => {
            const a = A(f) | 0;
            const b = B(f) | 0;
            if (b === 0) divZero();
            return (a / b) | 0;
          };
        case '%':
          return (f) => {
            const a = A(f) | 0;
            const b = B(f) | 0;
            if (b === 0) divZero();
            return (a % b) | 0;
          };
        case '&':
          return (f) => A(f) & B(f);
        case '|':
          return (f) => A(f) | B(f);
        case '^':
          return (f) => A(f) ^ B(f);
      }
      break;
    case 'u32':
      switch (op) {
        case '+':
          return (f) => (A(f) + B(f)) >>> 0;
        case '-':
          return (f) => (A(f) - B(f)) >>> 0;
        case '*':
          return (f) => Math.imul(A(f), B(f)) >>> 0;
        case '/':
          return (f) => {
            const b = B(f);
            if (b === 0) divZero();
            return Math.floor(A(f) / b);
          };
        case '%':
          return (f) => {
            const b = B(f);
            if (b === 0) divZero();
            return A(f) % b;
          };
        case '&':
          return (f) => (A(f) & B(f)) >>> 0;
        case '|':
          return (f) => (A(f) | B(f)) >>> 0;
        case '^':
          return (f) => (A(f) ^ B(f)) >>> 0;
      }
      break;
    case 's64':
    case 'u64': {
      const signed = dt === 's64';
      switch (op) {
        case '+':
        case '-':
        case '*':
        case '/':
        case '%': {
          const fn = arith64(op, signed);
          return (f) => fn(A(f), B(f));
        }
        case '&':
        case '|':
        case '^':
          return (f) => {
            const a = A(f);
            const b = B(f);
            if (a >= 0 && b >= 0 && a < TWO32 && b < TWO32) return (op === '&' ? a & b : op === '|' ? a | b : a ^ b) >>> 0;
            return big(op, a, b, signed);
          };
      }
      break;
    }
    case 'f32':
      switch (op) {
        case '+':
          return (f) => Math.fround(A(f) + B(f));
        case '-':
          return (f) => Math.fround(A(f) - B(f));
        case '*':
          return (f) => Math.fround(A(f) * B(f));
        case '/':
          return (f) => Math.fround(A(f) / B(f));
      }
      break;
    case 'f64':
      switch (op) {
        case '+':
          return (f) => A(f) + B(f);
        case '-':
          return (f) => A(f) - B(f);
        case '*':
          return (f) => A(f) * B(f);
        case '/':
          return (f) => A(f) / B(f);
      }
      break;
    case 'f16':
    case 'bf16':
      switch (op) {
        case '+':
          return (f) => coerce(dt, A(f) + B(f));
        case '-':
          return (f) => coerce(dt, A(f) - B(f));
        case '*':
          return (f) => coerce(dt, A(f) * B(f));
        case '/':
          return (f) => coerce(dt, A(f) / B(f));
      }
      break;
  }
  throw new SimError(`operator ${op} on ${dt}`, undefined, 'unsupported');
}

/** Shift of a promoted left operand of type `dt` by B (PTX shl/shr clamp the amount). */
export function shift(op: '<<' | '>>', dt: DType, A: Fn, B: Fn): Fn {
  switch (dt) {
    case 's32':
      return op === '<<'
        ? (f) => {
            const b = B(f);
            return b >= 32 || b < 0 ? 0 : A(f) << b;
          }
        : (f) => {
            const b = B(f);
            return b >= 32 || b < 0 ? (A(f) < 0 ? -1 : 0) : A(f) >> b;
          };
    case 'u32':
      return op === '<<'
        ? (f) => {
            const b = B(f);
            return b >= 32 || b < 0 ? 0 : (A(f) << b) >>> 0;
          }
        : (f) => {
            const b = B(f);
            return b >= 32 || b < 0 ? 0 : A(f) >>> b;
          };
    case 's64':
    case 'u64':
      return op === '<<'
        ? (f) => {
            const a = A(f);
            const b = B(f);
            if (b >= 64 || b < 0) return 0;
            if (typeof a === 'number') {
              const r = a * 2 ** b;
              if (r <= MAX_SAFE && r >= (dt === 's64' ? -MAX_SAFE : 0)) return r;
            }
            return wide(toBig(a) << BigInt(b), dt === 's64');
          }
        : (f) => {
            const a = A(f);
            const b = B(f);
            if (b >= 64 || b < 0) return a < 0 ? -1 : 0;
            if (typeof a === 'bigint') return wide(a >> BigInt(b), dt === 's64');
            return Math.floor(a / 2 ** b);
          };
  }
  throw new SimError(`shift of ${dt}`, undefined, 'unsupported');
}

export function compare(op: string, A: Fn, B: Fn): Fn {
  switch (op) {
    case '<':
      return (f) => (A(f) < B(f) ? 1 : 0);
    case '<=':
      return (f) => (A(f) <= B(f) ? 1 : 0);
    case '>':
      return (f) => (A(f) > B(f) ? 1 : 0);
    case '>=':
      return (f) => (A(f) >= B(f) ? 1 : 0);
    case '==':
      return (f) => (A(f) === B(f) ? 1 : 0);
    case '!=':
      return (f) => (A(f) !== B(f) ? 1 : 0);
  }
  throw new SimError(`comparison ${op}`, undefined, 'unsupported');
}

export function negate(dt: DType, A: Fn): Fn {
  switch (dt) {
    case 's32':
      return (f) => -A(f) | 0;
    case 'u32':
      return (f) => -A(f) >>> 0;
    case 's64':
      return (f) => {
        const a = A(f);
        return typeof a === 'bigint' ? wide(-a, true) : -a;
      };
    case 'u64':
      return (f) => {
        const a = A(f);
        return a === 0 ? 0 : wide(-toBig(a), false);
      };
    case 'f32':
    case 'f64':
    case 'f16':
    case 'bf16':
      return (f) => -A(f);
  }
  return (f) => -A(f);
}

export function bitNot(dt: DType, A: Fn): Fn {
  switch (dt) {
    case 's32':
      return (f) => ~A(f);
    case 'u32':
      return (f) => ~A(f) >>> 0;
    case 's64':
      return (f) => {
        const a = A(f);
        return typeof a === 'bigint' ? wide(~a, true) : -a - 1;
      };
    case 'u64':
      return (f) => wide(~toBig(A(f)), false);
  }
  throw new SimError(`~ on ${dt}`, undefined, 'unsupported');
}

/** Arrays decay to pointers to their element (parameters, `auto`, template deduction). */
export function decay(t: CType): CType {
  return t.k === 'arr' ? ptr(t.of) : t;
}

/** The element type of a (possibly nested) numeric array, for buffer views. */
export function elemDtype(t: CType): DType | undefined {
  while (t.k === 'arr') t = t.of;
  return t.k === 'num' ? t.dt : undefined;
}

/** The dimensions of a (possibly nested) array type, outermost first. */
export function shapeOf(t: CType): number[] | undefined {
  const s: number[] = [];
  while (t.k === 'arr') {
    s.push(t.n);
    t = t.of;
  }
  return s.length ? s : undefined;
}
