// Warm-up for faces that launch the simulator: loading the CUDA grammar (WASM) takes a moment, so a
// debug adapter starts it while its client is still initialising rather than on the first launch.
import { loadCudaLanguage } from './lang/cuda/parser';

/** Starts loading the parsers a launch needs; resolves when loaded, never rejects (the launch reports failures). */
export async function preloadParsers(wasmDir?: string): Promise<void> {
  await loadCudaLanguage(wasmDir).catch(() => undefined);
}
