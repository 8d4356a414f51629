// SPEC parsing for `phaseflip sim --arg NAME=SPEC` and buffer initialisers: every error names the
// argument and says what was expected.
import { describe, expect, it } from 'vitest';
import { bindNpyInput, materialize, parseArg, parseDim3, parseSpec } from '../../../core/sim/args';
import { parseNpy, toNpy } from '../../../core/sim/npy';
import { coerce, DTYPES, isFloat, load, sizeOf, store } from '../../../core/sim/dtypes';
import { rng } from '../../../core/sim/machine';
import type { ArgSpec } from '../../../core/sim/run';
import type { SimError } from '../../../core/sim/machine';

type BufferSpec = Extract<ArgSpec, { kind: 'buffer' }>;
const buffer = (text: string) => parseArg(text) as BufferSpec;
const values = (spec: BufferSpec) => {
  const nb = materialize(spec, 1);
  const es = nb.buffer.size / nb.shape.reduce((a, b) => a * b, 1);
  return Array.from({ length: nb.buffer.size / es }, (_, i) => load(nb.buffer.view, i * es, nb.dtype));
};

describe('parseArg', () => {
  it('reads scalars in C notation', () => {
    const v = (s: string) => (parseArg(`n=${s}`) as { value: number }).value;
    expect(v('64')).toBe(64);
    expect(v('-2.5f')).toBe(-2.5);
    expect(v('1e-3')).toBe(0.001);
    expect(v('.5')).toBe(0.5);
    expect(v('7u')).toBe(7);
    expect(v('0x1F')).toBe(31);
    expect(v('0x1f')).toBe(31);
    expect(v('-0x10')).toBe(-16);
    expect(v('0xffUL')).toBe(255);
    expect(v('true')).toBe(1);
    expect(parseArg(' n = 3 ')).toEqual({ name: 'n', kind: 'scalar', value: 3, text: 'n=3' });
  });

  it('reads buffers with shapes, C type names and initialisers', () => {
    expect(buffer('a=f16[128,64]:random(1)')).toEqual({ name: 'a', kind: 'buffer', dtype: 'f16', shape: [128, 64], init: { kind: 'random', seed: 1 }, text: 'a=f16[128,64]:random(1)' });
    expect(buffer('out=float[ 4 , 4 ]')).toMatchObject({ dtype: 'f32', shape: [4, 4], init: { kind: 'zeros' } });
    expect(buffer('x=uint8_t[3]:fill(7)')).toMatchObject({ dtype: 'u8', init: { kind: 'fill', value: 7 } });
    expect(buffer('x=__nv_bfloat16[3]:iota')).toMatchObject({ dtype: 'bf16', init: { kind: 'iota' } });
    expect(buffer('x=int[2]:random')).toMatchObject({ init: { kind: 'random', seed: 0 } });
    expect(buffer('x=s32[2]:random()')).toMatchObject({ init: { kind: 'random', seed: 0 } });
    expect(buffer('x=f32[2]:file( in/a.npy )')).toMatchObject({ init: { kind: 'file', path: 'in/a.npy' } });
  });

  it('names the argument in every error', () => {
    const err = (text: string) => () => parseArg(text);
    expect(err('64')).toThrow("--arg '64': expected NAME=SPEC, e.g. n=64 or out=f32[128]:zeros");
    expect(err('=5')).toThrow("--arg '=5': expected NAME=SPEC");
    expect(err('2x=5')).toThrow("--arg '2x=5': '2x' is not a parameter name");
    expect(err('n=')).toThrow('--arg n=: the value is missing');
    expect(err('n=abc')).toThrow('--arg n=abc: expected a number or TYPE[D0,D1,…][:INIT], e.g. f16[128,64]:random(1)');
    expect(err('n=99999999999999999999')).toThrow('--arg n=99999999999999999999: 99999999999999999999 is larger than the simulator holds exactly (2^53)');
    expect(err('n=1e999')).toThrow('--arg n=1e999: 1e999 is out of range');
    expect(err('a=f17[4]')).toThrow("--arg a=f17[4]: unknown element type 'f17' (one of f16 bf16 f32 f64 s8 s16 s32 s64 u8 u16 u32 u64 bool)");
    expect(err('a=f32[N]')).toThrow('--arg a=f32[N]: dimensions must be positive integers, got [N]');
    expect(err('a=f32[4,0]')).toThrow('--arg a=f32[4,0]: dimensions must be positive integers, got [4,0]');
    expect(err('a=f32[]')).toThrow('--arg a=f32[]: dimensions must be positive integers, got []');
    expect(err('a=f32[65536,65536]')).toThrow("--arg a=f32[65536,65536]: 17179869184 bytes is more than the simulator's 1 GiB per buffer");
    expect(err('a=f32[4]:ones')).toThrow("--arg a=f32[4]:ones: unknown initialiser 'ones' (zeros, iota, random(SEED), fill(V), file(PATH.npy))");
    expect(err('a=f32[4]:fill(x)')).toThrow("--arg a=f32[4]:fill(x): fill value 'x' is not a number");
    expect(err('a=f32[4]:fill()')).toThrow("--arg a=f32[4]:fill(): fill value '' is not a number");
    expect(err('a=u8[4]:fill(300)')).toThrow('--arg a=u8[4]:fill(300): fill value 300 does not fit u8');
    expect(err('a=s32[4]:fill(1.5)')).toThrow('--arg a=s32[4]:fill(1.5): fill value 1.5 does not fit s32');
    expect(err('a=s32[4]:random(-1)')).toThrow('--arg a=s32[4]:random(-1): unknown initialiser');
  });

  it('says in a structured field which argument an error is about (the faces do not read the message)', () => {
    const field = (text: string) => {
      try {
        parseArg(text);
      } catch (e) {
        return (e as SimError).field;
      }
      return undefined;
    };
    expect(field('64')).toEqual({ kind: 'args' });
    expect(field('2x=5')).toEqual({ kind: 'args' });
    expect(field('n=')).toEqual({ kind: 'arg', name: 'n' });
    expect(field('n=1e999')).toEqual({ kind: 'arg', name: 'n' });
    expect(field('a=f17[4]')).toEqual({ kind: 'arg', name: 'a' });
    expect(field('a=u8[4]:fill(300)')).toEqual({ kind: 'arg', name: 'a' });
    expect(field('a=f32[4]:ones')).toEqual({ kind: 'arg', name: 'a' });
    const unread = buffer('a=u8[2,2]:file(a.npy)');
    expect(() => materialize(unread, 1)).toThrow(expect.objectContaining({ field: { kind: 'arg', name: 'a' } }));
  });

  it('parseSpec builds the same text for messages', () => {
    expect(parseSpec('k', '3')).toEqual({ name: 'k', kind: 'scalar', value: 3, text: 'k=3' });
  });
});

describe('materialize', () => {
  it('fills zeros, iota, a value, and deterministic random data', () => {
    expect(values(buffer('a=f32[4]'))).toEqual([0, 0, 0, 0]);
    expect(values(buffer('a=s32[2,3]:iota'))).toEqual([0, 1, 2, 3, 4, 5]);
    expect(values(buffer('a=u8[300]:iota')).slice(254, 258)).toEqual([254, 255, 0, 1]);
    expect(values(buffer('a=f16[3]:fill(0.1)'))).toEqual([0.0999755859375, 0.0999755859375, 0.0999755859375]);
    const r1 = values(buffer('a=f32[64]:random(5)'));
    expect(values(buffer('a=f32[64]:random(5)'))).toEqual(r1);
    expect(values(buffer('a=f32[64]:random(6)'))).not.toEqual(r1);
    expect(r1.every((v) => v >= -1 && v < 1)).toBe(true);
    expect(new Set(r1).size).toBeGreaterThan(60);
    const ints = values(buffer('a=s32[200]:random(1)'));
    expect(ints.every((v) => Number.isInteger(v) && v >= 0 && v < 100)).toBe(true);
    expect(new Set(values(buffer('a=bool[100]:random(1)')))).toEqual(new Set([0, 1]));
  });

  it('writes the bytes the generic per-element store writes, for every type and initialiser (the typed-array fast paths)', () => {
    // The definition the fast paths replace: each element coerced to the type, then stored through the DataView.
    const reference = (spec: BufferSpec): Uint8Array => {
      const count = spec.shape.reduce((a, b) => a * b, 1);
      const es = sizeOf(spec.dtype);
      const view = new DataView(new ArrayBuffer(count * es));
      const put = (i: number, v: number) => store(view, i * es, spec.dtype, coerce(spec.dtype, v));
      const init = spec.init;
      if (init.kind === 'iota') for (let i = 0; i < count; i++) put(i, i);
      if (init.kind === 'fill') for (let i = 0; i < count; i++) put(i, init.value);
      if (init.kind === 'random') {
        const r = rng(init.seed);
        const range = spec.dtype === 'bool' ? 2 : 100;
        for (let i = 0; i < count; i++) put(i, isFloat(spec.dtype) ? r() * 2 - 1 : Math.floor(r() * range));
      }
      return new Uint8Array(view.buffer);
    };
    const inits = ['iota', 'random(7)', 'fill(0.1)', 'fill(-0.0)', 'fill(-3)', 'fill(1e40)', 'fill(65519)', 'fill(65520)', 'fill(300)', 'fill(4294967297)', 'fill(-2.5)'];
    let compared = 0;
    for (const dt of DTYPES) {
      // 70,000 elements: past the last finite f16 integer (iota), past 2^16 (16-bit wrap) and 2^8 (8-bit wrap).
      for (const init of inits) {
        let spec: BufferSpec;
        try {
          spec = buffer(`a=${dt}[70000]:${init}`);
        } catch {
          continue; // a fill value the type cannot hold is refused before any store
        }
        const got = materialize(spec, 1).buffer.bytes;
        const want = reference(spec);
        const at = got.findIndex((b, i) => b !== want[i]);
        expect(at < 0 ? 'same bytes' : `first difference at byte ${at}: ${Buffer.from(got.subarray(at - (at % 8), at - (at % 8) + 8)).toString('hex')} vs ${Buffer.from(want.subarray(at - (at % 8), at - (at % 8) + 8)).toString('hex')}`, `${dt} ${init}`).toBe('same bytes');
        compared++;
      }
      // A one-element buffer.
      expect(Buffer.from(materialize(buffer(`a=${dt}[1]:iota`), 1).buffer.bytes).equals(Buffer.from(reference(buffer(`a=${dt}[1]:iota`))))).toBe(true);
    }
    // Every type with iota and random, and the fills each type accepts.
    expect(compared).toBeGreaterThan(DTYPES.length * 3);
  }, 60_000); // millions of reference stores: seconds on a loaded 2-core CI machine

  it('builds a global buffer named after the argument with its type and shape', () => {
    const nb = materialize(buffer('w=bf16[2,8]'), 42);
    expect(nb).toMatchObject({ name: 'w', dtype: 'bf16', shape: [2, 8] });
    expect(nb.buffer).toMatchObject({ id: 42, name: 'w', space: 'global', size: 32, dtype: 'bf16', shape: [2, 8] });
  });

  it('copies file data and checks its type, shape and length', () => {
    const spec = buffer('a=u8[2,2]:file(a.npy)');
    expect(() => materialize(spec, 1)).toThrow('--arg a=u8[2,2]:file(a.npy): the file a.npy was not read');
    const withData = (dtype: string, shape: number[], n: number) => ({ ...spec, init: { kind: 'file' as const, path: 'a.npy', data: { dtype: dtype as 'u8', shape, bytes: Uint8Array.from({ length: n }, (_, i) => i + 1) } } });
    expect(values(withData('u8', [2, 2], 4))).toEqual([1, 2, 3, 4]);
    expect(() => materialize(withData('s8', [2, 2], 4), 1)).toThrow('--arg a=u8[2,2]:file(a.npy): a.npy holds s8, not u8');
    expect(() => materialize(withData('u8', [4], 4), 1)).toThrow('--arg a=u8[2,2]:file(a.npy): a.npy has shape [4], not [2,2]');
    expect(() => materialize(withData('u8', [2, 2], 3), 1)).toThrow('--arg a=u8[2,2]:file(a.npy): a.npy holds 3 bytes of data, not the 4 its shape needs');
  });

  it('parses launch dimensions the CLI and the debugger share', () => {
    expect(parseDim3('4')).toEqual([4, 1, 1]);
    expect(parseDim3('2, 3')).toEqual([2, 3, 1]);
    expect(parseDim3('2x3x4')).toEqual([2, 3, 4]);
    for (const bad of ['0', '-1', '1,2,3,4', 'a', '', '1.5']) expect(parseDim3(bad), bad).toBeUndefined();
  });

  it('binds a .npy file to a :file argument only when its type and shape match', () => {
    const npy = parseNpy(toNpy('u16', [2, 2], new Uint8Array(8)));
    const bf = buffer('w=bf16[2,2]:file(w.npy)');
    expect(bindNpyInput(bf, 'w.npy', npy)).toBeUndefined();
    expect(bf.init).toMatchObject({ data: { dtype: 'bf16', shape: [2, 2] } });
    expect(bindNpyInput(buffer('w=f16[2,2]:file(w.npy)'), 'w.npy', npy)).toBe("w.npy holds u16 ('<u2'), not f16");
    expect(bindNpyInput(buffer('w=u16[4]:file(w.npy)'), 'w.npy', npy)).toBe('w.npy has shape [2,2], not [4]');
    expect(bindNpyInput(buffer('w=f32[2,2]:file(w.npy)'), 'w.npy', parseNpy(toNpy('f16', [2, 2], new Uint8Array(8))))).toContain('holds f16');
  });
});
