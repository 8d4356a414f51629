// Independent references for the cluster fixtures (test/fixtures/sim/gpu/cluster): what each kernel
// computes, from its header comment, in plain JS with f32 rounding after every operation and in the
// kernel's order. They check the GPU's ground truth (a fixture with an unintended bug would make "same
// outputs" meaningless); the fidelity test then checks the simulator against the GPU.
const f = Math.fround;
type Inputs = Record<string, number[]>;

export const REFERENCES: Record<string, (x: Inputs) => Record<string, number[]>> = {
  cluster_dsmem_exchange: ({ in: x }) => {
    const out: number[] = [];
    for (let blk = 0; blk < 4; blk++) {
      const peer = blk ^ 1;
      for (let t = 0; t < 64; t++) out[blk * 192 + t] = f(x[peer * 64 + 63 - t] * 2);
      for (let t = 0; t < 64; t++) out[blk * 192 + 64 + t] = f(x[peer * 64 + t] + 1);
      for (let t = 0; t < 64; t++) out[blk * 192 + 128 + t] = f(x[blk * 64 + t] + 1);
    }
    // Every thread of the cluster (2 x 64) adds 1 to rank 0's count; ranks[blk] = rank * 100 + 2.
    return { out, counts: [128, 0, 128, 0], ranks: [2, 102, 2, 102] };
  },
  cluster_remote_arrive: ({ in: x, rounds: [rounds] }) => {
    const out: number[] = [];
    for (let c = 0; c < 2; c++)
      for (let t = 0; t < 64; t++) {
        let acc = 0;
        for (let k = 0; k < rounds; k++) acc = f(acc + f(x[(c * rounds + k) * 64 + (((t - k) % 64) + 64) % 64] * (k + 1)));
        out.push(acc);
      }
    return { out };
  },
  cluster_multicast: ({ in: x }) => {
    const out: number[] = [];
    for (let blk = 0; blk < 8; blk++) for (let j = 0; j < 256; j++) out.push(f(x[Math.floor(blk / 4) * 256 + j] * ((blk % 4) + 1)));
    return { out };
  },
  cluster_split_arrive: ({ in: x, steps: [steps] }) => {
    const out = new Array<number>(512);
    for (let blk = 0; blk < 4; blk++) {
      const peer = blk ^ 1;
      for (let t = 0; t < 64; t++) {
        let local = t;
        let acc = 0;
        for (let k = 0; k < steps; k++) {
          local = f(f(local * 0.75) + 1);
          acc = f(acc + x[(peer * steps + k) * 64 + ((t + 1) % 64)]);
        }
        out[blk * 128 + t] = f(acc + local);
        out[blk * 128 + 64 + t] = local;
      }
    }
    return { out };
  },
  cluster_special_regs: () => {
    // A 4x4 grid of 2x2 clusters: rank = x + 2y inside the cluster, x-fastest.
    const out: number[] = [];
    for (let by = 0; by < 4; by++)
      for (let bx = 0; bx < 4; bx++) {
        const [cx, cy] = [bx % 2, by % 2];
        const rank = cx + 2 * cy;
        out.push(rank, 4, bx >> 1, by >> 1, 0, 2, 2, 1, cx, cy, 0, 2, 2, 1, 1, rank, 4, 2, cy, 1000);
      }
    return { out };
  },
  cluster_implicit_regs: () => ({ out: [0, 1, 2].flatMap((blk) => [0, 1, blk, 3, 0, 1, 0, 1]) }),
};
