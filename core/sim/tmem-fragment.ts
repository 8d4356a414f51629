// Where tcgen05.ld / tcgen05.st move each register of each thread of the warp (PTX ISA 9.7.16.2.3,
// "Matrix fragments for shape …"): a cell of tensor memory as (lane, column) offsets from the
// instruction's address, a column being 32 bits. The same tables as CUTLASS's SM100_TMEM_LOAD_* copy
// traits (copy_traits_sm100.hpp), read from the ISA; Blackwell kernels cannot run on the project's
// Hopper GPUs, so these are checked against the ISA's tables only (test/core/sim/tmem-fragment.test.ts).

/** The data-movement shapes of tcgen05.ld / tcgen05.st. */
export const TMEM_LDST_SHAPES = ['32x32b', '16x64b', '16x128b', '16x256b', '16x32bx2'] as const;
export type TmemLdStShape = (typeof TMEM_LDST_SHAPES)[number];

/** The repetition counts `.x1` … `.x128`. */
export const TMEM_REPEATS = [1, 2, 4, 8, 16, 32, 64, 128] as const;

/** 32-bit registers per thread for `shape` repeated `num` times (the ISA's Table 49). */
export function tmemRegisters(shape: TmemLdStShape, num: number): number {
  return shape === '16x128b' ? 2 * num : shape === '16x256b' ? 4 * num : num;
}

/** Lanes of tensor memory the shape touches (from the address's lane). */
export function tmemLanes(shape: TmemLdStShape): number {
  return shape === '32x32b' ? 32 : 16;
}

/**
 * The cell register `j` of thread `l` (0..31) moves, as offsets from the instruction's address;
 * `halfSplit` is .16x32bx2's immHalfSplitoff, the column offset of the second half's access.
 */
export function tmemCell(shape: TmemLdStShape, l: number, j: number, halfSplit = 0): { lane: number; col: number } {
  switch (shape) {
    case '32x32b':
      return { lane: l, col: j };
    case '16x64b':
      // Four threads per pair of lanes i and i + 8, two columns each repetition.
      return { lane: (l >> 2) + 8 * (l & 1), col: ((l >> 1) & 1) + 2 * j };
    case '16x128b':
      return { lane: (l >> 2) + 8 * (j & 1), col: (l & 3) + 4 * (j >> 1) };
    case '16x256b':
      return { lane: (l >> 2) + 8 * ((j >> 1) & 1), col: (j & 1) + 2 * (l & 3) + 8 * (j >> 2) };
    case '16x32bx2':
      // Two .16x32b accesses: threads 0-15 at the address, 16-31 at the address + immHalfSplitoff.
      return { lane: l & 15, col: j + (l >= 16 ? halfSplit : 0) };
  }
}
