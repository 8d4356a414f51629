// Shared helpers for the CUDA executor tests: run a kernel source through `simulate()` and read
// result buffers back as numbers.
import { parseArg } from '../../../../core/sim/args';
import { load, sizeOf } from '../../../../core/sim/dtypes';
import type { SimulateRequest, SimulateResult } from '../../../../core/sim/run';
import { simulate } from '../../../../core/simulate';

export async function runKernel(text: string, opts: Omit<Partial<SimulateRequest>, 'args'> & { args?: string[] } = {}): Promise<SimulateResult> {
  const { args, ...rest } = opts;
  return simulate({ file: 'k.cu', text, block: [32, 1, 1], maxSteps: 2_000_000, ...rest, args: (args ?? []).map(parseArg) });
}

/** The elements of a result buffer as JS numbers. */
export function values(r: SimulateResult, name: string): number[] {
  const b = r.buffers.find((x) => x.name === name);
  if (!b) throw new Error(`no buffer ${name}`);
  const es = sizeOf(b.dtype);
  const out: number[] = [];
  for (let i = 0; i < b.buffer.size / es; i++) out.push(load(b.buffer.view, i * es, b.dtype));
  return out;
}
