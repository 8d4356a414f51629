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
import { type FunctionMacro, type PreprocessResult, preprocess } from './preprocess';
import { CoParser } from './parse/functions';
import { nextMarker, skipBraceBlock } from './parse/host-scan';
import { MacroExpander } from './parse/macro-expander';
import { recordError, span } from './parse/parser-base';
import { TokenStream } from './parse/token-stream';

export { parseCoExpression } from './parse/expressions';

/** The parse of one `__co__` function: where it starts and where host scanning resumes, and its own errors. */
export interface ParsedFunction {
  start: number;
  end: number;
  fn: CoFunction | undefined;
  errors: CoSyntaxError[];
}

/**
 * Parses of `__co__` functions kept between calls (incremental analysis, ./parse-cache.ts): a function whose text
 * is unchanged is taken from it, moved to where it now starts, instead of being parsed again.
 */
export interface FunctionParseCache {
  /** Called once per file before any `reuse`, with the function-like macros that tokens expand through. */
  startFile(functionMacros: ReadonlyMap<string, FunctionMacro>): void;
  reuse(src: string, text: string, start: number): ParsedFunction | undefined;
  remember(src: string, text: string, parsed: ParsedFunction): void;
}

function parseFunctionAt(pp: PreprocessResult, text: string, start: number, afterMarker: number): ParsedFunction {
  const src = pp.text;
  const errors: CoSyntaxError[] = [];
  const lexer = pp.functionMacros.size > 0 ? new MacroExpander(src, afterMarker, pp.functionMacros) : new Lexer(src, afterMarker);
  const ts = new TokenStream(lexer, afterMarker, true);
  const fn = new CoParser(src, text, ts, errors).parseFunction(start);
  return { start, end: Math.max(ts.drain(), afterMarker), fn, errors };
}

/** Parses a whole `.co` file. Never throws; syntax errors are in `errors`. */
export function parseCroqtile(text: string, cache?: FunctionParseCache): CoFile {
  const errors: CoSyntaxError[] = [];
  const functions: CoFunction[] = [];
  let defines = new Map<string, string>();
  try {
    const pp = preprocess(text);
    defines = pp.defines;
    for (const e of pp.errors) errors.push(e);
    const src = pp.text;
    cache?.startFile(pp.functionMacros);
    let pos = 0;
    for (;;) {
      const m = nextMarker(src, pos);
      if (!m) break;
      if (m.kind === 'cok') {
        pos = skipBraceBlock(src, m.end);
        continue;
      }
      let parsed = cache?.reuse(src, text, m.start);
      if (!parsed) {
        parsed = parseFunctionAt(pp, text, m.start, m.end);
        cache?.remember(src, text, parsed);
      }
      if (parsed.fn) functions.push(parsed.fn);
      // Each function is parsed with errors of its own (so that a kept parse carries exactly its errors); the
      // file's cap and de-duplication apply as they are merged.
      for (const e of parsed.errors) recordError(errors, e);
      pos = parsed.end;
    }
  } catch (err) {
    errors.push({ message: `internal parser error: ${(err as Error)?.message ?? String(err)}`, span: span(0, 0) });
  }
  return { functions, defines, errors };
}
