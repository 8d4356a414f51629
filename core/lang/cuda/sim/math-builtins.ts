// Pure value builtins: CUDA math functions in their f32, f64 and intrinsic forms, conversions with
// explicit rounding, bit reinterpretation and bit counting, half/bfloat16 arithmetic, and the C++
// library identities std::move, std::forward and cuda::aligned_size_t.
import { coerce, toBf16Bits, toHalfBits } from '../../../sim/dtypes';
import { args, asNum, cases, type FreeBuiltin, V } from './builtin-operands';
import type { Ex } from './context';
import type { Frame } from './runtime';
import { fail } from './syntax';
import { commonType, convFn, F32, F64, isNum, num, promote, S32, U32 } from './types';

/** One-argument math functions by their double-precision name. */
const F1: Record<string, (x: number) => number> = {
  sqrt: Math.sqrt,
  exp: Math.exp,
  exp2: (x) => 2 ** x,
  exp10: (x) => 10 ** x,
  log: Math.log,
  log2: Math.log2,
  log10: Math.log10,
  log1p: Math.log1p,
  expm1: Math.expm1,
  sin: Math.sin,
  cos: Math.cos,
  tan: Math.tan,
  asin: Math.asin,
  acos: Math.acos,
  atan: Math.atan,
  sinh: Math.sinh,
  cosh: Math.cosh,
  tanh: Math.tanh,
  floor: Math.floor,
  ceil: Math.ceil,
  trunc: Math.trunc,
  round: (x) => (x < 0 ? -Math.round(-x) : Math.round(x)),
  rint: roundEven,
  nearbyint: roundEven,
  fabs: Math.abs,
  rsqrt: (x) => 1 / Math.sqrt(x),
  cbrt: Math.cbrt,
  erf: erf,
};

function roundEven(x: number): number {
  const r = Math.round(x);
  return Math.abs(x % 1) === 0.5 && r % 2 !== 0 ? r - 1 : r;
}

function erf(x: number): number {
  // Abramowitz-Stegun 7.1.26 (enough for printing; kernels here do not depend on it).
  const s = Math.sign(x);
  const a = Math.abs(x);
  const t = 1 / (1 + 0.3275911 * a);
  return s * (1 - ((((1.061405429 * t - 1.453152027) * t + 1.421413741) * t - 0.284496736) * t + 0.254829592) * t * Math.exp(-a * a));
}

const bits = new DataView(new ArrayBuffer(8));

/** `sqrtf`, `__expf`, `__sinf_rn` …: the f32 forms of a one-argument function of F1. */
const f32Form: FreeBuiltin = (k, name, _ns, a) => {
  if (a.length !== 1) return undefined;
  const fBase = name.replace(/^__/, '').replace(/_r[nzdu]$/, '').slice(0, -1);
  const x = asNum(k, args(k, a)[0], 'f32');
  const fn = F1[fBase];
  return V((f) => Math.fround(fn(x(f))), F32);
};

/** `sqrt`, `exp` …: computed in f32 for f32/f16/bf16 arguments, in f64 otherwise. */
const overloaded: FreeBuiltin = (k, name, _ns, a) => {
  if (a.length !== 1) return undefined;
  const e = args(k, a)[0];
  const dt = isNum(e.t) && (e.t.dt === 'f32' || e.t.dt === 'f16' || e.t.dt === 'bf16') ? 'f32' : 'f64';
  const x = asNum(k, e, dt);
  const fn = F1[name];
  return V(dt === 'f32' ? (f) => Math.fround(fn(x(f))) : (f) => fn(x(f)), num(dt));
};

/** Every spelling of F1's functions: `x`, and `xf`, `__xf` with an optional rounding suffix `_rn|_rz|_rd|_ru`. */
const F1_FORMS: Record<string, FreeBuiltin> = Object.fromEntries(
  Object.keys(F1).flatMap((x) => [
    [x, overloaded],
    ...['', '__'].flatMap((prefix) => ['', '_rn', '_rz', '_rd', '_ru'].map((suffix) => [`${prefix}${x}f${suffix}`, f32Form])),
  ]),
);

/** Math, conversions and bit manipulation. */
export const MATH_BUILTINS: Record<string, FreeBuiltin> = {
  ...F1_FORMS,
  ...cases(['min', 'max', 'fmin', 'fmax', 'fminf', 'fmaxf', 'umin', 'umax', 'llmin', 'llmax'], (k, name, _ns, a) => {
    const { n } = k;
    const [x, y] = args(k, a);
    if (!isNum(x.t) || !isNum(y.t)) fail(`${name} of non-numbers`, n);
    const dt = name.endsWith('f') ? 'f32' : name.startsWith('f') ? 'f64' : name.startsWith('u') ? 'u32' : commonType(x.t.dt, y.t.dt);
    const X = asNum(k, x, dt);
    const Y = asNum(k, y, dt);
    const isMin = name.includes('min');
    const out: Ex = V(isMin ? (f) => Math.min(X(f), Y(f)) : (f) => Math.max(X(f), Y(f)), num(dt));
    if (x.cv !== undefined && y.cv !== undefined) {
      const v = out.ev(null as unknown as Frame);
      return { t: out.t, ev: () => v, cv: v };
    }
    return out;
  }),
  ...cases(['abs', 'labs', 'llabs'], (k, _name, _ns, a) => {
    const { n } = k;
    const e = args(k, a)[0];
    if (!isNum(e.t)) fail('abs of a non-number', n);
    const dt = promote(e.t.dt);
    const X = asNum(k, e, dt);
    return V(dt === 's32' ? (f) => Math.abs(X(f)) | 0 : (f) => Math.abs(X(f)), num(dt));
  }),
  ...cases(['fmaf', '__fmaf_rn', 'fma'], (k, name, _ns, a) => {
    const dt = name === 'fma' ? 'f64' : 'f32';
    const [x, y, z] = args(k, a).map((e) => asNum(k, e, dt));
    return V(dt === 'f32' ? (f) => Math.fround(x(f) * y(f) + z(f)) : (f) => x(f) * y(f) + z(f), num(dt));
  }),
  ...cases(['powf', '__powf', 'pow', 'atan2f', 'atan2', 'fmodf', 'fmod', 'hypotf', 'copysignf'], (k, name, _ns, a) => {
    const dt = name.endsWith('f') ? 'f32' : 'f64';
    const [x, y] = args(k, a).map((e) => asNum(k, e, dt));
    const op = name.replace(/^__/, '').replace(/f$/, '');
    const fn: (p: number, q: number) => number = op === 'pow' ? Math.pow : op === 'atan2' ? Math.atan2 : op === 'fmod' ? (p, q) => p % q : op === 'hypot' ? Math.hypot : (p, q) => Math.abs(p) * (q < 0 || Object.is(q, -0) ? -1 : 1);
    return V(dt === 'f32' ? (f) => Math.fround(fn(x(f), y(f))) : (f) => fn(x(f), y(f)), num(dt));
  }),
  ...cases(['__fdividef', '__fdiv_rn', 'fdividef'], (k, _name, _ns, a) => {
    const [x, y] = args(k, a).map((e) => asNum(k, e, 'f32'));
    return V((f) => Math.fround(x(f) / y(f)), F32);
  }),
  ...cases(['__fadd_rn', '__fsub_rn', '__fmul_rn'], (k, name, _ns, a) => {
    const [x, y] = args(k, a).map((e) => asNum(k, e, 'f32'));
    const o = name[3];
    return V(o === 'a' ? (f) => Math.fround(x(f) + y(f)) : o === 's' ? (f) => Math.fround(x(f) - y(f)) : (f) => Math.fround(x(f) * y(f)), F32);
  }),
  ...cases(['__frcp_rn'], (k, _name, _ns, a) => V(((x) => (f: Frame) => Math.fround(1 / x(f)))(asNum(k, args(k, a)[0], 'f32')), F32)),
  ...cases(['__saturatef'], (k, _name, _ns, a) => {
    const x = asNum(k, args(k, a)[0], 'f32');
    return V((f) => {
      const v = x(f);
      return v > 1 ? 1 : v > 0 ? v : 0;
    }, F32);
  }),
  ...cases(['__float2int_rn', '__float2int_rz', '__float2int_rd', '__float2int_ru', '__float2uint_rn', '__float2uint_rz', '__double2int_rn', '__float2ll_rn'], (k, name, _ns, a) => {
    const x = asNum(k, args(k, a)[0], 'f64');
    const mode = name.slice(-2);
    const rnd = mode === 'rn' ? roundEven : mode === 'rz' ? Math.trunc : mode === 'rd' ? Math.floor : Math.ceil;
    const dt = name.includes('uint') ? 'u32' : name.includes('ll') ? 's64' : 's32';
    const cv = convFn('f64', dt)!;
    return V((f) => cv(rnd(x(f))), num(dt));
  }),
  ...cases(['__int2float_rn', '__uint2float_rn', '__ll2float_rn'], (k, _name, _ns, a) => V(asNum(k, args(k, a)[0], 'f32'), F32)),
  ...cases(['__int2double_rn'], (k, _name, _ns, a) => V(asNum(k, args(k, a)[0], 'f64'), F64)),
  ...cases(['__float_as_uint', '__float_as_int'], (k, name, _ns, a) => {
    const x = asNum(k, args(k, a)[0], 'f32');
    const signed = name.endsWith('int') && !name.endsWith('uint');
    return V((f) => {
      bits.setFloat32(0, x(f), true);
      return signed ? bits.getInt32(0, true) : bits.getUint32(0, true);
    }, signed ? S32 : U32);
  }),
  ...cases(['__uint_as_float', '__int_as_float'], (k, _name, _ns, a) => {
    const x = asNum(k, args(k, a)[0], 'u32');
    return V((f) => {
      bits.setUint32(0, x(f), true);
      return bits.getFloat32(0, true);
    }, F32);
  }),
  ...cases(['__half2float', '__bfloat162float'], (k, _name, _ns, a) => V(asNum(k, args(k, a)[0], 'f32'), F32)),
  ...cases(['__float2half', '__float2half_rn', '__double2half', '__int2half_rn'], (k, _name, _ns, a) => V(asNum(k, args(k, a)[0], 'f16'), num('f16'))),
  ...cases(['__float2bfloat16', '__float2bfloat16_rn', '__double2bfloat16'], (k, _name, _ns, a) => V(asNum(k, args(k, a)[0], 'bf16'), num('bf16'))),
  ...cases(['__half_as_ushort', '__half_as_short'], (k, _name, _ns, a) => {
    const x = asNum(k, args(k, a)[0], 'f16');
    return V((f) => toHalfBits(x(f)), num('u16'));
  }),
  ...cases(['__bfloat16_as_ushort'], (k, _name, _ns, a) => {
    const x = asNum(k, args(k, a)[0], 'bf16');
    return V((f) => toBf16Bits(x(f)), num('u16'));
  }),
  ...cases(['__hadd', '__hsub', '__hmul', '__hdiv', '__hmax', '__hmin'], (k, name, _ns, a) => {
    const [x, y] = args(k, a);
    const dt = isNum(x.t) && x.t.dt === 'bf16' ? 'bf16' : 'f16';
    const X = asNum(k, x, dt);
    const Y = asNum(k, y, dt);
    const o = name.slice(2);
    const fn: (p: number, q: number) => number = o === 'hadd' ? (p, q) => p + q : o === 'hsub' ? (p, q) => p - q : o === 'hmul' ? (p, q) => p * q : o === 'hdiv' ? (p, q) => p / q : o === 'hmax' ? Math.max : Math.min;
    return V((f) => coerce(dt, fn(X(f), Y(f))), num(dt));
  }),
  ...cases(['__hfma'], (k, _name, _ns, a) => {
    const xs = args(k, a);
    const dt = isNum(xs[0].t) && xs[0].t.dt === 'bf16' ? 'bf16' : 'f16';
    const [x, y, z] = xs.map((e) => asNum(k, e, dt));
    return V((f) => coerce(dt, x(f) * y(f) + z(f)), num(dt));
  }),
  ...cases(['__hneg', '__habs'], (k, name, _ns, a) => {
    const e = args(k, a)[0];
    const dt = isNum(e.t) && e.t.dt === 'bf16' ? 'bf16' : 'f16';
    const x = asNum(k, e, dt);
    return V(name === '__hneg' ? (f) => -x(f) : (f) => Math.abs(x(f)), num(dt));
  }),
  ...cases(['__popc', '__popcll'], (k, name, _ns, a) => {
    const x = asNum(k, args(k, a)[0], name === '__popc' ? 'u32' : 'u64');
    return V((f) => {
      let v = x(f);
      let cnt = 0;
      while (v > 0) {
        cnt += v % 2;
        v = Math.floor(v / 2);
      }
      return cnt;
    }, S32);
  }),
  ...cases(['__clz'], (k, _name, _ns, a) => {
    const x = asNum(k, args(k, a)[0], 'u32');
    return V((f) => Math.clz32(x(f)), S32);
  }),
  ...cases(['__ffs'], (k, _name, _ns, a) => {
    const x = asNum(k, args(k, a)[0], 'u32');
    return V((f) => {
      const v = x(f);
      return v === 0 ? 0 : 32 - Math.clz32(v & -v);
    }, S32);
  }),
  ...cases(['__brev'], (k, _name, _ns, a) => {
    const x = asNum(k, args(k, a)[0], 'u32');
    return V((f) => {
      let v = x(f);
      let r = 0;
      for (let i = 0; i < 32; i++) {
        r = (r << 1) | (v & 1);
        v >>>= 1;
      }
      return r >>> 0;
    }, U32);
  }),
  ...cases(['__umulhi', '__mulhi'], (k, name, _ns, a) => {
    const dt = name === '__umulhi' ? 'u32' : 's32';
    const [x, y] = args(k, a).map((e) => asNum(k, e, dt));
    return V((f) => {
      const r = BigInt(x(f)) * BigInt(y(f));
      return Number(dt === 'u32' ? BigInt.asUintN(32, r >> 32n) : BigInt.asIntN(32, r >> 32n));
    }, num(dt));
  }),
  ...cases(['__mul24', '__umul24'], (k, name, _ns, a) => {
    const dt = name === '__umul24' ? 'u32' : 's32';
    const [x, y] = args(k, a).map((e) => asNum(k, e, dt));
    return V(dt === 'u32' ? (f) => Math.imul(x(f) & 0xffffff, y(f) & 0xffffff) >>> 0 : (f) => Math.imul((x(f) << 8) >> 8, (y(f) << 8) >> 8), num(dt));
  }),
  ...cases(['__funnelshift_l', '__funnelshift_r', '__funnelshift_lc', '__funnelshift_rc'], (k, name, _ns, a) => {
    const { c } = k;
    const [lo, hi, sh] = args(k, a).map((e) => asNum(k, e, 'u32'));
    const left = name.includes('_l');
    const clamp = name.endsWith('c');
    return V((f) => {
      const s = clamp ? Math.min(sh(f), 32) : sh(f) & 31;
      const v = (BigInt(hi(f)) << 32n) | BigInt(lo(f));
      return Number(left ? BigInt.asUintN(32, (v << BigInt(s)) >> 32n) : BigInt.asUintN(32, v >> BigInt(s)));
    }, U32);
  }),
};

/** C++ library functions that pass their argument through. */
export const IDENTITY_BUILTINS: Record<string, FreeBuiltin> = {
  ...cases(['move', 'forward'], (k, _name, ns, a) => {
    const { c, cx } = k;
    if (ns === 'std' || ns === 'cuda::std' || ns === '') return c.expr(cx, a[0]);
    return undefined;
  }),
  ...cases(['aligned_size_t'], (k, _name, _ns, a) => {
    const { c, cx } = k;
    return c.rv(c.expr(cx, a[0]));
  }),
};

/** The one-argument functions of F1 by their double-precision name. */
export const UNARY_MATH: readonly string[] = Object.keys(F1);
