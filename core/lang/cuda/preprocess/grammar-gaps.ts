// Rewrites, in the same-length parse text, the C++ and CUDA constructs that tree-sitter-cuda 0.21.1 cannot
// parse into ones it can: the grammar cannot be regenerated here, and each gap spoils a whole declaration.
// What the analysis reads (barrier calls, asm, launch bounds, kernel names, control flow) is never touched.

/** Token kinds: identifiers (and numbers), punctuation (one character, or `::` / `->`). */
const WORD = 0;
const PUNCT = 1;
const LITERAL = 2;

interface Tokens {
  start: number[];
  end: number[];
  kind: number[];
  /** For a bracket `(`, `[`, `{` or its closer: the index of its partner, else -1. */
  match: number[];
  /** The innermost bracket open around the token, -1 at the top level. */
  enclosing: number[];
  /** For a `<`: the `>` closing it once looked for (-1: none), UNKNOWN before. */
  angle: number[];
  /** Block comments inside directives that continue past their line (`f(); /* c *\/ \`): blanked, see directiveEnd. */
  directiveComments: Edit[];
}

const UNKNOWN = -2;

interface Edit {
  start: number;
  end: number;
  /** Written in place (same length); blanked (line breaks kept) when absent. */
  text?: string;
}

/** Words that may stand between an attribute and `friend` (the parse text has specifier macros blanked). */
const SPECIFIER_WORDS = new Set(['constexpr', 'consteval', 'inline', 'static', 'virtual', 'explicit', '__host__', '__device__', '__forceinline__', '__noinline__', '__inline__']);

/**
 * `parseText` with the constructs tree-sitter-cuda cannot parse rewritten, same length and line breaks:
 * `typename` before a qualified name used as a value (`size<0>(typename T::A{})`) blanked; brace default
 * arguments (`= {}`, `= {X}`) as `0` or `(X)`; a template parameter's pointer default (`= void*`) without
 * its `*`; an attribute before `friend` blanked; `__device__`/`__host__` after a lambda's `[...]` blanked;
 * `friend` moved before CUDA's specifiers; `__cluster_dims__(...)` blanked (launch shapes read it from the file's own text);
 * `a >= b` in a template argument written `b <= a`; a pointer to member's class blanked; `new T*[n]` without
 * its `*`; `operator,(...) = delete` a declaration; an unnamed enum's base blanked; pointer packs without their
 * `*`; a missing comma between asm operands added; `x.operator()(...)` a plain call. Strings, comments,
 * character literals and directive lines are left alone. Linear in the text.
 */
export function rewriteGrammarGaps(parseText: string): string {
  // Most files hold none of the triggers: a cheap test saves the tokenising.
  if (!/typename|=\s*\{|template|\[\[|friend|__device__|__host__|__cluster_dims__|\*\/[ \t]*\\\r?\n|>=|::\s*\*|\bnew\b|operator\s*[,(]|\benum\s*:|\.\.\.|\)\s*"|->\*|decltype|>>>|__launch_bounds__/.test(parseText)) return parseText;
  // Every rebuild of a translation unit preprocesses its headers again, to the same (memoised) parse texts.
  const hit = memo.get(parseText);
  if (hit !== undefined) {
    memo.delete(parseText);
    memo.set(parseText, hit);
    return hit;
  }
  const out = rewrite(parseText);
  memo.set(parseText, out);
  memoChars += parseText.length;
  while (memo.size > MEMO_ENTRIES || (memoChars > MEMO_CHARS && memo.size > 1)) {
    const oldest = memo.keys().next().value as string;
    memo.delete(oldest);
    memoChars -= oldest.length;
  }
  return out;
}

/** Empties the memo of rewrites (tests). */
export function clearGrammarGapCache(): void {
  memo.clear();
  memoChars = 0;
}

// The rewrites by parse text: bounded in entries and characters, least recently used first out.
const MEMO_ENTRIES = 2000;
const MEMO_CHARS = 32 * 1024 * 1024;
const memo = new Map<string, string>();
let memoChars = 0;

function rewrite(parseText: string): string {
  const t = tokenize(parseText);
  const word = (i: number): string => (i >= 0 && i < t.start.length && t.kind[i] !== LITERAL ? parseText.slice(t.start[i], t.end[i]) : '');
  const edits: Edit[] = [...t.directiveComments];
  const n = t.start.length;
  for (let i = 0; i < n; i++) {
    const w = word(i);
    if (w === 'typename') {
      // `using typename Base::T;` (a using-declaration) is missing from the grammar too.
      if (word(i - 1) === 'using' || (word(i - 1) !== 'operator' && valueAfterQualifiedName(t, word, i + 1))) edits.push({ start: t.start[i], end: t.end[i] });
    } else if (w === '=' && word(i + 1) === '{') {
      braceDefault(t, word, i, edits);
    } else if (w === 'template' && word(i + 1) === '<') {
      pointerDefaults(t, word, i + 1, edits);
    } else if (w === '[' && word(i + 1) === '[' && t.match[i] > i) {
      attributeBeforeFriend(t, word, i, edits);
    } else if (w === ']' && t.match[i] >= 0 && word(t.match[i] - 1) !== '[' && word(t.match[i] + 1) !== '[') {
      lambdaSpecifiers(t, word, i, edits);
    } else if (w === 'friend') {
      friendFirst(t, word, i, parseText, edits);
    } else if (w === '*' && word(i + 1) === '=' && t.start[i + 1] > t.end[i] && word(t.enclosing[i]) === '(' && /^[\w>*]/.test(word(i - 1))) {
      // An unnamed pointer parameter with a default (`T* /* unused */ = nullptr`): the grammar has no pointer
      // abstract declarator there; without its `*` it is an unnamed parameter with a default, which it has.
      // (`x *= 2` is one token apart: the `=` must not touch the `*`.)
      edits.push({ start: t.start[i], end: t.end[i] });
    } else if (w === '__launch_bounds__' && word(i + 1) === '(' && t.match[i + 1] > i) {
      launchBoundsClusterOperand(t, word, i + 1, edits);
    } else if (w === '__cluster_dims__' && word(i + 1) === '(' && t.match[i + 1] > i) {
      edits.push({ start: t.start[i], end: t.end[t.match[i + 1]] });
    } else if (w === '>' && word(i + 1) === '=' && t.start[i + 1] === t.end[i]) {
      greaterEqualInTemplateArgument(t, word, i, parseText, edits);
    } else if (w === '::' && word(i + 1) === '*' && t.kind[i - 1] === WORD) {
      memberPointer(t, word, i, edits);
    } else if (w === ')' && t.kind[i + 1] === LITERAL && word(i + 2) === '(' && t.kind[t.match[i] - 1] === LITERAL) {
      asmOperandComma(t, word, i, parseText, edits);
    } else if (w === 'operator' && word(i + 1) === '(' && word(i + 2) === ')' && word(i + 3) === '(') {
      explicitCallOperator(t, word, i, edits);
    } else if (w === 'new') {
      newArrayOfPointers(t, word, i, edits);
    } else if (w === 'operator' && word(i + 1) === ',' && word(i + 2) === '(' && word(t.match[i + 2] + 1) === '=' && word(t.match[i + 2] + 2) === 'delete' && word(t.match[i + 2] + 3) === ';') {
      // `operator,(A, B) = delete;`: the grammar has no deleted comma operator; a declaration is what it
      // means to every reader of the text (a deleted function is never defined nor called in valid code).
      const close = t.match[i + 2];
      edits.push({ start: t.start[close + 1], end: t.end[close + 2] });
    } else if (w === 'enum' && word(i + 1) === ':') {
      // An unnamed enumeration with an underlying type (`enum : uint32_t { A = 1 };`): the grammar wants a
      // name before `:`; without the base its enumerators keep their values.
      let k = i + 2;
      while (k < n && (t.kind[k] === WORD || word(k) === '::')) k++;
      if (k > i + 2 && word(k) === '{') edits.push({ start: t.start[i + 1], end: t.end[k - 1] });
    } else if (w === '->' && word(i + 1) === '*' && t.start[i + 1] === t.end[i] && t.kind[i + 2] === WORD && word(i - 1) !== 'operator') {
      // `p->*m`, a pointer to member applied through a pointer: the grammar has `.*` but not `->*`. ` .*` keeps
      // both operands and the member access, losing only the left operand's indirection; the analysis never
      // evaluates a pointer to member.
      edits.push({ start: t.start[i], end: t.end[i + 1], text: ' .*' });
    } else if (w === 'decltype' && word(i + 1) === '(' && t.match[i + 1] > i && decltypeValueContext(t, word, i)) {
      decltypeValue(t, word, i, edits);
    } else if (w === '>' && word(i + 1) === '>' && word(i + 2) === '>' && t.end[i] === t.start[i + 1] && t.end[i + 1] === t.start[i + 2] && word(i + 3) === '(') {
      tripleClosingAngle(t, word, i, parseText, edits);
    } else if (w === '...' && (word(i - 1) === '*' || (word(i - 1) === '__restrict__' && word(i - 2) === '*')) && word(t.enclosing[i]) === '(') {
      // A pack of pointer parameters (`const auto*... ptrs`, `T* __restrict__... p`): the grammar has no pointer
      // declarator before `...`; the pack stays one, of the pointee type.
      for (let s = i - 1; word(s) === '*' || word(s) === '__restrict__'; s--) edits.push({ start: t.start[s], end: t.end[s] });
    }
  }
  return applyEdits(parseText, edits);
}

/**
 * Whether the tokens from `i` spell a qualified name (`T::A`, `::cute::tuple<int>::type`, `T::template
 * apply<X>::type`) directly followed by `{` or `(`: a value built from a dependent type, which the grammar
 * only knows without `typename`. A declaration (`typename T::A x;`) or a template argument is not one.
 */
function valueAfterQualifiedName(t: Tokens, word: (i: number) => string, i: number): boolean {
  let qualified = false;
  if (word(i) === '::') i++;
  for (;;) {
    if (word(i) === 'template') i++;
    if (t.kind[i] !== WORD || !/^[A-Za-z_]/.test(word(i))) return false;
    i++;
    if (word(i) === '<') {
      const close = closingAngle(t, word, i);
      if (close < 0) return false;
      i = close + 1;
    }
    if (word(i) !== '::') break;
    qualified = true;
    i++;
  }
  return qualified && (word(i) === '{' || word(i) === '(');
}

/**
 * The `>` closing the `<` at `i` (nested angles counted, brackets skipped), or -1 at `;` or a stray closer.
 * Every `<` met on the way is settled too and remembered, so no token is scanned twice at one bracket level.
 */
function closingAngle(t: Tokens, word: (i: number) => string, i: number): number {
  if (t.angle[i] !== UNKNOWN) return t.angle[i];
  const open: number[] = [i];
  for (let k = i + 1; k < t.start.length; k++) {
    const w = word(k);
    if (w === '<') {
      if (t.angle[k] === UNKNOWN) open.push(k);
      else if (t.angle[k] < 0) break;
      else k = t.angle[k];
    } else if (w === '>') {
      t.angle[open.pop()!] = k;
      if (open.length === 0) return k;
    } else if (w === '(' || w === '[' || w === '{') {
      if (t.match[k] < 0) break;
      k = t.match[k];
    } else if (w === ';' || w === ')' || w === ']' || w === '}') break;
  }
  for (const o of open) t.angle[o] = -1;
  return -1;
}

/**
 * `= {...}` directly inside parentheses and followed by `,` or `)`: a parameter's default, which the grammar
 * lacks as a braced list. `(X)` or `0` means the same to everything that reads the text afterwards.
 */
function braceDefault(t: Tokens, word: (i: number) => string, eq: number, edits: Edit[]): void {
  const open = eq + 1;
  const close = t.match[open];
  const around = t.enclosing[eq];
  if (close < 0 || around < 0 || word(around) !== '(') return;
  const next = word(close + 1);
  if (next !== ',' && next !== ')') return;
  if (close === open + 1) {
    edits.push({ start: t.start[open], end: t.end[close], text: '0'.padEnd(t.end[close] - t.start[open], ' ') });
  } else {
    edits.push({ start: t.start[open], end: t.end[open], text: '(' });
    edits.push({ start: t.start[close], end: t.end[close], text: ')' });
  }
}

/**
 * In a `template <...>` head, a default ending in `*` (`typename P = void*`) loses its stars, and a function
 * pointer type (`typename F = R(*)(A)`) its `(*)(A)`: the grammar takes neither as a default.
 */
function pointerDefaults(t: Tokens, word: (i: number) => string, lt: number, edits: Edit[]): void {
  const gt = closingAngle(t, word, lt);
  if (gt < 0) return;
  let depth = 0;
  let inDefault = false;
  for (let k = lt + 1; k <= gt; k++) {
    const w = word(k);
    if (w === '(' && inDefault && depth === 0 && word(k + 1) === '*' && word(k + 2) === ')' && word(k + 3) === '(') {
      const close = t.match[k + 3];
      const after = word(close + 1);
      if (close > k && (after === ',' || close + 1 === gt)) edits.push({ start: t.start[k], end: t.end[close] });
    }
    if (w === '(' || w === '[' || w === '{') {
      k = t.match[k];
      continue;
    }
    if (w === '<') depth++;
    else if (w === '>' && depth > 0) depth--;
    else if (depth === 0 && w === '*' && word(k + 1) === '=' && t.start[k + 1] > t.end[k] && (word(k - 1) === '>' || t.kind[k - 1] === WORD)) {
      // An unnamed pointer parameter with a default (`enable_if_t<C>* = nullptr`): the grammar has no pointer
      // abstract declarator there; without its `*` it is an unnamed parameter with a default, which it has.
      edits.push({ start: t.start[k], end: t.end[k] });
    } else if (depth === 0 && w === '=') inDefault = true;
    else if (depth === 0 && (w === ',' || k === gt)) {
      for (let s = k - 1; inDefault && word(s) === '*'; s--) edits.push({ start: t.start[s], end: t.end[s] });
      inDefault = false;
    }
  }
}

/** Tokens an operand of a comparison swapped by `greaterEqualInTemplateArgument` may hold besides bracket groups. */
const OPERAND_PUNCT = new Set(['::', '.', '->']);

/**
 * `conditional_t<A::k >= 90, X, Y>`: the grammar ends the argument list at the `>` of `>=`. The comparison is
 * written the other way round, `90 <= A::k` (the same value, the same length), when both operands are plain
 * names, numbers, member accesses or calls, and the argument list around it is closed by a `>`.
 */
function greaterEqualInTemplateArgument(t: Tokens, word: (i: number) => string, gt: number, text: string, edits: Edit[]): void {
  // `>>=` is a shift-assignment, `>==` no token at all.
  if ((word(gt - 1) === '>' && t.end[gt - 1] === t.start[gt]) || (word(gt + 2) === '=' && t.start[gt + 2] === t.end[gt + 1])) return;
  const operand = (k: number, step: 1 | -1): number => {
    for (;;) {
      const w = word(k);
      if (t.kind[k] === LITERAL || t.kind[k] === WORD || OPERAND_PUNCT.has(w)) k += step;
      else if (step < 0 && (w === ')' || w === ']') && t.match[k] >= 0 && t.match[k] < k) k = t.match[k] - 1;
      else if (step > 0 && (w === '(' || w === '[') && t.match[k] > k) k = t.match[k] + 1;
      else return k;
    }
  };
  const before = operand(gt - 1, -1);
  const after = operand(gt + 2, 1);
  if (before === gt - 1 || after === gt + 2 || text.slice(t.start[before + 1], t.end[after - 1]).includes('\n')) return;
  const stop = word(before);
  if ((stop !== '<' && stop !== ',') || (word(after) !== ',' && word(after) !== '>')) return;
  const open = stop === '<' ? before : argumentListOpen(t, word, before - 1);
  if (open < 0 || t.kind[open - 1] !== WORD || !argumentListCloses(t, word, after)) return;
  const left = text.slice(t.start[before + 1], t.end[gt - 1]);
  const right = text.slice(t.start[gt + 2], t.end[after - 1]);
  const between = text.slice(t.end[gt - 1], t.start[gt + 2]).replace('>=', '<=');
  edits.push({ start: t.start[before + 1], end: t.end[after - 1], text: right + between + left });
}

/** The `<` opening the template argument list whose argument starts after `k` (`<` or `,`), or -1. */
function argumentListOpen(t: Tokens, word: (i: number) => string, k: number): number {
  let depth = 0;
  // A bounded look back: argument lists are short, and a long scan per comparison would not stay linear.
  for (let steps = 0; k >= 0 && steps < 256; steps++, k--) {
    const w = word(k);
    if (w === ')' || w === ']' || w === '}') {
      if (t.match[k] < 0 || t.match[k] > k) return -1;
      k = t.match[k];
    } else if (w === '>') depth++;
    else if (w === '<') {
      if (depth === 0) return k;
      depth--;
    } else if (w === ';' || w === '{' || w === '(' || w === '[' || w === '=') return -1;
  }
  return -1;
}

/** Whether the template argument list goes on from `k` (at a `,` or its closing `>`) to its closing `>`. */
function argumentListCloses(t: Tokens, word: (i: number) => string, k: number): boolean {
  let depth = 0;
  for (let steps = 0; k < t.start.length && steps < 256; steps++, k++) {
    const w = word(k);
    if (w === '(' || w === '[' || w === '{') {
      if (t.match[k] < k) return false;
      k = t.match[k];
    } else if (w === '<') depth++;
    else if (w === '>') {
      if (depth === 0) return true;
      depth--;
    } else if (w === ';' || w === ')' || w === ']' || w === '}') return false;
  }
  return false;
}

/**
 * A pointer to member (`M T::*`, `R (C::*)(A) const`, `static_cast<M ns::T::*>(p)`): the grammar has no such
 * declarator. Its class goes (`M *`), which leaves a pointer of the same shape; nothing we read is a member pointer.
 */
function memberPointer(t: Tokens, word: (i: number) => string, colons: number, edits: Edit[]): void {
  let first = colons - 1;
  while (word(first - 1) === '::' && t.kind[first - 2] === WORD) first -= 2;
  if (word(first - 1) === '::') first--;
  // After `->`/`.` it would be `a->B::*p`... no valid code; after `&`, `&C::*` neither: a type must precede.
  const prev = word(first - 1);
  if (t.kind[first - 1] !== WORD && prev !== '(' && prev !== '>' && prev !== '*' && prev !== '&') return;
  edits.push({ start: t.start[first], end: t.end[colons] });
}

/**
 * `f.operator()(x)` and `this->operator()(x)`: the grammar has no member access to an operator. They are the
 * calls `f          (x)` and `(*this)         (x)`, the same overload chosen.
 */
function explicitCallOperator(t: Tokens, word: (i: number) => string, at: number, edits: Edit[]): void {
  const access = word(at - 1);
  if (access === '.') {
    edits.push({ start: t.start[at - 1], end: t.end[at + 2] });
  } else if (access === '->' && word(at - 2) === 'this' && !OPERAND_PUNCT.has(word(at - 3))) {
    const start = t.start[at - 2];
    const end = t.end[at + 2];
    edits.push({ start, end, text: '(*this)'.padEnd(end - start, ' ') });
  }
}

// Tokens after which `decltype(E){}` / `decltype(E)()` is a value (an operand or an argument), not a type.
// (The tokenizer here splits operators into single characters: `&` stands for `&&` too.)
const VALUE_BEFORE = new Set(['(', '=', 'return', '?', '+', '-', '*', '/', '%', '&', '|', '!', '[']);

/**
 * Whether the `decltype(...)` at `at` stands where a value does: after `(`, `=`, `return` or an operator, or after
 * a `,` or `:` inside parentheses (an argument, a conditional's operand). After `->` it is a trailing return type,
 * after `:` or `,` in a class head a base (`struct A : decltype(x) {}`): neither is a value.
 */
function decltypeValueContext(t: Tokens, word: (i: number) => string, at: number): boolean {
  const prev = word(at - 1);
  if (prev === ',' || prev === ':') return word(t.enclosing[at]) === '(';
  return VALUE_BEFORE.has(prev);
}

/**
 * `decltype(E){}` and `decltype(E)()`, a value-initialised object of E's type: the grammar takes no decltype
 * before an initializer. The expression itself, parenthesised (`        (E)  `), has the same type; the analysis
 * never evaluates it (these are CuTe layout and shape values).
 */
function decltypeValue(t: Tokens, word: (i: number) => string, at: number, edits: Edit[]): void {
  const close = t.match[at + 1];
  const init = close + 1;
  const w = word(init);
  if ((w !== '{' && w !== '(') || t.match[init] !== init + 1) return;
  edits.push({ start: t.start[at], end: t.end[at] });
  edits.push({ start: t.start[init], end: t.end[init + 1] });
}

/**
 * `a.f<A<B<C, D>>>()`: closing three template argument lists at once before a call, in a declaration's
 * initializer, derails the grammar (it reads `>>` after a list with a comma as a shift); `D> >>` parses. The
 * blank it needs is taken from the innermost list (the last one before the `>>>` on its line, the text between
 * moving one column left). A kernel launch's `>>>` (closing a `<<<`) is left alone.
 */
function tripleClosingAngle(t: Tokens, word: (i: number) => string, gt: number, text: string, edits: Edit[]): void {
  let depth = 0;
  let open = -1;
  for (let k = gt - 1, steps = 0; k >= 0 && steps < 256; k--, steps++) {
    const w = word(k);
    if (w === ')' || w === ']') {
      if (t.match[k] < 0 || t.match[k] > k) return;
      k = t.match[k];
    } else if (w === '>') depth++;
    else if (w === '<') {
      // `<<<`: a launch's configuration, whose `>>>` this is.
      if (word(k - 1) === '<' && t.end[k - 1] === t.start[k]) return;
      if (depth === 0) {
        open = k;
        break;
      }
      depth--;
    } else if (w === ';' || w === '{' || w === '}' || w === '(' || w === '[') return;
  }
  if (open < 0) return;
  const from = t.end[open];
  const to = t.start[gt];
  const inner = text.slice(from, to);
  if (/[\n/"']/.test(inner)) return;
  const blank = Math.max(inner.lastIndexOf(' '), inner.lastIndexOf('\t'));
  if (blank < 0) return;
  edits.push({ start: from + blank, end: t.end[gt + 2], text: `${inner.slice(blank + 1)}> >>` });
}

/**
 * `__launch_bounds__(threads, minBlocks, maxBlocksPerCluster)`: the grammar takes two operands, CUDA 12 three. The
 * third (with its `,`) is blanked; the analysis reads the first only (the block size).
 */
function launchBoundsClusterOperand(t: Tokens, word: (i: number) => string, open: number, edits: Edit[]): void {
  const close = t.match[open];
  const commas: number[] = [];
  for (let k = open + 1; k < close; k++) {
    const w = word(k);
    if (w === '(' || w === '[' || w === '{') {
      if (t.match[k] < k || t.match[k] > close) return;
      k = t.match[k];
    } else if (w === '<' && t.kind[k - 1] === WORD) {
      // A template argument list (`blocks_per_sm<P, 2>`): its commas are not the keyword's.
      const gt = closingAngle(t, word, k);
      if (gt > k && gt < close) k = gt;
    } else if (w === ',') commas.push(k);
  }
  if (commas.length === 2) edits.push({ start: t.start[commas[1]], end: t.end[close - 1] });
}

/** The words that open an inline asm statement. */
const ASM_WORDS = new Set(['asm', '__asm__', '__asm']);

/**
 * `:: "r"(a) "h"(b)`: asm operands without the comma between them, which nvcc accepts (the same PTX as with
 * it) and the grammar does not: the first blank between them becomes that comma.
 */
function asmOperandComma(t: Tokens, word: (i: number) => string, close: number, text: string, edits: Edit[]): void {
  const around = t.enclosing[t.match[close]];
  if (around < 0 || word(around) !== '(') return;
  let head = around - 1;
  while (word(head) === 'volatile' || word(head) === '__volatile__' || word(head) === 'goto' || word(head) === 'inline') head--;
  if (!ASM_WORDS.has(word(head))) return;
  const gap = text.slice(t.end[close], t.start[close + 1]);
  const blank = gap.search(/[ \t]/);
  if (blank < 0 || gap.slice(0, blank).includes('/')) return;
  edits.push({ start: t.end[close] + blank, end: t.end[close] + blank + 1, text: ',' });
}

/** `new float*[n]`: the grammar takes no `*` in a new-expression's array type; the stars go (host code only). */
function newArrayOfPointers(t: Tokens, word: (i: number) => string, at: number, edits: Edit[]): void {
  let k = at + 1;
  while (t.kind[k] === WORD || word(k) === '::') k++;
  if (k === at + 1 || word(k) !== '*') return;
  let s = k;
  while (word(s) === '*') s++;
  if (word(s) !== '[') return;
  for (let x = k; x < s; x++) edits.push({ start: t.start[x], end: t.end[x] });
}

/** `[[nodiscard]] constexpr friend ...`: the grammar takes no attribute before `friend`; it means nothing to us. */
function attributeBeforeFriend(t: Tokens, word: (i: number) => string, open: number, edits: Edit[]): void {
  const close = t.match[open];
  if (word(close - 1) !== ']' || t.match[close - 1] !== open + 1) return;
  let k = close + 1;
  while (SPECIFIER_WORDS.has(word(k)) || (word(k) === '[' && word(k + 1) === '[' && t.match[k] > k)) k = word(k) === '[' ? t.match[k] + 1 : k + 1;
  if (word(k) === 'friend') edits.push({ start: t.start[open], end: t.end[close] });
}

/**
 * `__host__ __device__ friend bool operator==(...)`, `inline friend void f()`: the grammar takes CUDA's specifiers
 * and `inline` after `friend` only, so `friend` moves before them (on one line; the same characters, the same length).
 */
function friendFirst(t: Tokens, word: (i: number) => string, at: number, text: string, edits: Edit[]): void {
  let first = at;
  let misplaced = false;
  while (SPECIFIER_WORDS.has(word(first - 1))) {
    first--;
    // `constexpr friend` parses; CUDA's specifiers and `inline`/`static` before `friend` do not.
    if (word(first) !== 'constexpr' && word(first) !== 'consteval') misplaced = true;
  }
  if (!misplaced) return;
  const between = text.slice(t.start[first], t.start[at]);
  if (/[\r\n]/.test(between)) return;
  const moved = `friend ${between.trimEnd()}`;
  edits.push({ start: t.start[first], end: t.end[at], text: moved.padEnd(t.end[at] - t.start[first], ' ') });
}

/** nvcc's extended lambdas, `[=] __host__ __device__ (int i) {...}`: the specifiers the grammar lacks go. */
function lambdaSpecifiers(t: Tokens, word: (i: number) => string, close: number, edits: Edit[]): void {
  let k = close + 1;
  while (word(k) === '__device__' || word(k) === '__host__') k++;
  if (k === close + 1) return;
  const next = word(k);
  if (next !== '(' && next !== '{' && next !== 'mutable' && next !== '->') return;
  for (let s = close + 1; s < k; s++) edits.push({ start: t.start[s], end: t.end[s] });
}

/** `text` with the edits applied (overlapping ones dropped), line breaks kept in blanked ranges. */
function applyEdits(text: string, edits: Edit[]): string {
  if (edits.length === 0) return text;
  edits.sort((a, b) => a.start - b.start);
  const parts: string[] = [];
  let pos = 0;
  for (const e of edits) {
    if (e.start < pos) continue;
    parts.push(text.slice(pos, e.start));
    parts.push(e.text ?? text.slice(e.start, e.end).replace(/[^\r\n]/g, ' '));
    pos = e.end;
  }
  parts.push(text.slice(pos));
  return parts.join('');
}

const isWordChar = (c: number): boolean => (c >= 48 && c <= 57) || (c >= 65 && c <= 90) || (c >= 97 && c <= 122) || c === 95 || c === 36 || c >= 128;

/**
 * The tokens of `text` with brackets matched. Comments, directive lines and whitespace are skipped; string
 * and character literals (raw strings too) are single LITERAL tokens, so nothing inside them is rewritten.
 */
function tokenize(text: string): Tokens {
  const t: Tokens = { start: [], end: [], kind: [], match: [], enclosing: [], angle: [], directiveComments: [] };
  const stack: number[] = [];
  const len = text.length;
  let lineStart = true;
  let i = 0;
  const push = (start: number, end: number, kind: number): void => {
    t.start.push(start);
    t.end.push(end);
    t.kind.push(kind);
    t.match.push(-1);
    t.angle.push(UNKNOWN);
    t.enclosing.push(stack.length ? stack[stack.length - 1] : -1);
  };
  while (i < len) {
    const c = text.charCodeAt(i);
    if (c === 10) {
      lineStart = true;
      i++;
      continue;
    }
    if (c === 32 || c === 9 || c === 13 || c === 12 || c === 11) {
      i++;
      continue;
    }
    if (c === 92 && (text.charCodeAt(i + 1) === 10 || text.charCodeAt(i + 1) === 13)) {
      i++;
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 47) {
      i = lineEnd(text, i);
      continue;
    }
    if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const close = text.indexOf('*/', i + 2);
      i = close < 0 ? len : close + 2;
      continue;
    }
    if (c === 35 && lineStart) {
      i = directiveEnd(text, i, t.directiveComments);
      continue;
    }
    lineStart = false;
    if (c === 34 || c === 39) {
      const end = quotedEnd(text, i);
      push(i, end, LITERAL);
      i = end;
      continue;
    }
    if (isWordChar(c) || (c === 46 && isDigit(text.charCodeAt(i + 1)))) {
      const digit = isDigit(c) || c === 46;
      let j = i + 1;
      while (j < len) {
        const d = text.charCodeAt(j);
        // A number takes digit separators and exponent signs (`1'000`, `1e-3`).
        if (isWordChar(d) || (digit && (d === 46 || d === 39 || ((d === 43 || d === 45) && /[eEpP]/.test(text[j - 1]))))) j++;
        else break;
      }
      const q = text.charCodeAt(j);
      if (!digit && (q === 34 || q === 39) && /^(u8|[uUL])?R?$/.test(text.slice(i, j))) {
        const end = text[j - 1] === 'R' && q === 34 ? rawStringEnd(text, j) : quotedEnd(text, j);
        push(i, end, LITERAL);
        i = end;
        continue;
      }
      push(i, j, digit ? LITERAL : WORD);
      i = j;
      continue;
    }
    const two = text.slice(i, i + 2);
    const width = two === '::' || two === '->' ? 2 : two === '..' && text.charCodeAt(i + 2) === 46 ? 3 : 1;
    push(i, i + width, PUNCT);
    const k = t.start.length - 1;
    if (c === 40 || c === 91 || c === 123) stack.push(k);
    else if (c === 41 || c === 93 || c === 125) {
      const want = c === 41 ? 40 : c === 93 ? 91 : 123;
      // A stray closer is left unmatched; a closer of an outer bracket closes the unmatched ones inside it.
      let s = stack.length - 1;
      while (s >= 0 && text.charCodeAt(t.start[stack[s]]) !== want) s--;
      if (s >= 0) {
        const open = stack[s];
        stack.length = s;
        t.match[open] = k;
        t.match[k] = open;
        t.enclosing[k] = stack.length ? stack[stack.length - 1] : -1;
      }
    }
    i += width;
  }
  return t;
}

const isDigit = (c: number): boolean => c >= 48 && c <= 57;

/** The end of the line at `i` (before its break), following backslash continuations. */
function lineEnd(text: string, i: number): number {
  for (;;) {
    const nl = text.indexOf('\n', i);
    if (nl < 0) return text.length;
    let b = nl - 1;
    if (text.charCodeAt(b) === 13) b--;
    if (text.charCodeAt(b) !== 92) return nl;
    i = nl + 1;
  }
}

/**
 * The end of a directive starting at `i`: its continued lines, and any comment opened on them. A block comment
 * on a line the directive continues from goes into `comments`: the grammar's own directive lexing ends a
 * `#define` at such a comment, and the rest of the macro's body would be read as code.
 */
function directiveEnd(text: string, i: number, comments?: Edit[]): number {
  const len = text.length;
  while (i < len) {
    const c = text.charCodeAt(i);
    if (c === 10) return i;
    if (c === 92 && text.charCodeAt(i + 1) === 10) i += 2;
    else if (c === 92 && text.charCodeAt(i + 1) === 13) i += text.charCodeAt(i + 2) === 10 ? 3 : 2;
    else if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const close = text.indexOf('*/', i + 2);
      const end = close < 0 ? len : close + 2;
      if (comments && continuesAfter(text, end)) comments.push({ start: i, end });
      i = end;
    } else if (c === 47 && text.charCodeAt(i + 1) === 47) return lineEnd(text, i);
    else if (c === 34 || c === 39) i = quotedEnd(text, i);
    else i++;
  }
  return len;
}

/** Whether only blanks and a line splice (`\\` at the line's end) follow `i` on its line. */
function continuesAfter(text: string, i: number): boolean {
  while (text.charCodeAt(i) === 32 || text.charCodeAt(i) === 9) i++;
  return text.charCodeAt(i) === 92 && (text.charCodeAt(i + 1) === 10 || text.charCodeAt(i + 1) === 13);
}

/** The end of the string or character literal opening at `i` (at the line's end when unterminated). */
function quotedEnd(text: string, i: number): number {
  const quote = text.charCodeAt(i);
  let j = i + 1;
  while (j < text.length) {
    const c = text.charCodeAt(j);
    if (c === 92) j += 2;
    else if (c === quote) return j + 1;
    else if (c === 10) return j;
    else j++;
  }
  return text.length;
}

/** The end of the raw string `R"delim( ... )delim"` whose quote is at `i`. */
function rawStringEnd(text: string, i: number): number {
  // A delimiter has at most 16 characters: the search stays that short.
  const paren = text.slice(i, i + 18).indexOf('(') + i;
  if (paren < i) return quotedEnd(text, i);
  const close = text.indexOf(`)${text.slice(i + 1, paren)}"`, paren);
  return close < 0 ? text.length : close + paren - i + 1;
}
