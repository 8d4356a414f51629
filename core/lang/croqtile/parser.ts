// Croqtile parser: error-tolerant recursive descent over the `__co__` functions of a `.co` file. Host C++ between
// them (including `__cok__ {}` blocks, `__device__` functions, templates, `main`) is skipped with a scanner that
// respects comments, strings, chars and raw strings. Syntax errors are recorded once at the offending token, the
// parser resynchronises at the next `;` or `}` of the statement's level, and parsing goes on; it never throws.
// Accepts the union of the three sync-syntax eras (A: `tma.copy.async<ev>`, `mma.commit`; B: `mma.wait<N>`;
// HEAD: futures, `trigger e after f`, `.at(order++)`, `= ready`).
import type { CoExpr, CoFile, CoFunction, CoParam, CoStmt, CoSyntaxError, EventDeclarator, Span } from './ast';
import { KW_RESERVED, KW_TYPE, Lexer, TYPE_WORDS, type Tok, commentEnd, isIdentPart, numberValue, quotedEnd, type Token } from './lexer';
import { preprocess, rawStringAt, type FunctionMacro } from './preprocess';

/** Nesting limit for statements plus expressions; deeper input gets one "nesting too deep" error. */
const MAX_DEPTH = 200;
/** At most this many errors are recorded per file. */
const MAX_ERRORS = 200;

class SyntaxErr {
  constructor(
    readonly message: string,
    readonly span: Span,
  ) {}
}

const TYPE_KEYWORDS = new Set(TYPE_WORDS);
const STORAGE = new Set(['shared', 'local', 'global']);
const LEVELS = new Set(['device', 'cluster', 'block', 'group', 'group-4', 'thread', 'term']);

/** Binary operators and their binding power (higher binds tighter), after the compiler's bison precedences. */
const BINARY = new Map<string, number>([
  ['||', 2], ['&&', 3], ['==', 4], ['!=', 4], ['<', 5], ['>', 5], ['<=', 5], ['>=', 5], ['<<', 6], ['>>', 6],
  ['+', 7], ['-', 7], ['*', 8], ['/', 8], ['%', 8], ['#+', 9], ['#-', 9], ['#*', 10], ['#/', 10], ['#%', 10],
  ['&', 11], ['^', 11], ['|', 11], ['#', 12],
]);
const ASSIGN_OPS = new Set(['=', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=', '<<=', '>>=']);
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
const F_TYPE = KW_TYPE;

const EOF_TOKEN = (at: number): Token => ({ kind: T_EOF, value: '', start: at, end: at, spaced: true, kw: 0 });

function describe(t: Token): string {
  if (t.kind === T_EOF) return 'end of input';
  const v = t.value.length > 40 ? t.value.slice(0, 37) + '...' : t.value;
  return `'${v}'`;
}

function span(start: number, end: number): Span {
  return { start, end };
}

// ---------------------------------------------------------------------------------------------------------------
// Host scanning

interface Marker {
  kind: 'co' | 'cok';
  start: number;
  end: number;
}

const MARKER_RE = /["'/]|R"|__(?:co|cok|real_cok)__/g;

/** Finds the next `__co__` (or `__cok__` / `__real_cok__`) identifier in host code at or after `from`. */
function nextMarker(text: string, from: number): Marker | undefined {
  const re = MARKER_RE;
  re.lastIndex = from;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const i = m.index;
    const c = text.charCodeAt(i);
    if (c === 47 /* / */) {
      const e = commentEnd(text, i);
      if (e >= 0) re.lastIndex = e;
      continue;
    }
    if (c === 34 /* " */) {
      re.lastIndex = Math.max(quotedEnd(text, i, 34), i + 1);
      continue;
    }
    if (c === 39 /* ' */) {
      const p = text.charCodeAt(i - 1);
      if (!(p >= 48 && p <= 57)) re.lastIndex = Math.max(quotedEnd(text, i, 39), i + 1);
      continue;
    }
    if (c === 82 /* R */) {
      const r = rawStringAt(text, i);
      if (r >= 0) re.lastIndex = r;
      continue;
    }
    // A marker candidate: it must be a whole identifier.
    const end = i + m[0].length;
    if (isIdentPart(text.charCodeAt(i - 1))) {
      // Inside a longer identifier: skip the rest of it.
      let j = end;
      while (j < text.length && isIdentPart(text.charCodeAt(j))) j++;
      re.lastIndex = j;
      continue;
    }
    if (isIdentPart(text.charCodeAt(end))) {
      let j = end;
      while (j < text.length && isIdentPart(text.charCodeAt(j))) j++;
      re.lastIndex = j;
      continue;
    }
    return { kind: m[0] === '__co__' ? 'co' : 'cok', start: i, end };
  }
  return undefined;
}

/** Skips a `{ ... }` block after `i` (string/comment aware); returns the offset after its `}` (or text end). */
function skipBraceBlock(text: string, i: number): number {
  const n = text.length;
  let depth = 0;
  let seen = false;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (c === 47) {
      const e = commentEnd(text, i);
      if (e >= 0) {
        i = e;
        continue;
      }
    } else if (c === 34 || c === 39) {
      const p = text.charCodeAt(i - 1);
      if (c === 39 && p >= 48 && p <= 57) {
        i++;
        continue;
      }
      i = Math.max(quotedEnd(text, i, c), i + 1);
      continue;
    } else if (c === 82) {
      const r = rawStringAt(text, i);
      if (r >= 0) {
        i = r;
        continue;
      }
    } else if (c === 123) {
      depth++;
      seen = true;
    } else if (c === 125) {
      depth--;
      if (seen && depth <= 0) return i + 1;
    } else if (c === 59 && !seen) {
      return i + 1; // `__cok__;` or garbage: nothing to skip
    }
    i++;
  }
  return n;
}

interface TokenSource {
  next(): Token;
  readonly pos: number;
}

/**
 * Tokens on demand with lookahead, so that only a small window is alive at a time (keeps GC pressure low on big
 * files). In `function` mode it ends (Eof) after the `}` that closes the first top-level `{` (the body), or after a
 * `;` before any body (a prototype); `endPos` is then the offset where host scanning resumes.
 */
class TokenStream {
  private buf: Token[] = [];
  private head = 0;
  /** End offset of the last consumed token. */
  prevEnd: number;
  /** Number of consumed tokens (a progress counter). */
  consumed = 0;
  endPos = -1;
  private ended = false;
  private depth = 0;
  private paren = 0;
  private sawBody = false;
  private eof: Token | undefined;

  constructor(
    private readonly src: TokenSource,
    start: number,
    private readonly functionMode: boolean,
  ) {
    this.prevEnd = start;
  }

  private pull(): Token {
    if (this.ended) return this.eof!;
    const t = this.src.next();
    if (t.kind === T_EOF) {
      this.ended = true;
      this.eof = t;
      this.endPos = t.end;
      return t;
    }
    if (this.functionMode && t.kind === T_PUNCT) {
      const v = t.value;
      if (v === '(') this.paren++;
      else if (v === ')') this.paren = this.paren > 0 ? this.paren - 1 : 0;
      else if (v === '{') {
        this.depth++;
        this.sawBody = true;
      } else if (v === '}') {
        if (--this.depth <= 0) this.finish(t);
      } else if (v === ';' && !this.sawBody && this.paren === 0) this.finish(t);
    }
    return t;
  }

  private finish(t: Token): void {
    this.ended = true;
    this.eof = EOF_TOKEN(t.end);
    this.endPos = Math.max(t.end, this.src.pos);
  }

  peek(k: number): Token {
    const buf = this.buf;
    const i = this.head + k;
    if (i < buf.length) return buf[i]!;
    while (buf.length - this.head <= k) {
      if (this.ended && buf.length > 0 && buf[buf.length - 1]!.kind === T_EOF) return buf[buf.length - 1]!;
      buf.push(this.pull());
    }
    return buf[this.head + k]!;
  }

  next(): Token {
    const t = this.peek(0);
    if (t.kind === T_EOF) return t;
    this.head++;
    this.consumed++;
    this.prevEnd = t.end;
    if (this.head >= 512) {
      this.buf = this.buf.slice(this.head);
      this.head = 0;
    }
    return t;
  }

  /** Replaces the current token (used to split `>>` in template arguments). */
  replaceCurrent(t: Token): void {
    this.peek(0);
    this.buf[this.head] = t;
  }

  /** Pulls the rest of the function so that `endPos` is known. */
  drain(): number {
    for (let k = 0; k < 1e8 && !this.ended; k++) this.pull();
    return this.endPos;
  }
}

/**
 * Expands function-like macros (`#define KP(x) println("x", x);`) in a `__co__` body, as copp does. Tokens that come
 * from a macro body carry the span of the whole invocation; substituted arguments keep their own spans. Supports
 * `#param` (stringize), `a ## b` (paste) and `__VA_ARGS__`; recursion is blocked per macro and capped.
 */
class MacroExpander {
  private readonly lx: Lexer;
  private readonly pending: Token[] = [];
  /** Produced tokens waiting to be returned (already expanded), from `outHead` on. */
  private readonly out: Token[] = [];
  private outHead = 0;

  constructor(
    text: string,
    from: number,
    private readonly macros: Map<string, FunctionMacro>,
  ) {
    this.lx = new Lexer(text, from);
  }

  /** Offset of the underlying lexer (the end of the last raw token read). */
  get pos(): number {
    return this.lx.pos;
  }

  private raw(): Token {
    return this.pending.length > 0 ? this.pending.pop()! : this.lx.next();
  }

  next(): Token {
    for (;;) {
      if (this.outHead < this.out.length) {
        const t = this.out[this.outHead++]!;
        if (this.outHead === this.out.length) {
          this.out.length = 0;
          this.outHead = 0;
        }
        return t;
      }
      const t = this.raw();
      if (t.kind !== T_IDENT || !this.macros.has(t.value)) return t;
      const la = this.raw();
      if (!(la.kind === T_PUNCT && la.value === '(')) {
        this.pending.push(la);
        return t;
      }
      const args = this.readArgs(() => this.raw());
      if (!args) return t;
      const expanded = this.expand(t.value, args.args, span(t.start, args.end), new Set(), 0);
      for (const e of expanded) this.out.push(e);
    }
  }

  /** Reads `a, (b, c), d)` after the `(`; undefined at end of input. */
  private readArgs(read: () => Token): { args: Token[][]; end: number } | undefined {
    const args: Token[][] = [[]];
    let depth = 0;
    for (let k = 0; k < 100000; k++) {
      const t = read();
      if (t.kind === T_EOF) return undefined;
      if (t.kind === T_PUNCT) {
        if (t.value === '(' || t.value === '[' || t.value === '{') depth++;
        else if (t.value === ')' || t.value === ']' || t.value === '}') {
          if (depth === 0) {
            if (t.value !== ')') return undefined;
            if (args.length === 1 && args[0]!.length === 0) args.pop();
            return { args, end: t.end };
          }
          depth--;
        } else if (t.value === ',' && depth === 0) {
          args.push([]);
          continue;
        }
      }
      args[args.length - 1]!.push(t);
    }
    return undefined;
  }

  private expand(name: string, args: Token[][], at: Span, active: Set<string>, depth: number): Token[] {
    const m = this.macros.get(name)!;
    if (depth > 16) return [];
    const params = m.params;
    const variadic = params[params.length - 1] === '...';
    const argOf = (p: string): Token[] | undefined => {
      if (p === '__VA_ARGS__' && variadic) {
        const rest = args.slice(params.length - 1);
        const joined: Token[] = [];
        rest.forEach((a, i) => {
          if (i > 0) joined.push({ kind: T_PUNCT, value: ',', start: at.start, end: at.end, spaced: false, kw: 0 });
          joined.push(...a);
        });
        return joined;
      }
      const i = params.indexOf(p);
      return i >= 0 ? (args[i] ?? []) : undefined;
    };
    const body: Token[] = [];
    const blx = new Lexer(m.body);
    for (let k = 0; k < 100000; k++) {
      const t = blx.next();
      if (t.kind === T_EOF) break;
      body.push(t);
    }
    const result: Token[] = [];
    for (let i = 0; i < body.length; i++) {
      const t = body[i]!;
      const nt = body[i + 1];
      if (t.kind === T_PUNCT && t.value === '#' && nt && nt.kind === T_IDENT && argOf(nt.value)) {
        const a = argOf(nt.value)!;
        const s = a.map((x) => x.value).join(' ');
        result.push({ kind: T_STR, value: JSON.stringify(s), start: at.start, end: at.end, spaced: true, kw: 0 });
        i++;
        continue;
      }
      if (t.kind === T_PUNCT && t.value === '#' && nt && nt.kind === T_PUNCT && nt.value === '#') {
        // `a ## b`: paste the previous token with the next one.
        const prev = result.pop();
        const after = body[i + 2];
        i += 2;
        if (!after) {
          if (prev) result.push(prev);
          continue;
        }
        const rhs = after.kind === T_IDENT ? argOf(after.value) ?? [after] : [after];
        const pasted = (prev ? prev.value : '') + (rhs[0]?.value ?? '');
        const lxp = new Lexer(pasted);
        for (let k = 0; k < 16; k++) {
          const pt = lxp.next();
          if (pt.kind === T_EOF) break;
          result.push({ ...pt, start: at.start, end: at.end });
        }
        for (const r of rhs.slice(1)) result.push(r);
        continue;
      }
      if (t.kind === T_IDENT) {
        const a = argOf(t.value);
        if (a) {
          for (const x of a) result.push(x);
          continue;
        }
      }
      result.push({ kind: t.kind, value: t.value, start: at.start, end: at.end, spaced: t.spaced, kw: t.kw });
    }
    // Rescan for nested invocations.
    const inner = new Set(active);
    inner.add(name);
    const rescanned: Token[] = [];
    for (let i = 0; i < result.length; i++) {
      const t = result[i]!;
      const nt = result[i + 1];
      if (t.kind === T_IDENT && this.macros.has(t.value) && !inner.has(t.value) && nt && nt.kind === T_PUNCT && nt.value === '(') {
        let j = i + 2;
        const sub = this.readArgs(() => (j < result.length ? result[j++]! : EOF_TOKEN(at.end)));
        if (sub) {
          rescanned.push(...this.expand(t.value, sub.args, at, inner, depth + 1));
          i = j - 1;
          continue;
        }
      }
      rescanned.push(t);
    }
    return rescanned;
  }
}

// ---------------------------------------------------------------------------------------------------------------
// The parser proper

class CoParser {
  private depth = 0;
  /** While parsing template arguments, a bare `>` ends the expression instead of comparing. */
  private noGt = false;
  /** While parsing `|x|` (sizeof), a bare `|` ends the expression. */
  private noPipe = false;

  constructor(
    /** Preprocessed text (same offsets as the original). */
    private readonly src: string,
    /** Original text, for verbatim slices. */
    private readonly orig: string,
    private readonly ts: TokenStream,
    private readonly errors: CoSyntaxError[],
  ) {
    this.tok = ts.peek(0);
  }

  // -- token helpers ------------------------------------------------------------------------------------------

  /** The current token (kept in a field: read on every step). */
  private tok: Token;

  private la(k: number): Token {
    return this.ts.peek(k);
  }

  private isP(v: string, t: Token = this.tok): boolean {
    return t.kind === T_PUNCT && t.value === v;
  }

  private isI(v: string, t: Token = this.tok): boolean {
    return t.kind === T_IDENT && t.value === v;
  }

  private atEof(): boolean {
    return this.tok.kind === T_EOF;
  }

  private next(): Token {
    const t = this.ts.next();
    this.tok = this.ts.peek(0);
    return t;
  }

  private replaceCurrent(t: Token): void {
    this.ts.replaceCurrent(t);
    this.tok = t;
  }

  private eatP(v: string): boolean {
    if (this.isP(v)) {
      this.next();
      return true;
    }
    return false;
  }

  private prevEnd(): number {
    return this.ts.prevEnd;
  }

  private fail(message: string, t: Token = this.tok): never {
    throw new SyntaxErr(message, span(t.start, Math.max(t.end, t.start)));
  }

  private unexpected(context?: string): never {
    this.fail(`unexpected token ${describe(this.tok)}${context ? ' ' + context : ''}`);
  }

  private expectP(v: string, context: string | (() => string)): Token {
    if (this.isP(v)) return this.next();
    this.fail(`expected '${v}' ${typeof context === 'string' ? context : context()}`);
  }

  private expectIdent(context: string | (() => string)): Token {
    if (this.tok.kind === T_IDENT) return this.next();
    this.fail(`expected ${typeof context === 'string' ? context : context()} but found ${describe(this.tok)}`);
  }

  /**
   * `;` ending a statement. When it is missing and the next token starts a new line, the error is recorded and
   * parsing continues as if it were there (so the next statement is not lost); otherwise the caller resyncs.
   */
  private expectSemi(context: string | (() => string)): void {
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
    if (this.errors.length >= MAX_ERRORS) return;
    const last = this.errors[this.errors.length - 1];
    if (last && last.span.start === e.span.start && last.message === e.message) return;
    this.errors.push({ message: e.message, span: e.span });
  }

  private enter(): void {
    if (++this.depth > MAX_DEPTH) {
      this.depth--;
      this.fail('nesting too deep');
    }
  }

  private leave(): void {
    this.depth--;
  }

  /** Skips to a synchronisation point: after the next `;` of this level, after a `{...}` block, or before `}`. */
  private sync(): void {
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

  private text(start: number, end: number): string {
    return this.orig.slice(start, end);
  }

  private normText(start: number, end: number): string {
    return this.orig.slice(start, end).replace(/\s+/g, ' ').trim();
  }

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

  private parseReturnType(): void {
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

  private parseParam(): CoParam {
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
  private parseParamDims(): CoExpr[] {
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

  // -- statements -----------------------------------------------------------------------------------------------

  /** Parses statements until `}` (when `stopAtBrace`) or the end; never throws. */
  private parseStatements(out: CoStmt[], stopAtBrace: boolean): void {
    for (;;) {
      if (this.atEof()) return;
      if (stopAtBrace && this.isP('}')) return;
      const before = this.ts.consumed;
      try {
        this.parseStatement(out);
      } catch (e) {
        if (!(e instanceof SyntaxErr)) throw e;
        this.report(e);
        this.sync();
      }
      if (this.ts.consumed === before) {
        // No progress (e.g. a stray `}` with stopAtBrace false): report and step over it.
        if (this.isP('}') && stopAtBrace) return;
        this.report(new SyntaxErr(`unexpected token ${describe(this.tok)}`, span(this.tok.start, this.tok.end)));
        this.next();
      }
    }
  }

  /** `{ statements }`, a single statement, or `;`. */
  private parseBody(context: string): CoStmt[] {
    if (this.isP('{')) {
      this.next();
      const out: CoStmt[] = [];
      this.enter();
      try {
        this.parseStatements(out, true);
      } finally {
        this.leave();
      }
      this.expectP('}', () => `to close the ${context} body`);
      return out;
    }
    if (this.isP(';')) {
      this.next();
      return [];
    }
    if (this.isP('}') || this.atEof()) this.fail(`expected a statement or '{' for the ${context} body`);
    const out: CoStmt[] = [];
    this.parseStatement(out);
    return out;
  }

  private parseStatement(out: CoStmt[]): void {
    this.enter();
    try {
      this.parseStatementInner(out);
    } finally {
      this.leave();
    }
  }

  private parseStatementInner(out: CoStmt[]): void {
    const t = this.tok;
    const start = t.start;
    if (t.kind === T_PUNCT) {
      if (t.value === ';') {
        this.next();
        return;
      }
      if (t.value === '{') {
        this.next();
        const body: CoStmt[] = [];
        this.parseStatements(body, true);
        this.expectP('}', 'to close the block');
        out.push({ kind: 'block', body, span: span(start, this.prevEnd()) });
        return;
      }
      if (t.value === '[' && this.isP('[', this.la(1))) {
        const attrs = this.parseAttributes();
        if (this.isI('parallel')) {
          out.push(this.parseParallel(attrs, start));
          return;
        }
        // `[[schedule(k_tiles(..))]] mma...;` and others: the attribute is not modelled.
        this.parseStatementInner(out);
        return;
      }
    }
    if (t.kind === T_IDENT) {
      const la1 = this.la(1);
      switch (t.value) {
        case 'parallel':
          out.push(this.parseParallel([], start));
          return;
        case 'inthreads':
          out.push(this.parseInthreads());
          return;
        case 'foreach':
          out.push(this.parseForeach());
          return;
        case 'apply':
          out.push(this.parseApply());
          return;
        case 'with':
          out.push(this.parseWith());
          return;
        case 'while': {
          this.next();
          this.expectP('(', "after 'while'");
          const cond = this.parseExpr();
          this.expectP(')', 'after the while condition');
          const body = this.parseBody('while');
          out.push({ kind: 'while', cond, body, span: span(start, this.prevEnd()) });
          return;
        }
        case 'if': {
          this.next();
          this.expectP('(', "after 'if'");
          const cond = this.parseExpr();
          this.expectP(')', 'after the if condition');
          const then = this.parseBody('if');
          let els: CoStmt[] = [];
          if (this.isI('else')) {
            this.next();
            els = this.parseBody('else');
          }
          out.push({ kind: 'if', cond, then, else: els, span: span(start, this.prevEnd()) });
          return;
        }
        case 'else':
          this.fail("'else' without a matching 'if'");
          break;
        case 'wait': {
          this.next();
          if (this.isP('<')) this.parseAngleTexts(); // era A/B `wait<0> e` (removed at HEAD)
          const targets = this.parseExprList();
          out.push({ kind: 'wait', targets, span: span(start, this.prevEnd()) });
          this.expectSemi('after wait');
          return;
        }
        case 'trigger': {
          this.next();
          let cluster = false;
          if (this.isP('.')) {
            this.next();
            const lv = this.expectIdent("a scope after 'trigger.'");
            if (lv.value === 'cluster') cluster = true;
            else this.fail(`only 'cluster' scope is supported for trigger, found '${lv.value}'`, lv);
          }
          const targets = this.parseExprList();
          let after: CoExpr[] = [];
          if (this.isI('after')) {
            this.next();
            after = this.parseExprList();
          }
          out.push({ kind: 'trigger', targets, cluster, after, span: span(start, this.prevEnd()) });
          this.expectSemi('after trigger');
          return;
        }
        case 'sync':
          if (this.isP('.', la1)) {
            this.next();
            this.next();
            const what = `sync.${this.expectIdent("'shared', 'barrier' or 'fence' after 'sync.'").value}`;
            let level: string | undefined;
            if (this.eatP(':')) {
              level = this.expectIdent('a parallel level').value;
              if (this.isP('<')) this.parseAngleTexts();
            }
            out.push({ kind: 'sync', what, level, span: span(start, this.prevEnd()) });
            this.expectSemi('after sync');
            return;
          }
          break;
        case 'return': {
          this.next();
          let value: CoExpr | undefined;
          if (!this.isP(';') && !this.isP('}') && !this.atEof()) value = this.parseExpr();
          out.push({ kind: 'return', value, span: span(start, this.prevEnd()) });
          this.expectSemi('after return');
          return;
        }
        case 'break':
        case 'continue':
        case 'yield':
          this.next();
          out.push({ kind: t.value, span: span(start, t.end) });
          this.expectSemi(() => `after ${t.value}`);
          return;
        case '__cpp__': {
          this.next();
          if (this.isP('(')) this.skipBalanced();
          else this.fail("expected '(' after __cpp__");
          out.push({ kind: 'opaque', text: this.text(start, this.prevEnd()), span: span(start, this.prevEnd()) });
          this.expectSemi('after __cpp__(...)');
          return;
        }
        case 'asm':
        case '__asm__':
        case '__asm': {
          this.next();
          while (this.isI('volatile') || this.isI('goto') || this.isI('inline') || this.isI('__volatile__')) {
            if (this.isI('goto')) this.fail('__asm__ goto is not supported');
            this.next();
          }
          if (this.isP('(')) this.skipBalanced();
          else this.fail(`expected '(' after ${t.value}`);
          out.push({ kind: 'opaque', text: this.text(start, this.prevEnd()), span: span(start, this.prevEnd()) });
          this.expectSemi('after asm(...)');
          return;
        }
        case 'shared':
        case 'local':
        case 'global':
        case 'event':
        case 'mutable':
          this.parseDeclaration(out);
          return;
        case 'frag':
          this.parseFragDecl(out);
          return;
        case 'mdspan':
        case 'ituple':
          this.parseShapeDecl(out);
          return;
        case 'swap':
        case 'rotate':
          if (!this.isP('(', la1)) {
            this.next();
            const args = this.parseExprList();
            const expr: CoExpr = { kind: 'call', callee: t.value, args, span: span(start, this.prevEnd()) };
            out.push({ kind: 'expr', expr, span: expr.span });
            this.expectSemi(() => `after ${t.value}`);
            return;
          }
          break;
        default:
          if ((t.kw & F_TYPE) !== 0 && t.value !== 'void') {
            this.parseDeclaration(out);
            return;
          }
          // `name : [a, b];` declares an mdspan.
          if (this.isP(':', la1)) {
            this.parseShapeDecl(out);
            return;
          }
      }
    }
    this.parseSimpleStatement(out);
  }

  /** Expression statement or a comma-separated list of assignments. */
  private parseSimpleStatement(out: CoStmt[]): void {
    const start = this.tok.start;
    if (this.isP('}')) this.unexpected();
    const first = this.parseExpr();
    if (this.tok.kind === T_PUNCT && ASSIGN_OPS.has(this.tok.value)) {
      let target = first;
      let tStart = start;
      for (;;) {
        const op = this.next().value;
        const value = this.parseAssignValue();
        out.push({ kind: 'assign', target, op, value, span: span(tStart, this.prevEnd()) });
        if (!this.isP(',')) break;
        this.next();
        tStart = this.tok.start;
        target = this.parseExpr();
        if (!(this.tok.kind === T_PUNCT && ASSIGN_OPS.has(this.tok.value))) this.fail(`expected an assignment after ','`);
      }
      this.expectSemi('after assignment');
      return;
    }
    out.push({ kind: 'expr', expr: first, span: span(start, this.prevEnd()) });
    this.expectSemi(() => `after ${this.exprWord(first)}`);
  }

  private exprWord(e: CoExpr): string {
    switch (e.kind) {
      case 'dma':
        return `${e.engine}.${e.op}`;
      case 'mma':
        return `mma.${e.op}`;
      case 'call':
        return `${e.callee}(...)`;
      case 'method':
        return `.${e.name}(...)`;
      default:
        return 'expression';
    }
  }

  /** Right-hand side of `=`: an expression, or an ituple derivation `x{a, b}`. */
  private parseAssignValue(): CoExpr {
    const v = this.parseExpr();
    if (v.kind === 'id' && this.isP('{')) {
      const items = this.parseBracketList('{', '}');
      return { kind: 'index', object: v, indices: items, span: span(v.span.start, this.prevEnd()) };
    }
    return v;
  }

  /** `[[launch_bounds(256, 1)]] [[maxnreg(128)]]` -> ["launch_bounds(256, 1)", "maxnreg(128)"]. */
  private parseAttributes(): string[] {
    const attrs: string[] = [];
    while (this.isP('[') && this.isP('[', this.la(1))) {
      this.next();
      this.next();
      const s = this.tok.start;
      let depth = 0;
      while (!this.atEof()) {
        if (depth === 0 && this.isP(']') && this.isP(']', this.la(1))) break;
        const v = this.tok.kind === T_PUNCT ? this.tok.value : '';
        if (v === '(' || v === '[' || v === '{') depth++;
        else if (v === ')' || v === ']' || v === '}') depth--;
        else if (v === ';' && depth <= 0) this.fail("expected ']]' to close the attribute");
        this.next();
      }
      const e = this.prevEnd();
      this.expectP(']', "to close the attribute (']]')");
      this.expectP(']', "to close the attribute (']]')");
      attrs.push(this.normText(s, e));
    }
    return attrs;
  }

  private parseParallel(attrs: string[], start: number): CoStmt {
    this.next(); // parallel
    let async = false;
    const outerAttrs = [...attrs];
    if (this.isP('.')) {
      this.next();
      const m = this.expectIdent("'async' after 'parallel.'");
      if (m.value !== 'async') this.fail(`unknown parallel modifier '${m.value}'`, m);
      async = true;
    }
    if (this.isP('<')) {
      this.next();
      const s = this.expectIdent('a stream name');
      this.expectP('>', 'after the stream name');
      outerAttrs.push(`stream(${s.value})`);
    }
    const clauses: { vars: string[]; extents: CoExpr[]; level?: string; attrs: string[]; start: number }[] = [];
    do clauses.push(this.parseParaby());
    while (this.eatP(','));
    let body = this.parseBody('parallel');
    const end = this.prevEnd();
    let node: CoStmt | undefined;
    for (let i = clauses.length - 1; i >= 0; i--) {
      const c = clauses[i]!;
      node = {
        kind: 'parallel',
        vars: c.vars,
        extents: c.extents,
        level: c.level,
        async: i === 0 ? async : false,
        attributes: i === 0 ? [...outerAttrs, ...c.attrs] : c.attrs,
        body,
        span: span(i === 0 ? start : c.start, end),
      };
      body = [node];
    }
    return node!;
  }

  private parseParaby(): { vars: string[]; extents: CoExpr[]; level?: string; attrs: string[]; start: number } {
    const start = this.tok.start;
    let vars: string[] = [];
    let extents: CoExpr[];
    if (this.isI('by')) {
      this.next();
      extents = this.unwrapList(this.parseExpr());
    } else if (this.isP('{')) {
      vars = this.parseIdList();
      this.expectKw('by', 'after the parallel variables');
      extents = this.unwrapList(this.parseExpr());
    } else {
      const id = this.expectIdent("a parallel variable or 'by'");
      if (this.eatP('=')) {
        vars = this.parseIdList();
      } else vars = [id.value];
      this.expectKw('by', 'after the parallel variable');
      extents = this.unwrapList(this.parseExpr());
    }
    let level: string | undefined;
    const attrs: string[] = [];
    if (this.isP(':')) {
      this.next();
      const lv = this.tok;
      if (lv.kind !== T_IDENT || !LEVELS.has(lv.value)) this.fail(`expected a parallel level (block, group-4, thread, ...) but found ${describe(lv)}`);
      this.next();
      level = lv.value;
      if (this.isP('(')) {
        this.next();
        const d = this.expectIdent('a device name');
        this.expectP(')', 'after the device name');
        attrs.push(`${level}(${d.value})`);
      }
      if (this.isP('<')) {
        for (const a of this.parseAngleTexts()) attrs.push(a);
      }
    }
    return { vars, extents, level, attrs, start };
  }

  private expectKw(kw: string, context: string): void {
    if (this.isI(kw)) {
      this.next();
      return;
    }
    this.fail(`expected '${kw}' ${context}`);
  }

  /** `{a, b}` -> ["a", "b"]. */
  private parseIdList(): string[] {
    this.expectP('{', 'to open the variable list');
    const ids: string[] = [];
    if (!this.isP('}')) {
      do ids.push(this.expectIdent('a variable name').value);
      while (this.eatP(','));
    }
    this.expectP('}', 'to close the variable list');
    return ids;
  }

  private unwrapList(e: CoExpr): CoExpr[] {
    return e.kind === 'list' ? e.items : [e];
  }

  private parseInthreads(): CoStmt {
    const start = this.next().start;
    let async = false;
    if (this.isP('.')) {
      this.next();
      const m = this.expectIdent("'async' after 'inthreads.'");
      if (m.value !== 'async') this.fail(`unknown inthreads modifier '${m.value}'`, m);
      async = true;
    }
    this.expectP('(', "after 'inthreads'");
    const cond = this.parseExpr();
    this.expectP(')', 'after the inthreads condition');
    const body = this.parseBody('inthreads');
    return { kind: 'inthreads', async, cond, body, span: span(start, this.prevEnd()) };
  }

  private boundOf(t: Token): CoExpr {
    // `foreach x` iterates the bounded variable x: its extent is `#x`.
    const id: CoExpr = { kind: 'id', name: t.value, span: span(t.start, t.end) };
    return { kind: 'unary', op: '#', arg: id, span: span(t.start, t.end) };
  }

  private parseForeach(): CoStmt {
    const start = this.next().start;
    const vars: string[] = [];
    const extents: CoExpr[] = [];
    const ranges: ({ start?: CoExpr; end?: CoExpr; step?: CoExpr } | undefined)[] = [];
    do {
      if (this.isP('{')) {
        const ids = this.parseIdList();
        this.expectKw('in', 'after the loop variables');
        this.pushWithin(ids, this.parseExpr(), vars, extents, ranges);
        continue;
      }
      const id = this.expectIdent('a loop variable');
      // `foreach a, b in [2, 3]`: an unbraced variable list bound by one `in`.
      const names = [id.value];
      let j = 0;
      const at = (n: number) => (n === 0 ? this.tok : this.la(n));
      while (this.isP(',', at(j)) && at(j + 1).kind === T_IDENT) {
        names.push(at(j + 1).value);
        j += 2;
      }
      if (names.length > 1 && this.isI('in', at(j))) {
        for (let i = 0; i <= j; i++) this.next();
        this.pushWithin(names, this.parseExpr(), vars, extents, ranges);
        continue;
      }
      if (this.isI('in')) {
        this.next();
        this.pushWithin([id.value], this.parseExpr(), vars, extents, ranges);
        continue;
      }
      if (this.isP('=') && this.isP('{', this.la(1))) {
        this.next();
        const ids = this.parseIdList();
        this.expectKw('in', 'after the loop variables');
        this.pushWithin(ids, this.parseExpr(), vars, extents, ranges);
        continue;
      }
      let bound = id;
      if (this.isP('=')) {
        this.next();
        bound = this.expectIdent('a bounded variable after "="');
      }
      vars.push(id.value);
      extents.push(this.boundOf(bound));
      ranges.push(this.isP('(') ? this.parseRange() : undefined);
    } while (this.eatP(','));
    const attributes: string[] = [];
    if (this.eatP(':')) {
      do attributes.push(this.parseSuffix());
      while (this.eatP(','));
    }
    const body = this.parseBody('foreach');
    return { kind: 'foreach', vars, extents, ranges, attributes, body, span: span(start, this.prevEnd()) };
  }

  private pushWithin(ids: string[], ext: CoExpr, vars: string[], extents: CoExpr[], ranges: unknown[]): void {
    const items = ext.kind === 'list' && ext.items.length === ids.length ? ext.items : [ext];
    for (const id of ids) {
      vars.push(id);
      ranges.push(undefined);
    }
    for (const it of items) extents.push(it);
  }

  /** `(1:)`, `(1:-1:2)`, `(:N)`. */
  private parseRange(): { start?: CoExpr; end?: CoExpr; step?: CoExpr } {
    this.expectP('(', 'to open the range');
    const r: { start?: CoExpr; end?: CoExpr; step?: CoExpr } = {};
    if (!this.isP(':')) r.start = this.parseExpr();
    this.expectP(':', 'in the loop range');
    if (!this.isP(':') && !this.isP(')')) r.end = this.parseExpr();
    if (this.eatP(':')) {
      if (!this.isP(')')) r.step = this.parseExpr();
    }
    this.expectP(')', 'to close the loop range');
    return r;
  }

  /** `unroll`, `unroll(4)`, `vectorize(x, 8)`. */
  private parseSuffix(): string {
    const t = this.expectIdent("a loop attribute ('unroll', 'vectorize')");
    if (this.isP('(')) this.skipBalanced();
    return this.normText(t.start, this.prevEnd());
  }

  private parseWith(): CoStmt {
    const start = this.next().start;
    const vars: string[] = [];
    const extents: CoExpr[] = [];
    const ranges: unknown[] = [];
    do {
      let ids: string[];
      if (this.isP('{')) ids = this.parseIdList();
      else {
        const id = this.expectIdent('a variable after "with"');
        if (this.isP('=')) {
          this.next();
          ids = this.parseIdList();
        } else ids = [id.value];
      }
      this.expectKw('in', 'after the with variables');
      this.pushWithin(ids, this.parseExpr(), vars, extents, ranges);
    } while (this.eatP(','));
    if (this.isI('where')) {
      this.next();
      do {
        this.expectIdent('a variable in the where clause');
        this.expectP('<->', 'in the where clause');
        this.expectIdent("a variable after '<->'");
      } while (this.eatP(','));
    }
    const body = this.parseBody('with');
    return { kind: 'with', vars, extents, body, span: span(start, this.prevEnd()) };
  }

  /** `apply {i, j} in acc.span { ... }`: an element-wise loop, modelled as a foreach with attribute `apply`. */
  private parseApply(): CoStmt {
    const start = this.next().start;
    const vars = this.parseIdList();
    this.expectKw('in', 'after the apply variables');
    const ext = this.parseExpr();
    const body = this.parseBody('apply');
    return {
      kind: 'foreach',
      vars,
      extents: [ext],
      ranges: vars.map(() => undefined),
      attributes: ['apply'],
      body,
      span: span(start, this.prevEnd()),
    };
  }

  /** `[storage] [mutable] (event ... | type [shape] declarators)`. */
  private parseDeclaration(out: CoStmt[]): void {
    const start = this.tok.start;
    let storage: string | undefined;
    if (this.tok.kind === T_IDENT && STORAGE.has(this.tok.value)) storage = this.next().value;
    let mutable = false;
    if (this.isI('mutable')) {
      this.next();
      mutable = true;
    }
    if (!storage && this.tok.kind === T_IDENT && STORAGE.has(this.tok.value)) storage = this.next().value;
    if (this.isI('event')) {
      out.push(this.parseEventDecl(start, storage));
      return;
    }
    let type = 'auto';
    const tt = this.tok;
    if (tt.kind === T_IDENT && TYPE_KEYWORDS.has(tt.value)) {
      this.next();
      type = tt.value;
    } else if (this.isI('frag')) {
      this.parseFragDecl(out, start);
      return;
    } else if (!mutable) {
      this.fail(`expected a type or 'event' after '${storage ?? 'declaration'}' but found ${describe(tt)}`);
    }
    let shape: CoExpr[] = [];
    if (this.isP('[')) shape = this.parseShape();
    this.parseDeclarators(out, start, { storage, type, shape, mutable });
  }

  private parseDeclarators(
    out: CoStmt[],
    start: number,
    base: { storage?: string; type: string; shape: CoExpr[]; mutable: boolean },
  ): void {
    const items: { name: string; dims: CoExpr[]; span: Span; init?: CoExpr }[] = [];
    do {
      const nt = this.expectIdent('a name in the declaration');
      const dims: CoExpr[] = [];
      while (this.isP('[')) {
        this.next();
        dims.push(this.parseExpr());
        this.expectP(']', 'after the array extent');
      }
      let init: CoExpr | undefined;
      if (this.eatP('=')) init = this.parseAssignValue();
      else if (this.isP('{')) {
        this.next();
        init = this.isP('}') ? undefined : this.parseExpr();
        this.expectP('}', 'to close the initialiser');
      }
      items.push({ name: nt.value, dims, span: span(nt.start, this.prevEnd()), init });
    } while (this.eatP(','));
    this.expectSemi('after declaration');
    const sp = span(start, this.prevEnd());
    const inits = items.filter((i) => i.init !== undefined).length;
    if (inits <= 1 && (inits === 0 || items[items.length - 1]!.init !== undefined)) {
      out.push({
        kind: 'decl',
        storage: base.storage,
        type: base.type,
        shape: base.shape,
        names: items.map((i) => ({ name: i.name, dims: i.dims, span: i.span })),
        init: items[items.length - 1]!.init,
        mutable: base.mutable,
        span: sp,
      });
      return;
    }
    // `int a = 1, b = 2;`: one declaration per declarator so each keeps its initialiser.
    for (const i of items) {
      out.push({
        kind: 'decl',
        storage: base.storage,
        type: base.type,
        shape: base.shape,
        names: [{ name: i.name, dims: i.dims, span: i.span }],
        init: i.init,
        mutable: base.mutable,
        span: sp,
      });
    }
  }

  /** `[M, K]`, `[[M, K]]`, `[lhs.span]`, `[auto]`. */
  private parseShape(): CoExpr[] {
    const items = this.parseBracketList('[', ']');
    if (items.length === 1 && items[0]!.kind === 'list') return items[0]!.items;
    return items;
  }

  private parseEventDecl(start: number, storage: string | undefined): CoStmt {
    this.next(); // event
    let count: CoExpr | undefined;
    if (this.isP('<')) {
      this.next();
      count = this.parseExprNoGt();
      this.closeAngle('after the event count');
    }
    const items: EventDeclarator[] = [];
    do {
      const nt = this.expectIdent('an event name');
      const dims: CoExpr[] = [];
      while (this.isP('[')) {
        this.next();
        dims.push(this.parseExpr());
        this.expectP(']', 'after the event array extent');
      }
      let ready = false;
      if (this.eatP('=')) {
        const r = this.expectIdent("'ready' after '='");
        if (r.value !== 'ready') this.fail("event initializer must be 'ready'", r);
        ready = true;
      }
      items.push({ name: nt.value, dims, ready, span: span(nt.start, this.prevEnd()), nameSpan: span(nt.start, nt.end) });
    } while (this.eatP(','));
    const st = storage === 'shared' || storage === 'global' ? storage : 'local';
    const node: CoStmt = { kind: 'event-decl', storage: st, count, items, span: span(start, this.tok.end) };
    this.expectSemi('after event declaration');
    node.span = span(start, this.prevEnd());
    return node;
  }

  /** `frag f32[64] x;`, `frag x {0.0f};`, `frag.f16 x[2] {0};` (a storage qualifier before `frag` is dropped). */
  private parseFragDecl(out: CoStmt[], start = this.tok.start): void {
    this.next(); // frag
    let type = 'auto';
    if (this.isP('.')) {
      this.next();
      type = this.expectIdent('a fragment element type').value;
    } else if (this.tok.kind === T_IDENT && TYPE_KEYWORDS.has(this.tok.value)) {
      type = this.next().value;
    }
    let shape: CoExpr[] = [];
    if (this.isP('[')) shape = this.parseShape();
    this.parseDeclarators(out, start, { storage: 'frag', type, shape, mutable: false });
  }

  /** `mdspan<2> sp : [M, N];`, `ituple t = {1, 2};`, `sp : [10, 20];`. */
  private parseShapeDecl(out: CoStmt[]): void {
    const start = this.tok.start;
    let type = 'mdspan';
    if (this.isI('mdspan') || this.isI('ituple')) {
      type = this.next().value;
      if (this.isP('<')) this.parseAngleTexts();
    }
    const nt = this.expectIdent(() => `a name after '${type}'`);
    let init: CoExpr | undefined;
    const dims: CoExpr[] = [];
    if (this.eatP(':') || this.eatP('=')) {
      if (!this.isP(';')) init = this.parseAssignValue();
    } else if (this.isP('[')) {
      this.next();
      dims.push(this.parseExpr());
      this.expectP(']', 'after the extent');
    }
    this.expectSemi('after declaration');
    out.push({
      kind: 'decl',
      type,
      shape: [],
      names: [{ name: nt.value, dims, span: span(nt.start, nt.end) }],
      init,
      mutable: false,
      span: span(start, this.prevEnd()),
    });
  }

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

  private parseExprNoGt(): CoExpr {
    const saved = this.noGt;
    this.noGt = true;
    try {
      return this.parseExpr();
    } finally {
      this.noGt = saved;
    }
  }

  private parseExprList(): CoExpr[] {
    const out: CoExpr[] = [this.parseExpr()];
    while (this.eatP(',')) out.push(this.parseExpr());
    return out;
  }

  private parseBinary(minPrec: number): CoExpr {
    let left = this.parseUnary();
    for (;;) {
      const t = this.tok;
      if (t.kind !== T_PUNCT) return left;
      const op = t.value;
      const prec = BINARY.get(op);
      if (prec === undefined || prec < minPrec) return left;
      if (this.noGt && (op === '>' || op === '>>')) return left;
      if (this.noPipe && op === '|') return left;
      this.next();
      const right = this.parseBinary(prec + 1);
      left = { kind: 'binary', op, left, right, span: span(left.span.start, right.span.end) };
    }
  }

  private parseUnary(): CoExpr {
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

  private parsePostfix(e: CoExpr): CoExpr {
    for (;;) {
      const t = this.tok;
      if (t.kind !== T_PUNCT) return e;
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

  private looksLikeAttribute(): boolean {
    const t = this.la(2);
    return t.kind === T_IDENT && (t.value === 'launch_bounds' || t.value === 'maxnreg' || t.value === 'schedule');
  }

  private parsePrimary(): CoExpr {
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
  private nested<T>(f: () => T): T {
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
  private parseBracketList(open: string, close: string): CoExpr[] {
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
  private parseArgs(allowStride: boolean): CoExpr[] {
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

  private parseIdentPrimary(): CoExpr {
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
  private parseQualifiedName(): string {
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
  private templateAhead(member: boolean): boolean {
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
  private parseAngleTexts(): string[] {
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
  private closeAngle(context: string): void {
    if (this.isP('>>')) {
      const t = this.tok;
      this.replaceCurrent({ kind: T_PUNCT, value: '>', start: t.start + 1, end: t.end, spaced: false, kw: 0 });
      return;
    }
    this.expectP('>', context);
  }

  /** Skips a balanced `(...)`, `[...]` or `{...}` group starting at the cursor. */
  private skipBalanced(): void {
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
  private parseDma(): CoExpr {
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
  private parseMma(): CoExpr {
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

// ---------------------------------------------------------------------------------------------------------------
// Entry points

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

/** Parses one DSL expression (e.g. a `#define` value); undefined when it is not exactly one expression. */
export function parseCoExpression(text: string): CoExpr | undefined {
  try {
    const ts = new TokenStream(new Lexer(text), 0, false);
    if (ts.peek(0).kind === T_EOF) return undefined;
    const parser = new CoParser(text, text, ts, []);
    return parser.parseWholeExpression();
  } catch {
    return undefined;
  }
}
