// Macro uses the parser cannot read, rewritten in the same-length parse text: object-like macros that expand to
// a short piece of structure (`CUB_NAMESPACE_END` -> `}`) are written in place, and uses whose expansion means
// nothing to the analysis (`DG_STATIC_ASSERT(a <= b, "m")`, `_CCCL_PRAGMA_UNROLL_FULL()`) are blanked.
import { bodyTokens, expandTokens, type MacroDefinition, type MacroTable } from './macros';
import { classifyTokens, CUDA_KEYWORDS } from './specifiers';
import { groupEnd } from './use-candidates';
import { tokenize, type Token } from './tokens';

/**
 * What the parse text does with one use of a macro: 'invocation' (function-like) is decided per invocation by
 * invocationSpan()/blankableExpansion(); 'write' puts `text` (no longer than the name) in place of the name.
 */
export type MacroUse = { kind: 'blank' } | { kind: 'write'; text: string } | { kind: 'invocation' } | { kind: 'keep' };

/** Longest invocation (name to closing parenthesis) looked at: bounds the work per use, so a file stays linear. */
export const MAX_INVOCATION_CHARS = 4096;

/** Deepest parenthesis nesting of an invocation looked at: expansion work grows with the nesting (hide sets). */
export const MAX_INVOCATION_DEPTH = 32;

const EXPANSION_LIMIT = 10_000;

// Words of the structural expansions written in place: namespaces opened and closed, nothing else.
const STRUCTURAL_WORDS = new Set(['namespace', 'inline']);

// Words that name code the lowering reads (barriers, copies, fences, inline assembly): an expansion holding one is
// never blanked, even where it looks like a specifier.
const CODE_WORD = /mbarrier|arrive|wait|expect|bulk|tma|fence|cp_?async|asm|barrier|sync|volatile/i;

/**
 * The use of object-like `def` other than a specifier macro: a full expansion made only of namespace openings and
 * closings (with at least one brace) that fits in the name is written in place; one that is only a
 * `static_assert(...)` is blanked. Function-like macros are decided per invocation.
 */
export function classifyObjectUse(def: MacroDefinition, macros: MacroTable): MacroUse {
  if (def.params) return { kind: 'invocation' };
  const expanded = expandTokens([{ kind: 'ident', text: def.name, space: false }], macros, { noExpand: CUDA_KEYWORDS, limit: EXPANSION_LIMIT });
  if (!expanded.complete) return { kind: 'keep' };
  const tokens = expanded.tokens;
  if (isStaticAssertion(tokens)) return { kind: 'blank' };
  if (!isStructural(tokens)) return { kind: 'keep' };
  const text = compactSpelling(tokens);
  return text.length <= def.name.length ? { kind: 'write', text: text.padEnd(def.name.length, ' ') } : { kind: 'keep' };
}

/** Namespace openings and closings only: `namespace a::b {`, `inline namespace v1 {`, `}`, `;`, with a brace. */
function isStructural(tokens: readonly Token[]): boolean {
  let brace = false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.text === '{' || t.text === '}') {
      brace = true;
      continue;
    }
    if (t.text === ';') continue;
    if (t.kind === 'ident' && STRUCTURAL_WORDS.has(t.text)) continue;
    // A name is allowed only as a namespace's name (after `namespace` or `::`, before `::` or `{`).
    if (t.kind === 'ident' && (tokens[i - 1]?.text === 'namespace' || tokens[i - 1]?.text === '::')) continue;
    if (t.text === '::' && tokens[i - 1]?.kind === 'ident' && tokens[i + 1]?.kind === 'ident') continue;
    return false;
  }
  return brace;
}

/** The tokens spelled with a space only between two words (`namespace cub{`): the shortest faithful text. */
function compactSpelling(tokens: readonly Token[]): string {
  let s = '';
  for (let i = 0; i < tokens.length; i++) {
    if (i > 0 && tokens[i].kind === 'ident' && tokens[i - 1].kind === 'ident') s += ' ';
    s += tokens[i].text;
  }
  return s;
}

/** `static_assert(...)`, optionally followed by `;`: a compile-time check, nothing the analysis reads. */
function isStaticAssertion(tokens: readonly Token[]): boolean {
  if (tokens[0]?.text !== 'static_assert' || tokens[1]?.text !== '(') return false;
  const close = groupEnd(tokens, 1, '(', ')');
  return close === tokens.length - 1 || (close === tokens.length - 2 && tokens[close + 1].text === ';');
}

/**
 * Whether an invocation's full expansion can be blanked: nothing, specifiers/attributes/pragmas only (no word of
 * code the lowering reads), or a `static_assert(...)`.
 */
export function blankableExpansion(tokens: readonly Token[]): boolean {
  if (tokens.length === 0) return true;
  if (isStaticAssertion(tokens)) return true;
  if (classifyTokens(tokens) !== 'specifier') return false;
  return !tokens.some((t) => t.kind === 'ident' && CODE_WORD.test(t.text));
}

/** The full expansion of the invocation text `call` (`NAME(args)`), or undefined when the work bound cut it short. */
export function expandInvocation(call: string, macros: MacroTable): Token[] | undefined {
  const expanded = expandTokens(tokenize(call), macros, { noExpand: CUDA_KEYWORDS, limit: EXPANSION_LIMIT });
  return expanded.complete ? expanded.tokens : undefined;
}

/**
 * Where the invocation whose name spans [start, nameEnd) ends: `close` just past its closing parenthesis (after
 * whitespace, a balanced parenthesised argument list, comments and literals skipped), absent when there is no `(`,
 * when the list does not close within MAX_INVOCATION_CHARS of `start` or nests deeper than MAX_INVOCATION_DEPTH, or
 * when a directive line lies inside it (the arguments would then depend on conditionals). `scanned` is how far it
 * looked: no more than MAX_INVOCATION_CHARS characters, so a caller that skips uses up to there stays linear.
 */
export function invocationSpan(text: string, start: number, nameEnd: number): { close?: number; scanned: number } {
  const limit = Math.min(text.length, start + MAX_INVOCATION_CHARS);
  let i = nameEnd;
  let lineStart = false;
  while (i < limit && isSpace(text.charCodeAt(i))) {
    if (text.charCodeAt(i) === 10) lineStart = true;
    i++;
  }
  if (i >= limit || text.charCodeAt(i) !== 40) return { scanned: i };
  let depth = 0;
  while (i < limit) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      lineStart = true;
      i++;
      continue;
    }
    if (isSpace(c)) {
      i++;
      continue;
    }
    if (c === 35 && lineStart) return { scanned: i };
    lineStart = false;
    if (c === 40) {
      if (++depth > MAX_INVOCATION_DEPTH) return { scanned: i };
    } else if (c === 41 && --depth === 0) return { close: i + 1, scanned: i + 1 };
    else if (c === 47 && text.charCodeAt(i + 1) === 47) {
      while (i < limit && text.charCodeAt(i) !== 10) i++;
      continue;
    } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const e = boundedIndexOf(text, '*/', i + 2, limit);
      if (e < 0) return { scanned: limit };
      i = e + 2;
      continue;
    } else if (c === 34 || c === 39) {
      // A raw string (`R"(...)"`) or a literal running past the line is not worth the risk: leave the use.
      if (c === 34 && text.charCodeAt(i - 1) === 82) return { scanned: i };
      const e = literalEnd(text, i, c, limit);
      if (e < 0) return { scanned: i };
      i = e;
      continue;
    }
    i++;
  }
  return { scanned: limit };
}

function isSpace(c: number): boolean {
  return c === 32 || c === 9 || c === 10 || c === 13 || c === 11 || c === 12;
}

/** `text.indexOf(needle, from)` that never looks at or past `limit`. */
function boundedIndexOf(text: string, needle: string, from: number, limit: number): number {
  for (let k = from; k + needle.length <= limit; k++) if (text.startsWith(needle, k)) return k;
  return -1;
}

/** End of the quoted literal at `i`, or -1 when it runs into a line break or `limit`. */
function literalEnd(text: string, i: number, quote: number, limit: number): number {
  for (let j = i + 1; j < limit; j++) {
    const c = text.charCodeAt(j);
    if (c === 92) {
      j++;
      continue;
    }
    if (c === quote) return j + 1;
    if (c === 10) return -1;
  }
  return -1;
}
