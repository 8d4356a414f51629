// NumPy .npy files for the simulator's buffers: `phaseflip sim --arg x=f32[N]:file(x.npy)` reads one,
// `--dump out=out.npy` writes one. Versions 1, 2 and 3 of the format; little-endian, C-order arrays of
// the element types the simulator has. bf16 has no NumPy dtype, so it travels as its raw bits in a
// uint16 (`<u2`) array. Pure byte-level code: the caller reads and writes the files.
import { type DType, sizeOf } from './dtypes';

/** A parsed .npy array: its element type, shape and raw little-endian C-order bytes. */
export interface NpyArray {
  dtype: DType;
  shape: number[];
  bytes: Uint8Array;
  /** The header's `descr` as written (`<f4`, `|u1` …), for messages. */
  descr: string;
}

/** A malformed or unsupported .npy file; the message says what is wrong and, where it can, what to do. */
export class NpyError extends Error {
  override readonly name = 'NpyError';
}

const MAGIC = [0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59]; // "\x93NUMPY"

/** NumPy type code (without the byte-order character) → simulator element type. */
const FROM_CODE: Record<string, DType> = {
  f2: 'f16',
  f4: 'f32',
  f8: 'f64',
  i1: 's8',
  i2: 's16',
  i4: 's32',
  i8: 's64',
  u1: 'u8',
  u2: 'u16',
  u4: 'u32',
  u8: 'u64',
  b1: 'bool',
};

/** The `descr` NumPy writes for an element type (bf16: its bits as uint16). */
export function npyDescr(dtype: DType): string {
  switch (dtype) {
    case 'f16':
      return '<f2';
    case 'bf16':
    case 'u16':
      return '<u2';
    case 'f32':
      return '<f4';
    case 'f64':
      return '<f8';
    case 's8':
      return '|i1';
    case 's16':
      return '<i2';
    case 's32':
      return '<i4';
    case 's64':
      return '<i8';
    case 'u8':
      return '|u1';
    case 'u32':
      return '<u4';
    case 'u64':
      return '<u8';
    case 'bool':
      return '|b1';
  }
}

const SUPPORTED = '<f2 <f4 <f8 |i1 <i2 <i4 <i8 |u1 <u2 <u4 <u8 |b1';

/** Parses a whole .npy file. Throws `NpyError` for anything it cannot read exactly. */
export function parseNpy(file: Uint8Array): NpyArray {
  if (file.length < 10 || MAGIC.some((b, i) => file[i] !== b)) {
    throw new NpyError('not a NumPy .npy file (it does not start with \\x93NUMPY); save arrays with numpy.save');
  }
  const major = file[6];
  const minor = file[7];
  if (major < 1 || major > 3) throw new NpyError(`unsupported .npy format version ${major}.${minor} (versions 1.0, 2.0 and 3.0 are read)`);
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength);
  const lengthSize = major === 1 ? 2 : 4;
  if (file.length < 8 + lengthSize) throw new NpyError('truncated .npy file: the header length is missing');
  const headerLength = major === 1 ? view.getUint16(8, true) : view.getUint32(8, true);
  const dataStart = 8 + lengthSize + headerLength;
  if (dataStart > file.length) throw new NpyError(`truncated .npy file: the header claims ${headerLength} bytes but the file ends first`);
  // Versions 1 and 2 are latin-1 (in practice ASCII); version 3 is UTF-8.
  const headerBytes = file.subarray(8 + lengthSize, dataStart);
  let header = '';
  if (major === 3) header = new TextDecoder('utf-8', { fatal: false }).decode(headerBytes);
  else for (const b of headerBytes) header += String.fromCharCode(b);
  const dict = parseHeader(header);

  const descr = dict.descr;
  if (typeof descr !== 'string') throw new NpyError("the header's 'descr' is not a simple type string: structured (record) dtypes are not supported");
  const dtype = dtypeOf(descr);
  if (typeof dict.fortran_order !== 'boolean') throw new NpyError("the header has no 'fortran_order': True or False");
  const shape = dict.shape;
  if (!Array.isArray(shape) || shape.some((d) => typeof d !== 'number')) throw new NpyError("the header's 'shape' is not a tuple of integers");
  const dims = shape as number[];
  // Fortran order only differs from C order when more than one dimension is longer than 1.
  if (dict.fortran_order && dims.filter((d) => d > 1).length > 1) {
    throw new NpyError('the array is stored in Fortran (column-major) order; save numpy.ascontiguousarray(x) instead');
  }
  const count = dims.reduce((a, b) => a * b, 1);
  const size = count * sizeOf(dtype);
  if (!Number.isSafeInteger(size)) throw new NpyError(`shape (${dims.join(', ')}) is too large`);
  const available = file.length - dataStart;
  if (available < size) throw new NpyError(`truncated .npy file: shape (${dims.join(', ')}) of ${descr} needs ${size} data bytes but only ${available} follow the header`);
  if (available > size) throw new NpyError(`${available - size} unexpected bytes after the array data (were several arrays saved into one file?)`);
  // A copy, so the result does not keep the whole file alive and is aligned for typed views.
  return { dtype, shape: dims, bytes: file.slice(dataStart, dataStart + size), descr };
}

function dtypeOf(descr: string): DType {
  const order = descr[0];
  const code = descr.slice(1);
  const dtype = FROM_CODE[code];
  if (/^[<>|=]V2$/.test(descr)) {
    throw new NpyError(`element type '${descr}' is raw 2-byte data (bfloat16 from ml_dtypes?): save x.view(numpy.uint16) and pass it to a bf16 argument`);
  }
  if (!dtype || !'<>|='.includes(order)) throw new NpyError(`element type '${descr}' is not supported (one of ${SUPPORTED})`);
  if (sizeOf(dtype) === 1) return dtype; // byte order means nothing for one-byte types
  if (order === '>') throw new NpyError(`element type '${descr}' is big-endian; save x.astype(x.dtype.newbyteorder('<')) instead`);
  if (order !== '<') throw new NpyError(`element type '${descr}' has no explicit byte order; save it as '<${code}'`);
  return dtype;
}

type PyValue = string | number | boolean | null | PyValue[] | { [key: string]: PyValue };

/** Reads the header: a Python dict literal such as `{'descr': '<f4', 'fortran_order': False, 'shape': (3, 4), }`. */
function parseHeader(text: string): Record<string, PyValue> {
  let i = 0;
  const fail = (what: string): never => {
    throw new NpyError(`malformed .npy header (${what} at character ${i}): ${JSON.stringify(text.trim().slice(0, 120))}`);
  };
  const skip = () => {
    while (i < text.length && /\s/.test(text[i])) i++;
  };
  const value = (depth: number): PyValue => {
    if (depth > 16) fail('nesting too deep');
    skip();
    const c = text[i];
    if (c === '{' || c === '(' || c === '[') {
      const close = c === '{' ? '}' : c === '(' ? ')' : ']';
      i++;
      const dict: Record<string, PyValue> = {};
      const list: PyValue[] = [];
      for (;;) {
        skip();
        if (text[i] === close) {
          i++;
          return c === '{' ? dict : list;
        }
        const item = value(depth + 1);
        if (c === '{') {
          if (typeof item !== 'string') fail('a dictionary key that is not a string');
          skip();
          if (text[i] !== ':') fail("a missing ':'");
          i++;
          dict[item as string] = value(depth + 1);
        } else {
          list.push(item);
        }
        skip();
        if (text[i] === ',') i++;
        else if (text[i] !== close) fail(`a missing ',' or '${close}'`);
      }
    }
    if (c === "'" || c === '"') {
      const end = text.indexOf(c, i + 1);
      if (end < 0) fail('an unterminated string');
      const s = text.slice(i + 1, end);
      i = end + 1;
      return s;
    }
    const m = /^(True|False|None|-?\d+L?)/.exec(text.slice(i));
    if (!m) return fail('an unexpected character');
    i += m[0].length;
    if (m[0] === 'True') return true;
    if (m[0] === 'False') return false;
    if (m[0] === 'None') return null;
    return Number(m[0].replace(/L$/, ''));
  };
  const dict = value(0);
  skip();
  if (i !== text.length) fail('text after the dictionary');
  if (typeof dict !== 'object' || dict === null || Array.isArray(dict)) return fail('no dictionary');
  for (const key of ['descr', 'fortran_order', 'shape']) if (!(key in dict)) fail(`no '${key}' entry`);
  const shape = dict.shape;
  if (Array.isArray(shape) && shape.some((d) => typeof d !== 'number' || d < 0 || !Number.isSafeInteger(d))) fail('a shape entry that is not a non-negative integer');
  return dict;
}

/**
 * Serialises an array as .npy version 1.0 (2.0 when the header would not fit in 64 KiB), with the
 * header padded so the data starts on a 64-byte boundary, as NumPy does. bf16 is written as `<u2`.
 */
export function toNpy(dtype: DType, shape: readonly number[], bytes: Uint8Array): Uint8Array {
  const count = shape.reduce((a, b) => a * b, 1);
  if (count * sizeOf(dtype) !== bytes.length) {
    throw new NpyError(`shape (${shape.join(', ')}) of ${dtype} needs ${count * sizeOf(dtype)} bytes, got ${bytes.length}`);
  }
  const tuple = shape.length === 1 ? `(${shape[0]},)` : `(${shape.join(', ')})`;
  const dict = `{'descr': '${npyDescr(dtype)}', 'fortran_order': False, 'shape': ${tuple}, }`;
  let major = 1;
  let prefix = 10;
  let padded = align(prefix + dict.length + 1) - prefix;
  if (padded > 0xffff) {
    major = 2;
    prefix = 12;
    padded = align(prefix + dict.length + 1) - prefix;
  }
  const out = new Uint8Array(prefix + padded + bytes.length);
  out.set(MAGIC, 0);
  out[6] = major;
  out[7] = 0;
  const view = new DataView(out.buffer);
  if (major === 1) view.setUint16(8, padded, true);
  else view.setUint32(8, padded, true);
  const header = dict.padEnd(padded - 1, ' ') + '\n';
  for (let k = 0; k < header.length; k++) out[prefix + k] = header.charCodeAt(k);
  out.set(bytes, prefix + padded);
  return out;
}

function align(n: number): number {
  return Math.ceil(n / 64) * 64;
}
