// How the debugger numbers CUDA threads: one debugger thread per warp of 32 lanes, no futures. Apart from
// debug-target.ts so that the language's registry entry (../index.ts) states it without loading the simulator.
import type { DebugProgramFactory } from '../../../debug/target';

export const CUDA_DEBUG_THREADS: Omit<DebugProgramFactory, 'create'> = {
  language: 'cuda',
  lanes: 32,
  futures: false,
  checkLane(lane) {
    if (!Number.isInteger(lane) || lane < 0 || lane > 31) throw new Error(`lane ${lane} is outside 0..31`);
  },
};
