// Macros in a whole program's code. The front end's parse text keeps macro invocations
// as written (it analyses kernels as the editor shows them); host harnesses lean on them (`CHECK(call)`,
// `CUDA_CHECK(...)` with `do { … } while (0)`), so for a whole program every invocation of a
// macro (function-like or object-like, `-D` ones too) is replaced by its expansion, on the invocation's first line, with the lines it
// spanned kept as newlines so every later statement keeps its line. `__LINE__` in an expansion is the
// invocation's line and `__FILE__` the program's path, as the compiler would have them.
import { expandTokens, type MacroTable } from '../preprocess/macros';
import { tokenize } from '../preprocess/tokens';
import { invocationSpan } from '../preprocess/macro-uses';
import { CUDA_KEYWORDS } from '../preprocess/specifiers';

const SKIP = /^[ \t]*#(?:[^\n\\]|\\[\s\S])*|"(?:[^"\\\n]|\\.)*"|'(?:[^'\\\n]|\\.)*'|\/\/[^\n]*|\/\*[\s\S]*?\*\/|[A-Za-z_]\w*/gm;

export function expandFunctionMacros(text: string, macros: MacroTable, file: string): string {
  let out = '';
  let last = 0;
  SKIP.lastIndex = 0;
  for (let m = SKIP.exec(text); m; m = SKIP.exec(text)) {
    const name = m[0];
    if (!/^[A-Za-z_]/.test(name)) continue;
    const def = macros.get(name);
    if (!def || PREDEFINED.has(name)) continue;
    const start = m.index;
    const span = def.params ? invocationSpan(text, start, start + name.length) : { close: start + name.length };
    if (span.close === undefined) continue;
    const call = text.slice(start, span.close);
    const expanded = expandTokens(tokenize(call), macros, { noExpand: CUDA_KEYWORDS, limit: 200_000 });
    if (!expanded.complete) continue;
    const line = countLines(text, 0, start) + 1;
    const body = expanded.tokens.map((t) => (t.text === '__LINE__' ? String(line) : t.text === '__FILE__' ? JSON.stringify(file) : t.text)).join(' ');
    out += text.slice(last, start) + body + '\n'.repeat(countLines(call, 0, call.length));
    last = span.close;
    SKIP.lastIndex = span.close;
  }
  return out + text.slice(last);
}

/** Names the compiler itself gives meaning to (the device pass's macros stay as the front end reads them). */
const PREDEFINED = new Set(['__CUDA_ARCH__', '__CUDACC__', '__NVCC__', '__cplusplus', 'NULL', 'true', 'false']);

function countLines(s: string, from: number, to: number): number {
  let n = 0;
  for (let i = from; i < to; i++) if (s.charCodeAt(i) === 10) n++;
  return n;
}
