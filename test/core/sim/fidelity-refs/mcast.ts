// Independent references for the tensor-multicast fixtures (test/fixtures/sim/gpu/mcast): what each
// kernel means, from the PTX ISA's description of cp.async.bulk.tensor .multicast::cluster (the box
// lands at the same CTA-relative offset in every CTA of the mask) and the CUTLASS swizzle functors
// (the 16-byte chunk index XOR bits 7.. of the shared address), without the simulator's code. The
// tensors hold their own element index (iota), so a word is row * columns + column, 0 outside.
type Inputs = Record<string, number[]>;

/** Shared address of the byte at `addr` under a swizzle of `span` bytes. */
function swizzle(addr: number, span: number): number {
  const mask = span === 32 ? 1 : span === 64 ? 3 : span === 128 ? 7 : 0;
  return addr ^ (((addr >> 7) & mask) << 4);
}

/** A bw x bh box of u32 words from column c0, row r0 of an iota tensor (rows x cols) into `tile` at byte `base` (1024-aligned). */
function box(tile: number[], base: number, span: number, bw: number, bh: number, rows: number, cols: number, c0: number, r0: number): void {
  for (let j = 0; j < bh; j++)
    for (let i = 0; i < bw; i++) {
      const [c, r] = [c0 + i, r0 + j];
      tile[swizzle(base + (j * bw + i) * 4, span) / 4] = c < cols && r < rows ? r * cols + c : 0;
    }
}

export const REFERENCES: Record<string, (x: Inputs) => Record<string, number[]>> = {
  mcast_tensor_2cta: () => {
    const out: number[] = [];
    for (let blk = 0; blk < 4; blk++) {
      const c = Math.floor(blk / 2);
      const tile = new Array<number>(1024).fill(0);
      box(tile, 0, 128, 32, 16, 64, 64, 8 + 16 * c, 5 + 20 * c); // rank 0's box A, in both CTAs
      box(tile, 2048, 64, 16, 32, 64, 64, 8 + 16 * c, 3 + 16 * c); // rank 1's box B, in both CTAs
      out.push(...tile);
    }
    return { out };
  },
  mcast_tensor_slices_4cta: () => {
    const out: number[] = [];
    for (let blk = 0; blk < 8; blk++) {
      const c = Math.floor(blk / 4);
      const tile = new Array<number>(1024).fill(0);
      for (let r = 0; r < 4; r++) box(tile, r * 1024, 128, 32, 8, 128, 64, c === 0 ? 4 : 48, (c === 0 ? 3 : 40) + 8 * r);
      out.push(...tile);
    }
    return { out };
  },
};
