// How the debugger numbers Croqtile threads: one debugger thread per simulated thread (one lane), with
// futures. Apart from debug-target.ts so that the language's registry entry (../index.ts) states it without
// loading the interpreter.
import type { DebugProgramFactory } from '../../../debug/target';

export const CROQTILE_DEBUG_THREADS: Omit<DebugProgramFactory, 'create'> = {
  language: 'croqtile',
  lanes: 1,
  futures: true,
  checkLane(lane) {
    if (lane !== 0) throw new Error(`Croqtile threads have one lane (0), not ${lane}`);
  },
};
