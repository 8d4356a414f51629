// Warm-up for faces that launch the simulator: loading a front end (the CUDA grammar's WASM) takes a
// moment, so a debug adapter starts it while its client is still initialising rather than on the first
// launch.
import { LANGUAGES } from './languages';

/** Starts loading every language's parser; resolves when loaded, never rejects (the launch reports failures). */
export async function preloadParsers(wasmDir?: string): Promise<void> {
  await Promise.all(LANGUAGES.map((l) => l.loadFrontEnd({ wasmDir }).catch(() => undefined)));
}
