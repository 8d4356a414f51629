// Kernel arguments for a simulated launch: the SPEC strings of `phaseflip sim --arg NAME=SPEC` and of
// the debugger's `args`, parsed into plain data and turned into initialised buffers. A scalar is a
// number (`64`, `2.0`); a buffer is `TYPE[D0,D1,…]` with an optional initialiser `:zeros` (default),
// `:iota`, `:random(SEED)`, `:fill(V)` or `:file(PATH.npy)`. Element types take our names (f16, s32 …)
// or C's (half, float, int, uint8_t …). Croqtile dimensions may be symbolic
// only in the program, never in a SPEC.
import { type DType, DTYPES, coerce, isDType, isFloat, sizeOf, store, toBf16Bits, toHalfBits } from './dtypes';
import { type Dim3, rng, SimError } from './machine';
import type { NpyArray } from './npy';
import { Buffer } from './memory';
import type { ArgSpec, InitSpec, NamedBuffer } from './run';
import { TENSOR_MAP_DTYPES, type TensorMapArg, type TensorMapDType, type TensorMapInterleave, type TensorMapOobFill, type TensorMapSpec, type TensorMapSwizzle, tensorMapElementSize, tensorMapUnitBytes, interleavedMapUnmodelled, validateTensorMap } from './tensor-map';

const ALIASES: Record<string, DType> = {
  half: 'f16',
  __half: 'f16',
  float16: 'f16',
  bfloat16: 'bf16',
  __nv_bfloat16: 'bf16',
  float: 'f32',
  float32: 'f32',
  double: 'f64',
  float64: 'f64',
  char: 's8',
  short: 's16',
  int: 's32',
  long: 's64',
  unsigned: 'u32',
  i8: 's8',
  i16: 's16',
  i32: 's32',
  i64: 's64',
  int8_t: 's8',
  int16_t: 's16',
  int32_t: 's32',
  int64_t: 's64',
  uint8_t: 'u8',
  uint16_t: 'u16',
  uint32_t: 'u32',
  uint64_t: 'u64',
};

/** Parses `NAME=SPEC`. Errors name the argument and say what was expected. */
export function parseArg(text: string): ArgSpec {
  const eq = text.indexOf('=');
  // Without a name the error is about the argument list, not one argument.
  if (eq <= 0) throw SimError.ofRequest({ kind: 'args' }, `--arg '${text}': expected NAME=SPEC, e.g. n=64 or out=f32[128]:zeros`);
  const name = text.slice(0, eq).trim();
  if (!/^[A-Za-z_]\w*$/.test(name)) throw SimError.ofRequest({ kind: 'args' }, `--arg '${text}': '${name}' is not a parameter name`);
  return parseSpec(name, text.slice(eq + 1).trim());
}

/** The error for the argument `NAME=SPEC` (`text`), worded as `--arg TEXT: DETAIL`. */
type SpecError = (detail: string) => SimError;

function specError(name: string, text: string): SpecError {
  return (detail) => SimError.ofRequest({ kind: 'arg', name }, `--arg ${text}: ${detail}`);
}

/** A C-style number (`64`, `-2.5f`, `0x1F`, `1e-3`, `7u`), or undefined when `spec` is not one. */
function parseNumber(spec: string, fail: SpecError): number | undefined {
  const hex = /^([-+]?)0[xX]([0-9a-fA-F]+)[uUlL]*$/.exec(spec);
  const dec = /^[-+]?(\d+(?:\.\d*)?|\.\d+)([eE][-+]?\d+)?[fFuUlL]*$/.test(spec);
  if (!hex && !dec) return undefined;
  const value = hex ? (hex[1] === '-' ? -1 : 1) * parseInt(hex[2], 16) : Number(spec.replace(/[fFuUlL]+$/, ''));
  if (!Number.isFinite(value)) throw fail(`${spec} is out of range`);
  const integer = hex || /^[-+]?\d+[uUlL]*$/.test(spec);
  if (integer && !Number.isSafeInteger(value)) throw fail(`${spec} is larger than the simulator holds exactly (2^53)`);
  return value;
}

export function parseSpec(name: string, spec: string): ArgSpec {
  const text = `${name}=${spec}`;
  const fail = specError(name, text);
  if (!spec) throw fail('the value is missing; expected a number or TYPE[D0,D1,…][:INIT]');
  if (/^tensormap\s*\(/.test(spec)) return { name, kind: 'tensormap', text, ...parseTensorMapArg(spec, fail) };
  const value = parseNumber(spec, fail);
  if (value !== undefined) return { name, kind: 'scalar', value, text };
  if (spec === 'true' || spec === 'false') return { name, kind: 'scalar', value: spec === 'true' ? 1 : 0, text };
  const m = /^([A-Za-z0-9_]+)\s*\[([^\]]*)\]\s*(?::\s*(.*))?$/.exec(spec);
  if (!m) throw fail('expected a number or TYPE[D0,D1,…][:INIT], e.g. f16[128,64]:random(1)');
  const dtype = ALIASES[m[1]] ?? m[1];
  if (!isDType(dtype)) throw fail(`unknown element type '${m[1]}' (one of ${DTYPES.join(' ')})`);
  const dims = m[2].split(',').map((d) => d.trim());
  const shape = dims.map((d) => Number(d));
  if (!dims.length || shape.some((d, i) => !/^\d+$/.test(dims[i]) || d < 1)) throw fail(`dimensions must be positive integers, got [${m[2]}]`);
  const size = shape.reduce((a, b) => a * b, 1) * sizeOf(dtype);
  if (size > 1 << 30) throw fail(`${size} bytes is more than the simulator's 1 GiB per buffer`);
  return { name, kind: 'buffer', dtype, shape, init: parseInit(m[3]?.trim(), dtype, fail), text };
}

function parseInit(s: string | undefined, dtype: DType, fail: SpecError): InitSpec {
  if (!s || s === 'zeros') return { kind: 'zeros' };
  if (s === 'iota') return { kind: 'iota' };
  let m = /^random(?:\(\s*(\d*)\s*\))?$/.exec(s);
  if (m) return { kind: 'random', seed: Number(m[1] || 0) };
  m = /^fill\(\s*([^)]*?)\s*\)$/.exec(s);
  if (m) {
    const v = m[1] ? parseNumber(m[1], fail) : undefined;
    if (v === undefined) throw fail(`fill value '${m[1]}' is not a number`);
    if (!isFloat(dtype) && coerce(dtype, v) !== v) throw fail(`fill value ${m[1]} does not fit ${dtype}`);
    return { kind: 'fill', value: v };
  }
  m = /^file\(\s*(.+?)\s*\)$/.exec(s);
  if (m) return { kind: 'file', path: m[1] };
  throw fail(`unknown initialiser '${s}' (zeros, iota, random(SEED), fill(V), file(PATH.npy))`);
}

/** Creates the global buffer for a buffer argument, filled as its initialiser says. */
export function materialize(spec: Extract<ArgSpec, { kind: 'buffer' }>, id: number): NamedBuffer {
  const count = spec.shape.reduce((a, b) => a * b, 1);
  const es = sizeOf(spec.dtype);
  const buf = new Buffer(id, spec.name, 'global', count * es, undefined, spec.dtype, spec.shape);
  const init = spec.init;
  const put = (i: number, v: number) => store(buf.view, i * es, spec.dtype, coerce(spec.dtype, v));
  switch (init.kind) {
    case 'zeros':
      break;
    case 'iota':
      if (!iotaFast(buf, spec.dtype, count)) for (let i = 0; i < count; i++) put(i, i);
      break;
    case 'fill':
      // Element 0 as the generic store writes it, then its bytes copied over the rest.
      if (count > 0) put(0, init.value);
      repeatFirst(buf.bytes, es);
      break;
    case 'random': {
      // Floats in [-1, 1), integers in [0, 100): small enough that sums stay exact in f32.
      const r = rng(init.seed);
      const float = isFloat(spec.dtype);
      const range = spec.dtype === 'bool' ? 2 : 100;
      const next = float ? () => r() * 2 - 1 : () => Math.floor(r() * range);
      if (!storeEach(buf, spec.dtype, count, next)) for (let i = 0; i < count; i++) put(i, next());
      break;
    }
    case 'file': {
      const d = init.data;
      const fail = specError(spec.name, spec.text);
      if (!d) throw fail(`the file ${init.path} was not read`);
      if (d.dtype !== spec.dtype) throw fail(`${init.path} holds ${d.dtype}, not ${spec.dtype}`);
      if (d.shape.join(',') !== spec.shape.join(',')) throw fail(`${init.path} has shape [${d.shape.join(',')}], not [${spec.shape.join(',')}]`);
      if (d.bytes.length < buf.size) throw fail(`${init.path} holds ${d.bytes.length} bytes of data, not the ${buf.size} its shape needs`);
      buf.bytes.set(d.bytes.subarray(0, buf.size));
      break;
    }
  }
  return { name: spec.name, dtype: spec.dtype, shape: spec.shape, buffer: buf };
}

// Typed-array fast paths of `materialize` (an input of half a million elements was 4 % of a run when every
// element went through `coerce` and a DataView store). Each writes the bytes the generic store writes
// (args.test.ts compares them for every type): a typed array rounds a double to f32 as Math.fround does
// and wraps integers modulo 2^bits as the coercions do; f16/bf16 bits come from the same conversions.

/** Typed arrays use the host's byte order; the buffers are little-endian (DataView accessors with `true`). */
const LITTLE_ENDIAN = new Uint8Array(new Uint16Array([1]).buffer)[0] === 1;

/** Copies the first `es` bytes over the rest of `bytes` (doubling the copied run each time). */
function repeatFirst(bytes: Uint8Array, es: number): void {
  let done = Math.min(es, bytes.length);
  while (done < bytes.length) {
    const n = Math.min(done, bytes.length - done);
    bytes.copyWithin(done, 0, n);
    done += n;
  }
}

/** Stores `next()` for elements 0..count-1 through a typed array; false (nothing consumed) for 64-bit integers or a big-endian host. */
function storeEach(buf: Buffer, dt: DType, count: number, next: () => number): boolean {
  if (!LITTLE_ENDIAN) return false;
  const ab = buf.bytes.buffer;
  switch (dt) {
    case 'f64':
    case 'f32':
    case 's32':
    case 'u32':
    case 's16':
    case 'u16':
    case 's8':
    case 'u8': {
      const a = plainView(ab, dt, count);
      for (let i = 0; i < count; i++) a[i] = next();
      return true;
    }
    case 'bool': {
      const a = new Uint8Array(ab, 0, count);
      for (let i = 0; i < count; i++) a[i] = next() === 0 ? 0 : 1;
      return true;
    }
    case 'f16':
    case 'bf16': {
      const a = new Uint16Array(ab, 0, count);
      const bits = dt === 'f16' ? toHalfBits : toBf16Bits;
      for (let i = 0; i < count; i++) a[i] = bits(next());
      return true;
    }
    default:
      return false;
  }
}

function plainView(ab: ArrayBufferLike, dt: DType, count: number): Float64Array | Float32Array | Int32Array | Uint32Array | Uint16Array | Uint8Array {
  switch (dt) {
    case 'f64':
      return new Float64Array(ab, 0, count);
    case 'f32':
      return new Float32Array(ab, 0, count);
    case 's32':
      return new Int32Array(ab, 0, count);
    case 'u32':
      return new Uint32Array(ab, 0, count);
    case 's16':
    case 'u16':
      return new Uint16Array(ab, 0, count);
    default:
      return new Uint8Array(ab, 0, count);
  }
}

/** `:iota` through a typed array; false when the generic path must do it. */
function iotaFast(buf: Buffer, dt: DType, count: number): boolean {
  if (!LITTLE_ENDIAN) return false;
  if (dt === 'f16') {
    // Integers from 65,536 on are past the largest half (65,504) and its rounding midpoint: +Inf.
    const a = new Uint16Array(buf.bytes.buffer, 0, count);
    const exact = Math.min(count, 65536);
    for (let i = 0; i < exact; i++) a[i] = toHalfBits(i);
    if (count > exact) a.fill(toHalfBits(65536), exact);
    return true;
  }
  if (dt === 'bf16') {
    // An integer below 2^24 is exact in f32, so rounding its f32 bits to nearest even is rounding the integer.
    if (count > 2 ** 24) return false;
    const a = new Uint16Array(buf.bytes.buffer, 0, count);
    const f = new Float32Array(1);
    const u = new Uint32Array(f.buffer);
    for (let i = 0; i < count; i++) {
      f[0] = i;
      const w = u[0];
      a[i] = (w + 0x7fff + ((w >>> 16) & 1)) >>> 16;
    }
    return true;
  }
  // The other types store 0, 1, 2 … as `:random` stores its values (bool: 0, then true).
  let next = 0;
  return storeEach(buf, dt, count, () => next++);
}

/** `X[,Y,Z]` (or `XxYxZ`): missing dimensions are 1; undefined when `text` is not that. */
export function parseDim3(text: string): Dim3 | undefined {
  const parts = text.split(/[,x×]/).map((p) => p.trim());
  if (parts.length > 3 || parts.some((p) => !/^\d+$/.test(p) || Number(p) < 1 || Number(p) > 0x7fffffff)) return undefined;
  const d = parts.map(Number);
  return [d[0], d[1] ?? 1, d[2] ?? 1];
}

/**
 * Binds a parsed `.npy` file to a `:file(PATH)` argument, checking element type and shape against
 * the argument's; returns the mismatch as a sentence (callers prefix where the argument came from).
 */
export function bindNpyInput(spec: Extract<ArgSpec, { kind: 'buffer' }>, file: string, npy: NpyArray): string | undefined {
  // bf16 travels as its raw bits in a uint16 array.
  const dtype: DType = spec.dtype === 'bf16' && npy.dtype === 'u16' ? 'bf16' : npy.dtype;
  if (dtype !== spec.dtype) {
    const hint = spec.dtype === 'bf16' ? ' (a bf16 argument reads its raw bits from a uint16 (<u2) file: save x.view(numpy.uint16))' : '';
    return `${file} holds ${npy.dtype} ('${npy.descr}'), not ${spec.dtype}${hint}`;
  }
  if (npy.shape.join(',') !== spec.shape.join(',')) return `${file} has shape [${npy.shape.join(',')}], not [${spec.shape.join(',')}]`;
  if (spec.init.kind === 'file') spec.init.data = { dtype, shape: npy.shape, bytes: npy.bytes };
  return undefined;
}

// ------------------------------------------------------------------ tensor maps

const TENSOR_MAP_FIELDS = ['dtype', 'dims', 'strides', 'box', 'elementStrides', 'swizzle', 'interleave', 'l2', 'oob'] as const;
const TENSOR_MAP_SYNTAX = 'tensormap(BUFFER, box=[B0,…][, dtype=T, dims=[D0,…], strides=[S1,…], elementStrides=[E0,…], swizzle=none|32B|64B|128B, interleave=none|16B|32B, l2=none|64B|128B|256B, oob=zero|nan])';

/** Splits at the commas outside brackets. */
function splitTop(text: string): string[] {
  const out: string[] = [];
  let depth = 0;
  let cur = '';
  for (const ch of text) {
    if (ch === '[' || ch === '(') depth++;
    if (ch === ']' || ch === ')') depth--;
    if (ch === ',' && depth === 0) {
      out.push(cur.trim());
      cur = '';
    } else cur += ch;
  }
  if (cur.trim()) out.push(cur.trim());
  return out;
}

function parseTensorMapArg(spec: string, fail: SpecError): TensorMapArg {
  const m = /^tensormap\s*\(([\s\S]*)\)$/.exec(spec);
  if (!m) throw fail(`expected ${TENSOR_MAP_SYNTAX}`);
  const parts = splitTop(m[1]);
  const tensor = parts[0] ?? '';
  if (!/^[A-Za-z_]\w*$/.test(tensor)) throw fail(`tensormap(…) starts with the name of a buffer argument, got '${tensor}'`);
  const out: TensorMapArg = { tensor, box: [], swizzle: 0, interleave: 0, l2Promotion: 0, oobFill: 'zero' };
  const seen = new Set<string>();
  let box: number[] | undefined;
  for (const p of parts.slice(1)) {
    const eq = p.indexOf('=');
    const key = (eq < 0 ? p : p.slice(0, eq)).trim();
    const value = eq < 0 ? '' : p.slice(eq + 1).trim();
    if (!(TENSOR_MAP_FIELDS as readonly string[]).includes(key)) throw fail(`tensormap field '${key}' is not one of ${TENSOR_MAP_FIELDS.join(', ')}`);
    if (seen.has(key)) throw fail(`tensormap field '${key}' is given twice`);
    seen.add(key);
    if (!value) throw fail(`tensormap field '${key}' has no value`);
    const list = (): number[] => {
      const lm = /^\[([^\]]*)\]$/.exec(value);
      const items = lm ? lm[1].split(',').map((x) => x.trim()) : [];
      if (!lm || !items.length || items.some((x) => !/^\d+$/.test(x))) throw fail(`tensormap field '${key}' must be a list of non-negative integers like [64,128], got ${value}`);
      return items.map(Number);
    };
    const choice = <T>(options: Record<string, T>): T => {
      const v = options[value];
      if (v === undefined) throw fail(`tensormap field '${key}' must be one of ${Object.keys(options).join(', ')}, got ${value}`);
      return v;
    };
    switch (key) {
      case 'dtype': {
        const d = (ALIASES[value] as string | undefined) ?? value;
        if (!(TENSOR_MAP_DTYPES as readonly string[]).includes(d)) throw fail(`tensormap dtype '${value}' is not a tensor-map data type (${TENSOR_MAP_DTYPES.join(' ')})`);
        out.dtype = d as TensorMapDType;
        break;
      }
      case 'dims':
        out.dims = list();
        break;
      case 'strides':
        out.strides = list();
        break;
      case 'box':
        box = list();
        break;
      case 'elementStrides':
        out.elementStrides = list();
        break;
      case 'swizzle':
        out.swizzle = choice<TensorMapSwizzle>({ none: 0, '32B': 32, '64B': 64, '128B': 128 });
        break;
      case 'interleave':
        out.interleave = choice<TensorMapInterleave>({ none: 0, '16B': 16, '32B': 32 });
        break;
      case 'l2':
        out.l2Promotion = choice<number>({ none: 0, '64B': 64, '128B': 128, '256B': 256 });
        break;
      case 'oob':
        out.oobFill = choice<TensorMapOobFill>({ zero: 'zero', nan: 'nan' });
        break;
    }
  }
  if (!box) throw fail(`tensormap needs box=[…] (the box's extent per dimension, innermost first): ${TENSOR_MAP_SYNTAX}`);
  out.box = box;
  return out;
}

/**
 * Builds the tensor map of a `tensormap(A, …)` argument over A's global buffer, filling the defaults
 * and checking it as cuTensorMapEncodeTiled does; errors name the argument and the field.
 */
export function tensorMapOf(spec: Extract<ArgSpec, { kind: 'tensormap' }>, tensor: NamedBuffer | undefined): TensorMapSpec {
  const fail = specError(spec.name, spec.text);
  if (!tensor) throw fail(`tensormap(${spec.tensor}, …): there is no buffer argument '${spec.tensor}' (give it with --arg ${spec.tensor}=TYPE[…])`);
  const dtype = spec.dtype ?? ((TENSOR_MAP_DTYPES as readonly string[]).includes(tensor.dtype) ? (tensor.dtype as TensorMapDType) : undefined);
  if (!dtype) throw fail(`tensormap(${spec.tensor}, …): '${spec.tensor}' holds ${tensor.dtype}, which is not a tensor-map data type; give dtype=`);
  const es = tensorMapElementSize(dtype);
  const dims = spec.dims ?? [...tensor.shape].reverse();
  const rank = dims.length;
  const strides = spec.strides ?? dims.slice(0, -1).map((_, i) => dims.slice(0, i + 1).reduce((a, b) => a * b, es));
  const map: TensorMapSpec = {
    dtype,
    global: { buf: tensor.buffer, offset: 0 },
    dims,
    strides,
    box: spec.box,
    elementStrides: spec.elementStrides ?? new Array<number>(rank).fill(1),
    interleave: spec.interleave,
    swizzle: spec.swizzle,
    l2Promotion: spec.l2Promotion,
    oobFill: spec.oobFill,
  };
  const bad = validateTensorMap(map);
  if (bad) throw fail(bad);
  const unmodelled = interleavedMapUnmodelled(map);
  if (unmodelled) throw fail(`not supported by the simulator: ${unmodelled}`);
  // The simulator's own bound: the map may not reach past the buffer it views (an interleaved
  // dimension-0 element is a whole slice).
  const unit = tensorMapUnitBytes(map);
  const last = dims.reduce((acc, d, i) => acc + (d - 1) * (i === 0 ? unit : strides[i - 1]), 0) + unit;
  if (last > tensor.buffer.size) throw fail(`the map reaches byte ${last - 1} of '${spec.tensor}', which has ${tensor.buffer.size} bytes (globalDim/globalStrides too large)`);
  return map;
}
