// Standalone entry of the debug adapter: `phaseflip dap` speaks the Debug Adapter Protocol on
// stdin/stdout, for DAP clients other than VS Code (which runs the session inline, see client/).
import { PhaseflipDebugSession } from './session';

/** Starts one debug session on the process's stdin/stdout; the process exits when it disconnects. */
export function runDebugAdapter(input: NodeJS.ReadableStream = process.stdin, output: NodeJS.WritableStream = process.stdout): PhaseflipDebugSession {
  const session = new PhaseflipDebugSession();
  process.on('SIGTERM', () => session.shutdown());
  // A client that goes away without `disconnect` closes stdin: nothing is left to do.
  input.on('end', () => session.shutdown());
  session.start(input, output);
  return session;
}
