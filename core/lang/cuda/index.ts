// CUDA as a Phaseflip language: `.cu`/`.cuh` files, parsed with tree-sitter-cuda, analysed per kernel,
// simulated one launch at a time. The implementation of the `Language` interface (../language.ts)
// that core/languages.ts registers.
import { CPP_KEYWORDS } from '../inline-values';
import type { FrontEnd, Language } from '../language';
import { CudaDocument, type DocumentsShared } from './document';
import { TreeBudget } from './tree-budget';
import { HeaderCache } from './unit';
import { cudaLaunchTemplates } from './launch-template';
import { foldConstant } from './constants';
import { loadCudaLanguage, Parser } from './parser';
import { cudaProgramDebugFactory } from './sim/host-debug-target';
import { prepareCudaSimulation } from './sim';

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
  async loadFrontEnd({ wasmDir }): Promise<FrontEnd> {
    const grammar = await loadCudaLanguage(wasmDir);
    const parser = new Parser();
    parser.setLanguage(grammar);
    // Headers are parsed once per front end and shared by every document that includes them.
    const shared: DocumentsShared = { headers: new HeaderCache(parser), trees: new TreeBudget() };
    return {
      openDocument: (text, context) => new CudaDocument(parser, text, context, shared),
      cacheSizes: () => ({ documents: shared.open ?? 0, headers: shared.headers?.size ?? 0, trees: shared.trees?.size ?? 0 }),
      evaluateConstant: (expression, constants = new Map()) => evaluateConstant(parser, expression, constants),
    };
  },
  launchTemplates: cudaLaunchTemplates,
  prepareSimulation: prepareCudaSimulation,
  debugProgram: cudaProgramDebugFactory,
};

/**
 * Folds `expression` with the front end's constant folder (the one that sizes barrier arrays and
 * launch bounds), parsed as the initialiser of a declaration so that tree-sitter reads it as C++.
 */
function evaluateConstant(parser: Parser, expression: string, constants: ReadonlyMap<string, number>): number | undefined {
  try {
    // The newline keeps a trailing `//` comment in the expression from swallowing the parenthesis.
    const tree = parser.parse(`long long phaseflip_constant = (${expression}\n);`);
    if (!tree) return undefined;
    try {
      const root = tree.rootNode;
      const decl = root.namedChild(0);
      if (root.hasError || root.namedChildCount !== 1 || decl?.type !== 'declaration') return undefined;
      const value = decl.namedChildren.find((n) => n?.type === 'init_declarator')?.childForFieldName('value');
      return value ? foldConstant(value, constants) : undefined;
    } finally {
      tree.delete();
    }
  } catch {
    return undefined;
  }
}
