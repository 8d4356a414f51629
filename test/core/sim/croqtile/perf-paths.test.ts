// The executor's fast paths give the same answers as the slow ones: the table/bit-level f16 rounding
// equals the runtime's exact encoder, typed-array tensor copies equal element-wise ones, and the
// co-mock comparison benchmark (examples/croqtile/sim/gemm_selfinit.co, which makes its own operands)
// prints what a plain JS GEMM over the same pattern computes.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { simulateCroqtile } from '../../../../core/lang/croqtile/sim';
import { fromHalfBits, toHalfBits } from '../../../../core/sim/dtypes';
import { Buffer } from '../../../../core/sim/memory';
import { contiguousStrides, copyView, formatG, halfBits, readAll, View, writeAll } from '../../../../core/lang/croqtile/sim/values';

const EX = path.join(__dirname, '../../../../examples/croqtile');

describe('fast f16 rounding', () => {
  it('matches the runtime encoder on every half value, the midpoints between them and random doubles', () => {
    const xs: number[] = [0, -0, Infinity, -Infinity, NaN, 65504, 65519.99, 65520, -65520, 1e-8, -1e-8, 2 ** -25, 3 * 2 ** -26, 2 ** -24, 1e300, -1e-300];
    for (let h = 0; h < 0x7c00; h++) {
      const a = fromHalfBits(h);
      const b = fromHalfBits(h + 1);
      xs.push(a, -a, (a + b) / 2, -(a + b) / 2, a + (b - a) * 0.499999, a + (b - a) * 0.500001);
    }
    let seed = 12345;
    const rnd = () => ((seed = (Math.imul(seed, 1103515245) + 12345) >>> 0) / 2 ** 32);
    for (let i = 0; i < 200_000; i++) xs.push((rnd() - 0.5) * 2 ** (rnd() * 60 - 30));
    const bad = xs.filter((x) => halfBits(x) !== toHalfBits(x));
    expect(bad.slice(0, 5)).toEqual([]);
  });
});

describe('typed-array tensor paths', () => {
  const make = (dtype: 'f16' | 'f32' | 's32', shape: number[]) => {
    const n = shape.reduce((a, b) => a * b, 1);
    const es = dtype === 'f16' ? 2 : 4;
    return new View(new Buffer(1, 'x', 'local', n * es, undefined, dtype, shape), dtype, 0, shape, contiguousStrides(shape));
  };
  it('write/read a strided window and convert between element types like the element-wise copy', () => {
    const big = make('f32', [8, 12]);
    writeAll(big, Array.from({ length: 96 }, (_, i) => i * 0.3 - 7));
    // The 4x5 window at (2, 3): rows 2..5, columns 3..7.
    const win = new View(big.buf, 'f32', 2 * 12 + 3, [4, 5], [12, 1]);
    const got = Array.from(readAll(win));
    const want: number[] = [];
    for (let r = 2; r < 6; r++) for (let c = 3; c < 8; c++) want.push(Math.fround((r * 12 + c) * 0.3 - 7));
    expect(got).toEqual(want);
    const half = make('f16', [4, 5]);
    copyView(win, half);
    expect(Array.from(readAll(half))).toEqual(want.map((x) => fromHalfBits(toHalfBits(x))));
    const ints = make('s32', [4, 5]);
    copyView(win, ints);
    expect(Array.from(readAll(ints))).toEqual(want.map((x) => Math.trunc(x)));
  });
});

describe('examples/croqtile/sim/gemm_selfinit.co', () => {
  it('prints the elements and sums of the GEMM over its own operand pattern', () => {
    const text = readFileSync(path.join(EX, 'sim/gemm_selfinit.co'), 'utf8');
    const r = simulateCroqtile({ file: 'gemm_selfinit.co', text, language: 'croqtile' });
    expect(r.status, r.message).toBe('completed');
    const M = 128;
    const N = 128;
    const K = 512;
    const C = new Float64Array(M * N);
    for (let m = 0; m < M; m++)
      for (let n = 0; n < N; n++) {
        let s = 0;
        for (let k = 0; k < K; k++) s += (((m * 3 + k * 5) % 11) - 5) * (((n * 7 + k * 2) % 13) - 6);
        C[m * N + n] = s;
      }
    let total = 0;
    let weighted = 0;
    for (let i = 0; i < M; i++) for (let j = 0; j < N; j++) {
      total += C[i * N + j];
      weighted += C[i * N + j] * (((i + 2 * j) % 5) - 2);
    }
    const at = (i: number, j: number) => formatG(C[i * N + j]);
    expect(r.stdout).toBe(`${at(0, 0)} ${at(1, 2)} ${at(64, 31)} ${at(127, 127)}\n${formatG(total)} ${formatG(weighted)}\n`);
    // The block's single thread ran the device part; host code did the fills and sums.
    expect(r.steps).toBeGreaterThan(2 * M * K);
  });
});
