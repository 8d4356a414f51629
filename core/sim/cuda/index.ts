// CUDA executor entry point (placeholder until the executor lands).
import { SimError } from '../machine';
import type { Launch, SimulateRequest } from '../run';

export async function prepareCudaLaunch(req: SimulateRequest): Promise<Launch> {
  throw new SimError(`the CUDA simulator is not built yet (${req.file})`, undefined, 'unsupported');
}
