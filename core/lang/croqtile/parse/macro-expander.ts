// Function-like macro expansion inside `__co__` bodies (the preprocessor records the macros; the parser expands
// them token by token, as copp does).
import type { Span } from '../ast';
import { Lexer, type Tok, type Token } from '../lexer';
import type { FunctionMacro } from '../preprocess';
import { EOF_TOKEN } from './token-stream';

// Token kinds as local constants: read on every step, and a const enum imported under isolatedModules would be a
// property read on the lexer module (slow when the module is not bundled, e.g. under the test runner).
const T_IDENT: Tok = 0;
const T_STR: Tok = 2;
const T_PUNCT: Tok = 3;
const T_EOF: Tok = 4;

/**
 * Expands function-like macros (`#define KP(x) println("x", x);`) in a `__co__` body, as copp does. Tokens that come
 * from a macro body carry the span of the whole invocation; substituted arguments keep their own spans. Supports
 * `#param` (stringize), `a ## b` (paste) and `__VA_ARGS__`; recursion is blocked per macro and capped.
 */
// Local rather than imported from ./parser-base: called for every node, and an imported function is a property read
// per call when the modules are not bundled (under the test runner).
function span(start: number, end: number): Span {
  return { start, end };
}

export class MacroExpander {
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
