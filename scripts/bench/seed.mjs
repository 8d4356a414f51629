// What several bench sections share: the CUDA guide's producer/consumer seed as a 128-thread launch
// (its SPEC arguments for a number of iterations), and the median.
import * as path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../..');
const BUFFER_LEN = 64;

export const SEED_PC = {
  file: path.join(root, 'examples/seeds/producer_consumer_cuda_barrier.cu'),
  kernel: 'producer_consumer_pattern',
  block: 128,
  dynamicSmem: 2 * BUFFER_LEN * 4,
};

/** `--arg` SPECs for `iterations` rounds of the seed's double buffer. */
export function seedArgs(iterations) {
  const n = iterations * BUFFER_LEN;
  return [`N=${n}`, `buffer_len=${BUFFER_LEN}`, `in=f32[${n}]:iota`, `out=f32[${n}]`];
}

export function median(xs) {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.floor(s.length / 2)];
}
