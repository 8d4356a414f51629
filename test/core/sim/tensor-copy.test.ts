// Tensor maps and tensor TMA, below the kernel level: the `tensormap(…)` SPEC parser and its errors,
// the driver's validation compared with what cuTensorMapEncodeTiled answered on an H200
// (test/fixtures/sim/gpu/tma/encode-probe, test/fixtures/sim/gpu/interleave/encode-probe), the swizzle function, and the engine's box walk, fills,
// reductions and faults. Whole kernels are checked against the GPU in fidelity.test.ts.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { materialize, parseArg, tensorMapOf } from '../../../core/sim/args';
import { Buffer } from '../../../core/sim/memory';
import type { ArgSpec } from '../../../core/sim/run';
import { loadTensorBox, storeTensorBox, swizzleAddress, tensorBoxBytes, tensorCopyFault, tensorCopyUnmodelled } from '../../../core/sim/tensor-copy';
import { interleavedMapUnmodelled, readTensorMap, type TensorMapSpec, validateTensorMap, writeTensorMap } from '../../../core/sim/tensor-map';

const buffer = (name: string, bytes = 1 << 16) => new Buffer(1, name, 'global', bytes);

function map(over: Partial<TensorMapSpec> & { offset?: number } = {}): TensorMapSpec {
  const { offset = 0, ...rest } = over;
  return {
    dtype: 'f32',
    global: { buf: buffer('A'), offset },
    dims: [64, 64],
    strides: [256],
    box: [32, 16],
    elementStrides: [1, 1],
    interleave: 0,
    swizzle: 0,
    l2Promotion: 0,
    oobFill: 'zero',
    ...rest,
  };
}

/** Builds the map of `NAME=tensormap(…)` over the buffer `A=SPEC`, or the error message. */
function build(tm: string, a = 'A=f32[64,64]'): TensorMapSpec | string {
  try {
    const spec = parseArg(tm) as Extract<ArgSpec, { kind: 'tensormap' }>;
    const buf = materialize(parseArg(a) as Extract<ArgSpec, { kind: 'buffer' }>, 1);
    return tensorMapOf(spec, buf.name === spec.tensor ? buf : undefined);
  } catch (e) {
    return (e as Error).message;
  }
}

describe('tensormap(…) launch arguments', () => {
  it('defaults dtype, dims and dense strides from the buffer, innermost first', () => {
    const m = build('t=tensormap(A, box=[32,16])', 'A=f16[48,128]') as TensorMapSpec;
    expect(m.dtype).toBe('f16');
    expect(m.dims).toEqual([128, 48]);
    expect(m.strides).toEqual([256]);
    expect(m.elementStrides).toEqual([1, 1]);
    expect([m.swizzle, m.interleave, m.oobFill]).toEqual([0, 0, 'zero']);
  });

  it('reads every field', () => {
    const m = build('t=tensormap(A,dtype=u32,dims=[16,8,2],strides=[64,512],box=[4,4,2],elementStrides=[1,2,1],swizzle=64B,l2=128B,oob=zero)', 'A=u32[2,8,16]') as TensorMapSpec;
    expect(m).toMatchObject({ dtype: 'u32', dims: [16, 8, 2], strides: [64, 512], box: [4, 4, 2], elementStrides: [1, 2, 1], swizzle: 64, l2Promotion: 128 });
    expect((build('t=tensormap(A, box=[8,4], swizzle=128B, oob=nan)') as TensorMapSpec).oobFill).toBe('nan');
  });

  it('names the argument and the field in its errors', () => {
    expect(build('t=tensormap(A)')).toMatch(/^--arg t=tensormap\(A\): tensormap needs box=\[…\]/);
    expect(build('t=tensormap(A, box=[32,16], swizle=128B)')).toMatch(/--arg t=.*: tensormap field 'swizle' is not one of dtype, dims/);
    expect(build('t=tensormap(A, box=[32,16], swizzle=96B)')).toMatch(/field 'swizzle' must be one of none, 32B, 64B, 128B, got 96B/);
    expect(build('t=tensormap(A, box=[32,x])')).toMatch(/field 'box' must be a list of non-negative integers/);
    expect(build('t=tensormap(A, box=[32,16], box=[8,8])')).toMatch(/field 'box' is given twice/);
    expect(build('t=tensormap(A, box=[32,16], dtype=f8)')).toMatch(/dtype 'f8' is not a tensor-map data type/);
    expect(build('t=tensormap(7, box=[32,16])')).toMatch(/starts with the name of a buffer argument, got '7'/);
    expect(build('t=tensormap(B, box=[32,16])')).toMatch(/there is no buffer argument 'B'/);
    expect(build('t=tensormap(A, box=[3,16])')).toMatch(/--arg t=.*: boxDim\[0\] = 3: the inner box extent \(12 bytes\) must be a multiple of 16 bytes/);
    expect(build('t=tensormap(A, box=[64,16], swizzle=128B)')).toMatch(/boxDim\[0\] = 64: the inner box extent \(256 bytes\) exceeds the 128B swizzle span/);
    expect(build('t=tensormap(A, box=[32,16], oob=nan)', 'A=u32[64,64]')).toMatch(/oobFill = nan: only floating-point data types/);
    expect(build('t=tensormap(A, box=[32,16], dims=[64,128])')).toMatch(/the map reaches byte 32767 of 'A', which has 16384 bytes/);
    expect(build('t=tensormap(A, box=[32,16])', 'A=s8[64,64]')).toMatch(/'A' holds s8, which is not a tensor-map data type; give dtype=/);
  });
});

describe("validateTensorMap agrees with the driver's cuTensorMapEncodeTiled (H200)", () => {
  const recorded = new Map(
    readFileSync(path.join(__dirname, '../../fixtures/sim/gpu/tma/encode-probe/driver-results.txt'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.lastIndexOf(':')), Number(l.slice(l.lastIndexOf(':') + 1))] as const),
  );
  // The probe's calls (encode_probe.cpp), as TensorMapSpecs.
  const f16 = { dtype: 'f16' as const };
  const cases: Record<string, TensorMapSpec> = {
    'valid f32 64x64 box 32x16': map(),
    'box0 12 bytes': map({ box: [3, 16] }),
    'box0 8 bytes f16 (4 elems)': map({ ...f16, strides: [128], box: [4, 16] }),
    'box1 257': map({ dims: [64, 1024], box: [32, 257] }),
    'box0 256 elems f32 no swizzle': map({ dims: [512, 64], strides: [2048], box: [256, 2] }),
    'box0 > dim0': map({ dims: [16, 64], strides: [64] }),
    'swz128 inner 256B': map({ dims: [128, 64], strides: [512], box: [64, 8], swizzle: 128 }),
    'swz128 inner 128B': map({ dims: [128, 64], strides: [512], box: [32, 8], swizzle: 128 }),
    'swz64 inner 128B': map({ dims: [128, 64], strides: [512], box: [32, 8], swizzle: 64 }),
    'swz32 inner 16B': map({ dims: [128, 64], strides: [512], box: [4, 8], swizzle: 32 }),
    'global +4': map({ offset: 4 }),
    'global +16': map({ offset: 16 }),
    'stride 132': map({ dims: [32, 64], strides: [132] }),
    'stride 0': map({ dims: [32, 64], strides: [0] }),
    'stride < row bytes': map({ strides: [128] }),
    'oob nan u32': map({ dtype: 'u32', oobFill: 'nan' }),
    'oob nan f16': map({ ...f16, strides: [128], oobFill: 'nan' }),
    'elementStride 9': map({ elementStrides: [1, 9] }),
    'elementStride 8': map({ elementStrides: [1, 8] }),
    'elementStride0 2 box 8 f32': map({ box: [8, 16], elementStrides: [2, 1] }),
    'elementStride0 3 box 8 f32': map({ box: [8, 16], elementStrides: [3, 1] }),
    'elementStride > box': map({ box: [32, 4], elementStrides: [1, 8] }),
    'dims 0': map({ dims: [0, 64] }),
    'rank 6': map({ dims: [4, 4, 4, 4, 4, 4], strides: [16, 64, 256, 1024, 4096], box: [4, 4, 4, 4, 4, 4], elementStrides: [1, 1, 1, 1, 1, 1] }),
    'rank 1': map({ dims: [64], strides: [], box: [32], elementStrides: [1] }),
    'interleave32 swz none rank3': map({ dims: [8, 8, 8], strides: [32, 256], box: [8, 8, 8], elementStrides: [1, 1, 1], interleave: 32 }),
    'interleave32 swz32 rank3': map({ dims: [8, 8, 8], strides: [32, 256], box: [8, 8, 8], elementStrides: [1, 1, 1], interleave: 32, swizzle: 32 }),
    'interleave16 rank2': map({ dims: [8, 8], strides: [32], box: [8, 8], interleave: 16 }),
    'stride 2^40': map({ dims: [64, 2], strides: [2 ** 40], box: [32, 2] }),
    'dims 2^32': map({ dtype: 'u8', dims: [2 ** 32], strides: [], box: [16], elementStrides: [1] }),
    'dims 2^32+1': map({ dtype: 'u8', dims: [2 ** 32 + 1], strides: [], box: [16], elementStrides: [1] }),
  };

  it('covers every recorded case but the null address (no buffer is null in the simulator)', () => {
    expect([...recorded.keys()].filter((k) => !(k in cases))).toEqual(['null global']);
  });
  for (const [name, spec] of Object.entries(cases))
    it(`${name}: driver ${recorded.get(name) === 0 ? 'accepts' : 'rejects'}`, () => {
      const problem = validateTensorMap(spec);
      expect(problem === undefined, problem ?? 'accepted').toBe(recorded.get(name) === 0);
    });
});

describe("interleaved maps: validateTensorMap agrees with the driver's cuTensorMapEncodeTiled (H200)", () => {
  const recorded = new Map(
    readFileSync(path.join(__dirname, '../../fixtures/sim/gpu/interleave/encode-probe/driver-results.txt'), 'utf8')
      .trim()
      .split('\n')
      .map((l) => [l.slice(0, l.lastIndexOf(':')), Number(l.slice(l.lastIndexOf(':') + 1))] as const),
  );
  // The probe's calls (interleave/encode-probe/encode_probe.cpp), as TensorMapSpecs.
  const il = (interleave: 16 | 32, dtype: TensorMapSpec['dtype'], dims: number[], strides: number[], box: number[], more: Partial<TensorMapSpec> & { offset?: number } = {}) =>
    map({ dtype, dims, strides, box, elementStrides: dims.map(() => 1), interleave, ...more });
  const t16 = (box: number[], more: Partial<TensorMapSpec> & { offset?: number } = {}) => il(16, 'u16', [5, 6, 4], [144, 896], box, more);
  const wide = (box: number[], swizzle: TensorMapSpec['swizzle']) => il(16, 'u16', [20, 3, 3], [336, 1040], box, { swizzle });
  const t32 = (box: number[], swizzle: TensorMapSpec['swizzle'], more: Partial<TensorMapSpec> & { offset?: number } = {}) => il(32, 'u16', [6, 5, 3], [544, 2784], box, { swizzle, ...more });
  const small = (dtype: TensorMapSpec['dtype'], box: number[]) => il(16, dtype, [5, 3, 3], [96, 320], box);
  const cases: Record<string, TensorMapSpec> = {
    'il16 u16 box 8x2x3': t16([8, 2, 3]),
    'il16 u16 box0 4 (8 bytes)': t16([4, 2, 3]),
    'il16 u16 box0 12 (24 bytes)': t16([12, 2, 3]),
    'il16 u16 box0 16 (32 bytes)': wide([16, 2, 2], 0),
    'il16 u16 box0 24 (48 bytes)': il(16, 'u16', [30, 3, 3], [496, 1504], [24, 2, 2]),
    'il16 u16 box0 256': il(16, 'u16', [256, 2, 2], [4096, 8192], [256, 1, 1]),
    'il16 u16 box 8x256x256': il(16, 'u16', [5, 256, 256], [144, 36864], [8, 256, 256]),
    'il16 u8 box0 8': small('u8', [8, 2, 2]),
    'il16 u8 box0 16': small('u8', [16, 2, 2]),
    'il16 u64 box0 1 (8 bytes)': small('u64', [1, 2, 2]),
    'il16 u64 box0 2': small('u64', [2, 2, 2]),
    'il16 f32 box0 2 (8 bytes)': small('f32', [2, 2, 2]),
    'il16 swz32 box0 8': wide([8, 2, 3], 32),
    'il16 swz64 box0 8': wide([8, 2, 3], 64),
    'il16 swz128 box0 8': wide([8, 2, 3], 128),
    'il16 swz32 box0 16 (32 bytes)': wide([16, 2, 2], 32),
    'il16 swz32 box0 24 (48 bytes)': il(16, 'u16', [30, 3, 3], [496, 1504], [24, 2, 2], { swizzle: 32 }),
    'il16 swz128 box0 128 (256 bytes)': il(16, 'u16', [128, 3, 3], [2048, 6144], [128, 1, 1], { swizzle: 128 }),
    'il32 u16 box0 8 swz32': t32([8, 3, 2], 32),
    'il32 u16 box0 16 swz none': t32([16, 2, 2], 0),
    'il32 u16 box0 16 swz64': t32([16, 2, 2], 64),
    'il32 u16 box0 16 swz128': t32([16, 2, 2], 128),
    'il32 u16 box0 32 (64 bytes) swz32': il(32, 'u16', [40, 5, 3], [1312, 6560], [32, 2, 2], { swizzle: 32 }),
    'il32 u16 box0 4 (8 bytes) swz32': t32([4, 3, 2], 32),
    'il32 stride 48': il(32, 'u16', [6, 5, 3], [48, 2784], [8, 3, 2], { swizzle: 32 }),
    'il32 stride 544 528': il(32, 'u16', [6, 5, 3], [544, 528], [8, 3, 2], { swizzle: 32 }),
    'il32 global +16': t32([8, 3, 2], 32, { offset: 16 }),
    'il16 global +16': t16([8, 2, 3], { offset: 16 }),
    'il16 stride 16': il(16, 'u16', [5, 6, 4], [16, 896], [8, 2, 3]),
    'il16 stride 0': il(16, 'u16', [5, 6, 4], [0, 896], [8, 2, 3]),
    'il16 elementStrides 2,1,1': t16([8, 2, 3], { elementStrides: [2, 1, 1] }),
    'il16 elementStrides 3,1,1': t16([8, 2, 3], { elementStrides: [3, 1, 1] }),
    'il16 elementStrides 8,1,1': t16([8, 2, 3], { elementStrides: [8, 1, 1] }),
    'il16 elementStrides 1,2,2': t16([8, 4, 3], { elementStrides: [1, 2, 2] }),
    'il16 rank4': il(16, 'u16', [3, 3, 3, 2], [144, 464, 1424], [8, 2, 3, 2]),
    'il16 rank5': il(16, 'u16', [2, 2, 2, 2, 2], [144, 304, 624, 1264], [8, 2, 2, 2, 2]),
    'il16 rank2': il(16, 'u16', [5, 6], [144], [8, 2]),
    'il16 oob nan f16': il(16, 'f16', [5, 6, 4], [144, 896], [8, 2, 3], { oobFill: 'nan' }),
    'il16 dims0 1': il(16, 'u16', [1, 6, 4], [144, 896], [8, 2, 3]),
    'il16 box0 > dims0 chunks': il(16, 'u16', [2, 6, 4], [144, 896], [16, 2, 3]),
    'il16 u32 box0 4': il(16, 'u32', [3, 4, 5], [80, 352], [4, 2, 2]),
  };
  // Accepted by the driver, but past the largest interleaved box it was seen to accept (4096 bytes): where it
  // starts refusing them was not recorded, so the simulator refuses the map as unsupported.
  const unmodelled = ['il16 u16 box 8x256x256'];

  it('covers every recorded case', () => {
    expect([...recorded.keys()].filter((k) => !(k in cases))).toEqual([]);
    expect(recorded.size).toBeGreaterThanOrEqual(40);
  });
  for (const [name, spec] of Object.entries(cases))
    it(`${name}: driver ${recorded.get(name) === 0 ? 'accepts' : 'rejects'}`, () => {
      const problem = validateTensorMap(spec);
      if (unmodelled.includes(name)) {
        expect(problem).toBeUndefined();
        expect(interleavedMapUnmodelled(spec)).toMatch(/box spans 8388608 bytes .*up to 4096 bytes/);
        return;
      }
      expect(problem === undefined, problem ?? 'accepted').toBe(recorded.get(name) === 0);
      if (problem === undefined) expect(interleavedMapUnmodelled(spec)).toBeUndefined();
    });
});

describe('the first interleave probes (test/fixtures/sim/gpu-probes/interleave)', () => {
  // Seven maps the driver accepted describe more memory than their buffers hold (the H200 read zeros
  // past the allocation); the simulator refuses them at launch, the two the driver refused as it did.
  const dir = path.join(__dirname, '../../fixtures/sim/gpu-probes/interleave');
  const recorded = JSON.parse(readFileSync(path.join(dir, 'recorded.json'), 'utf8')) as { kernels: Record<string, { status: string; error?: string }> };
  for (const [name, gpu] of Object.entries(recorded.kernels))
    it(`${name}: ${gpu.status === 'fault' ? 'the driver refused the map, and so does validateTensorMap' : 'the map reaches past its buffer'}`, () => {
      const line = /^\/\/ sim: (.*)$/m.exec(readFileSync(path.join(dir, `${name}.cu`), 'utf8'))![1];
      const args = [...line.matchAll(/--arg (\S+)/g)].map((m) => m[1]);
      const m = build(args.find((a) => a.startsWith('m='))!, args.find((a) => a.startsWith('a='))!);
      if (gpu.status === 'fault') {
        expect(gpu.error).toMatch(/cuTensorMapEncodeTiled m: CUresult 1/);
        expect(m).toMatch(/boxDim\[0\] = 4: the inner box extent \(8 bytes\) must be a multiple of 16 bytes/);
      } else expect(m).toMatch(/the map reaches byte \d+ of 'a', which has \d+ bytes/);
    });
});

describe('the 128-byte encoding', () => {
  it('round-trips, so a byte copy of the struct is a copy of the map', () => {
    const m = map({ dtype: 'bf16', dims: [40, 10], strides: [128], box: [16, 2], swizzle: 32, oobFill: 'nan', offset: 32 });
    const param = new Buffer(2, 'tmap', 'const', 128);
    writeTensorMap(param, 0, m);
    const copy = new Buffer(3, 'copy', 'local', 256);
    copy.bytes.set(param.bytes, 64);
    const back = readTensorMap(copy, 64, (id) => (id === m.global.buf.id ? m.global.buf : undefined));
    expect(back).toEqual(m);
    expect(readTensorMap(copy, 0, () => undefined)).toMatch(/are not a tensor map/);
  });
});

describe('swizzle', () => {
  it("XORs the 16-byte chunk index with the address's bits 7.. (CUTLASS Swizzle<1|2|3,4,3>)", () => {
    expect(swizzleAddress(0x80, 128)).toBe(0x90);
    expect(swizzleAddress(0x3f4, 128)).toBe(0x384);
    expect(swizzleAddress(0x3f4, 64)).toBe(0x3c4);
    expect(swizzleAddress(0x3f4, 32)).toBe(0x3e4);
    expect(swizzleAddress(0x3f4, 0)).toBe(0x3f4);
  });

  it('permutes 16-byte chunks within each 128-byte row and repeats every 256/512/1024 bytes', () => {
    for (const [span, repeat] of [[32, 256], [64, 512], [128, 1024]] as const) {
      for (let a = 0; a < 4096; a++) {
        const s = swizzleAddress(a, span);
        expect(s & ~0x70, `${span}B at ${a}`).toBe(a & ~0x70);
        expect(swizzleAddress(a + repeat, span)).toBe(s + repeat);
      }
      const row = Array.from({ length: 8 }, (_, c) => swizzleAddress((repeat - 128) + c * 16, span) >> 4);
      expect(new Set(row).size).toBe(8);
    }
  });
});

describe('the tensor-copy engine', () => {
  const shared = (bytes: number) => new Buffer(9, 'tile', 'shared', bytes, 0);
  const u32Tensor = (words: number) => {
    const b = buffer('A', words * 4);
    for (let i = 0; i < words; i++) b.view.setUint32(i * 4, i, true);
    return b;
  };

  it('loads ceil(box/elementStrides) elements per dimension, packed, and counts them all', () => {
    const a = u32Tensor(6 * 8 * 16);
    const m = map({ dtype: 'u32', global: { buf: a, offset: 0 }, dims: [16, 8, 6], strides: [64, 512], box: [4, 4, 6], elementStrides: [1, 2, 3] });
    expect(tensorBoxBytes(m)).toBe(64);
    const dst = shared(64);
    loadTensorBox(m, [4, 3, 0], { buf: dst, offset: 0 }, 1024);
    const got = Array.from({ length: 16 }, (_, i) => dst.view.getUint32(i * 4, true));
    expect(got).toEqual([52, 53, 54, 55, 84, 85, 86, 87, 436, 437, 438, 439, 468, 469, 470, 471]);
  });

  it('fills out-of-bounds elements with zeros or 0x7FF7 halfwords, and a store skips them', () => {
    const a = u32Tensor(4 * 8);
    const m = map({ dtype: 'f32', global: { buf: a, offset: 0 }, dims: [8, 4], strides: [32], box: [4, 2] });
    const dst = shared(32);
    loadTensorBox({ ...m, oobFill: 'nan' }, [4, 3], { buf: dst, offset: 0 }, 2048);
    const words = Array.from({ length: 8 }, (_, i) => dst.view.getUint32(i * 4, true));
    expect(words).toEqual([28, 29, 30, 31, 0x7ff77ff7, 0x7ff77ff7, 0x7ff77ff7, 0x7ff77ff7]);
    loadTensorBox(m, [4, 3], { buf: dst, offset: 0 }, 2048);
    expect(dst.view.getUint32(16, true)).toBe(0);
    for (let i = 0; i < 8; i++) dst.view.setUint32(i * 4, 1000 + i, true);
    const { written } = storeTensorBox(m, [4, 3], { buf: dst, offset: 0 }, 2048);
    expect(written).toEqual([[(3 * 8 + 4) * 4, 16]]);
    expect(Array.from({ length: 4 }, (_, i) => a.view.getUint32((28 + i) * 4, true))).toEqual([1000, 1001, 1002, 1003]);
  });

  it('reduces with the ISA semantics of each operation', () => {
    const run = (op: 'inc' | 'dec' | 'min' | 'xor', old: number[], src: number[], dtype: 'u32' | 's32' = 'u32') => {
      const g = buffer('G', 16);
      old.forEach((v, i) => (dtype === 'u32' ? g.view.setUint32(i * 4, v, true) : g.view.setInt32(i * 4, v, true)));
      const s = shared(16);
      src.forEach((v, i) => (dtype === 'u32' ? s.view.setUint32(i * 4, v, true) : s.view.setInt32(i * 4, v, true)));
      storeTensorBox(map({ dtype, global: { buf: g, offset: 0 }, dims: [4], strides: [], box: [4], elementStrides: [1] }), [0], { buf: s, offset: 0 }, 1024, op);
      return Array.from({ length: 4 }, (_, i) => (dtype === 'u32' ? g.view.getUint32(i * 4, true) : g.view.getInt32(i * 4, true)));
    };
    expect(run('inc', [0, 4, 5, 9], [5, 5, 5, 5])).toEqual([1, 5, 0, 0]);
    expect(run('dec', [0, 4, 5, 9], [5, 5, 5, 5])).toEqual([5, 3, 4, 5]);
    expect(run('min', [-3, 4, 0, 9], [2, -8, 0, 10], 's32')).toEqual([-3, -8, 0, 9]);
    expect(run('xor', [0xf0f0f0f0, 1, 2, 3], [0xffffffff, 1, 1, 1])).toEqual([0x0f0f0f0f, 0, 3, 2]);
    expect(() => run('inc', [0, 0, 0, 0], [1, 1, 1, 1], 's32')).toThrow(/\.inc does not reduce s32 elements/);
  });

  it('faults where the H200 faulted', () => {
    const m = map();
    expect(tensorCopyFault(m, [0, 0], 1024 + 16, 'load')).toMatch(/misaligned address: .* not 128-byte aligned/);
    expect(tensorCopyFault(m, [2, 0], 1024, 'load')).toMatch(/illegal instruction: .*start coordinate 2 is 8 bytes/);
    expect(tensorCopyFault(m, [-4, 0], 1024, 'load')).toBeUndefined();
    expect(tensorCopyFault(m, [-4, -2], 1024, 'store')).toMatch(/illegal instruction: a store at negative coordinates/);
    expect(tensorCopyFault(m, [0], 1024, 'load')).toMatch(/1 coordinate\(s\) for a rank-2 tensor map/);
    expect(tensorCopyFault(m, [8, 70], 1024 + 128, 'load')).toBeUndefined();
  });

  describe('with an interleaved map (test/fixtures/sim/gpu/interleave)', () => {
    // u16 words 0, 1, 2 … : every 16-byte slice starts with its byte address / 2.
    const tensor = () => {
      const b = buffer('A', 8192);
      for (let i = 0; i < 4096; i++) b.view.setUint16(i * 2, i, true);
      return b;
    };
    const ilMap = (over: Partial<TensorMapSpec> = {}): TensorMapSpec =>
      map({ dtype: 'u16', global: { buf: tensor(), offset: 0 }, dims: [5, 6, 4], strides: [144, 896], box: [8, 2, 3], elementStrides: [1, 1, 1], interleave: 16, ...over });
    /** First u16 of every 16-byte chunk of the tile: the source address / 2, 0 for a zero fill. */
    const heads = (tile: Buffer, chunks: number) => Array.from({ length: chunks }, (_, i) => tile.view.getUint16(i * 16, true));

    it('walks whole slices in dimension 0 and only the coordinate row of dimension rank-2, and counts slices', () => {
      const m = ilMap();
      expect(tensorBoxBytes(m)).toBe(8 * 16 * 3);
      const tile = shared(4096);
      loadTensorBox(m, [1, 1, 1], { buf: tile, offset: 0 }, 1024);
      // Slices 1..8 of row 1 (5..8 lie past globalDim[0] = 5, zero), in planes 1, 2, 3; boxDim[1] = 2 adds no row.
      const row = (plane: number) => [1, 2, 3, 4].map((x) => (x * 16 + 144 + plane * 896) / 2).concat([0, 0, 0, 0]);
      expect(heads(tile, 24)).toEqual([...row(1), ...row(2), ...row(3)]);
      const r4 = ilMap({ dims: [3, 3, 3, 2], strides: [144, 464, 1424], box: [8, 2, 3, 2], elementStrides: [1, 1, 1, 1] });
      expect(tensorBoxBytes(r4)).toBe(8 * 16 * 2 * 2);
    });

    it('moves a 32-byte slice as two swizzled 16-byte chunks', () => {
      const m = ilMap({ interleave: 32, dims: [6, 5, 3], strides: [544, 2784], box: [8, 3, 2], swizzle: 32 });
      const tile = shared(4096);
      loadTensorBox(m, [0, 0, 0], { buf: tile, offset: 0 }, 1024);
      // Slice 4 (bytes 128..159) lands with its halves swapped by the 32B swizzle (address bit 7).
      expect(heads(tile, 12)).toEqual([0, 8, 16, 24, 32, 40, 48, 56, 72, 64, 88, 80]);
    });

    it('reduces every element of a slice and skips slices outside the tensor', () => {
      const m = ilMap({ dtype: 'u32', dims: [3, 4, 5], strides: [80, 352], box: [4, 2, 2] });
      const src = shared(4096);
      for (let i = 0; i < 1024; i++) src.view.setUint32(i * 4, 1, true);
      const before = Array.from({ length: 8 }, (_, i) => m.global.buf.view.getUint32(432 + i * 4, true));
      const { written } = storeTensorBox(m, [1, 1, 1], { buf: src, offset: 0 }, 1024, 'add');
      expect(written).toEqual([[448, 32], [800, 32]]);
      expect(Array.from({ length: 8 }, (_, i) => m.global.buf.view.getUint32(432 + i * 4, true))).toEqual(before.map((v, i) => (i < 4 ? v : v + 1)));
    });

    it('does not fault on any c0 or on negative load coordinates; refuses what was not recorded', () => {
      const m = ilMap();
      expect(tensorCopyFault(m, [1, 0, 0], 1024, 'load')).toBeUndefined();
      expect(tensorCopyFault(m, [-1, -1, -1], 1024, 'load')).toBeUndefined();
      expect(tensorCopyFault(m, [3, 1, 1], 1024, 'store')).toBeUndefined();
      expect(tensorCopyFault(m, [0, 0, 0], 1024 + 64, 'load')).toMatch(/misaligned address/);
      expect(tensorCopyUnmodelled(m, [-1, 1, 1], 'load')).toBeUndefined();
      expect(tensorCopyUnmodelled(m, [0, -1, 1], 'store')).toMatch(/a store through an interleaved tensor map at negative coordinates \{0, -1, 1\} \(not recorded/);
      expect(tensorCopyUnmodelled(m, [0, 0, -2], 'reduce')).toMatch(/a reduction through an interleaved/);
      expect(tensorCopyUnmodelled(ilMap({ box: [16, 4, 8] }), [0, 0, 0], 'load')).toMatch(/box spans 8192 bytes/);
    });
  });
});
