// Croqtile parser: error-tolerant recursive descent over the `__co__` functions of a `.co` file. Host C++ between
// them (including `__cok__ {}` blocks, `__device__` functions, templates, `main`) is skipped with a scanner that
// respects comments, strings, chars and raw strings. Syntax errors are recorded once at the offending token, the
// parser resynchronises at the next `;` or `}` of the statement's level, and parsing goes on; it never throws.
// Accepts the union of the three sync-syntax eras (A: `tma.copy.async<ev>`, `mma.commit`; B: `mma.wait<N>`;
// HEAD: futures, `trigger e after f`, `.at(order++)`, `= ready`).
//
// The parser lives in ./parse/, one module per layer: parser-base (cursor, errors, recovery) < expressions <
// declarations < statements < functions; host-scan finds the functions, token-stream and macro-expander feed them.
import type { CoFile, CoFunction, CoSyntaxError } from './ast';
import { Lexer } from './lexer';
import { preprocess } from './preprocess';
import { CoParser } from './parse/functions';
import { nextMarker, skipBraceBlock } from './parse/host-scan';
import { MacroExpander } from './parse/macro-expander';
import { span } from './parse/parser-base';
import { TokenStream } from './parse/token-stream';

export { parseCoExpression } from './parse/expressions';

/** Parses a whole `.co` file. Never throws; syntax errors are in `errors`. */
export function parseCroqtile(text: string): CoFile {
  const errors: CoSyntaxError[] = [];
  const functions: CoFunction[] = [];
  let defines = new Map<string, string>();
  try {
    const pp = preprocess(text);
    defines = pp.defines;
    for (const e of pp.errors) errors.push(e);
    const src = pp.text;
    let pos = 0;
    for (;;) {
      const m = nextMarker(src, pos);
      if (!m) break;
      if (m.kind === 'cok') {
        pos = skipBraceBlock(src, m.end);
        continue;
      }
      const lexer = pp.functionMacros.size > 0 ? new MacroExpander(src, m.end, pp.functionMacros) : new Lexer(src, m.end);
      const ts = new TokenStream(lexer, m.end, true);
      const parser = new CoParser(src, text, ts, errors);
      const fn = parser.parseFunction(m.start);
      if (fn) functions.push(fn);
      pos = Math.max(ts.drain(), m.end);
    }
  } catch (err) {
    errors.push({ message: `internal parser error: ${(err as Error)?.message ?? String(err)}`, span: span(0, 0) });
  }
  return { functions, defines, errors };
}
