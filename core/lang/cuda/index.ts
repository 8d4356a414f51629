// CUDA as a Phaseflip language: `.cu`/`.cuh` files, parsed with tree-sitter-cuda, analysed per kernel,
// simulated one launch at a time. The implementation of the `Language` interface (../language.ts)
// that core/languages.ts registers.
import { CPP_KEYWORDS } from '../inline-values';
import type { Language } from '../language';
import { CUDA_DEBUG_THREADS } from './sim/debug-threads';

/** CUDA's own reserved words and the built-in objects inline values never show. */
const CUDA_KEYWORDS = `__global__ __device__ __host__ __shared__ __constant__ __restrict__ __forceinline__ __noinline__ __launch_bounds__ asm
  int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t half __half bfloat16 __nv_bfloat16 float2 float4 int2 int4 uint2 uint4 dim3
  threadIdx blockIdx blockDim gridDim warpSize cuda std ptx cg`.split(/\s+/);

/**
 * Device code in a header: CUDA's function qualifiers (also through the libraries' macros), shared
 * memory, or a barrier API. A host-only header holds none of these and is not linted from a directory.
 */
const DEVICE_CODE = /\b(?:__global__|__device__|__shared__|(?:CUTLASS|CUTE)(?:_HOST)?_DEVICE)\b|\bmbarrier|\bcuda::(?:std::)?barrier\b/;

export const cuda: Language = {
  id: 'cuda',
  extensions: ['.cu', '.cuh'],
  // Where CUTLASS, CCCL, DeepGEMM and ThunderKittens keep their barrier code.
  headerExtensions: ['.h', '.hpp', '.hh', '.hxx', '.inl', '.ipp'],
  holdsCode: (text) => DEVICE_CODE.test(text),
  editorLanguageIds: ['cuda-cpp', 'cuda'],
  lineComment: '//',
  inlineValues: {
    functionStart: /\b__global__\b|\b__device__\b[^;]*\(/,
    keywords: new Set([...CPP_KEYWORDS, ...CUDA_KEYWORDS]),
  },
  // The front end, launch templates, simulator and debugger are imported on first use: a process initialises
  // only what it runs (`phaseflip sim x.co` nothing of CUDA's, `phaseflip lint` not its simulator).
  loadFrontEnd: async (options) => {
    // The grammar compiles off the main thread: start it before the front end's modules initialise (loadCudaFrontEnd
    // awaits the same promise, and reports its failure).
    (await import('./parser')).loadCudaLanguage(options.wasmDir).catch(() => undefined);
    return (await import('./load-front-end')).loadCudaFrontEnd(options);
  },
  launchTemplates: async (text, file, wasmDir) => (await import('./launch-template')).cudaLaunchTemplates(text, file, wasmDir),
  prepareSimulation: async (req) => (await import('./sim')).prepareCudaSimulation(req),
  debugProgram: (req) => ({ ...CUDA_DEBUG_THREADS, create: async (hooks) => (await import('./sim/host-debug-target')).cudaProgramDebugFactory(req).create(hooks) }),
  preloadDebugger: async () => void (await import('./sim/host-debug-target')),
};
