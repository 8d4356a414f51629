// The Croqtile parser's token window: tokens on demand with lookahead, ending a `__co__` function's stream at the
// `}` that closes its body.
import type { Tok, Token } from '../lexer';

// Token kinds as local constants: read on every step, and a const enum imported under isolatedModules would be a
// property read on the lexer module (slow when the module is not bundled, e.g. under the test runner).
const T_PUNCT: Tok = 3;
const T_EOF: Tok = 4;

export const EOF_TOKEN = (at: number): Token => ({ kind: T_EOF, value: '', start: at, end: at, spaced: true, kw: 0 });

export interface TokenSource {
  next(): Token;
  readonly pos: number;
}

/**
 * Tokens on demand with lookahead, so that only a small window is alive at a time (keeps GC pressure low on big
 * files). In `function` mode it ends (Eof) after the `}` that closes the first top-level `{` (the body), or after a
 * `;` before any body (a prototype); `endPos` is then the offset where host scanning resumes.
 */
export class TokenStream {
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
