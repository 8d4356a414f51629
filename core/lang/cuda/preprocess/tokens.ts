// Preprocessing tokens of C/C++ for directive lines, macro bodies and #if expressions: one linear,
// comment- and string-aware lexer shared by macro expansion and condition evaluation.

export type TokenKind = 'ident' | 'number' | 'string' | 'char' | 'punct' | 'other';

export interface Token {
  kind: TokenKind;
  text: string;
  /** Whitespace (or a comment) precedes the token; kept so expansions and `#` spell tokens as written. */
  space: boolean;
  /** Macro names this token may no longer expand (its hide set, shared between the tokens of one expansion). */
  hide?: ReadonlySet<string>;
  /** Painted blue: an identifier that met its own macro while that macro was being expanded never expands again. */
  noExpand?: boolean;
}

// Longest first within each leading character, so the lexer takes the longest punctuator (C's maximal munch).
const PUNCTUATORS = [
  '%:%:', '...', '<<=', '>>=', '->*', '<=>',
  '##', '->', '++', '--', '<<', '>>', '<=', '>=', '==', '!=', '&&', '||', '*=', '/=', '%=', '+=', '-=', '&=',
  '^=', '|=', '::', '.*', '<:', ':>', '<%', '%>', '%:',
];
const PUNCT_BY_FIRST = new Map<string, string[]>();
for (const p of PUNCTUATORS) {
  const list = PUNCT_BY_FIRST.get(p[0]) ?? [];
  list.push(p);
  PUNCT_BY_FIRST.set(p[0], list);
}

export function isIdentStart(c: number): boolean {
  return (c >= 97 && c <= 122) || (c >= 65 && c <= 90) || c === 95 || c === 36 || c >= 0x80;
}

export function isIdentPart(c: number): boolean {
  return isIdentStart(c) || (c >= 48 && c <= 57);
}

export function isDigit(c: number): boolean {
  return c >= 48 && c <= 57;
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12;
}

/** End (exclusive) of the quoted literal opening at `i` (quote char `q`); stops at an unescaped line break. */
export function quotedEnd(text: string, i: number, q: number): number {
  const n = text.length;
  let j = i + 1;
  while (j < n) {
    const c = text.charCodeAt(j);
    if (c === 92) {
      j += 2;
      continue;
    }
    if (c === q) return j + 1;
    if (c === 10) return j;
    j++;
  }
  return n;
}

/** End of a pp-number starting at `i` (digits, letters, `.`, exponent signs, C++14 digit separators). */
export function ppNumberEnd(text: string, i: number): number {
  const n = text.length;
  let j = i + 1;
  while (j < n) {
    const c = text.charCodeAt(j);
    if (isIdentPart(c) || c === 46) {
      j++;
    } else if ((c === 43 || c === 45) && /[eEpP]/.test(text[j - 1])) {
      j++;
    } else if (c === 39 && j + 1 < n && isIdentPart(text.charCodeAt(j + 1))) {
      j += 2;
    } else {
      break;
    }
  }
  return j;
}

/** If a raw string literal (`R"d(...)d"`, with an optional u8/u/U/L prefix already consumed) opens at `quote`, its end. */
export function rawStringEnd(text: string, quote: number): number | undefined {
  const open = text.indexOf('(', quote + 1);
  if (open < 0 || open - quote - 1 > 16) return undefined;
  const delim = text.slice(quote + 1, open);
  if (/[\s\\)"]/.test(delim)) return undefined;
  const close = text.indexOf(`)${delim}"`, open + 1);
  return close < 0 ? text.length : close + delim.length + 2;
}

const STRING_PREFIXES = new Set(['L', 'u', 'U', 'u8']);
const RAW_PREFIXES = new Set(['R', 'LR', 'uR', 'UR', 'u8R']);

/**
 * Tokens of a piece of text. Comments become whitespace; line splices (backslash-newline) are whitespace
 * too, which is right for directive text whose splices were already joined and harmless elsewhere.
 */
export function tokenize(text: string): Token[] {
  const out: Token[] = [];
  const n = text.length;
  let i = 0;
  let space = false;
  while (i < n) {
    const c = text.charCodeAt(i);
    if (isSpace(c) || (c === 92 && (text.charCodeAt(i + 1) === 10 || text.charCodeAt(i + 1) === 13))) {
      space = true;
      i++;
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 47) {
      const e = text.indexOf('\n', i);
      i = e < 0 ? n : e;
      space = true;
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const e = text.indexOf('*/', i + 2);
      i = e < 0 ? n : e + 2;
      space = true;
      continue;
    }
    let end: number;
    let kind: TokenKind;
    if (isIdentStart(c)) {
      end = i + 1;
      while (end < n && isIdentPart(text.charCodeAt(end))) end++;
      kind = 'ident';
      const q = text.charCodeAt(end);
      const word = text.slice(i, end);
      if (q === 34 && RAW_PREFIXES.has(word)) {
        const e = rawStringEnd(text, end);
        if (e !== undefined) {
          end = e;
          kind = 'string';
        }
      } else if ((q === 34 || q === 39) && STRING_PREFIXES.has(word)) {
        end = quotedEnd(text, end, q);
        kind = q === 34 ? 'string' : 'char';
      }
    } else if (isDigit(c) || (c === 46 && isDigit(text.charCodeAt(i + 1)))) {
      end = ppNumberEnd(text, i);
      kind = 'number';
    } else if (c === 34 || c === 39) {
      end = quotedEnd(text, i, c);
      kind = c === 34 ? 'string' : 'char';
    } else {
      end = i + 1;
      kind = 'punct';
      const candidates = PUNCT_BY_FIRST.get(text[i]);
      if (candidates) {
        for (const p of candidates) {
          if (text.startsWith(p, i)) {
            end = i + p.length;
            break;
          }
        }
      }
      if (c < 33 || c > 126) kind = 'other';
    }
    out.push({ kind, text: text.slice(i, end), space });
    space = false;
    i = end;
  }
  return out;
}

/** Spells tokens back as text: one space where the source had whitespace, none elsewhere. */
export function spell(tokens: readonly Token[]): string {
  let s = '';
  for (let i = 0; i < tokens.length; i++) {
    if (i > 0 && tokens[i].space) s += ' ';
    s += tokens[i].text;
  }
  return s;
}

/** The `#` operator: the tokens as one string literal, backslashes and quotes in literals escaped. */
export function stringify(tokens: readonly Token[]): string {
  let s = '"';
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (i > 0 && t.space) s += ' ';
    s += t.kind === 'string' || t.kind === 'char' ? t.text.replace(/[\\"]/g, '\\$&') : t.text;
  }
  return `${s}"`;
}
