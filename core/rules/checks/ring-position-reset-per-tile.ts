// PF112: a persistent kernel restarts a ring's stage and phase at every tile while its barriers keep counting.
import { restartIsAligned, ringResets } from '../../analysis/ring-position';
import { barrierName, exprText, line1 } from '../naming';
import type { RuleDef } from '../types';

export const ringPositionResetPerTile: RuleDef = {
  meta: {
    id: 'ring-position-reset-per-tile',
    code: 'PF112',
    family: 'phase',
    defaultSeverity: 'warning',
    summary: 'A ring\'s stage and phase restart at every tile while its barriers keep their phases across tiles.',
    languages: ['cuda'],
    fix: 'none',
  },
  docs: {
    whatItDoes:
      'Reports a parity wait inside a loop nest (a tile loop around a K loop) whose slot index and parity are declared inside the outer loop and advanced by the inner one, on barriers initialised once before it. Such a restart is correct only when every tile runs a multiple of 2 x stages iterations; the finding states that condition, and stays silent when the trip count is a constant that meets it.',
    whyIsThisBad:
      'The barriers do not restart with the variables: after a tile of 6 iterations on a 4-slot ring, slots 0 and 1 have completed one more phase than slots 2 and 3. The next tile starts again at slot 0 with parity 0 and waits for a phase that already completed (passes before the data lands) or one that never will (hang). Tests whose K is a multiple of 2 x stages pass; the first other shape breaks.',
    bad: `#include <cuda/ptx>
constexpr int STAGES = 4;
__global__ void k(int num_tiles, int num_k) {
  __shared__ uint64_t full[STAGES];
  if (threadIdx.x < STAGES) cuda::ptx::mbarrier_init(&full[threadIdx.x], 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    int stage = 0;
    for (int t = blockIdx.x; t < num_tiles; t += gridDim.x)
      for (int k = 0; k < num_k; ++k) {
        (void)cuda::ptx::mbarrier_arrive(&full[stage]);
        stage = (stage + 1) % STAGES;
      }
  } else if (threadIdx.x == 32) {
    for (int t = blockIdx.x; t < num_tiles; t += gridDim.x) {
      int stage = 0, phase = 0;
      for (int k = 0; k < num_k; ++k) {
        while (!cuda::ptx::mbarrier_try_wait_parity(&full[stage], phase)) {}
        if (++stage == STAGES) { stage = 0; phase ^= 1; }
      }
    }
  }
}`,
    good: `#include <cuda/ptx>
constexpr int STAGES = 4;
__global__ void k(int num_tiles, int num_k) {
  __shared__ uint64_t full[STAGES];
  if (threadIdx.x < STAGES) cuda::ptx::mbarrier_init(&full[threadIdx.x], 1);
  __syncthreads();
  if (threadIdx.x == 0) {
    int stage = 0;
    for (int t = blockIdx.x; t < num_tiles; t += gridDim.x)
      for (int k = 0; k < num_k; ++k) {
        (void)cuda::ptx::mbarrier_arrive(&full[stage]);
        stage = (stage + 1) % STAGES;
      }
  } else if (threadIdx.x == 32) {
    int stage = 0, phase = 0;
    for (int t = blockIdx.x; t < num_tiles; t += gridDim.x) {
      for (int k = 0; k < num_k; ++k) {
        while (!cuda::ptx::mbarrier_try_wait_parity(&full[stage], phase)) {}
        if (++stage == STAGES) { stage = 0; phase ^= 1; }
      }
    }
  }
}`,
    references: ['issue 13: persistent kernels (phase and stage carried across tiles versus reset per tile)', 'PTX ISA: mbarrier phases and parity waits'],
  },
  check(ctx) {
    for (const k of ctx.kernels) {
      const reported = new Set<unknown>();
      for (const r of ringResets(k)) {
        if (restartIsAligned(r) || reported.has(r.outer)) continue;
        reported.add(r.outer);
        const op = r.site.op;
        const names = r.vars.map((v) => `\`${v.replace(/#\d+$/, '')}\``).join(' and ');
        const per = r.inner.cond ? `\`${exprText(r.inner.cond)}\`` : 'the inner loop';
        const condition = r.stages !== undefined ? `a multiple of 2 x ${r.stages} = ${2 * r.stages}` : 'a multiple of twice the ring size';
        const trips = r.trips !== undefined ? `Each tile runs ${r.trips} iterations of the loop at line ${line1(r.inner.range)}, not ${condition}, so` : `This is correct only if every tile runs ${condition} iterations of the loop at line ${line1(r.inner.range)} (${per}); otherwise`;
        ctx.report({
          range: op.range,
          message: `The wait on \`${barrierName(op)}\` takes its slot and parity from ${names}, which restart at every iteration of the loop at line ${line1(r.outer.range)}, but the barriers keep their phases from one tile to the next. ${trips} the next tile waits on slots with the wrong parity and passes before the data lands or hangs. Declare the ring position before the tile loop so it carries across tiles.`,
          related: [
            { range: r.outer.range, message: 'the loop whose iterations restart the ring position' },
            { range: r.inner.range, message: 'the loop that advances it' },
          ],
        });
      }
    }
  },
};
