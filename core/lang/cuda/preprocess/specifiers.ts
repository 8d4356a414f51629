// Token sequences made only of declaration specifiers, attributes and pragmas (what `CUTE_HOST_DEVICE`,
// `CUTLASS_DEVICE` or `CUTLASS_PRAGMA_UNROLL` expand to), and the CUDA keywords that are never macros here.
import type { Token } from './tokens';

export type SpecifierKind = 'specifier' | 'kernel-specifier' | 'other';

/** CUDA keywords: never expanded while classifying (a toolkit header may define them) and never blanked. */
export const CUDA_KEYWORDS: ReadonlySet<string> = new Set([
  '__device__', '__host__', '__global__', '__forceinline__', '__noinline__', '__inline__', '__shared__', '__constant__',
  '__managed__', '__launch_bounds__', '__cluster_dims__', '__grid_constant__', '__restrict__', '__align__',
]);

const SPECIFIER_WORDS = new Set([
  '__device__', '__host__', '__global__', '__forceinline__', '__noinline__', '__inline__', '__inline', '__forceinline',
  'inline', 'static', 'extern', 'constexpr', 'consteval', 'virtual', 'explicit',
  // A parameter qualifier (CUTLASS_GRID_CONSTANT): dropping it changes nothing the analysis reads.
  '__grid_constant__',
]);

// Attribute-like words taking one parenthesised operand.
const ATTRIBUTE_CALLS = new Set(['__attribute__', '__attribute', '__declspec', '_Pragma', '__pragma']);

/**
 * The kind of a token sequence: only specifiers/attributes/pragmas (with or without `__global__`) or anything
 * else. With `anyIdentifier`, every identifier passes, with or without a parenthesised operand (a macro body whose
 * names may expand to specifiers).
 */
export function classifyTokens(tokens: readonly Token[], anyIdentifier = false): SpecifierKind {
  let global = false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.kind === 'ident' && (SPECIFIER_WORDS.has(t.text) || (anyIdentifier && !ATTRIBUTE_CALLS.has(t.text) && tokens[i + 1]?.text !== '('))) {
      if (t.text === '__global__') global = true;
      continue;
    }
    // With `anyIdentifier`, a name followed by parentheses may be a pragma or attribute macro's invocation
    // (`_CCCL_PRAGMA(nv_exec_check_disable)`, which becomes `_Pragma("...")`).
    if (t.kind === 'ident' && (ATTRIBUTE_CALLS.has(t.text) || anyIdentifier) && tokens[i + 1]?.text === '(') {
      const close = balancedEnd(tokens, i + 1, '(', ')');
      if (close < 0) return 'other';
      i = close;
      continue;
    }
    if (t.text === '[' && tokens[i + 1]?.text === '[') {
      const close = balancedEnd(tokens, i, '[', ']');
      if (close < 0) return 'other';
      i = close;
      continue;
    }
    // `#pragma unroll` in an object-like macro's body (CUTE_UNROLL, CUTLASS_PRAGMA_UNROLL under nvcc) is a
    // pragma: the rest of the body is its operand.
    if (t.text === '#' && tokens[i + 1]?.text === 'pragma') break;
    // `extern "C"` is a linkage specification, a specifier too.
    if (t.kind === 'string' && tokens[i - 1]?.text === 'extern') continue;
    return 'other';
  }
  return global ? 'kernel-specifier' : 'specifier';
}

function balancedEnd(tokens: readonly Token[], open: number, o: string, c: string): number {
  let depth = 0;
  for (let k = open; k < tokens.length; k++) {
    if (tokens[k].text === o) depth++;
    else if (tokens[k].text === c && --depth === 0) return k;
  }
  return -1;
}
