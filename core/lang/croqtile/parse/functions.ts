// A whole `__co__` function: return type, parameters (storage, type, symbolic dimensions) and body; the parser
// class the entry point instantiates.
import type { CoExpr, CoFunction, CoParam, CoStmt, Span } from '../ast';
import type { Tok } from '../lexer';
import { STORAGE, SyntaxErr, TYPE_KEYWORDS, describe } from './parser-base';
import { StatementParser } from './statements';

// Token kinds as local constants: read on every step, and a const enum imported under isolatedModules would be a
// property read on the lexer module (slow when the module is not bundled, e.g. under the test runner).
const T_IDENT: Tok = 0;

// Local rather than imported from ./parser-base: called for every node, and an imported function is a property read
// per call when the modules are not bundled (under the test runner).
function span(start: number, end: number): Span {
  return { start, end };
}

export class CoParser extends StatementParser {
  // -- functions ------------------------------------------------------------------------------------------------

  parseFunction(coStart: number): CoFunction | undefined {
    let name = '';
    let nameSpan = span(coStart, coStart);
    let returnType = '';
    const params: CoParam[] = [];
    const body: CoStmt[] = [];
    let headerOk = false;
    try {
      const rtStart = this.tok.start;
      this.parseReturnType();
      returnType = this.normText(rtStart, this.prevEnd());
      const nt = this.expectIdent('function name');
      name = nt.value;
      nameSpan = span(nt.start, nt.end);
      this.expectP('(', 'after function name');
      if (!this.isP(')')) {
        do params.push(this.parseParam());
        while (this.eatP(','));
      }
      this.expectP(')', 'after parameters');
      headerOk = true;
      if (this.eatP(';') || this.atEof()) {
        // Prototype `__co__ void f(...);`
        return { name, returnType, params, body, span: span(coStart, this.prevEnd()), nameSpan };
      }
      this.expectP('{', 'to open the function body');
    } catch (e) {
      if (!(e instanceof SyntaxErr)) throw e;
      this.report(e);
      // Resume at the body if there is one.
      while (!this.atEof() && !this.isP('{')) this.next();
      if (!this.eatP('{')) return headerOk ? { name, returnType, params, body, span: span(coStart, this.prevEnd()), nameSpan } : undefined;
    }
    this.parseStatements(body, true);
    if (this.isP('}')) this.next();
    else this.report(new SyntaxErr("expected '}' at the end of the __co__ function", span(this.tok.start, this.tok.end)));
    if (!headerOk && !name) return undefined;
    return { name, returnType, params, body, span: span(coStart, this.prevEnd()), nameSpan };
  }

  protected parseReturnType(): void {
    const t = this.tok;
    if (t.kind !== T_IDENT) this.fail(`expected return type but found ${describe(t)}`);
    if (t.value === 'void' || t.value === 'auto' || t.value === 'stream') {
      this.next();
      return;
    }
    if (TYPE_KEYWORDS.has(t.value)) {
      this.next();
      if (this.isP('[')) this.skipBalanced();
      else if (this.isI('mdspan')) {
        this.next();
        if (this.isP('<')) this.parseAngleTexts();
        if (this.isP('[')) this.skipBalanced();
      }
      return;
    }
    this.fail(`expected return type but found ${describe(t)}`);
  }

  protected parseParam(): CoParam {
    const start = this.tok.start;
    let storage = '';
    if (this.tok.kind === T_IDENT && STORAGE.has(this.tok.value)) storage = this.next().value;
    const tt = this.tok;
    if (tt.kind !== T_IDENT || !(TYPE_KEYWORDS.has(tt.value) || tt.value === 'stream' || tt.value === 'auto')) {
      this.fail(`expected parameter type but found ${describe(tt)}`);
    }
    this.next();
    const type = storage ? `${storage} ${tt.value}` : tt.value;
    let dims: CoExpr[] = [];
    if (this.isP('[')) dims = this.parseParamDims();
    else if (this.isI('mdspan')) {
      this.next();
      if (this.isP('<')) this.parseAngleTexts();
      if (this.isP('[')) dims = this.parseParamDims();
    }
    this.eatP('&');
    let name = '';
    if (this.tok.kind === T_IDENT) name = this.next().value;
    return { name, type, dims, span: span(start, this.prevEnd()) };
  }

  /** `[M, K]`, `[[M, K]]`, `[?, 16]`, `[??, N]`. */
  protected parseParamDims(): CoExpr[] {
    this.expectP('[', 'to open dimensions');
    const double = this.isP('[');
    if (double) this.next();
    const dims: CoExpr[] = [];
    if (!this.isP(']')) {
      do {
        const t = this.tok;
        if (this.isP('?') || this.isP('??')) {
          this.next();
          dims.push({ kind: 'id', name: t.value, span: span(t.start, t.end) });
        } else dims.push(this.parseExpr());
      } while (this.eatP(','));
    }
    this.expectP(']', 'to close dimensions');
    if (double) this.expectP(']', 'to close dimensions');
    return dims;
  }
}
