// One entry point for running a file on the simulator (`phaseflip sim`, tests): picks the request's
// language, which prepares the launch (CUDA) or the whole program (Croqtile), and runs it to the end.
// The request and result types and the slice-wise runner are language-neutral (sim/run.ts).
import type { LanguageId } from './api';
import { DEFAULT_LANGUAGE, languageById, languageForHeader, languageForPath } from './languages';
import type { SimulateRequest, SimulateResult } from './sim/run';

/** The language a request names, else its file's extension says, else CUDA. */
export function languageOfRequest(req: Pick<SimulateRequest, 'file' | 'language'>): LanguageId {
  return req.language ?? languageForPath(req.file) ?? languageForHeader(req.file) ?? DEFAULT_LANGUAGE;
}

/** Runs a whole request: one CUDA kernel launch, or a Croqtile program with its launches. */
export async function simulate(req: SimulateRequest): Promise<SimulateResult> {
  const prepared = await languageById(languageOfRequest(req)).prepareSimulation(req);
  return prepared.run();
}
