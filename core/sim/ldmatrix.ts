// The warp-wide 8x8 matrix loads and stores of PTX (`ldmatrix` / `stmatrix` .m8n8 .b16, sm_75 / sm_90),
// without any source language: which lane supplies the address of which row, and which lane,
// register and half holds which element. Checked against an H200 (test/fixtures/sim/gpu/wgmma/
// ldmatrix_stmatrix.cu).
//
// For .xN (N = 1, 2, 4 matrices), lanes 8j..8j+7 give the addresses of rows 0..7 of matrix j (each row
// 16 contiguous bytes: eight 16-bit elements); the other lanes' addresses are ignored. Register j of
// lane l holds elements (l / 4, 2 (l % 4)) (low half) and (l / 4, 2 (l % 4) + 1) (high half) of matrix
// j; with .trans it holds the transposed elements ((2 (l % 4), l / 4) and (2 (l % 4) + 1, l / 4)).

/** Lane that supplies the address of row `row` of matrix `j`. */
export const rowAddressLane = (j: number, row: number): number => 8 * j + row;

/** (row, column) of the element that half `half` (0 low, 1 high) of a register of lane `lane` holds. */
export function fragmentElement(lane: number, half: number, trans: boolean): [number, number] {
  const r = lane >> 2;
  const c = 2 * (lane & 3) + half;
  return trans ? [c, r] : [r, c];
}

/** Lane and half holding element (row, col) of a matrix (the inverse of fragmentElement). */
export function elementHolder(row: number, col: number, trans: boolean): { lane: number; half: number } {
  const [r, c] = trans ? [col, row] : [row, col];
  return { lane: 4 * r + (c >> 1), half: c & 1 };
}

/** Matrix counts the .m8n8 shape takes. */
export const MATRIX_COUNTS: readonly number[] = [1, 2, 4];
