// Kernel arguments for a simulated launch: the SPEC strings of `phaseflip sim --arg NAME=SPEC` and of
// the debugger's `args`, parsed into plain data and turned into initialised buffers. A scalar is a
// number (`64`, `2.0`); a buffer is `TYPE[D0,D1,…]` with an optional initialiser `:zeros` (default),
// `:iota`, `:random(SEED)`, `:fill(V)` or `:file(PATH.npy)`. Element types take our names (f16, s32 …)
// or C's (half, float, int, uint8_t …). Croqtile dimensions may be symbolic
// only in the program, never in a SPEC.
import { type DType, DTYPES, coerce, isDType, isFloat, sizeOf, store } from './dtypes';
import { type Dim3, rng, SimError } from './machine';
import type { NpyArray } from './npy';
import { Buffer } from './memory';
import type { ArgSpec, InitSpec, NamedBuffer } from './run';

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
      for (let i = 0; i < count; i++) put(i, i);
      break;
    case 'fill':
      for (let i = 0; i < count; i++) put(i, init.value);
      break;
    case 'random': {
      // Floats in [-1, 1), integers in [0, 100): small enough that sums stay exact in f32.
      const r = rng(init.seed);
      const float = isFloat(spec.dtype);
      const range = spec.dtype === 'bool' ? 2 : 100;
      for (let i = 0; i < count; i++) put(i, float ? r() * 2 - 1 : Math.floor(r() * range));
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
