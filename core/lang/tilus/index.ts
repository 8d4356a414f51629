// tilus (NVIDIA's Python DSL for GPU kernels) as a Phaseflip language: Python files that import tilus,
// parsed with tree-sitter-python and lowered per `tilus.Script` to the kernel IR, for lint and hovers.
// Simulation is not supported. The implementation of the `Language` interface (../language.ts) that
// core/languages.ts registers.
import type { Language } from '../language';
import { SimError } from '../../sim/machine-types';
import { importsTilus } from './tilus-import';

/** Python keywords and tilus's dtypes, which inline values never show. */
const TILUS_KEYWORDS = `False None True and as assert async await break class continue def del elif else except finally for from global if import in is lambda nonlocal not or pass raise return try while with yield self
  int32 uint32 int64 uint64 float16 bfloat16 float32 int8 uint8`.split(/\s+/);

const NOT_SIMULATED = 'not supported by the simulator: tilus scripts (Python) are linted only; simulate the CUDA a tilus kernel compiles to';

function notSimulated(): never {
  throw new SimError(NOT_SIMULATED, undefined, 'unsupported');
}

export const tilus: Language = {
  id: 'tilus',
  // Not every Python file is a tilus file: `.py` is a "header" extension, linted in a directory walk
  // only when it imports tilus (holdsCode).
  extensions: [],
  headerExtensions: ['.py'],
  holdsCode: importsTilus,
  codeRequired: 'it does not import tilus',
  editorLanguageIds: ['python'],
  lineComment: '#',
  inlineValues: {
    functionStart: /^\s*def\s+__call__\b/,
    keywords: new Set(TILUS_KEYWORDS),
  },
  // Imported on first use: a process that lints no Python file never loads the Python grammar.
  loadFrontEnd: async (options) => {
    // The grammar compiles off the main thread: start it before the front end's modules initialise.
    (await import('./parser')).loadPythonLanguage(options.wasmDir).catch(() => undefined);
    return (await import('./front-end')).loadTilusFrontEnd(options);
  },
  launchTemplates: async () => [],
  prepareSimulation: async () => notSimulated(),
  debugProgram: () => ({
    language: 'tilus',
    lanes: 32,
    futures: false,
    checkLane: () => undefined,
    create: async () => notSimulated(),
  }),
  // Nothing to load: tilus is not simulated.
  preloadDebugger: async () => undefined,
};
