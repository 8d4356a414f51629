// .npy reading and writing (core/sim/npy.ts) against files NumPy itself wrote: the base64 strings
// below are the exact output of numpy.save / numpy.lib.format.write_array (NumPy 2.4.6).
import { describe, expect, it } from 'vitest';
import { type DType, DTYPES, load, sizeOf } from '../../../core/sim/dtypes';
import { NpyError, npyDescr, parseNpy, toNpy } from '../../../core/sim/npy';

const b64 = (s: string) => new Uint8Array(Buffer.from(s, 'base64'));
const HDR = 'k05VTVBZAQB2AHsnZGVzY3InOiAn';

/** Files written by NumPy. */
const NUMPY = {
  /** np.arange(6, dtype=np.float32).reshape(2, 3) */
  f32: `${HDR}PGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsIDMpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAACAPwAAAEAAAEBAAACAQAAAoEA=`,
  /** np.array([1.5, -2, 65504], dtype=np.float16) */
  f16: `${HDR}PGYyJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDMsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAPgDA/3s=`,
  /** np.array([-128, 5, 127], dtype=np.int8) */
  i8: `${HDR}fGkxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDMsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAqABX8=`,
  /** np.array([True, False, True]) */
  bool: `${HDR}fGIxJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDMsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAAE=`,
  /** np.array([-(2**40), 7], dtype=np.int64) */
  i64: `${HDR}PGk4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAP///wcAAAAAAAAA`,
  /** write_array(np.array([1, 2, 3], dtype=np.uint32), version=(2, 0)) */
  v2: 'k05VTVBZAgB0AAAAeydkZXNjcic6ICc8dTQnLCAnZm9ydHJhbl9vcmRlcic6IEZhbHNlLCAnc2hhcGUnOiAoMywpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAAAAAgAAAAMAAAA=',
  /** the same with version=(3, 0) */
  v3: 'k05VTVBZAwB0AAAAeydkZXNjcic6ICc8dTQnLCAnZm9ydHJhbl9vcmRlcic6IEZhbHNlLCAnc2hhcGUnOiAoMywpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoBAAAAAgAAAAMAAAA=',
  /** np.float64(2.5): a 0-d array */
  scalar: `${HDR}PGY4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKCksIH0gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAEQA==`,
  /** np.array([0x3f80, 0xc000], dtype=np.uint16): bf16 1.0 and -2.0 as bits */
  bf16bits: `${HDR}PHUyJywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAqAPwDA`,
  /** np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)) */
  fortran: `${HDR}PGY0JywgJ2ZvcnRyYW5fb3JkZXInOiBUcnVlLCAnc2hhcGUnOiAoMiwgMyksIH0gICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAABAQAAAgD8AAIBAAAAAQAAAoEA=`,
  /** np.arange(3, dtype='>f4') */
  bigEndian: `${HDR}PmY0JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDMsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAP4AAAEAAAAA=`,
  /** np.zeros(2, dtype=[('a', '<f4'), ('b', '<i4')]) */
  record: 'k05VTVBZAQB2AHsnZGVzY3InOiBbKCdhJywgJzxmNCcpLCAoJ2InLCAnPGk0JyldLCAnZm9ydHJhbl9vcmRlcic6IEZhbHNlLCAnc2hhcGUnOiAoMiwpLCB9ICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAAAAAAAAAAAAAA',
  /** np.zeros(2, dtype=np.complex64) */
  complex: `${HDR}PGM4JywgJ2ZvcnRyYW5fb3JkZXInOiBGYWxzZSwgJ3NoYXBlJzogKDIsKSwgfSAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgICAgIAoAAAAAAAAAAAAAAAAAAAAA`,
};

function values(a: { dtype: DType; bytes: Uint8Array }): number[] {
  const view = new DataView(a.bytes.buffer, a.bytes.byteOffset, a.bytes.byteLength);
  const n = a.bytes.length / sizeOf(a.dtype);
  return Array.from({ length: n }, (_, i) => load(view, i * sizeOf(a.dtype), a.dtype));
}

/** Latin-1 text of a header, for asserting on what was written. */
function headerOf(file: Uint8Array): string {
  const major = file[6];
  const len = major === 1 ? file[8] | (file[9] << 8) : new DataView(file.buffer, file.byteOffset).getUint32(8, true);
  const start = major === 1 ? 10 : 12;
  return String.fromCharCode(...file.subarray(start, start + len));
}

describe('parseNpy reads what NumPy writes', () => {
  const cases: [keyof typeof NUMPY, DType, number[], number[]][] = [
    ['f32', 'f32', [2, 3], [0, 1, 2, 3, 4, 5]],
    ['f16', 'f16', [3], [1.5, -2, 65504]],
    ['i8', 's8', [3], [-128, 5, 127]],
    ['bool', 'bool', [3], [1, 0, 1]],
    ['i64', 's64', [2], [-(2 ** 40), 7]],
    ['v2', 'u32', [3], [1, 2, 3]],
    ['v3', 'u32', [3], [1, 2, 3]],
    ['scalar', 'f64', [], [2.5]],
    ['bf16bits', 'u16', [2], [0x3f80, 0xc000]],
  ];
  it.each(cases)('%s', (key, dtype, shape, expected) => {
    const a = parseNpy(b64(NUMPY[key]));
    expect(a.dtype).toBe(dtype);
    expect(a.shape).toEqual(shape);
    expect(values(a)).toEqual(expected);
  });

  it('a bf16 buffer read from the <u2 bits has the right values', () => {
    const a = parseNpy(b64(NUMPY.bf16bits));
    expect(values({ dtype: 'bf16', bytes: a.bytes })).toEqual([1, -2]);
  });

  it('Fortran order is accepted when it is the same as C order (one long dimension)', () => {
    const file = toNpy('f32', [4], new Uint8Array(16));
    const text = headerOf(file);
    const patched = new Uint8Array(file);
    const at = text.indexOf('False');
    // "True " keeps the header length; the trailing space is legal Python whitespace.
    'True '.split('').forEach((c, i) => (patched[10 + at + i] = c.charCodeAt(0)));
    expect(parseNpy(patched).shape).toEqual([4]);
  });
});

describe('toNpy', () => {
  it('writes byte for byte what numpy.save writes', () => {
    for (const key of ['f32', 'f16', 'i8', 'bool', 'i64', 'scalar'] as const) {
      const original = b64(NUMPY[key]);
      const a = parseNpy(original);
      expect(Buffer.from(toNpy(a.dtype, a.shape, a.bytes)).toString('base64'), key).toBe(NUMPY[key]);
    }
  });

  it.each(DTYPES.map((d) => [d]))('round-trips %s with the data 64-byte aligned', (dtype) => {
    const shape = [3, 5];
    const bytes = Uint8Array.from({ length: 15 * sizeOf(dtype) }, (_, i) => (i * 37 + 11) & 0xff);
    const file = toNpy(dtype, shape, bytes);
    expect((file.length - bytes.length) % 64).toBe(0);
    const back = parseNpy(file);
    expect(back.descr).toBe(npyDescr(dtype));
    expect(back.shape).toEqual(shape);
    expect(Array.from(back.bytes)).toEqual(Array.from(bytes));
    // bf16 has no NumPy dtype: it comes back as the uint16 it was written as.
    expect(back.dtype).toBe(dtype === 'bf16' ? 'u16' : dtype);
  });

  it('switches to format 2.0 when the header does not fit in 64 KiB', () => {
    const shape = Array.from({ length: 30_000 }, () => 1);
    const file = toNpy('f32', shape, new Uint8Array(4));
    expect(file[6]).toBe(2);
    expect(headerOf(file).endsWith('\n')).toBe(true);
    expect(parseNpy(file).shape).toHaveLength(30_000);
  });

  it('refuses bytes that do not match the shape', () => {
    expect(() => toNpy('f32', [2, 2], new Uint8Array(12))).toThrow(/needs 16 bytes, got 12/);
  });
});

describe('parseNpy rejects bad files with a clear message', () => {
  const f32 = b64(NUMPY.f32);
  const withHeader = (header: string, data = new Uint8Array(0)) => {
    const padded = header.padEnd(Math.ceil((header.length + 11) / 64) * 64 - 11, ' ') + '\n';
    const out = new Uint8Array(10 + padded.length + data.length);
    out.set([0x93, 0x4e, 0x55, 0x4d, 0x50, 0x59, 1, 0, padded.length & 0xff, padded.length >> 8]);
    for (let i = 0; i < padded.length; i++) out[10 + i] = padded.charCodeAt(i);
    out.set(data, 10 + padded.length);
    return out;
  };
  const cases: [string, Uint8Array, RegExp][] = [
    ['not an npy file', new TextEncoder().encode('a,b,c\n1,2,3\n'), /not a NumPy \.npy file/],
    ['empty', new Uint8Array(0), /not a NumPy \.npy file/],
    ['unknown version', Uint8Array.from([...f32.subarray(0, 6), 4, 0, ...f32.subarray(8)]), /unsupported \.npy format version 4\.0/],
    ['header longer than the file', f32.subarray(0, 60), /header claims 118 bytes/],
    ['data cut short', f32.subarray(0, f32.length - 4), /needs 24 data bytes but only 20 follow/],
    ['extra bytes after the data', Uint8Array.from([...f32, 0, 0, 0, 0]), /4 unexpected bytes after the array data/],
    ['Fortran order', b64(NUMPY.fortran), /Fortran \(column-major\) order.*ascontiguousarray/],
    ['big-endian', b64(NUMPY.bigEndian), /'>f4' is big-endian/],
    ['structured dtype', b64(NUMPY.record), /structured \(record\) dtypes are not supported/],
    ['complex', b64(NUMPY.complex), /'<c8' is not supported \(one of <f2 <f4/],
    ['raw 2-byte (ml_dtypes bfloat16)', withHeader("{'descr': '<V2', 'fortran_order': False, 'shape': (1,), }", new Uint8Array(2)), /bfloat16 from ml_dtypes\?.*view\(numpy\.uint16\)/],
    ['missing shape', withHeader("{'descr': '<f4', 'fortran_order': False, }"), /no 'shape' entry/],
    ['negative dimension', withHeader("{'descr': '<f4', 'fortran_order': False, 'shape': (-1,), }"), /not a non-negative integer/],
    ['garbage header', withHeader('{descr: <f4}'), /malformed \.npy header/],
    ['unterminated string', withHeader("{'descr: '<f4', }"), /malformed \.npy header/],
    ['not a dictionary', withHeader("['descr', '<f4']"), /malformed \.npy header \(no dictionary/],
  ];
  it.each(cases)('%s', (_name, file, message) => {
    let error: unknown;
    try {
      parseNpy(file);
    } catch (e) {
      error = e;
    }
    expect(error).toBeInstanceOf(NpyError);
    expect((error as Error).message).toMatch(message);
  });
});
