// Macro definitions and their expansion as the C preprocessor does it: object-like and function-like
// macros, `#`, `##`, `__VA_ARGS__`/`__VA_OPT__`, rescanning with hide sets ("blue paint"), bounded work.
import { mayRewriteUse } from './use-candidates';
import { spell, stringify, tokenize, type Token } from './tokens';

export interface MacroDefinition {
  name: string;
  /** Parameter names of a function-like macro (the variadic one last, `__VA_ARGS__` unless named); absent for object-like. */
  params?: string[];
  variadic?: boolean;
  body: string;
  file?: string;
  line?: number;
}

const bodyCache = new WeakMap<MacroDefinition, Token[]>();

/** The body's tokens, computed once per definition (definitions are never mutated). */
export function bodyTokens(def: MacroDefinition): Token[] {
  let tokens = bodyCache.get(def);
  if (!tokens) {
    tokens = tokenize(def.body);
    if (tokens.length > 0) tokens[0] = { ...tokens[0], space: false };
    bodyCache.set(def, tokens);
  }
  return tokens;
}

/**
 * The macros defined at one point of a translation unit. Besides the definitions it keeps a version (bumped
 * by every change), a log of the names changed (so a caller can tell what an `#include` touched), and the
 * names whose expansion contains `__global__` (kept up to date as macros come and go).
 */
export class MacroTable {
  private readonly defs: Map<string, MacroDefinition>;
  private readonly kernels: Set<string>;
  private readonly candidates: Set<string>;
  private changeLog: Array<{ name: string; previous: MacroDefinition | undefined }> = [];
  private changes = 0;

  /** The version this table's log starts at (a clone continues its original's numbering). */
  private readonly logBase: number;

  constructor(defs?: Map<string, MacroDefinition>, kernels?: Set<string>, version = 0, candidates?: Set<string>) {
    this.defs = defs ?? new Map();
    this.kernels = kernels ?? new Set();
    this.candidates = candidates ?? new Set();
    this.changes = version;
    this.logBase = version;
  }

  define(def: MacroDefinition): void {
    const previous = this.defs.get(def.name);
    this.defs.set(def.name, def);
    this.noteChange(def.name, previous);
    if (def.name !== '__global__' && bodyTokens(def).some((t) => t.kind === 'ident' && (t.text === '__global__' || this.kernels.has(t.text)))) {
      this.kernels.add(def.name);
    } else {
      this.kernels.delete(def.name);
    }
    if (mayRewriteUse(bodyTokens(def), def.params !== undefined)) this.candidates.add(def.name);
    else this.candidates.delete(def.name);
  }

  undefine(name: string): void {
    const previous = this.defs.get(name);
    if (!previous) return;
    this.defs.delete(name);
    this.kernels.delete(name);
    this.candidates.delete(name);
    this.noteChange(name, previous);
  }

  get(name: string): MacroDefinition | undefined {
    return this.defs.get(name);
  }

  has(name: string): boolean {
    return this.defs.has(name);
  }

  clone(): MacroTable {
    return new MacroTable(new Map(this.defs), new Set(this.kernels), this.changes, new Set(this.candidates));
  }

  names(): Iterable<string> {
    return this.defs.keys();
  }

  get size(): number {
    return this.defs.size;
  }

  /** Number of changes so far; equal versions of one table mean equal contents. */
  get version(): number {
    return this.changes;
  }

  /**
   * Macros whose body could make a use the parse text rewrites (specifier macros, structural or check macros,
   * function-like macros that may expand to nothing: see mayRewriteUse), so the parse text need not look at the others.
   */
  specifierCandidates(): ReadonlySet<string> {
    return this.candidates;
  }

  /** Names of macros whose expansion contains `__global__`. */
  kernelMacroNames(): string[] {
    return [...this.kernels];
  }

  /** The changes since version `since` of this table (not of the table it was cloned from), each with the definition it replaced. */
  changesSince(since: number): ReadonlyArray<{ name: string; previous: MacroDefinition | undefined }> {
    return this.changeLog.slice(Math.max(0, since - this.logBase));
  }

  private noteChange(name: string, previous: MacroDefinition | undefined): void {
    this.changeLog.push({ name, previous });
    this.changes++;
  }
}

/** What expansion reads of a macro table: the definition of a name, if any. */
export interface MacroLookup {
  get(name: string): MacroDefinition | undefined;
  has(name: string): boolean;
}

/** The definitions of one name from each offset of a file on (the first entry holds the one the file started with). */
export type DefinitionHistory = ReadonlyArray<{ offset: number; def: MacroDefinition | undefined }>;

/**
 * The macros in force at offset `at` of a file: a name changed while the file was processed (an entry of
 * `history`) has the definition it had there, any other the one in `final` (the table at the end of the file).
 * A use is expanded as the compiler expands it, with the definitions of its point of the file: a library that
 * `#undef`s its generator macros after using them (CUB's load/store specialisations) has none at the end.
 */
export function macrosAt(final: MacroLookup, history: ReadonlyMap<string, DefinitionHistory>, at: number): MacroLookup {
  const get = (name: string): MacroDefinition | undefined => {
    const h = history.get(name);
    return h ? definitionAt(h, at) : final.get(name);
  };
  return { get, has: (name) => get(name) !== undefined };
}

/** The definition of a macro in force at offset `at`, from its history (a binary search of the offsets). */
export function definitionAt(h: DefinitionHistory, at: number): MacroDefinition | undefined {
  let lo = 0;
  let hi = h.length - 1;
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1;
    if (h[mid].offset <= at) lo = mid;
    else hi = mid - 1;
  }
  return h[lo].def;
}

/** Parses the text after `#define`: `NAME body` or `NAME(a, b, ...) body` (a `(` right after the name). */
export function parseDefine(directiveText: string, file?: string, line?: number): MacroDefinition | undefined {
  const m = /^\s*([A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*)/.exec(directiveText);
  if (!m) return undefined;
  const name = m[1];
  let rest = directiveText.slice(m[0].length);
  let params: string[] | undefined;
  let variadic = false;
  if (rest.startsWith('(')) {
    const close = rest.indexOf(')');
    if (close < 0) return undefined;
    params = [];
    for (const raw of rest.slice(1, close).split(',')) {
      const p = raw.trim();
      if (p === '') continue;
      if (p === '...') {
        variadic = true;
        params.push('__VA_ARGS__');
      } else if (p.endsWith('...')) {
        variadic = true;
        params.push(p.slice(0, -3).trim());
      } else if (/^[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*$/.test(p)) {
        params.push(p);
      } else {
        return undefined;
      }
    }
    rest = rest.slice(close + 1);
  }
  const body = spell(tokenize(rest));
  const def: MacroDefinition = { name, body };
  if (params) def.params = params;
  if (variadic) def.variadic = true;
  if (file !== undefined) def.file = file;
  if (line !== undefined) def.line = line;
  return def;
}

/** What an `#if` needs from expansion: `defined X` and `__has_include(...)`-like operators taken before their operands expand. */
export interface ExpandOptions {
  /** Work bound in tokens processed (default 200,000); past it the rest is returned unexpanded. */
  limit?: number;
  /** Names never expanded (e.g. CUDA keywords that a toolkit header defines as attributes). */
  noExpand?: ReadonlySet<string>;
  /** Evaluates `defined X` / `defined(X)` to a number token, as `#if` does. */
  evaluateDefined?: boolean;
  /** Operators whose parenthesised operand is taken raw (e.g. `__has_include`); they return the token to use. */
  operators?: ReadonlyMap<string, (operand: Token[]) => Token>;
}

interface ExpandState {
  macros: MacroLookup;
  budget: number;
  exhausted: boolean;
  options: ExpandOptions;
}

/** Full C expansion of `text` with `macros`; gives up after `limit` tokens of work and returns what it has. */
export function expandMacros(text: string, macros: MacroLookup, limit?: number): string {
  return spell(expandTokens(tokenize(text), macros, { limit }).tokens);
}

/** Expansion over tokens; `complete` is false when the work bound cut it short. */
export function expandTokens(tokens: readonly Token[], macros: MacroLookup, options: ExpandOptions = {}): { tokens: Token[]; complete: boolean } {
  const state: ExpandState = { macros, budget: options.limit ?? 200_000, exhausted: false, options };
  const out = expandList(tokens, state);
  return { tokens: out, complete: !state.exhausted };
}

function addHide(hide: ReadonlySet<string> | undefined, name: string): ReadonlySet<string> {
  const s = new Set(hide);
  s.add(name);
  return s;
}

function intersect(a: ReadonlySet<string> | undefined, b: ReadonlySet<string> | undefined): ReadonlySet<string> | undefined {
  if (!a || !b) return undefined;
  if (a === b) return a;
  const s = new Set<string>();
  for (const x of a) if (b.has(x)) s.add(x);
  return s;
}

function number(value: boolean, space: boolean): Token {
  return { kind: 'number', text: value ? '1' : '0', space };
}

/** Rescans `input` (front at index 0) expanding every macro it may; the stack holds the rest reversed. */
function expandList(input: readonly Token[], st: ExpandState): Token[] {
  const stack: Token[] = [];
  for (let k = input.length - 1; k >= 0; k--) stack.push(input[k]);
  const out: Token[] = [];
  const { macros, options } = st;
  while (stack.length > 0) {
    const t = stack.pop()!;
    if (--st.budget < 0) {
      st.exhausted = true;
      out.push(t);
      while (stack.length > 0) out.push(stack.pop()!);
      break;
    }
    if (t.kind !== 'ident' || t.noExpand) {
      out.push(t);
      continue;
    }
    if (options.evaluateDefined && t.text === 'defined') {
      out.push(takeDefined(t, stack, macros));
      continue;
    }
    const operator = options.operators?.get(t.text);
    if (operator && stack.length > 0 && stack[stack.length - 1].text === '(') {
      const operand = takeParenthesised(stack);
      out.push(operand ? { ...operator(operand), space: t.space } : t);
      continue;
    }
    const def = macros.get(t.text);
    if (!def || options.noExpand?.has(t.text)) {
      out.push(t);
      continue;
    }
    if (t.hide?.has(t.text)) {
      out.push({ ...t, noExpand: true });
      continue;
    }
    if (!def.params) {
      pushReversed(stack, substitute(def, [], addHide(t.hide, t.text), st, t.space));
      continue;
    }
    if (stack.length === 0 || stack[stack.length - 1].text !== '(') {
      out.push(t);
      continue;
    }
    const call = takeArguments(stack, def);
    if (!call) {
      // No closing parenthesis: not an invocation after all; leave the rest as it is.
      out.push(t);
      continue;
    }
    const hs = addHide(intersect(t.hide, call.close.hide), t.text);
    pushReversed(stack, substitute(def, call.args, hs, st, t.space));
  }
  return out;
}

function pushReversed(stack: Token[], tokens: readonly Token[]): void {
  for (let k = tokens.length - 1; k >= 0; k--) stack.push(tokens[k]);
}

function takeDefined(t: Token, stack: Token[], macros: MacroLookup): Token {
  let next = stack.pop();
  if (next?.text === '(') {
    const name = stack.pop();
    const close = stack.pop();
    if (name?.kind === 'ident' && close?.text === ')') return number(macros.has(name.text), t.space);
    return { kind: 'other', text: '?defined', space: t.space };
  }
  if (next?.kind === 'ident') return number(macros.has(next.text), t.space);
  return { kind: 'other', text: '?defined', space: t.space };
}

/** Pops a balanced `( ... )` from the stack; returns the tokens inside, or undefined (stack restored) if unbalanced. */
function takeParenthesised(stack: Token[]): Token[] | undefined {
  const taken: Token[] = [];
  let depth = 0;
  while (stack.length > 0) {
    const u = stack.pop()!;
    taken.push(u);
    if (u.text === '(') depth++;
    else if (u.text === ')' && --depth === 0) return taken.slice(1, -1);
  }
  pushReversed(stack, taken);
  return undefined;
}

/** Pops `( args )` of a function-like macro invocation; undefined (stack restored) when never closed. */
function takeArguments(stack: Token[], def: MacroDefinition): { args: Token[][]; close: Token } | undefined {
  const nParams = def.params!.length;
  const taken: Token[] = [stack.pop()!];
  const args: Token[][] = [[]];
  let depth = 0;
  while (stack.length > 0) {
    const u = stack.pop()!;
    taken.push(u);
    if (u.text === '(') depth++;
    else if (u.text === ')') {
      if (depth === 0) {
        if (nParams === 0 && args.length === 1 && args[0].length === 0) args.pop();
        return { args, close: u };
      }
      depth--;
    } else if (u.text === ',' && depth === 0 && !(def.variadic && args.length >= nParams)) {
      args.push([]);
      continue;
    }
    args[args.length - 1].push(u);
  }
  pushReversed(stack, taken);
  return undefined;
}

const PLACEMARKER: Token = { kind: 'other', text: '', space: false };

/** The body of `def` with its parameters replaced (`#`, `##`, `__VA_OPT__` applied), every token carrying `hs`. */
function substitute(def: MacroDefinition, args: Token[][], hs: ReadonlySet<string>, st: ExpandState, space: boolean): Token[] {
  const params = def.params ?? [];
  const index = new Map<string, number>();
  params.forEach((p, k) => index.set(p, k));
  const vaIndex = def.variadic ? params.length - 1 : -1;
  const argOf = (k: number): Token[] => args[k] ?? [];
  const expanded = new Map<number, Token[]>();
  const expandedArg = (k: number): Token[] => {
    let e = expanded.get(k);
    if (!e) {
      e = expandList(argOf(k), st);
      expanded.set(k, e);
    }
    return e;
  };
  const vaPresent = (): boolean => vaIndex >= 0 && expandedArg(vaIndex).length > 0;
  const result = substituteTokens(bodyTokens(def), index, vaIndex, argOf, expandedArg, vaPresent, def.params !== undefined);
  st.budget -= result.length;
  const out: Token[] = [];
  for (const t of result) {
    if (t === PLACEMARKER || t.text === '') continue;
    const hide = t.hide === undefined || t.hide === hs ? hs : union(t.hide, hs);
    out.push({ ...t, hide, space: out.length === 0 ? space : t.space });
  }
  return out;
}

function union(a: ReadonlySet<string>, b: ReadonlySet<string>): ReadonlySet<string> {
  const s = new Set(a);
  for (const x of b) s.add(x);
  return s;
}

function substituteTokens(
  body: readonly Token[],
  index: ReadonlyMap<string, number>,
  vaIndex: number,
  argOf: (k: number) => Token[],
  expandedArg: (k: number) => Token[],
  vaPresent: () => boolean,
  functionLike: boolean,
): Token[] {
  const res: Token[] = [];
  const paramAt = (k: number): number | undefined => (body[k]?.kind === 'ident' ? index.get(body[k].text) : undefined);
  for (let i = 0; i < body.length; i++) {
    const b = body[i];
    if (functionLike && b.text === '#' && paramAt(i + 1) !== undefined) {
      res.push({ kind: 'string', text: stringify(argOf(paramAt(i + 1)!)), space: b.space });
      i++;
      continue;
    }
    if (b.text === '##' && i + 1 < body.length && res.length > 0) {
      const rhsParam = paramAt(i + 1);
      const lhs = res[res.length - 1];
      // GNU `, ## __VA_ARGS__`: the comma goes when the variable arguments are empty.
      if (rhsParam !== undefined && rhsParam === vaIndex && lhs.text === ',') {
        const va = argOf(vaIndex);
        if (va.length === 0) res.pop();
        va.forEach((t, k) => res.push({ ...t, space: k === 0 ? body[i + 1].space : t.space }));
        i++;
        continue;
      }
      let rhs: Token[];
      if (rhsParam !== undefined) rhs = argOf(rhsParam).map((t) => ({ ...t }));
      else if (body[i + 1].text === '__VA_OPT__' && vaIndex >= 0) {
        const end = vaOptEnd(body, i + 1);
        rhs = vaPresent() ? substituteTokens(body.slice(i + 3, end), index, vaIndex, argOf, expandedArg, vaPresent, functionLike) : [];
        i = end - 1;
      } else rhs = [{ ...body[i + 1] }];
      i++;
      if (rhs.length === 0) continue;
      if (lhs === PLACEMARKER) {
        res.pop();
        append(res, rhs);
        continue;
      }
      res.pop();
      const pasted = tokenize(lhs.text + rhs[0].text);
      if (pasted.length > 0) pasted[0].space = lhs.space;
      for (const p of pasted) p.hide = lhs.hide;
      append(res, pasted);
      for (let k = 1; k < rhs.length; k++) res.push(rhs[k]);
      continue;
    }
    if (b.text === '__VA_OPT__' && vaIndex >= 0 && body[i + 1]?.text === '(') {
      const end = vaOptEnd(body, i);
      if (vaPresent()) {
        const inner = substituteTokens(body.slice(i + 2, end), index, vaIndex, argOf, expandedArg, vaPresent, functionLike);
        if (inner.length > 0) inner[0] = { ...inner[0], space: b.space };
        append(res, inner);
      } else {
        res.push(PLACEMARKER);
      }
      i = end;
      continue;
    }
    const p = paramAt(i);
    if (p !== undefined) {
      const pastedNext = body[i + 1]?.text === '##';
      const pastedPrev = i > 0 && body[i - 1].text === '##';
      const src = pastedNext || pastedPrev ? argOf(p) : expandedArg(p);
      if (src.length === 0) {
        if (pastedNext) res.push(PLACEMARKER);
        continue;
      }
      src.forEach((t, k) => res.push({ ...t, space: k === 0 ? b.space : t.space }));
      continue;
    }
    res.push({ ...b });
  }
  return res;
}

function append(to: Token[], from: readonly Token[]): void {
  for (const t of from) to.push(t);
}

/** Index of the `)` closing the `__VA_OPT__(` at `at` (or the body's end). */
function vaOptEnd(body: readonly Token[], at: number): number {
  let depth = 0;
  for (let k = at + 1; k < body.length; k++) {
    if (body[k].text === '(') depth++;
    else if (body[k].text === ')' && --depth === 0) return k;
  }
  return body.length;
}
