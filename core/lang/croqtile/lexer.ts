// Croqtile lexer: turns the text of one `__co__` function into tokens (keywords stay identifiers; the parser
// decides by context), and skips host C++ between DSL functions (comments, strings, chars, raw strings).
// Hand-written over char codes; offsets are UTF-16 indices into the original text.

export const enum Tok {
  Ident = 0,
  Num = 1,
  Str = 2,
  Punct = 3,
  Eof = 4,
}

export interface Token {
  kind: Tok;
  /** Identifier name, operator text, number text, or the string's text including quotes. */
  value: string;
  start: number;
  end: number;
  /** True when whitespace or a comment precedes the token (used for `[[` and `>>` splitting). */
  spaced: boolean;
  /** Keyword flags of an identifier (`KW_*`), 0 otherwise. */
  kw: number;
}

/** Statement keywords that can never be an operand. */
export const KW_RESERVED = 1;
/** Element/scalar type keywords (`f16`, `s32`, `int`, ...). */
export const KW_TYPE = 2;

const CH_NL = 10;
const CH_CR = 13;
const CH_SPACE = 32;
const CH_TAB = 9;
const CH_QUOTE = 34; // "
const CH_APOS = 39; // '
const CH_SLASH = 47; // /
const CH_STAR = 42; // *
const CH_BACKSLASH = 92;
const CH_0 = 48;
const CH_9 = 57;
const CH_DOT = 46;

export function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36 || c > 127;
}

export function isIdentPart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || (c >= CH_0 && c <= CH_9) || c === 95 || c === 36 || c > 127;
}

function isDigit(c: number): boolean {
  return c >= CH_0 && c <= CH_9;
}

/** Three- and two-character operators (longest match first), keyed by char codes to avoid slicing. */
const PUNCT3 = ['<->', '<<=', '>>=', '...'];
const PUNCT2 = [
  '=>', '==', '!=', '<=', '>=', '&&', '||', '<<', '>>', '++', '--', '+=', '-=', '*=', '/=', '%=', '&=', '|=', '^=',
  '??', '::', '->', '#+', '#-', '#*', '#/', '#%',
];
const P1: string[] = Array.from({ length: 128 }, (_, i) => String.fromCharCode(i));
/** First characters of multi-character operators. */
const MULTI_START = new Uint8Array(128);
for (const op of [...PUNCT2, ...PUNCT3]) MULTI_START[op.charCodeAt(0)] = 1;
/** Identifier characters below 128 (everything above counts as identifier). */
const IDENT = new Uint8Array(128);
for (let k = 0; k < 128; k++) {
  if ((k >= 97 && k <= 122) || (k >= 65 && k <= 90) || (k >= 48 && k <= 57) || k === 95 || k === 36) IDENT[k] = 1;
}

/**
 * If a raw string literal (`R"d(...)d"`, also with `u8`/`u`/`U`/`L` prefixes) starts at `i`, returns the offset
 * just past it (or text.length when unterminated); otherwise -1.
 */
export function rawStringEnd(text: string, i: number): number {
  let j = i;
  const c = text.charCodeAt(j);
  if (c === 117 /* u */) {
    j++;
    if (text.charCodeAt(j) === 56 /* 8 */) j++;
  } else if (c === 85 /* U */ || c === 76 /* L */) j++;
  if (text.charCodeAt(j) !== 82 /* R */ || text.charCodeAt(j + 1) !== CH_QUOTE) return -1;
  j += 2;
  const open = text.indexOf('(', j);
  if (open < 0 || open - j > 16) return -1;
  const delim = text.slice(j, open);
  if (/[\s\\()]/.test(delim)) return -1;
  const close = text.indexOf(')' + delim + '"', open + 1);
  return close < 0 ? text.length : close + delim.length + 2;
}

/** If the `R` at `i` starts a raw string (with an optional u8/u/U/L prefix before it), the offset after it, else -1. */
export function rawStringAt(text: string, i: number): number {
  let s = i;
  const p1 = text.charCodeAt(i - 1);
  if (p1 === 117 || p1 === 85 || p1 === 76) s = i - 1;
  else if (p1 === 56 && text.charCodeAt(i - 2) === 117) s = i - 2;
  if (isIdentPart(text.charCodeAt(s - 1))) return -1;
  return rawStringEnd(text, s);
}

/** Offset just past a `"..."` string starting at `i` (stops at an unescaped newline when unterminated). */
export function quotedEnd(text: string, i: number, quote: number): number {
  const n = text.length;
  let j = i + 1;
  while (j < n) {
    const c = text.charCodeAt(j);
    if (c === CH_BACKSLASH) {
      j += 2;
      continue;
    }
    if (c === quote) return j + 1;
    if (c === CH_NL) return j;
    j++;
  }
  return n;
}

/** Offset just past a comment starting at `i` (which must be `//` or `/*`), or -1 if none starts there. */
export function commentEnd(text: string, i: number): number {
  if (text.charCodeAt(i) !== CH_SLASH) return -1;
  const c2 = text.charCodeAt(i + 1);
  if (c2 === CH_SLASH) {
    // Line comment; a backslash-newline continues it (C rule).
    let j = i + 2;
    const n = text.length;
    for (;;) {
      const nl = text.indexOf('\n', j);
      if (nl < 0) return n;
      let k = nl - 1;
      if (text.charCodeAt(k) === CH_CR) k--;
      if (text.charCodeAt(k) === CH_BACKSLASH) {
        j = nl + 1;
        continue;
      }
      return nl;
    }
  }
  if (c2 === CH_STAR) {
    const e = text.indexOf('*/', i + 2);
    return e < 0 ? text.length : e + 2;
  }
  return -1;
}

// Identifier interning: repeated names (and every keyword) come back as the same string object, which saves an
// allocation per identifier and makes keyword comparisons pointer compares. Open addressing over a fixed table
// that is cleared when it fills up.
const INTERN_SIZE = 1 << 15;
const INTERN_MASK = INTERN_SIZE - 1;
let internStrings: (string | undefined)[] = new Array<string | undefined>(INTERN_SIZE);
let internHashes = new Int32Array(INTERN_SIZE);
let internFlags = new Uint8Array(INTERN_SIZE);
let internCount = 0;

function hashOf(s: string): number {
  let h = s.charCodeAt(0);
  for (let k = 1; k < s.length; k++) h = (Math.imul(h, 31) + s.charCodeAt(k)) | 0;
  return h;
}

function internConstant(s: string, flags: number): void {
  intern(s, 0, s.length, hashOf(s), s, flags);
}

/** Flags of the string returned by the last `intern` call. */
let lastFlags = 0;

function intern(text: string, start: number, end: number, h: number, constant?: string, flags = 0): string {
  const len = end - start;
  let slot = (h ^ (h >>> 15)) & INTERN_MASK;
  for (;;) {
    const e = internStrings[slot];
    if (e === undefined) break;
    if (internHashes[slot] === h && e.length === len && text.startsWith(e, start)) {
      lastFlags = internFlags[slot]!;
      return e;
    }
    slot = (slot + 1) & INTERN_MASK;
  }
  if (internCount >= INTERN_SIZE >> 1) {
    resetInternTable();
    return intern(text, start, end, h, constant, flags);
  }
  const v = constant ?? text.slice(start, end);
  internStrings[slot] = v;
  internHashes[slot] = h;
  internFlags[slot] = flags;
  lastFlags = flags;
  internCount++;
  return v;
}

/** Names the parser compares against; interned up front so that lookups return the literal constants. */
const KEYWORDS = [
  'parallel', 'inthreads', 'foreach', 'with', 'while', 'if', 'else', 'wait', 'trigger', 'sync', 'return', 'break',
  'continue', 'yield', '__cpp__', 'asm', '__asm__', '__asm', 'shared', 'local', 'global', 'event', 'mutable', 'frag',
  'mdspan', 'ituple', 'swap', 'rotate', 'select', 'call', 'dma', 'tma', 'mma', 'async', 'after', 'in', 'by', 'where',
  'apply', 'ready', 'cluster', 'print', 'println', 'volatile', 'goto', 'inline', 'group', 'group-4', 'block', 'thread',
  'device', 'term', 'unroll', 'vectorize', 'row', 'col', 'copy', 'load', 'store', 'any', 'at', 'chunkat', 'subspan',
  'span', 'data', 'cdiv', 'auto', 'void', 'stream', 'f64', 'tf32', 'f32', 'f16', 'bf16', 'f8', 'f8_e4m3', 'f8_e5m2',
  'f8_ue4m3', 'f8_ue8m0', 'f6_e3m2', 'f6_e2m3', 'f4_e2m1', 'u64', 's64', 'u32', 's32', 'u16', 's16', 'u8', 's8',
  'u6', 's6', 'u4', 's4', 'u2', 's2', 'bin1', 'u1', 'int', 'bool', 'half', 'bfp16', 'float', 'double', 'true', 'false',
];

export const RESERVED_WORDS = [
  'return', 'foreach', 'parallel', 'if', 'else', 'while', 'wait', 'trigger', 'with', 'inthreads', 'break', 'continue',
  'yield', 'event', 'mutable', 'apply', 'where', 'after', 'in', 'by', 'frag', 'mdspan', 'ituple', 'dma', 'tma', 'mma',
  'call', '__cpp__', 'asm', '__asm__',
];
export const TYPE_WORDS = [
  'f64', 'tf32', 'f32', 'f16', 'bf16', 'f8', 'f8_e4m3', 'f8_e5m2', 'f8_ue4m3', 'f8_ue8m0', 'f6_e3m2', 'f6_e2m3',
  'f4_e2m1', 'u64', 's64', 'u32', 's32', 'u16', 's16', 'u8', 's8', 'u6', 's6', 'u4', 's4', 'u2', 's2', 'bin1', 'u1',
  'int', 'bool', 'half', 'bfp16', 'float', 'double', 'void',
];

function resetInternTable(): void {
  internStrings = new Array<string | undefined>(INTERN_SIZE);
  internHashes = new Int32Array(INTERN_SIZE);
  internFlags = new Uint8Array(INTERN_SIZE);
  internCount = 0;
  for (const k of RESERVED_WORDS) internConstant(k, KW_RESERVED);
  for (const k of TYPE_WORDS) internConstant(k, KW_TYPE);
  for (const k of KEYWORDS) internConstant(k, 0);
}
resetInternTable();

/** A tokenizer over `text` starting at `pos`. `next()` never throws; at the end it returns Eof tokens forever. */
export class Lexer {
  pos: number;
  private readonly n: number;

  constructor(
    private readonly text: string,
    start = 0,
    end = text.length,
  ) {
    this.pos = start;
    this.n = end;
  }

  next(): Token {
    const text = this.text;
    const n = this.n;
    let i = this.pos;
    let spaced = false;
    // Skip whitespace and comments.
    let c = 0;
    for (;;) {
      if (i >= n) {
        this.pos = n;
        return { kind: Tok.Eof, value: '', start: n, end: n, spaced: true, kw: 0 };
      }
      c = text.charCodeAt(i);
      if (c === CH_SPACE || c === CH_NL || c === CH_TAB || c === CH_CR || c === 11 || c === 12) {
        i++;
        spaced = true;
        continue;
      }
      if (c === CH_BACKSLASH && (text.charCodeAt(i + 1) === CH_NL || text.charCodeAt(i + 1) === CH_CR)) {
        i++;
        spaced = true;
        continue;
      }
      if (c === CH_SLASH) {
        const e = commentEnd(text, i);
        if (e >= 0) {
          i = e;
          spaced = true;
          continue;
        }
      }
      break;
    }
    const start = i;
    if (isIdentStart(c)) {
      // Raw strings share a prefix with identifiers.
      if (c === 82 || c === 117 || c === 85 || c === 76) {
        const r = rawStringEnd(text, i);
        if (r >= 0) {
          this.pos = Math.min(r, n);
          return { kind: Tok.Str, value: text.slice(start, this.pos), start, end: this.pos, spaced, kw: 0 };
        }
      }
      let h = c;
      i++;
      while (i < n) {
        const d = text.charCodeAt(i);
        if (d < 128 ? IDENT[d] === 0 : false) break;
        h = (Math.imul(h, 31) + d) | 0;
        i++;
      }
      let value = intern(text, start, i, h);
      let kw = lastFlags;
      // `group-4` is one level keyword.
      if (value === 'group' && text.charCodeAt(i) === 45 && text.charCodeAt(i + 1) === 52 && !isIdentPart(text.charCodeAt(i + 2))) {
        i += 2;
        value = 'group-4';
        kw = 0;
      }
      this.pos = i;
      return { kind: Tok.Ident, value, start, end: i, spaced, kw };
    }
    if (isDigit(c)) {
      i = numberEnd(text, i, n);
      this.pos = i;
      return { kind: Tok.Num, value: text.slice(start, i), start, end: i, spaced, kw: 0 };
    }
    if (c === CH_QUOTE || c === CH_APOS) {
      i = Math.min(quotedEnd(text, i, c), n);
      this.pos = i;
      return { kind: Tok.Str, value: text.slice(start, i), start, end: i, spaced, kw: 0 };
    }
    // Multi-character operators: only a few first characters can start one.
    if (c < 128 && MULTI_START[c] === 1 && i + 1 < n) {
      const c2 = text.charCodeAt(i + 1);
      const c3 = i + 2 < n ? text.charCodeAt(i + 2) : 0;
      const op = multiOp(c, c2, c3);
      if (op !== undefined) {
        const e = i + op.length;
        this.pos = e;
        return { kind: Tok.Punct, value: op, start, end: e, spaced, kw: 0 };
      }
    }
    if (c < 128) {
      this.pos = i + 1;
      return { kind: Tok.Punct, value: P1[c]!, start, end: i + 1, spaced, kw: 0 };
    }
    // Surrogate pairs and any other character become a one-code-unit punctuator.
    this.pos = i + 1;
    return { kind: Tok.Punct, value: text[i]!, start, end: i + 1, spaced, kw: 0 };
  }
}

/** The operator of two or three characters starting with `c, c2, c3`, if any (longest match). */
function multiOp(c: number, c2: number, c3: number): string | undefined {
  switch (c) {
    case 61: // =
      return c2 === 62 ? '=>' : c2 === 61 ? '==' : undefined;
    case 33: // !
      return c2 === 61 ? '!=' : undefined;
    case 60: // <
      if (c2 === 45) return c3 === 62 ? '<->' : undefined;
      if (c2 === 60) return c3 === 61 ? '<<=' : '<<';
      return c2 === 61 ? '<=' : undefined;
    case 62: // >
      if (c2 === 62) return c3 === 61 ? '>>=' : '>>';
      return c2 === 61 ? '>=' : undefined;
    case 38: // &
      return c2 === 38 ? '&&' : c2 === 61 ? '&=' : undefined;
    case 124: // |
      return c2 === 124 ? '||' : c2 === 61 ? '|=' : undefined;
    case 43: // +
      return c2 === 43 ? '++' : c2 === 61 ? '+=' : undefined;
    case 45: // -
      return c2 === 45 ? '--' : c2 === 61 ? '-=' : c2 === 62 ? '->' : undefined;
    case 42: // *
      return c2 === 61 ? '*=' : undefined;
    case 47: // /
      return c2 === 61 ? '/=' : undefined;
    case 37: // %
      return c2 === 61 ? '%=' : undefined;
    case 94: // ^
      return c2 === 61 ? '^=' : undefined;
    case 63: // ?
      return c2 === 63 ? '??' : undefined;
    case 58: // :
      return c2 === 58 ? '::' : undefined;
    case 46: // .
      return c2 === 46 && c3 === 46 ? '...' : undefined;
    case 35: // #
      return c2 === 43 ? '#+' : c2 === 45 ? '#-' : c2 === 42 ? '#*' : c2 === 47 ? '#/' : c2 === 37 ? '#%' : undefined;
    default:
      return undefined;
  }
}

/** End of a numeric literal at `i`: `123`, `0x1F`, `128u`, `1ull`, `0.5`, `0.0f`, `1e-3`, `2.5e+4f`. */
function numberEnd(text: string, i: number, n: number): number {
  const c0 = text.charCodeAt(i);
  const c1 = text.charCodeAt(i + 1);
  if (c0 === CH_0 && (c1 === 120 || c1 === 88 || c1 === 98 || c1 === 66)) {
    i += 2;
    while (i < n && isIdentPart(text.charCodeAt(i))) i++;
    return i;
  }
  while (i < n && (isDigit(text.charCodeAt(i)) || (text.charCodeAt(i) === CH_APOS && isDigit(text.charCodeAt(i + 1))))) i++;
  if (text.charCodeAt(i) === CH_DOT && isDigit(text.charCodeAt(i + 1))) {
    i++;
    while (i < n && isDigit(text.charCodeAt(i))) i++;
  }
  const e = text.charCodeAt(i);
  if (e === 101 || e === 69) {
    let j = i + 1;
    const s = text.charCodeAt(j);
    if (s === 43 || s === 45) j++;
    if (isDigit(text.charCodeAt(j))) {
      i = j;
      while (i < n && isDigit(text.charCodeAt(i))) i++;
    }
  }
  // Suffixes: f, F, u, U, l, L (any order, as C allows a few).
  while (i < n) {
    const s = text.charCodeAt(i);
    if (s === 102 || s === 70 || s === 117 || s === 85 || s === 108 || s === 76) i++;
    else break;
  }
  return i;
}

/** Numeric value of a literal token's text (`0.0f` -> 0, `128u` -> 128, `0x10` -> 16); NaN if unreadable. */
export function numberValue(text: string): number {
  // Fast path: plain decimal integers.
  let v = 0;
  let k = 0;
  for (; k < text.length; k++) {
    const c = text.charCodeAt(k);
    if (c < 48 || c > 57) break;
    v = v * 10 + (c - 48);
  }
  if (k === text.length && k > 0 && k < 16) return v;
  let t = text.replace(/'/g, '');
  if (/^0[xX]/.test(t)) {
    t = t.replace(/[uUlL]+$/, '');
    return parseInt(t.slice(2), 16);
  }
  if (/^0[bB]/.test(t)) {
    t = t.replace(/[uUlL]+$/, '');
    return parseInt(t.slice(2), 2);
  }
  t = t.replace(/[fFuUlL]+$/, '');
  return Number(t);
}
