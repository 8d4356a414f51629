// Which macro bodies could make a use the parse text rewrites (./macro-uses.ts): a cheap test on the body
// alone, kept by the macro table as its candidate set so that a file looks only at those names.
import { classifyTokens } from './specifiers';
import type { Token } from './tokens';

/**
 * Whether a macro body (`tokens`) could make a use the parse text rewrites: a cheap filter on the body alone, for the
 * macro table's candidate set (the expansion decides later). Object-like: identifiers, braces, `;`, `::`,
 * attributes and pragmas; or a `static_assert`. Function-like: empty, a `static_assert`, or identifiers each
 * optionally followed by a parenthesised group (possible calls of attribute or pragma macros).
 */
export function mayRewriteUse(tokens: readonly Token[], functionLike: boolean): boolean {
  if (tokens.length === 0) return true;
  if (tokens[0].text === 'static_assert') return true;
  // Parts of a template head (`template <__VA_ARGS__`, `, bool b = true, enable_if_t<...> = 0 >`, `requires ...`).
  if (functionLike && (tokens[0].text === 'template' || tokens[0].text === 'requires' || tokens[0].text === ',')) return true;
  // Possibly whole function or type definitions (`__device__ void NAME(...) { ... }`, `struct S<T> { ... };`),
  // written at namespace scope.
  const last = tokens[tokens.length - 1].text;
  if (functionLike && tokens[0].kind === 'ident' && (last === '}' || (last === ';' && tokens.some((t) => t.text === '}')))) return true;
  if (!functionLike) {
    if (classifyTokens(tokens, true) !== 'other') return true;
    // A statement head (`if (...) {`, `} else`): see controlText.
    if (tokens[0].text === 'if' || tokens[0].text === '}') return true;
    return tokens.every((t) => t.kind === 'ident' || t.text === '{' || t.text === '}' || t.text === ';' || t.text === '::');
  }
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.text === '#' || t.text === '##') continue;
    if (t.text === '[' && tokens[i + 1]?.text === '[') {
      const close = groupEnd(tokens, i, '[', ']');
      if (close < 0) return false;
      i = close;
      continue;
    }
    if (t.kind !== 'ident') return false;
    if (tokens[i + 1]?.text === '(') {
      const close = groupEnd(tokens, i + 1, '(', ')');
      if (close < 0) return false;
      i = close;
    }
  }
  return true;
}

/** Index of the `c` closing the `o` at `open`, or -1. */
export function groupEnd(tokens: readonly Token[], open: number, o: string, c: string): number {
  let depth = 0;
  for (let k = open; k < tokens.length; k++) {
    if (tokens[k].text === o) depth++;
    else if (tokens[k].text === c && --depth === 0) return k;
  }
  return -1;
}
