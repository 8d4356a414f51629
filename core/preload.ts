// Warm-up for faces that launch the simulator: loading a front end (the CUDA grammar's WASM) takes a
// moment, and each language imports its simulator and debugger on first use, so a debug adapter starts both
// while its client is still initialising rather than on the first launch.
import { LANGUAGES } from './languages';

/** Starts loading every language's parser, simulator and debugger; resolves when loaded, never rejects (the launch reports failures). */
export async function preloadLanguages(wasmDir?: string): Promise<void> {
  await Promise.all(LANGUAGES.flatMap((l) => [l.loadFrontEnd({ wasmDir }).catch(() => undefined), l.preloadDebugger().catch(() => undefined)]));
}
