// Croqtile executor entry point (placeholder until the executor lands).
import { SimError } from '../machine';
import type { SimulateRequest, SimulateResult } from '../run';

export function simulateCroqtile(req: SimulateRequest): SimulateResult {
  throw new SimError(`the Croqtile simulator is not built yet (${req.file})`, undefined, 'unsupported');
}
