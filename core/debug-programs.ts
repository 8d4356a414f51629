// Which language debugs a request: picks the debug program factory (core/debug/target.ts) of the
// request's language and builds the debug runtime over it. The runtime itself never imports a language
// folder; this is the one place that connects them (until each language's `Language` object offers
// its factory).
import { DebugRuntime, type DebugProgramFactory } from './debug/runtime';
import { loadCudaLanguage } from './lang/cuda/parser';
import { cudaDebugProgram } from './lang/cuda/sim/debug-target';
import { croqtileDebugProgram } from './lang/croqtile/sim/debug-target';
import type { SimulateRequest } from './sim/run';

/** The debug program factory of a request: its `language`, else the file's extension (.co → Croqtile). */
export function debugProgramFactory(request: SimulateRequest): DebugProgramFactory {
  const language = request.language ?? (/\.co$/i.test(request.file) ? 'croqtile' : 'cuda');
  return language === 'croqtile' ? croqtileDebugProgram(request) : cudaDebugProgram(request);
}

/** A debug runtime for a request (call `start()` to build its first launch). */
export function createDebugRuntime(request: SimulateRequest): DebugRuntime {
  return new DebugRuntime(debugProgramFactory(request));
}

/** Loads what building a launch needs (the CUDA grammar's WASM) ahead of the first launch. */
export function prepareDebugLanguages(): Promise<void> {
  return loadCudaLanguage().then(() => undefined);
}
