// Where the editor should show variable values inline while a debug session is stopped: the
// identifiers of the stopped function from its first line down to the stopped line. Lexical on
// purpose (both languages, any half-typed file): a name the debugger's Locals scope does not know is
// simply not shown, so over-reporting costs nothing while a parse failure would cost every value.
import type { LanguageId } from '../api';

export interface InlineValueName {
  /** Zero-based line and UTF-16 columns of one occurrence. */
  line: number;
  start: number;
  end: number;
  name: string;
}

/** How far above the stop a function header is looked for (and values shown, when none is found). */
const MAX_LINES_BACK = 200;

const FUNCTION_START: Record<LanguageId, RegExp> = {
  cuda: /\b__global__\b|\b__device__\b[^;]*\(/,
  croqtile: /\b__co__\b|\b__cok__\b/,
};

/** Words that are never variables (keywords, types, qualifiers, CUDA built-in objects). */
const NOT_VARIABLES = new Set(
  `auto bool break case char class const constexpr continue default delete do double else enum extern false float for goto if inline int long namespace new nullptr operator private protected public register return short signed sizeof static struct switch template this true typedef typename union unsigned using virtual void volatile while
  __global__ __device__ __host__ __shared__ __constant__ __restrict__ __forceinline__ __noinline__ __launch_bounds__ asm
  int8_t int16_t int32_t int64_t uint8_t uint16_t uint32_t uint64_t size_t half __half bfloat16 __nv_bfloat16 float2 float4 int2 int4 uint2 uint4 dim3
  threadIdx blockIdx blockDim gridDim warpSize cuda std ptx cg
  __co__ __cok__ parallel foreach with in by inthreads async wait trigger event events ready after select dma tma mma copy println print
  f16 bf16 f32 f64 s8 s16 s32 s64 u8 u16 u32 u64 i8 i16 i32 i64 block group thread local shared global span chunkat at`.split(/\s+/),
);

/**
 * Identifier occurrences from the start of the function enclosing `stopLine` (or MAX_LINES_BACK
 * lines up) to `stopLine`, clipped to the visible `[fromLine, toLine]`. Comments, strings, calls
 * (`f(`), member names (`.x`, `->x`, `::x`) and keywords are skipped.
 */
export function inlineValueNames(text: string, language: LanguageId, stopLine: number, fromLine = 0, toLine = stopLine): InlineValueName[] {
  const lines = text.split(/\r?\n/);
  const last = Math.min(stopLine, toLine, lines.length - 1);
  if (last < 0) return [];
  let first = Math.max(0, stopLine - MAX_LINES_BACK);
  for (let l = Math.min(stopLine, lines.length - 1); l >= first; l--) {
    if (FUNCTION_START[language].test(lines[l])) {
      first = l;
      break;
    }
  }
  first = Math.max(first, fromLine);
  const out: InlineValueName[] = [];
  let inBlockComment = false;
  for (let l = first; l <= last; l++) {
    const line = lines[l];
    let i = 0;
    while (i < line.length) {
      if (inBlockComment) {
        const end = line.indexOf('*/', i);
        if (end < 0) break;
        inBlockComment = false;
        i = end + 2;
        continue;
      }
      const c = line[i];
      if (c === '/' && line[i + 1] === '/') break;
      if (c === '#' && line.slice(0, i).trim() === '') break;
      if (c === '/' && line[i + 1] === '*') {
        inBlockComment = true;
        i += 2;
        continue;
      }
      if (c === '"' || c === "'") {
        i = skipQuoted(line, i);
        continue;
      }
      if (/[A-Za-z_]/.test(c)) {
        let j = i + 1;
        while (j < line.length && /\w/.test(line[j])) j++;
        const name = line.slice(i, j);
        if (isVariableUse(line, i, j, name)) out.push({ line: l, start: i, end: j, name });
        i = j;
        continue;
      }
      if (/\d/.test(c)) {
        // Numbers with suffixes (`1u`, `0x1F`, `1e-3f`) are not identifiers.
        while (i < line.length && /[\w.]/.test(line[i])) i++;
        continue;
      }
      i++;
    }
  }
  return out;
}

function skipQuoted(line: string, at: number): number {
  const quote = line[at];
  let i = at + 1;
  while (i < line.length && line[i] !== quote) i += line[i] === '\\' ? 2 : 1;
  return i + 1;
}

function isVariableUse(line: string, start: number, end: number, name: string): boolean {
  if (NOT_VARIABLES.has(name)) return false;
  const before = line.slice(0, start).trimEnd();
  if (before.endsWith('.') || before.endsWith('->') || before.endsWith('::')) return false;
  const after = line.slice(end).trimStart();
  // Calls and template names; `x (` in a declaration like `int f (` is a function too.
  if (after.startsWith('(') || (after.startsWith('<') && /^<\s*[\w:]+\s*(,|>)/.test(after) && !/^<\s*\d/.test(after))) return false;
  // A label or a namespace/type qualifier.
  if (after.startsWith('::')) return false;
  return true;
}
