// Debugging a request: the request's language gives the debug program (core/debug/target.ts) that the
// language-neutral debug runtime drives. The runtime never imports a language folder; the languages
// reach it only through their `Language` objects here.
import { DebugRuntime } from './debug/runtime';
import { languageById } from './languages';
import { languageOfRequest } from './simulate';
import type { SimulateRequest } from './sim/run';

/** A debug runtime for a request (call `start()` to build its first launch). */
export function createDebugRuntime(request: SimulateRequest): DebugRuntime {
  return new DebugRuntime(languageById(languageOfRequest(request)).debugProgram(request));
}

