// Croqtile expressions: precedence climbing over the compiler's operator table, postfix chains (`.at`, `.chunkat`,
// indexing, calls with template arguments), `dma`/`tma` copies and `mma` operations; plus `parseCoExpression`,
// the one-expression entry point the constant evaluator uses for `#define` values.
import type { CoExpr, Span } from '../ast';
import { KW_RESERVED, Lexer, numberValue, type Tok, type Token } from '../lexer';
import { ParserBase, SyntaxErr, TYPE_KEYWORDS, describe } from './parser-base';
import { TokenStream } from './token-stream';


/** Binary operators and their binding power (higher binds tighter), after the compiler's bison precedences. */
const BINARY = new Map<string, number>([
  ['||', 2], ['&&', 3], ['==', 4], ['!=', 4], ['<', 5], ['>', 5], ['<=', 5], ['>=', 5], ['<<', 6], ['>>', 6],
  ['+', 7], ['-', 7], ['*', 8], ['/', 8], ['%', 8], ['#+', 9], ['#-', 9], ['#*', 10], ['#/', 10], ['#%', 10],
  ['&', 11], ['^', 11], ['|', 11], ['#', 12],
]);
/** Tokens allowed between `<` and `>` of a speculative template argument list (`f<T, 4>(...)`). */
const TEMPLATE_PUNCT = new Set([',', '.', '::', '+', '-', '*', '/', '%', '#', '(', ')', '[', ']', '{', '}', '<', '>', '>>', '?', ':', '??', '#+', '#-', '#*', '#/', '#%']);

// Token kinds as local constants: read on every step, and a const enum imported under isolatedModules would be a
// property read on the lexer module (slow when the module is not bundled, e.g. under the test runner).
const T_IDENT: Tok = 0;
const T_NUM: Tok = 1;
const T_STR: Tok = 2;
const T_PUNCT: Tok = 3;
const T_EOF: Tok = 4;
const F_RESERVED = KW_RESERVED;

// Local rather than imported from ./parser-base: called for every node, and an imported function is a property read
// per call when the modules are not bundled (under the test runner).
function span(start: number, end: number): Span {
  return { start, end };
}

export class ExpressionParser extends ParserBase {
  // -- expressions ----------------------------------------------------------------------------------------------

  /** The whole token stream as one expression, or undefined. */
  parseWholeExpression(): CoExpr | undefined {
    try {
      const e = this.parseExpr();
      return this.atEof() ? e : undefined;
    } catch (e) {
      if (e instanceof SyntaxErr) return undefined;
      throw e;
    }
  }

  parseExpr(): CoExpr {
    this.enter();
    try {
      const test = this.parseBinary(1);
      if (!this.isP('?')) return test;
      this.next();
      const saved = [this.noGt, this.noPipe] as const;
      this.noGt = false;
      this.noPipe = false;
      let then: CoExpr;
      try {
        then = this.parseExpr();
      } finally {
        [this.noGt, this.noPipe] = saved;
      }
      this.expectP(':', "in the conditional expression ('?' without ':')");
      const els = this.parseExpr();
      return { kind: 'cond', test, then, else: els, span: span(test.span.start, els.span.end) };
    } finally {
      this.leave();
    }
  }

  protected parseExprNoGt(): CoExpr {
    const saved = this.noGt;
    this.noGt = true;
    try {
      return this.parseExpr();
    } finally {
      this.noGt = saved;
    }
  }

  protected parseExprList(): CoExpr[] {
    const out: CoExpr[] = [this.parseExpr()];
    while (this.eatP(',')) out.push(this.parseExpr());
    return out;
  }

  protected parseBinary(minPrec: number): CoExpr {
    let left = this.parseUnary();
    // Each operator of a chain nests the tree one level deeper (`a + b + c` is `(a + b) + c`): the chain counts
    // against the nesting limit like recursion does, so that no later walk over the tree meets unbounded depth.
    let levels = 0;
    try {
      for (;;) {
        const t = this.tok;
        if (t.kind !== T_PUNCT) return left;
        const op = t.value;
        const prec = BINARY.get(op);
        if (prec === undefined || prec < minPrec) return left;
        if (this.noGt && (op === '>' || op === '>>')) return left;
        if (this.noPipe && op === '|') return left;
        this.enter();
        levels++;
        this.next();
        const right = this.parseBinary(prec + 1);
        left = { kind: 'binary', op, left, right, span: span(left.span.start, right.span.end) };
      }
    } finally {
      for (; levels > 0; levels--) this.leave();
    }
  }

  protected parseUnary(): CoExpr {
    const t = this.tok;
    if (t.kind === T_PUNCT) {
      switch (t.value) {
        case '-':
        case '+':
        case '!':
        case '~':
        case '&':
        case '*':
        case '#':
        case '++':
        case '--': {
          this.next();
          this.enter();
          try {
            const arg = this.parseUnary();
            return { kind: 'unary', op: t.value, arg, span: span(t.start, arg.span.end) };
          } finally {
            this.leave();
          }
        }
        case '|': {
          // `|f32|`, `|lhs.span|`: size in bytes / elements.
          this.next();
          const saved = this.noPipe;
          this.noPipe = true;
          let arg: CoExpr;
          try {
            arg = this.parseBinary(1);
          } finally {
            this.noPipe = saved;
          }
          this.expectP('|', "to close '|...|'");
          return { kind: 'unary', op: 'sizeof', arg, span: span(t.start, this.prevEnd()) };
        }
      }
    }
    return this.parsePostfix(this.parsePrimary());
  }

  protected parsePostfix(e: CoExpr): CoExpr {
    // A postfix chain nests like a binary chain (see parseBinary): each link counts against the nesting limit.
    let levels = 0;
    try {
      return this.parsePostfixChain(e, () => {
        this.enter();
        levels++;
      });
    } finally {
      for (; levels > 0; levels--) this.leave();
    }
  }

  private parsePostfixChain(e: CoExpr, deeper: () => void): CoExpr {
    for (;;) {
      const t = this.tok;
      if (t.kind !== T_PUNCT) return e;
      if (t.value === '.' || t.value === '[' || t.value === '(' || t.value === '++' || t.value === '--') deeper();
      if (t.value === '.') {
        const nt = this.la(1);
        if (nt.kind !== T_IDENT) this.fail(`expected a member name after '.' but found ${describe(nt)}`, nt);
        this.next();
        this.next();
        let typeArgs: string[] | undefined;
        if (this.isP('<') && this.templateAhead(true)) typeArgs = this.parseAngleTexts();
        if (this.isP('(')) {
          const args = this.parseArgs(true);
          e = typeArgs
            ? { kind: 'method', object: e, name: nt.value, typeArgs, args, span: span(e.span.start, this.prevEnd()) }
            : { kind: 'method', object: e, name: nt.value, args, span: span(e.span.start, this.prevEnd()) };
        } else if (typeArgs) {
          e = { kind: 'method', object: e, name: nt.value, typeArgs, args: [], span: span(e.span.start, this.prevEnd()) };
        } else {
          e = { kind: 'member', object: e, name: nt.value, span: span(e.span.start, nt.end) };
        }
        continue;
      }
      if (t.value === '[') {
        // `a[i]`, `a[i, j]`, `a[i][j]`; but not `[[` (an attribute) after an expression.
        if (this.isP('[', this.la(1)) && !this.la(1).spaced && this.looksLikeAttribute()) return e;
        const indices = this.parseBracketList('[', ']');
        e = { kind: 'index', object: e, indices, span: span(e.span.start, this.prevEnd()) };
        continue;
      }
      if (t.value === '(' && e.kind !== 'id') {
        // `x.span(0)` is handled as a method; `(f)(x)` / `a[i](j)`: keep as a call on the text.
        const args = this.parseArgs(false);
        e = { kind: 'call', callee: this.normText(e.span.start, e.span.end), args, span: span(e.span.start, this.prevEnd()) };
        continue;
      }
      if (t.value === '++' || t.value === '--') {
        this.next();
        e = { kind: 'unary', op: `post${t.value}`, arg: e, span: span(e.span.start, t.end) };
        continue;
      }
      return e;
    }
  }

  protected looksLikeAttribute(): boolean {
    const t = this.la(2);
    return t.kind === T_IDENT && (t.value === 'launch_bounds' || t.value === 'maxnreg' || t.value === 'schedule');
  }

  protected parsePrimary(): CoExpr {
    const t = this.tok;
    switch (t.kind) {
      case T_NUM: {
        this.next();
        return { kind: 'num', value: numberValue(t.value), text: t.value, span: span(t.start, t.end) };
      }
      case T_STR: {
        this.next();
        let end = t.end;
        let text = t.value;
        while (this.tok.kind === T_STR) {
          const u = this.next();
          end = u.end;
          text += ' ' + u.value;
        }
        return { kind: 'string', text, span: span(t.start, end) };
      }
      case T_IDENT:
        return this.parseIdentPrimary();
      case T_PUNCT: {
        if (t.value === '(') {
          // C-style cast `(f32)x`.
          const t1 = this.la(1);
          if (t1.kind === T_IDENT && TYPE_KEYWORDS.has(t1.value) && this.isP(')', this.la(2))) {
            this.next();
            this.next();
            this.next();
            const arg = this.parseUnary();
            return { kind: 'call', callee: '__to', typeArgs: [t1.value], args: [arg], span: span(t.start, arg.span.end) };
          }
          this.next();
          const inner = this.nested(() => this.parseExpr());
          this.expectP(')', "to close '('");
          return inner;
        }
        if (t.value === '[') {
          const items = this.parseBracketList('[', ']');
          return { kind: 'list', items, span: span(t.start, this.prevEnd()) };
        }
        if (t.value === '{') {
          const items = this.parseBracketList('{', '}');
          return { kind: 'list', items, span: span(t.start, this.prevEnd()) };
        }
        break;
      }
      case T_EOF:
        this.fail('unexpected end of input in an expression');
    }
    this.unexpected();
  }

  /** Runs `f` with the template/sizeof modes cleared (inside brackets they do not apply). */
  protected nested<T>(f: () => T): T {
    const g = this.noGt;
    const pp = this.noPipe;
    this.noGt = false;
    this.noPipe = false;
    this.enter();
    try {
      return f();
    } finally {
      this.noGt = g;
      this.noPipe = pp;
      this.leave();
    }
  }

  /** `open items close` with comma-separated expressions (possibly empty). */
  protected parseBracketList(open: string, close: string): CoExpr[] {
    this.expectP(open, '');
    const items: CoExpr[] = [];
    const g = this.noGt;
    const pp = this.noPipe;
    this.noGt = false;
    this.noPipe = false;
    try {
      if (!this.isP(close)) {
        do {
          if (this.isP(close)) break; // trailing comma
          items.push(this.parseExpr());
        } while (this.eatP(','));
      }
    } finally {
      this.noGt = g;
      this.noPipe = pp;
    }
    this.expectP(close, () => `to close '${open}'`);
    return items;
  }

  /** `(a, b)`; with `allowStride`, `(M, K : s0, s1)` keeps the stride part as one opaque argument. */
  protected parseArgs(allowStride: boolean): CoExpr[] {
    this.expectP('(', '');
    const args: CoExpr[] = [];
    const g = this.noGt;
    const pp = this.noPipe;
    this.noGt = false;
    this.noPipe = false;
    try {
      if (!this.isP(')')) {
        do {
          if (this.isP(')')) break;
          args.push(this.parseExpr());
        } while (this.eatP(','));
        if (allowStride && this.isP(':')) {
          const s = this.next().start;
          this.parseExprList();
          args.push({ kind: 'opaque', text: this.text(s, this.prevEnd()), span: span(s, this.prevEnd()) });
        }
      }
    } finally {
      this.noGt = g;
      this.noPipe = pp;
    }
    this.expectP(')', "to close '('");
    return args;
  }

  protected parseIdentPrimary(): CoExpr {
    const t = this.tok;
    const v = t.value;
    const la1 = this.la(1);
    if ((v === 'dma' || v === 'tma') && this.isP('.', la1)) return this.parseDma();
    if (v === 'mma' && this.isP('.', la1)) return this.parseMma();
    if (v === 'call' && la1.kind === T_IDENT) {
      this.next();
      const name = this.parseQualifiedName();
      let typeArgs: string[] | undefined;
      if (this.isP('<')) typeArgs = this.parseAngleTexts();
      const args = this.isP('(') ? this.parseArgs(false) : this.fail(`expected '(' after 'call ${name}'`);
      return typeArgs
        ? { kind: 'call', callee: name, typeArgs, args, span: span(t.start, this.prevEnd()) }
        : { kind: 'call', callee: name, args, span: span(t.start, this.prevEnd()) };
    }
    if ((v === 'print' || v === 'println') && this.isP('!', la1) && this.isP('(', this.la(2))) {
      this.next();
      this.next();
      const args = this.parseArgs(false);
      return { kind: 'call', callee: `${v}!`, args, span: span(t.start, this.prevEnd()) };
    }
    if ((t.kw & F_RESERVED) !== 0) this.fail(`unexpected keyword '${v}' in an expression`);
    const name = this.parseQualifiedName();
    if (this.isP('<') && this.templateAhead(false)) {
      const typeArgs = this.parseAngleTexts();
      const args = this.parseArgs(false);
      return { kind: 'call', callee: name, typeArgs, args, span: span(t.start, this.prevEnd()) };
    }
    if (this.isP('(')) {
      const args = this.parseArgs(false);
      return { kind: 'call', callee: name, args, span: span(t.start, this.prevEnd()) };
    }
    return { kind: 'id', name, span: span(t.start, this.prevEnd()) };
  }

  /** `a`, `a::b::c`. */
  protected parseQualifiedName(): string {
    let name = this.expectIdent('a name').value;
    while (this.isP('::') && this.la(1).kind === T_IDENT) {
      this.next();
      name += '::' + this.next().value;
    }
    return name;
  }

  /**
   * Whether the `<` at the cursor opens a template argument list: a balanced `<...>` of simple tokens, followed by
   * `(` (or, for members, anything but an operand). Decided by lookahead only.
   */
  protected templateAhead(member: boolean): boolean {
    let depth = 0;
    for (let k = 0; k < 64; k++) {
      const t = this.la(k);
      if (t.kind === T_EOF) return false;
      if (t.kind === T_PUNCT) {
        if (!TEMPLATE_PUNCT.has(t.value)) return false;
        if (t.value === '<') depth++;
        else if (t.value === '>' || t.value === '>>') {
          depth -= t.value === '>>' ? 2 : 1;
          if (depth <= 0) {
            const after = this.la(k + 1);
            if (this.isP('(', after)) return true;
            if (!member) return false;
            return after.kind === T_PUNCT && (after.value === '.' || after.value === ';' || after.value === ',' || after.value === ')');
          }
        }
      }
    }
    return false;
  }

  /** `<a, b<c>, {1, 2}>` -> ["a", "b<c>", "{1, 2}"] (source text, whitespace-normalised); splits `>>`. */
  protected parseAngleTexts(): string[] {
    this.expectP('<', '');
    const out: string[] = [];
    let depth = 1;
    let nest = 0;
    let itemStart = this.tok.start;
    for (;;) {
      const t = this.tok;
      if (t.kind === T_EOF) this.fail("expected '>' to close the template arguments");
      if (t.kind === T_PUNCT) {
        const v = t.value;
        if (v === ';' || (v === '}' && nest === 0)) this.fail("expected '>' to close the template arguments");
        if (v === '(' || v === '[' || v === '{') nest++;
        else if (v === ')' || v === ']' || v === '}') nest--;
        else if (nest === 0 && v === '<') depth++;
        else if (nest === 0 && (v === '>' || v === '>>')) {
          if (v === '>>' && depth === 1) {
            // Split `>>`: the first closes this list, the second stays.
            this.replaceCurrent({ kind: T_PUNCT, value: '>', start: t.start + 1, end: t.end, spaced: false, kw: 0 });
            const e = t.start;
            const item = this.normText(itemStart, e);
            if (item) out.push(item);
            return out;
          }
          depth -= v === '>>' ? 2 : 1;
          if (depth <= 0) {
            const item = this.normText(itemStart, t.start);
            if (item) out.push(item);
            this.next();
            return out;
          }
        } else if (nest === 0 && depth === 1 && v === ',') {
          out.push(this.normText(itemStart, t.start));
          this.next();
          itemStart = this.tok.start;
          continue;
        }
      }
      this.next();
    }
  }

  /** Closes `<...>` after an expression parsed with noGt; accepts a `>>` by splitting it. */
  protected closeAngle(context: string): void {
    if (this.isP('>>')) {
      const t = this.tok;
      this.replaceCurrent({ kind: T_PUNCT, value: '>', start: t.start + 1, end: t.end, spaced: false, kw: 0 });
      return;
    }
    this.expectP('>', context);
  }

  /** Skips a balanced `(...)`, `[...]` or `{...}` group starting at the cursor. */
  protected skipBalanced(): void {
    let depth = 0;
    do {
      const t = this.tok;
      if (t.kind === T_EOF) this.fail('unbalanced brackets: unexpected end of input');
      if (t.kind === T_PUNCT) {
        if (t.value === '(' || t.value === '[' || t.value === '{') depth++;
        else if (t.value === ')' || t.value === ']' || t.value === '}') depth--;
      }
      this.next();
    } while (depth > 0);
  }

  /**
   * `dma.copy[.async][.swiz<N>]... src => dst [after f, g]`, `tma.copy.async<full[s]>.swiz<128> src => dst` (era A),
   * `tma.load[.async][.evict_first] g => s`, `dma.any`, `dma.pad<...> a => b`, `dma.transp<1, 0> a => b`.
   */
  protected parseDma(): CoExpr {
    const t = this.next();
    const engine = t.value as 'dma' | 'tma';
    this.expectP('.', () => `after '${engine}'`);
    const op = this.expectIdent(() => `an operation after '${engine}.'`).value;
    if (this.isP('<')) this.parseAngleTexts(); // dma.pad<{..},{..},{..},v> / dma.transp<1, 0>
    let async = false;
    let event: CoExpr | undefined;
    const modifiers: string[] = [];
    while (this.isP('.') && this.la(1).kind === T_IDENT) {
      this.next();
      const m = this.next().value;
      if (m === 'async') {
        async = true;
        if (this.isP('<')) {
          this.next();
          event = this.parseExprNoGt();
          this.closeAngle(`after the event of '${engine}.${op}.async<...>'`);
        }
        continue;
      }
      if (this.isP('<')) modifiers.push(`${m}<${this.parseAngleTexts().join(', ')}>`);
      else modifiers.push(m);
    }
    const node: Extract<CoExpr, { kind: 'dma' }> = { kind: 'dma', engine, op, async, modifiers, after: [], span: span(t.start, this.prevEnd()) };
    if (event) node.event = event;
    if (op === 'any') return node;
    node.src = this.parseExpr();
    this.expectP('=>', () => `in ${engine}.${op} (source => destination)`);
    node.dst = this.parseExpr();
    if (this.isI('after')) {
      this.next();
      node.after = this.parseExprList();
    }
    node.span = span(t.start, this.prevEnd());
    return node;
  }

  /**
   * `mma.fill[.f16] v`, `mma.fill acc, v`, `mma.load[.frag][.swiz<N>][.async] buf`, `mma.row.row[.async|.scale|.sp]
   * c, a, b[, ...]`, `mma.store[.async|.transp|.mask] acc, dst`, `mma.commit` (era A), `mma.wait<N>` (era B).
   */
  protected parseMma(): CoExpr {
    const t = this.next();
    this.expectP('.', "after 'mma'");
    let op = this.expectIdent("an operation after 'mma.'").value;
    if ((op === 'row' || op === 'col') && this.isP('.') && (this.isI('row', this.la(1)) || this.isI('col', this.la(1)))) {
      this.next();
      op += '.' + this.next().value;
    }
    let typeArgs: string[] | undefined;
    if (this.isP('<')) typeArgs = this.parseAngleTexts();
    let async = false;
    const modifiers: string[] = [];
    while (this.isP('.') && this.la(1).kind === T_IDENT) {
      this.next();
      const m = this.next().value;
      if (m === 'async') {
        async = true;
        continue;
      }
      if (this.isP('<')) modifiers.push(`${m}<${this.parseAngleTexts().join(', ')}>`);
      else modifiers.push(m);
    }
    let args: CoExpr[] = [];
    const n = this.tok;
    if (!(n.kind === T_EOF || (n.kind === T_PUNCT && (n.value === ';' || n.value === ')' || n.value === '}')))) args = this.parseExprList();
    return typeArgs
      ? { kind: 'mma', op, modifiers, typeArgs, async, args, span: span(t.start, this.prevEnd()) }
      : { kind: 'mma', op, modifiers, async, args, span: span(t.start, this.prevEnd()) };
  }
}

/** Parses one DSL expression (e.g. a `#define` value); undefined when it is not exactly one expression. */
export function parseCoExpression(text: string): CoExpr | undefined {
  try {
    const ts = new TokenStream(new Lexer(text), 0, false);
    if (ts.peek(0).kind === T_EOF) return undefined;
    const parser = new ExpressionParser(text, text, ts, []);
    return parser.parseWholeExpression();
  } catch {
    return undefined;
  }
}
