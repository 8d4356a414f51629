// Croqtile preprocessing, offset-preserving: collects `#define`s, evaluates `#if/#ifdef/#ifndef/#elif/#else/
// #endif` and blanks out directive lines and inactive branches (spaces, newlines kept) so every span into the
// result is a span into the original text. `#if` conditions follow the C preprocessor's rules (below), which are
// not the language's: constant expressions of Croqtile itself are folded by ./constant-eval.ts.
import type { CoSyntaxError } from './ast';
import { Lexer, Tok, commentEnd, numberValue, quotedEnd, rawStringAt, isIdentPart } from './lexer';

// Kept importable from here, where they lived first.
import { applyBinary } from './constant-eval';
export { evaluateConstant } from './constant-eval';
export { rawStringAt } from './lexer';

export interface FunctionMacro {
  params: string[];
  body: string;
}

export interface PreprocessResult {
  /** Same length as the input; directives and inactive branches replaced by spaces (line breaks kept). */
  text: string;
  /** Object-like macros in definition order (a redefinition moves nothing; last value wins; `#undef` removes). */
  defines: Map<string, string>;
  /** Function-like macros, recorded but not expanded. */
  functionMacros: Map<string, FunctionMacro>;
  /** Unbalanced conditionals (`#endif` without `#if`, a `#if` never closed). */
  errors: CoSyntaxError[];
}

const DIRECTIVES = new Set([
  'define', 'undef', 'if', 'ifdef', 'ifndef', 'elif', 'elifdef', 'elifndef', 'else', 'endif', 'include',
  'include_next', 'import', 'pragma', 'error', 'warning', 'line',
]);

interface CondFrame {
  /** Offsets of the opening directive. */
  start: number;
  end: number;
  /** Whether the enclosing region is active. */
  parentActive: boolean;
  /** Whether some branch of this conditional was (or, for unknown conditions, is deemed) taken. */
  taken: boolean;
  active: boolean;
}

/** Finds the end of the directive starting at `i` (the `#`): the line break that ends it, honouring `\` splices. */
function directiveEnd(text: string, i: number): number {
  const n = text.length;
  let j = i + 1;
  while (j < n) {
    const c = text.charCodeAt(j);
    if (c === 10) {
      // A preceding backslash (optionally before \r) splices the next line in.
      let k = j - 1;
      if (text.charCodeAt(k) === 13) k--;
      if (text.charCodeAt(k) === 92) {
        j++;
        continue;
      }
      return j;
    }
    if (c === 47) {
      const e = commentEnd(text, j);
      if (e >= 0) {
        // A line comment ends the directive at its newline; a block comment may span lines.
        if (text.charCodeAt(j + 1) === 47) return e;
        j = e;
        continue;
      }
    }
    if (c === 34 || c === 39) {
      const e = quotedEnd(text, j, c);
      j = e > j ? e : j + 1;
      continue;
    }
    j++;
  }
  return n;
}

/** The directive body with splices joined and comments removed. */
function cleanDirective(raw: string): string {
  let s = raw.replace(/\\\r?\n/g, ' ');
  // `[\s\S]` rather than `.`: the cut then matches at the first `//` instead of retrying every one (quadratic).
  s = s.replace(/\/\*[\s\S]*?\*\//g, ' ').replace(/\/\/[\s\S]*$/, '');
  return s.trim();
}

/** Whether only blanks precede offset `i` on its line. */
function atLineStart(text: string, i: number): boolean {
  for (let k = i - 1; k >= 0; k--) {
    const c = text.charCodeAt(k);
    if (c === 10) return true;
    if (c !== 32 && c !== 9 && c !== 13 && c !== 12 && c !== 11) return false;
  }
  return true;
}

export function preprocess(text: string): PreprocessResult {
  const n = text.length;
  const defines = new Map<string, string>();
  const functionMacros = new Map<string, FunctionMacro>();
  const stack: CondFrame[] = [];
  const errors: CoSyntaxError[] = [];
  let active = true;
  // Ranges to blank, as flat [start, end) pairs.
  const blanks: number[] = [];
  let inactiveFrom = -1;

  const setActive = (next: boolean, at: number): void => {
    if (active && !next) inactiveFrom = at;
    else if (!active && next && inactiveFrom >= 0) {
      blanks.push(inactiveFrom, at);
      inactiveFrom = -1;
    }
    active = next;
  };

  // Jump between the characters that matter: directive marks, quotes, comment openers, raw strings.
  const re = /["'#]|\/[/*]|R"/g;
  let m: RegExpExecArray | null;
  while ((m = re.exec(text)) !== null) {
    const i = m.index;
    const c = text.charCodeAt(i);
    if (c === 35 /* # */) {
      if (!atLineStart(text, i)) continue;
      // Directive name.
      let j = i + 1;
      while (j < n && (text.charCodeAt(j) === 32 || text.charCodeAt(j) === 9)) j++;
      const ns = j;
      while (j < n && isIdentPart(text.charCodeAt(j))) j++;
      const name = text.slice(ns, j);
      if (DIRECTIVES.has(name) || (name === '' && (j >= n || text.charCodeAt(j) === 10 || text.charCodeAt(j) === 13))) {
        const end = directiveEnd(text, i);
        const body = cleanDirective(text.slice(j, end));
        if (active) blanks.push(i, end);
        handleDirective(name, body, i, end);
        re.lastIndex = end;
      }
      continue;
    }
    if (c === 47 /* / */) {
      re.lastIndex = Math.max(commentEnd(text, i), i + 1);
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
    // R"
    const r = rawStringAt(text, i);
    if (r >= 0) re.lastIndex = r;
  }
  if (!active && inactiveFrom >= 0) blanks.push(inactiveFrom, n);

  function handleDirective(name: string, body: string, start: number, end: number): void {
    const unmatched = (): void => {
      errors.push({ message: `'#${name}' without '#if'`, span: { start, end: start + 1 + name.length } });
    };
    switch (name) {
      case 'if':
      case 'ifdef':
      case 'ifndef': {
        let cond: boolean | undefined;
        if (name === 'if') cond = evalCondition(body, defines, functionMacros);
        else {
          const id = /^[A-Za-z_$][\w$]*/.exec(body)?.[0];
          const def = id !== undefined && (defines.has(id) || functionMacros.has(id));
          cond = name === 'ifdef' ? def : !def;
        }
        const take = cond ?? true; // unknown: keep the first branch
        stack.push({ start, end, parentActive: active, taken: take, active: take });
        setActive(active && take, end);
        return;
      }
      case 'elif':
      case 'elifdef':
      case 'elifndef': {
        const f = stack[stack.length - 1];
        if (!f) return unmatched();
        let take = false;
        if (!f.taken) {
          let cond: boolean | undefined;
          if (name === 'elif') cond = evalCondition(body, defines, functionMacros);
          else {
            const id = /^[A-Za-z_$][\w$]*/.exec(body)?.[0];
            const def = id !== undefined && (defines.has(id) || functionMacros.has(id));
            cond = name === 'elifdef' ? def : !def;
          }
          take = cond ?? true;
        }
        if (take) f.taken = true;
        f.active = take;
        setActive(f.parentActive && take, end);
        return;
      }
      case 'else': {
        const f = stack[stack.length - 1];
        if (!f) return unmatched();
        const take = !f.taken;
        f.taken = true;
        f.active = take;
        setActive(f.parentActive && take, end);
        return;
      }
      case 'endif': {
        const f = stack.pop();
        if (!f) return unmatched();
        setActive(f.parentActive, end);
        return;
      }
      case 'define': {
        if (!active) return;
        const m = /^([A-Za-z_$][\w$]*)(\(([^)]*)\))?\s*([\s\S]*)$/.exec(body);
        if (!m) return;
        const id = m[1]!;
        if (m[2] !== undefined) {
          functionMacros.set(id, {
            params: m[3]!.split(',').map((p) => p.trim()).filter((p) => p.length > 0),
            body: m[4]!.trim(),
          });
          defines.delete(id);
        } else {
          defines.delete(id); // last definition wins and takes the last position
          defines.set(id, m[4]!.trim());
          functionMacros.delete(id);
        }
        return;
      }
      case 'undef': {
        if (!active) return;
        const id = /^[A-Za-z_$][\w$]*/.exec(body)?.[0];
        if (id) {
          defines.delete(id);
          functionMacros.delete(id);
        }
        return;
      }
      default:
        return; // include, pragma, error, warning, line: passed through, not interpreted
    }
  }

  for (const f of stack) errors.push({ message: "missing '#endif' for this conditional", span: { start: f.start, end: f.end } });
  return { text: blankRanges(text, blanks), defines, functionMacros, errors };
}

const SPACES = ' '.repeat(256);

function blanks(n: number): string {
  return n <= SPACES.length ? SPACES.slice(0, n) : ' '.repeat(n);
}

function blankRanges(text: string, ranges: number[]): string {
  if (ranges.length === 0) return text;
  const parts: string[] = [];
  let last = 0;
  for (let k = 0; k < ranges.length; k += 2) {
    const s = Math.max(ranges[k]!, last);
    const e = ranges[k + 1]!;
    if (e <= s) continue;
    parts.push(text.slice(last, s));
    let breaks = false;
    for (let k2 = s; k2 < e; k2++) {
      const c = text.charCodeAt(k2);
      if (c === 10 || c === 13) {
        breaks = true;
        break;
      }
    }
    parts.push(breaks ? text.slice(s, e).replace(/[^\n\r]/g, ' ') : blanks(e - s));
    last = e;
  }
  parts.push(text.slice(last));
  return parts.join('');
}

// ---------------------------------------------------------------------------------------------------------------
// `#if` expressions: C integer semantics over the defines; anything unknown (an identifier that is not defined,
// a function-like macro call) makes the result undefined so the caller keeps the first branch.

type Maybe = number | undefined;

function evalCondition(body: string, defines: Map<string, string>, fns: Map<string, FunctionMacro>): boolean | undefined {
  const v = evalPpText(body, defines, fns, 0);
  return v === undefined ? undefined : v !== 0;
}

function evalPpText(body: string, defines: Map<string, string>, fns: Map<string, FunctionMacro>, depth: number): Maybe {
  if (depth > 32) return undefined;
  const lx = new Lexer(body);
  const toks: { kind: Tok; value: string }[] = [];
  for (let k = 0; k < 10000; k++) {
    const t = lx.next();
    if (t.kind === Tok.Eof) break;
    toks.push({ kind: t.kind, value: t.value });
  }
  let p = 0;
  let failed = false;
  const peek = (): string => (p < toks.length ? toks[p]!.value : '');

  function primary(): Maybe {
    const t = toks[p];
    if (!t) {
      failed = true;
      return undefined;
    }
    p++;
    if (t.kind === Tok.Num) {
      const v = numberValue(t.value);
      return Number.isFinite(v) ? Math.trunc(v) : undefined;
    }
    if (t.kind === Tok.Ident) {
      if (t.value === 'defined') {
        let id: string | undefined;
        if (peek() === '(') {
          p++;
          id = toks[p]?.value;
          p++;
          if (peek() === ')') p++;
        } else {
          id = toks[p]?.value;
          p++;
        }
        return id !== undefined && (defines.has(id) || fns.has(id)) ? 1 : 0;
      }
      if (t.value === 'true') return 1;
      if (t.value === 'false') return 0;
      if (peek() === '(') {
        // Function-like macro or unknown call: skip its arguments, value unknown.
        let d = 0;
        while (p < toks.length) {
          const v = toks[p++]!.value;
          if (v === '(') d++;
          else if (v === ')' && --d === 0) break;
        }
        return undefined;
      }
      const def = defines.get(t.value);
      if (def === undefined) return undefined;
      return evalPpText(def, defines, fns, depth + 1);
    }
    if (t.value === '(') {
      const v = ternary();
      if (peek() === ')') p++;
      else failed = true;
      return v;
    }
    if (t.value === '!') {
      const v = primary();
      return v === undefined ? undefined : v === 0 ? 1 : 0;
    }
    if (t.value === '-') {
      const v = primary();
      return v === undefined ? undefined : -v;
    }
    if (t.value === '+') return primary();
    if (t.value === '~') {
      const v = primary();
      return v === undefined ? undefined : ~v;
    }
    failed = true;
    return undefined;
  }

  const LEVELS: string[][] = [
    ['||'], ['&&'], ['|'], ['^'], ['&'], ['==', '!='], ['<', '>', '<=', '>='], ['<<', '>>'], ['+', '-'], ['*', '/', '%'],
  ];

  function binary(level: number): Maybe {
    if (level >= LEVELS.length) return primary();
    let left = binary(level + 1);
    for (;;) {
      const op = peek();
      if (!LEVELS[level]!.includes(op)) return left;
      p++;
      const right = binary(level + 1);
      left = applyPp(op, left, right);
    }
  }

  function ternary(): Maybe {
    const c = binary(0);
    if (peek() !== '?') return c;
    p++;
    const a = ternary();
    if (peek() === ':') p++;
    const b = ternary();
    if (c === undefined) return a !== undefined && a === b ? a : undefined;
    return c !== 0 ? a : b;
  }

  const v = ternary();
  if (failed || p < toks.length) return undefined;
  return v;
}

function applyPp(op: string, a: Maybe, b: Maybe): Maybe {
  if (op === '&&') {
    if (a === 0 || b === 0) return 0;
    return a === undefined || b === undefined ? undefined : 1;
  }
  if (op === '||') {
    if ((a !== undefined && a !== 0) || (b !== undefined && b !== 0)) return 1;
    return a === undefined || b === undefined ? undefined : 0;
  }
  if (a === undefined || b === undefined) return undefined;
  return applyBinary(op, a, b);
}
