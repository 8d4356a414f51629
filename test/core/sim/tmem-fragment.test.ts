// tcgen05.ld / tcgen05.st fragment tables (core/sim/tmem-fragment.ts) against the ISA. Blackwell
// kernels cannot run on the project's H200, so there is no GPU record: the expected cells come from the
// PTX ISA's fragment figures as CUTLASS encodes them (the DstLayout of copy_traits_sm100.hpp's
// SM100_TMEM_LOAD_16dp64b1x/2x, 16dp128b1x, 16dp256b2x, 16dp32b1x, 32dp32b2x: (thread, value bit) →
// bit index = bit-in-lane + bitsPerLane × lane), evaluated here by a small layout evaluator, and
// every table must cover its rectangle of cells exactly once.
import { describe, expect, it } from 'vitest';
import { TMEM_LDST_SHAPES, TMEM_REPEATS, tmemCell, tmemLanes, tmemRegisters, type TmemLdStShape } from '../../../core/sim/tmem-fragment';

/** A cute layout mode: sizes and strides, first size fastest. */
type Mode = [number[], number[]];
const evalMode = ([shape, stride]: Mode, i: number): number => {
  let x = 0;
  for (let k = 0; k < shape.length; k++) {
    x += (i % shape[k]) * stride[k];
    i = Math.floor(i / shape[k]);
  }
  return x;
};

/** CUTLASS's DstLayout of a TMEM load: (thread mode, value mode), and bits per lane. */
const CUTLASS: Array<{ shape: TmemLdStShape; num: number; thr: Mode; val: Mode; bitsPerLane: number }> = [
  { shape: '16x64b', num: 1, thr: [[2, 2, 8], [512, 32, 64]], val: [[32], [1]], bitsPerLane: 64 },
  { shape: '16x64b', num: 2, thr: [[2, 2, 8], [1024, 32, 128]], val: [[32, 2], [1, 64]], bitsPerLane: 128 },
  { shape: '16x128b', num: 1, thr: [[4, 8], [32, 128]], val: [[32, 2], [1, 1024]], bitsPerLane: 128 },
  { shape: '16x256b', num: 2, thr: [[4, 8], [64, 512]], val: [[64, 2, 2], [1, 4096, 256]], bitsPerLane: 512 },
  { shape: '16x32bx2', num: 1, thr: [[16, 2], [64, 32]], val: [[32], [1]], bitsPerLane: 64 },
  { shape: '32x32b', num: 2, thr: [[32], [64]], val: [[64], [1]], bitsPerLane: 64 },
];

describe('tcgen05.ld / st fragments', () => {
  it('match CUTLASS’s encoding of the ISA figures, register by register', () => {
    for (const c of CUTLASS) {
      const regs = tmemRegisters(c.shape, c.num);
      for (let l = 0; l < 32; l++)
        for (let j = 0; j < regs; j++) {
          const bit = evalMode(c.thr, l) + evalMode(c.val, 32 * j);
          const want = { lane: Math.floor(bit / c.bitsPerLane), col: Math.floor((bit % c.bitsPerLane) / 32) };
          // 16x32bx2's x1 CUTLASS atom uses immHalfSplitoff = 1 (the second half one column on).
          expect(tmemCell(c.shape, l, j, c.shape === '16x32bx2' ? 1 : 0), `${c.shape}.x${c.num} thread ${l} register ${j}`).toEqual(want);
        }
    }
  });

  it('the ISA’s figure corners: 16x64b pairs lanes i and i+8 in a quad; 16x32bx2 puts threads 16-31 at the split offset', () => {
    expect([0, 1, 2, 3, 4].map((l) => tmemCell('16x64b', l, 0))).toEqual([
      { lane: 0, col: 0 },
      { lane: 8, col: 0 },
      { lane: 0, col: 1 },
      { lane: 8, col: 1 },
      { lane: 1, col: 0 },
    ]);
    expect(tmemCell('16x32bx2', 17, 3, 40)).toEqual({ lane: 1, col: 43 });
    expect(tmemCell('16x128b', 5, 3)).toEqual({ lane: 9, col: 5 });
  });

  it('every shape and repetition covers its lanes x columns exactly once', () => {
    for (const shape of TMEM_LDST_SHAPES)
      for (const num of TMEM_REPEATS) {
        const regs = tmemRegisters(shape, num);
        const lanes = tmemLanes(shape);
        const cols = (32 * regs) / lanes;
        const seen = new Set<string>();
        for (let l = 0; l < 32; l++)
          for (let j = 0; j < regs; j++) {
            const { lane, col } = tmemCell(shape, l, j, shape === '16x32bx2' ? num : 0);
            expect(lane >= 0 && lane < lanes && col >= 0 && col < cols, `${shape}.x${num} (${l}, ${j}) → (${lane}, ${col})`).toBe(true);
            seen.add(`${lane},${col}`);
          }
        expect(seen.size, `${shape}.x${num}`).toBe(lanes * cols);
      }
  });
});
