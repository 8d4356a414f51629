// The Croqtile parser's foundation: the token cursor, error reporting (one error per offending token, capped) and
// error recovery (resynchronising at the statement level's next `;` or `}`). Expressions, declarations,
// statements and functions extend it, one module each.
import type { CoSyntaxError, Span } from '../ast';
import { TYPE_WORDS, type Tok, type Token } from '../lexer';
import type { TokenStream } from './token-stream';

/**
 * Nesting limit for statements plus expressions (operator and postfix chains included); deeper input gets one
 * "nesting too deep" error. It bounds the depth of every syntax tree, so walks over trees never overflow the stack.
 */
const MAX_DEPTH = 200;
/** At most this many errors are recorded per file. */
const MAX_ERRORS = 200;

export class SyntaxErr {
  constructor(
    readonly message: string,
    readonly span: Span,
  ) {}
}

export const TYPE_KEYWORDS = new Set(TYPE_WORDS);
export const STORAGE = new Set(['shared', 'local', 'global']);

// Token kinds as local constants: read on every step, and a const enum imported under isolatedModules would be a
// property read on the lexer module (slow when the module is not bundled, e.g. under the test runner).
const T_IDENT: Tok = 0;
const T_PUNCT: Tok = 3;
const T_EOF: Tok = 4;

export function describe(t: Token): string {
  if (t.kind === T_EOF) return 'end of input';
  const v = t.value.length > 40 ? t.value.slice(0, 37) + '...' : t.value;
  return `'${v}'`;
}

/** Records a syntax error unless the file has MAX_ERRORS already or it repeats the last one at the same place. */
export function recordError(errors: CoSyntaxError[], e: CoSyntaxError): void {
  if (errors.length >= MAX_ERRORS) return;
  const last = errors[errors.length - 1];
  if (last && last.span.start === e.span.start && last.message === e.message) return;
  errors.push(e);
}

export function span(start: number, end: number): Span {
  return { start, end };
}

export class ParserBase {
  protected depth = 0;
  /** While parsing template arguments, a bare `>` ends the expression instead of comparing. */
  protected noGt = false;
  /** While parsing `|x|` (sizeof), a bare `|` ends the expression. */
  protected noPipe = false;

  constructor(
    /** Preprocessed text (same offsets as the original). */
    protected readonly src: string,
    /** Original text, for verbatim slices. */
    protected readonly orig: string,
    protected readonly ts: TokenStream,
    protected readonly errors: CoSyntaxError[],
  ) {
    this.tok = ts.peek(0);
  }

  // -- token helpers ------------------------------------------------------------------------------------------

  /** The current token (kept in a field: read on every step). */
  protected tok: Token;

  protected la(k: number): Token {
    return this.ts.peek(k);
  }

  protected isP(v: string, t: Token = this.tok): boolean {
    return t.kind === T_PUNCT && t.value === v;
  }

  protected isI(v: string, t: Token = this.tok): boolean {
    return t.kind === T_IDENT && t.value === v;
  }

  protected atEof(): boolean {
    return this.tok.kind === T_EOF;
  }

  protected next(): Token {
    const t = this.ts.next();
    this.tok = this.ts.peek(0);
    return t;
  }

  protected replaceCurrent(t: Token): void {
    this.ts.replaceCurrent(t);
    this.tok = t;
  }

  protected eatP(v: string): boolean {
    if (this.isP(v)) {
      this.next();
      return true;
    }
    return false;
  }

  protected prevEnd(): number {
    return this.ts.prevEnd;
  }

  protected fail(message: string, t: Token = this.tok): never {
    throw new SyntaxErr(message, span(t.start, Math.max(t.end, t.start)));
  }

  protected unexpected(context?: string): never {
    this.fail(`unexpected token ${describe(this.tok)}${context ? ' ' + context : ''}`);
  }

  protected expectP(v: string, context: string | (() => string)): Token {
    if (this.isP(v)) return this.next();
    this.fail(`expected '${v}' ${typeof context === 'string' ? context : context()}`);
  }

  protected expectIdent(context: string | (() => string)): Token {
    if (this.tok.kind === T_IDENT) return this.next();
    this.fail(`expected ${typeof context === 'string' ? context : context()} but found ${describe(this.tok)}`);
  }

  /**
   * `;` ending a statement. When it is missing and the next token starts a new line, the error is recorded and
   * parsing continues as if it were there (so the next statement is not lost); otherwise the caller resyncs.
   */
  protected expectSemi(context: string | (() => string)): void {
    if (this.isP(';')) {
      this.next();
      return;
    }
    const t = this.tok;
    const err = new SyntaxErr(`expected ';' ${typeof context === 'string' ? context : context()}`, span(t.start, Math.max(t.end, t.start)));
    if (t.kind !== T_EOF && !this.isP('}') && this.ts.consumed > 0 && /[\n\r]/.test(this.src.slice(this.prevEnd(), t.start))) {
      this.report(err);
      return;
    }
    if (this.isP('}') || t.kind === T_EOF) {
      // `{ wait e }`: the block closes; nothing to skip.
      this.report(err);
      return;
    }
    throw err;
  }

  report(e: SyntaxErr): void {
    recordError(this.errors, { message: e.message, span: e.span });
  }

  protected enter(): void {
    if (++this.depth > MAX_DEPTH) {
      this.depth--;
      this.fail('nesting too deep');
    }
  }

  protected leave(): void {
    this.depth--;
  }

  /** Skips to a synchronisation point: after the next `;` of this level, after a `{...}` block, or before `}`. */
  protected sync(): void {
    let depth = 0;
    while (!this.atEof()) {
      const t = this.tok;
      if (t.kind === T_PUNCT) {
        const v = t.value;
        if (v === '{' || v === '(' || v === '[') depth++;
        else if (v === ')' || v === ']') {
          if (depth > 0) depth--;
        } else if (v === '}') {
          if (depth === 0) return; // the caller's block ends here
          depth--;
          this.next();
          if (depth === 0) return;
          continue;
        } else if (v === ';' && depth === 0) {
          this.next();
          return;
        }
      }
      this.next();
    }
  }

  protected text(start: number, end: number): string {
    return this.orig.slice(start, end);
  }

  protected normText(start: number, end: number): string {
    return this.orig.slice(start, end).replace(/\s+/g, ' ').trim();
  }
}
