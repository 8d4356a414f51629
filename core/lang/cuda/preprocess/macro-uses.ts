// Macro uses the parser cannot read, rewritten in the same-length parse text: namespace macros are written in
// place (`CUB_NAMESPACE_END` -> `}`), template-head macros as `template<...>`, branch-selecting macros as the block
// of the branch the device pass keeps, and uses whose expansion means nothing to the analysis
// (`DG_STATIC_ASSERT(a <= b, "m")`, `_CCCL_PRAGMA_UNROLL_FULL()`, a requires-clause) are blanked.
import { evaluateConditionValue } from './conditions';
import { expandTokens, MacroTable, type MacroDefinition, type MacroLookup } from './macros';
import { classifyTokens, CUDA_KEYWORDS } from './specifiers';
import { groupEnd } from './use-candidates';
import type { Edit } from './file-scan';
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

// Work bound of an invocation's expansion: higher, since a branch selector (`NV_IF_ELSE_TARGET`) rescans its
// statement arguments through several levels of macros; the invocation itself is at most MAX_INVOCATION_CHARS long.
const INVOCATION_EXPANSION_LIMIT = 200_000;

// Words that name code the lowering reads (barriers, copies, fences, inline assembly): an expansion holding one is
// never blanked, even where it looks like a specifier.
const CODE_WORD = /mbarrier|arrive|wait|expect|bulk|tma|fence|cp_?async|asm|barrier|sync|volatile/i;

/**
 * The use of object-like `def` other than a specifier macro: a full expansion made only of namespace openings and
 * closings (with at least one brace) is written in place, collapsed (see structuralText) so that it fits; one that
 * is only a `static_assert(...)` is blanked. Function-like macros are decided per invocation.
 */
export function classifyObjectUse(def: MacroDefinition, macros: MacroTable): MacroUse {
  if (def.params) return { kind: 'invocation' };
  const expanded = expandTokens([{ kind: 'ident', text: def.name, space: false }], macros, { noExpand: CUDA_KEYWORDS, limit: EXPANSION_LIMIT });
  if (!expanded.complete) return { kind: 'keep' };
  const tokens = expanded.tokens;
  if (isStaticAssertion(tokens)) return { kind: 'blank' };
  const text = structuralText(tokens, def.name.length) ?? controlText(tokens, def.name.length);
  return text === undefined ? { kind: 'keep' } : { kind: 'write', text: text.padEnd(def.name.length, ' ') };
}

/**
 * The text written for an expansion made only of `if [constexpr] (condition)`, `else`, `{` and `}` (statement
 * macros such as CCCL's `_CCCL_TRY` = `if constexpr (true) {` and `_CCCL_CATCH_ALL` = `} else` without exceptions,
 * or `_CCCL_IF_NOT_CONSTEVAL` = `if (!__builtin_is_constant_evaluated())`), spelled compactly (`if(1){`, `}else`),
 * at most `room` characters; undefined for any other expansion or when it does not fit. A condition that is a
 * constant is written as its value, `__builtin_is_constant_evaluated()` counting as false (the code analysed is what
 * runs, not what a constant evaluation folds); any other is written as spelled.
 */
export function controlText(tokens: readonly Token[], room: number): string | undefined {
  let out = '';
  let control = false;
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i].text;
    if (t === '{' || t === '}') out += t;
    else if (t === 'else') {
      out += /[\w]$/.test(out) ? ' else' : 'else';
      control = true;
    } else if (t === 'if') {
      let k = i + 1;
      if (tokens[k]?.text === 'constexpr') k++;
      if (tokens[k]?.text !== '(') return undefined;
      const close = groupEnd(tokens, k, '(', ')');
      if (close < 0) return undefined;
      out += `${/[\w]$/.test(out) ? ' ' : ''}if(${conditionSpelling(tokens.slice(k + 1, close))})`;
      control = true;
      i = close;
    } else return undefined;
    if (out.length > room) return undefined;
  }
  return control ? out : undefined;
}

/** A condition's compact spelling: its value where it is a constant (see controlText), else its tokens. */
function conditionSpelling(tokens: readonly Token[]): string {
  const folded: Token[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.text === '__builtin_is_constant_evaluated' && tokens[i + 1]?.text === '(' && tokens[i + 2]?.text === ')') {
      folded.push({ kind: 'number', text: '0', space: t.space });
      i += 2;
    } else if (t.text === 'true' || t.text === 'false') folded.push({ kind: 'number', text: t.text === 'true' ? '1' : '0', space: t.space });
    else folded.push(t);
  }
  if (folded.every((t) => t.kind !== 'ident')) {
    const value = evaluateConditionValue(folded, NO_MACROS);
    if (value !== undefined) return value !== 0n ? '1' : '0';
  }
  return compactSpelling(tokens);
}

const NO_MACROS = new MacroTable();

/** Tokens spelled with a space only between two that would otherwise run together. */
function compactSpelling(tokens: readonly Token[]): string {
  let out = '';
  for (const t of tokens) {
    if (out && ((/[\w$]$/.test(out) && /^[\w$]/.test(t.text)) || (/[-+<>&|=!:*/%^.]$/.test(out) && /^[-+<>&|=!:*/%^.]/.test(t.text)))) out += ' ';
    out += t.text;
  }
  return out;
}

/** One namespace opening (`inline`, its name, empty when anonymous; `{` for a block opened alone) or one `}`. */
type Structure = { open: true; inline: boolean; name: string } | { open: false };

/**
 * The openings and closings of an expansion made only of `namespace a::b {`, `inline namespace v1 {`, `}`, `;` and
 * `static_assert(...)` checks (nothing the analysis reads), with at least one brace; undefined for anything else.
 */
function structures(tokens: readonly Token[]): Structure[] | undefined {
  const out: Structure[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i];
    if (t.text === ';') continue;
    if (t.text === '}') {
      out.push({ open: false });
      continue;
    }
    if (t.text === 'static_assert' && tokens[i + 1]?.text === '(') {
      const close = groupEnd(tokens, i + 1, '(', ')');
      if (close < 0) return undefined;
      i = close;
      continue;
    }
    // A brace alone opens a block (`#define OPEN_BLOCK {`): written as it is.
    if (t.text === '{') {
      out.push({ open: true, inline: false, name: '{' });
      continue;
    }
    const inline = t.text === 'inline';
    if (inline) i++;
    if (tokens[i]?.text !== 'namespace') return undefined;
    let name = '';
    i++;
    while (tokens[i]?.kind === 'ident' && (name === '' || name.endsWith('::'))) {
      name += tokens[i].text;
      if (tokens[i + 1]?.text === '::' && tokens[i + 2]?.kind === 'ident') name += '::';
      i += tokens[i + 1]?.text === '::' ? 2 : 1;
    }
    if (tokens[i]?.text !== '{') return undefined;
    out.push({ open: true, inline, name });
  }
  return out.length > 0 ? out : undefined;
}

/**
 * The text written for a structural expansion, at most `room` characters, or undefined when it is not one or no
 * spelling fits. Each run of openings becomes ONE opening and each run of closings ONE `}`: a library's BEGIN macro
 * often opens two or three namespaces (`namespace cub { inline namespace _V_... {`) whose spelling does not fit in
 * its name while its END macro (`}}`) does, so writing each as expanded where it fits would leave the braces
 * unbalanced. Collapsed, a BEGIN/END pair stays balanced whatever fits, and so does a one-level macro closed by a
 * hand-written `}`; only a macro opening several levels that the code closes by hand would be off, which none of the
 * corpora (CCCL, CUTLASS, DeepGEMM, DeepEP, ThunderKittens) does. A run keeps its names (`namespace cuda::ptx{`,
 * inline ones left out) where they fit, and becomes an anonymous `namespace{` where not.
 */
export function structuralText(tokens: readonly Token[], room: number): string | undefined {
  const list = structures(tokens);
  if (!list) return undefined;
  const runs: Array<Structure[]> = [];
  for (const s of list) {
    const last = runs[runs.length - 1];
    if (last && last[0].open === s.open) last.push(s);
    else runs.push([s]);
  }
  const spell = (named: boolean): string =>
    runs
      .map((run) => {
        if (!run[0].open) return '}';
        if (run.some((s) => s.open && s.name === '{')) return run.map((s) => (s.open && s.name === '{' ? '{' : 'namespace{')).join('');
        const only = run.length === 1 ? run[0] : undefined;
        if (named && only?.open && only.inline) return `inline namespace ${only.name}{`;
        const path = named ? run.flatMap((s) => (s.open && !s.inline && s.name ? [s.name] : [])).join('::') : '';
        return path ? `namespace ${path}{` : 'namespace{';
      })
      .join('');
  const named = spell(true);
  if (named.length <= room) return named;
  const anonymous = spell(false);
  return anonymous.length <= room ? anonymous : undefined;
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

// Words that start a statement: an expansion starting with one is code, never a definition.
const STATEMENT_WORDS = new Set(['if', 'for', 'while', 'do', 'switch', 'return', 'break', 'continue', 'goto', 'case', 'default', 'asm', 'throw', 'co_return', 'co_await', 'else', 'try', 'catch']);

// Words before a parenthesised group that make it something other than a function's parameter list.
const NOT_A_DECLARATOR = new Set([...STATEMENT_WORDS, 'sizeof', 'alignof', 'decltype', 'noexcept', 'typeid', 'static_assert', 'requires', 'new', 'delete']);

// Words that may follow a function's parameter list before its body.
const FUNCTION_QUALIFIERS = new Set(['const', 'noexcept', 'override', 'final', 'volatile', 'mutable', '&', '&&']);

const TYPE_KEYS = new Set(['struct', 'class', 'union', 'enum']);

// Words that open a declaration without a body (`template <...> constexpr bool v = ...;`, `using T = U;`).
const DECLARATION_WORDS = new Set(['template', 'using', 'typedef', 'static_assert', 'extern']);

/**
 * Whether an expansion is a sequence of whole declarations that defines at least one function or type: function
 * definitions (`template<...> __device__ void NAME(...) { ... }`, `template <> void F<A, B>(...) { ... }`), type
 * definitions (`template <> struct S<T> { ... };`) and, beside them, bodiless declarations opened by `template`,
 * `using`, `typedef`, `static_assert` or `extern`. Libraries generate families of overloads and specialisations so
 * (ThunderKittens' cache-policy overloads, CUB's load/store and alignment specialisations), one invocation per line
 * at namespace or class scope without a `;`, which the grammar cannot read; such an invocation is blanked, and what
 * it defines is not seen (what these libraries generate forwards to templates written in plain code, or is inline
 * assembly the analysis does not read). An expansion that is only a declaration (`template <class T> void f(T);`)
 * or holds a statement is kept.
 */
function definesDeclarations(tokens: readonly Token[]): boolean {
  let defines = false;
  let i = 0;
  while (i < tokens.length) {
    const first = tokens[i];
    if (first.kind !== 'ident' || STATEMENT_WORDS.has(first.text)) return false;
    // The item's end: the first `;` or `{` outside parentheses and brackets.
    let k = i;
    let depth = 0;
    for (; k < tokens.length; k++) {
      const t = tokens[k].text;
      if (t === '(' || t === '[') depth++;
      else if (t === ')' || t === ']') depth--;
      else if (depth === 0 && (t === ';' || t === '{')) break;
      else if (t === '}') return false;
    }
    if (k >= tokens.length) return false;
    if (tokens[k].text === ';') {
      if (!DECLARATION_WORDS.has(first.text)) return false;
      i = k + 1;
      continue;
    }
    const close = groupEnd(tokens, k, '{', '}');
    if (close < 0) return false;
    if (namesType(tokens, i, k)) {
      // `struct S { ... } [declarators];`
      let e = close + 1;
      while (e < tokens.length && tokens[e].text !== ';' && tokens[e].text !== '{' && tokens[e].text !== '}') e++;
      if (tokens[e]?.text !== ';') return false;
      i = e + 1;
    } else {
      if (!isFunctionHead(tokens, i, k)) return false;
      i = close + 1;
    }
    defines = true;
  }
  return defines;
}

/** Whether `tokens[from, to)` names a class, struct, union or enum outside parentheses (a type definition's head). */
function namesType(tokens: readonly Token[], from: number, to: number): boolean {
  let depth = 0;
  for (let k = from; k < to; k++) {
    const t = tokens[k].text;
    if (t === '(' || t === '[') depth++;
    else if (t === ')' || t === ']') depth--;
    else if (depth === 0 && TYPE_KEYS.has(t) && tokens[k - 1]?.text !== '<' && tokens[k - 1]?.text !== ',') return true;
  }
  return false;
}

/**
 * Whether `tokens[from, to)`, the tokens before a `{`, end as a function's head: a parameter list after a name
 * (`f(`, `S<A>(`, `operator+(`) followed only by qualifiers, a `noexcept(...)`, a trailing return type or a
 * constructor's initialisers.
 */
function isFunctionHead(tokens: readonly Token[], from: number, to: number): boolean {
  // Parenthesised groups at the top level of the head, in order; the declarator's is the first whose `(` follows
  // a name and is not a keyword's operand.
  let depth = 0;
  for (let k = from; k < to; k++) {
    const t = tokens[k].text;
    if (t === ')' || t === ']') depth--;
    if (t === '(' && depth === 0) {
      const before = tokens[k - 1];
      const named = before && k > from && ((before.kind === 'ident' && !NOT_A_DECLARATOR.has(before.text)) || before.text === '>' || tokens[k - 2]?.text === 'operator');
      const end = groupEnd(tokens, k, '(', ')');
      if (end < 0 || end >= to) return false;
      if (named && headTail(tokens, end + 1, to)) return true;
    }
    if (t === '(' || t === '[') depth++;
  }
  return false;
}

/** Whether `tokens[from, to)`, after a parameter list, holds only qualifiers, `noexcept(...)`, `-> type` or `: inits`. */
function headTail(tokens: readonly Token[], from: number, to: number): boolean {
  let k = from;
  while (k < to) {
    const t = tokens[k].text;
    if (FUNCTION_QUALIFIERS.has(t)) k++;
    else if (t === 'noexcept' && tokens[k + 1]?.text === '(') k = groupEnd(tokens, k + 1, '(', ')') + 1;
    // A trailing return type or a constructor's initialisers: the rest of the head.
    else if (t === '->' || t === ':') return true;
    else return false;
    if (k <= 0) return false;
  }
  return true;
}

/** The full expansion of the invocation text `call` (`NAME(args)`), or undefined when the work bound cut it short. */
export function expandInvocation(call: string, macros: MacroLookup): Token[] | undefined {
  const expanded = expandTokens(tokenize(call), macros, { noExpand: CUDA_KEYWORDS, limit: INVOCATION_EXPANSION_LIMIT });
  return expanded.complete ? expanded.tokens : undefined;
}

/**
 * What the parse text does with one invocation `text[at, close)` of a function-like macro whose name ends at
 * `nameEnd`, decided from its full expansion (what it means, not what it is called): the edits that replace it,
 * or undefined to leave it as written. `nestedFrom`, where present, is the first offset inside it that may hold
 * further uses of the same macro worth looking at (the code of a branch kept).
 *
 * - nothing, specifiers/attributes/pragmas, a `static_assert(...)`, or the closing part of a template head (`,
 *   bool b = true, enable_if_t<...> = 0 >`) or a requires-clause (`requires C<T>`): blanked;
 * - the opening part of a template head (`template <class T`, or the whole `template <class T>`) whose parameters
 *   are the arguments as written: rewritten in place to `template<class T>` (the name becomes `template`, the
 *   parentheses angle brackets), so a pair of template-head macros reads as the template it declares whichever
 *   language level selected their definitions;
 * - a braced block equal to one of its parenthesised arguments (`NV_IF_TARGET(NV_PROVIDES_SM_90, (a();), (b();))`
 *   selects a branch for the `__CUDA_ARCH__` of the device pass): rewritten in place to that argument with its
 *   parentheses turned into braces (`{a();}`), the rest blanked, so the code kept is analysed; an empty block
 *   (no branch taken) is written as `{}`;
 * - an expansion still holding statements in parentheses (a selection the macro table could not resolve): blanked,
 *   since no branch can be told to be the one compiled.
 */
export function invocationEdits(
  text: string,
  at: number,
  nameEnd: number,
  close: number,
  macros: MacroLookup,
): { edits: Edit[]; nestedFrom?: number; close?: number } | undefined {
  const tokens = expandInvocation(text.slice(at, close), macros);
  if (!tokens) return undefined;
  const chain = chainedGroups(text, at, close, tokens, macros);
  if (chain) {
    const edits = chainedEdits(text, at, nameEnd, close, chain.close, chain.tokens);
    return edits ? { edits, close: chain.close } : undefined;
  }
  const whole = { edits: [{ start: at, end: close }] };
  if (blankableExpansion(tokens) || closesTemplateHead(tokens) || definesDeclarations(tokens)) return whole;
  const args = invocationArguments(text, nameEnd, close);
  if (!args) return undefined;
  const forwarded = forwardingEdits(text, at, nameEnd, close, args, tokens, macros);
  if (forwarded) return { edits: forwarded };
  if (tokens[0]?.text === 'template' && tokens[1]?.text === '<' && isTemplateHead(tokens)) {
    const open = args.open;
    const written = expandText(text.slice(open + 1, close - 1), macros);
    const asWritten = sameSpelling(tokens.slice(2), written) || (tokens[tokens.length - 1].text === '>' && sameSpelling(tokens.slice(2, -1), written));
    // A head whose name is too short for `template`, or whose parameters are not the arguments, goes with its
    // closing part (blanked too): the declaration then reads as a plain function.
    if (!asWritten || nameEnd - at < 8) return whole;
    const edits: Edit[] = [
      { start: at, end: nameEnd, text: 'template'.padEnd(nameEnd - at, ' ') },
      { start: nameEnd, end: open },
      { start: open, end: open + 1, text: '<' },
      { start: close - 1, end: close, text: '>' },
    ];
    return { edits: edits.filter((e) => e.end > e.start) };
  }
  if (tokens[0]?.text === '{' && groupEnd(tokens, 0, '{', '}') === tokens.length - 1) {
    if (tokens.length === 2 && close - at >= 2) return { edits: [{ start: at, end: at + 2, text: '{}' }, { start: at + 2, end: close }] };
    const inner = tokens.slice(1, -1);
    for (const a of args.list) {
      const body = /^\(([\s\S]*)\)$/.exec(text.slice(a.start, a.end).trim());
      // A parenthesised argument's parentheses become the braces; an argument written bare (`NV_IF_TARGET(c,
      // f();)`) takes the `,` or `(` before it and the `,` or `)` after it instead.
      const argOpen = body ? text.indexOf('(', a.start) : a.start - 1;
      const argClose = body ? text.lastIndexOf(')', a.end - 1) : a.end;
      if (!sameSpelling(inner, expandText(body ? body[1] : text.slice(a.start, a.end), macros))) continue;
      return {
        edits: [
          { start: at, end: argOpen },
          { start: argOpen, end: argOpen + 1, text: '{' },
          { start: argClose, end: argClose + 1, text: '}' },
          { start: argClose + 1, end: close },
        ].filter((e) => e.end > e.start),
        nestedFrom: argOpen + 1,
      };
    }
  }
  const guarded = guardedBlockEdits(text, at, close, args, tokens, macros);
  if (guarded) return { edits: guarded, nestedFrom: guarded[0].end };
  if (holdsParenthesisedStatements(tokens)) return whole;
  return undefined;
}

/** Most parenthesised groups after an invocation that its expansion goes on to take. */
const MAX_CHAINED_GROUPS = 4;

/**
 * The parenthesised groups after the invocation `text[at, close)` that its expansion takes: an expansion ending in
 * the name of a function-like macro invokes it with the group that follows in the text (`_CCCL_REQUIRES_EXPR((T))
 * (requires(C))`, `_CCCL_TRAILING_REQUIRES(T)(C)`), as the preprocessor's rescan does. Returns the end of the last
 * group taken and the expansion of the whole chain, or undefined when no group is taken. Each group is bounded as
 * an invocation is (invocationSpan), and at most MAX_CHAINED_GROUPS are taken.
 */
function chainedGroups(text: string, at: number, close: number, tokens: Token[], macros: MacroLookup): { close: number; tokens: Token[] } | undefined {
  let end = close;
  for (let n = 0; n < MAX_CHAINED_GROUPS; n++) {
    const last = tokens[tokens.length - 1];
    if (last?.kind !== 'ident' || !macros.get(last.text)?.params) break;
    const next = invocationSpan(text, end, end);
    if (next.close === undefined) break;
    const longer = expandInvocation(text.slice(at, next.close), macros);
    if (!longer) break;
    tokens = longer;
    end = next.close;
  }
  return end > close ? { close: end, tokens } : undefined;
}

/**
 * Edits for a chain of groups (see chainedGroups) `text[at, end)` whose first group closes at `close`:
 * - a trailing return type (`-> T requires C`, or before C++20 `-> __cccl_requires_t<T, C>`): written `-> T`, the
 *   name becoming `->`, the first group's parentheses and the groups after it blanked, so the function keeps the
 *   type it returns;
 * - a requires-expression (`requires (...) { ... }`, or the value-and-helper-struct CCCL builds for it before
 *   C++20): the name is kept and the groups blanked, so the concept's value is an identifier the analysis cannot
 *   evaluate, as an unknown condition is;
 * - an expansion that is blankable as a single invocation's is (see invocationEdits): blanked;
 * undefined (left as written) otherwise.
 */
function chainedEdits(text: string, at: number, nameEnd: number, close: number, end: number, tokens: readonly Token[]): Edit[] | undefined {
  if (blankableExpansion(tokens) || closesTemplateHead(tokens) || definesDeclarations(tokens)) return [{ start: at, end }];
  const open = text.indexOf('(', nameEnd);
  if (tokens[0]?.text === '->' && nameEnd - at >= 2) {
    return [
      { start: at, end: nameEnd, text: '->'.padEnd(nameEnd - at, ' ') },
      { start: nameEnd, end: open + 1 },
      { start: close - 1, end },
    ];
  }
  if (isRequiresExpression(tokens) || valueWithDefinitions(tokens)) return [{ start: nameEnd, end }];
  return undefined;
}

/** `requires (parameters) { requirements }` or `requires { requirements }`, and nothing after: a value. */
function isRequiresExpression(tokens: readonly Token[]): boolean {
  if (tokens[0]?.text !== 'requires') return false;
  let k = 1;
  if (tokens[k]?.text === '(') k = groupEnd(tokens, k, '(', ')') + 1;
  return k > 0 && tokens[k]?.text === '{' && groupEnd(tokens, k, '{', '}') === tokens.length - 1;
}

/**
 * A value, `;`, then whole definitions (without their final `;`, which follows the use in the text): how CCCL
 * writes a requires-expression before C++20, a call of a helper struct's check followed by the struct.
 */
function valueWithDefinitions(tokens: readonly Token[]): boolean {
  let depth = 0;
  for (let k = 0; k < tokens.length; k++) {
    const t = tokens[k].text;
    if (t === '(' || t === '[' || t === '{') depth++;
    else if (t === ')' || t === ']' || t === '}') depth--;
    else if (t === ';' && depth === 0) {
      if (k === 0) return false;
      return definesDeclarations([...tokens.slice(k + 1), { kind: 'punct', text: ';', space: false }]);
    }
  }
  return false;
}

/**
 * Edits for an invocation whose expansion is `if [constexpr] (condition) { ... }` with the block one of its
 * arguments written in braces (`IF_TEAM({ return x; })`): the name and everything before that argument become
 * `if(condition)`, the rest after it is blanked, so the block stays in place under its guard. A condition that does
 * not fit is written as an identifier made of the macro's name: opaque, as an unknown condition is to the analysis.
 */
function guardedBlockEdits(
  text: string,
  at: number,
  close: number,
  args: { open: number; list: Array<{ start: number; end: number }> },
  tokens: readonly Token[],
  macros: MacroLookup,
): Edit[] | undefined {
  if (tokens[0]?.text !== 'if') return undefined;
  const k = tokens[1]?.text === 'constexpr' ? 2 : 1;
  if (tokens[k]?.text !== '(') return undefined;
  const condEnd = groupEnd(tokens, k, '(', ')');
  if (condEnd < 0 || tokens[condEnd + 1]?.text !== '{' || groupEnd(tokens, condEnd + 1, '{', '}') !== tokens.length - 1) return undefined;
  const block = tokens.slice(condEnd + 1);
  const inner = block.slice(1, -1);
  const headText = (room: number): string | undefined => {
    if (room < 5) return undefined;
    const spelled = `if(${conditionSpelling(tokens.slice(k + 1, condEnd))})`;
    return (spelled.length <= room ? spelled : `if(${text.slice(at, args.open).trim().slice(0, room - 4)})`).padEnd(room, ' ');
  };
  for (const a of args.list) {
    const written = text.slice(a.start, a.end);
    const start = a.start + written.length - written.trimStart().length;
    const end = a.start + written.trimEnd().length;
    const expanded = expandText(text.slice(start, end), macros);
    // The argument written in braces, as the block or as its content: it stays as the block.
    if (text[start] === '{' && text[end - 1] === '}' && (sameSpelling(block, expanded) || sameSpelling(inner, expanded))) {
      const head = text.slice(at, start).includes('\n') ? undefined : headText(start - at);
      return head === undefined ? undefined : [{ start: at, end: start, text: head }, ...(end < close ? [{ start: end, end: close }] : [])];
    }
    // The only argument written bare (`IF_KIND(return x;)`): its parentheses become the block's braces.
    if (args.list.length === 1 && sameSpelling(inner, expanded)) {
      const head = text.slice(at, args.open).includes('\n') ? undefined : headText(args.open - at);
      if (head === undefined) return undefined;
      return [
        { start: at, end: args.open, text: head },
        { start: args.open, end: args.open + 1, text: '{' },
        { start: close - 1, end: close, text: '}' },
      ];
    }
  }
  return undefined;
}

// CUDA keywords taking an operand list that the analysis reads (the launch shape): a macro forwarding to one is
// written as the keyword itself rather than blanked.
const FORWARDED_KEYWORDS = new Set(['__launch_bounds__', '__cluster_dims__']);

/**
 * Edits for an invocation whose expansion is `KEYWORD(a1, ..., ak)` with each `aj` the invocation's j-th argument
 * as written (`_CCCL_LAUNCH_BOUNDS(n, m)`, or a cluster variant that drops its last argument on some passes): the
 * name becomes the keyword (padded; only where the name is long enough) and the arguments it drops are blanked.
 */
function forwardingEdits(
  text: string,
  at: number,
  nameEnd: number,
  close: number,
  args: { open: number; list: Array<{ start: number; end: number }> },
  tokens: readonly Token[],
  macros: MacroLookup,
): Edit[] | undefined {
  const keyword = tokens[0]?.text;
  if (!keyword || !FORWARDED_KEYWORDS.has(keyword) || tokens[1]?.text !== '(' || groupEnd(tokens, 1, '(', ')') !== tokens.length - 1) return undefined;
  if (nameEnd - at < keyword.length) return undefined;
  const operands: Token[][] = [[]];
  let depth = 0;
  for (const t of tokens.slice(2, -1)) {
    if (t.text === '(' || t.text === '[' || t.text === '{') depth++;
    else if (t.text === ')' || t.text === ']' || t.text === '}') depth--;
    else if (t.text === ',' && depth === 0) {
      operands.push([]);
      continue;
    }
    operands[operands.length - 1].push(t);
  }
  if (operands.length > args.list.length) return undefined;
  for (let j = 0; j < operands.length; j++) {
    if (!sameSpelling(operands[j], expandText(text.slice(args.list[j].start, args.list[j].end), macros))) return undefined;
  }
  const edits: Edit[] = [{ start: at, end: nameEnd, text: keyword.padEnd(nameEnd - at, ' ') }];
  // The arguments dropped, with the `,` before the first of them.
  if (operands.length < args.list.length) edits.push({ start: args.list[operands.length - 1].end, end: close - 1 });
  return edits;
}

/**
 * `template <...` left open, or `template <...>` and nothing after: a template head alone (its `<` counted against
 * `>` outside parentheses), not a whole declaration.
 */
function isTemplateHead(tokens: readonly Token[]): boolean {
  let angles = 0;
  let parens = 0;
  for (let i = 1; i < tokens.length; i++) {
    const t = tokens[i].text;
    if (t === '(' || t === '[') parens++;
    else if (t === ')' || t === ']') parens--;
    else if (parens > 0) continue;
    else if (t === '<') angles++;
    else if (t === '>' || t === '>>') {
      angles -= t.length;
      if (angles <= 0) return i === tokens.length - 1;
    }
  }
  return true;
}

/** The closing part of a template head (`, ... >`, what a pre-C++20 requires macro adds) or a requires-clause. */
function closesTemplateHead(tokens: readonly Token[]): boolean {
  if (tokens[0]?.text === ',' && tokens[tokens.length - 1]?.text === '>') return true;
  // A requires-clause, not a requires-expression (`requires (T t) { t.f(); }`, a value).
  return tokens[0]?.text === 'requires' && !tokens.some((t) => t.text === '{');
}

/** A parenthesised group with a `;` at its own level (not a `for (;;)`): statements passed as a macro argument. */
function holdsParenthesisedStatements(tokens: readonly Token[]): boolean {
  const opens: boolean[] = [];
  for (let i = 0; i < tokens.length; i++) {
    const t = tokens[i].text;
    if (t === '(') opens.push(tokens[i - 1]?.text !== 'for');
    else if (t === ')') opens.pop();
    else if (t === ';' && opens[opens.length - 1]) return true;
  }
  return false;
}

function expandText(text: string, macros: MacroLookup): Token[] | undefined {
  const expanded = expandTokens(tokenize(text), macros, { noExpand: CUDA_KEYWORDS, limit: INVOCATION_EXPANSION_LIMIT });
  return expanded.complete ? expanded.tokens : undefined;
}

function sameSpelling(a: readonly Token[], b: readonly Token[] | undefined): boolean {
  return b !== undefined && a.length === b.length && a.every((t, k) => t.text === b[k].text);
}

/**
 * The top-level arguments of the invocation whose name ends at `nameEnd` and whose `)` ends just before `close`
 * (offsets into `text`), and the offset of its `(`; comments and literals skipped. Undefined when there is no `(`.
 */
export function invocationArguments(text: string, nameEnd: number, close: number): { open: number; list: Array<{ start: number; end: number }> } | undefined {
  let i = nameEnd;
  while (i < close && text.charCodeAt(i) !== 40) i++;
  if (i >= close) return undefined;
  const open = i;
  const list: Array<{ start: number; end: number }> = [];
  let start = open + 1;
  let depth = 0;
  for (i = open + 1; i < close - 1; i++) {
    const c = text.charCodeAt(i);
    if (c === 40 || c === 91 || c === 123) depth++;
    else if (c === 41 || c === 93 || c === 125) depth--;
    else if (c === 44 && depth === 0) {
      list.push({ start, end: i });
      start = i + 1;
    } else if (c === 47 && text.charCodeAt(i + 1) === 47) {
      while (i < close && text.charCodeAt(i) !== 10) i++;
    } else if (c === 47 && text.charCodeAt(i + 1) === 42) {
      const e = text.indexOf('*/', i + 2);
      i = e < 0 || e >= close ? close : e + 1;
    } else if (c === 34 || c === 39) {
      const e = literalEnd(text, i, c, close);
      if (e < 0) return undefined;
      i = e - 1;
    }
  }
  list.push({ start, end: close - 1 });
  return { open, list };
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
