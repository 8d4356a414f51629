// `phaseflip sim prog.cu` for a whole program (no --kernel, the file defines main): what goes to
// stdout (the program's output, exactly), the one-line summary on stderr, the JSON document and the
// exit status (the program's own when it ran to its end).
import type { SimulateResult } from '../core/index';
import { EXIT_ERROR, EXIT_FINDINGS } from './errors';

/** The program's exit code when it ran to its end; 1 when a kernel raced or the run deadlocked; 2 when it could not be simulated. */
export function programExitCode(result: SimulateResult): number {
  if (result.status === 'completed') return result.exitCode ?? 0;
  if (result.status === 'error' && result.report?.kind !== 'oob') return EXIT_ERROR;
  return EXIT_FINDINGS;
}

/** What the simulator says after the program's output (on stderr); the message names what happened. */
export function programSummary(result: SimulateResult, file: string): string {
  return `phaseflip: ${file}: ${result.message.trimEnd()}\n`;
}

/** --json for a whole program: status, message, the report, exit code, stdout, stderr, kernels that failed, device allocations. */
export function formatProgramJson(result: SimulateResult): string {
  const doc = {
    status: result.status,
    message: result.message,
    details: result.report ?? null,
    exitCode: result.exitCode ?? null,
    stdout: result.stdout,
    stderr: result.stderr ?? '',
    launchFailures: result.launchFailures ?? [],
    buffers: result.buffers.map((b) => ({ name: b.name, dtype: b.dtype, shape: b.shape, checksum: b.checksum })),
    phaseFlips: result.phaseFlips,
    cycles: result.cycles,
    steps: result.steps,
  };
  return `${JSON.stringify(doc, null, 2)}\n`;
}
