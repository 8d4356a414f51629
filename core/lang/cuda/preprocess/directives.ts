// One file's directives in order under a macro table: conditionals evaluated, `#define`/`#undef` applied,
// `#include` handed to the caller where it occurs, and the same-length text tree-sitter parses (inactive
// regions, conditional directive lines and specifier macros blanked).
import { Buffer } from 'node:buffer';
import { evaluateCondition, type ConditionHooks } from './conditions';
import { occurrences, scanFile, type DirectiveLine, type Edit, type FileScan } from './file-scan';
import { definitionAt, expandMacros, macrosAt, parseDefine, type MacroDefinition, type MacroTable } from './macros';
import { classifyObjectUse, invocationEdits, invocationSpan, type MacroUse } from './macro-uses';
import { rewriteGrammarGaps } from './grammar-gaps';
import { unknownMacroEdits } from './unknown-macros';
import { classifyMacro } from './specifier-macros';
import { tokenize } from './tokens';
import { CUDA_KEYWORDS, type SpecifierKind } from './specifiers';

export interface IncludeDirective {
  spelling: string;
  angled: boolean;
  /** Zero-based line of the `#`. */
  line: number;
  /** Offsets of the directive. */
  start: number;
  end: number;
  /** `#include_next`: the search continues after the directory that held the including file. */
  next?: boolean;
}

export interface PreprocessedFile {
  /** The same-length text tree-sitter parses (see preprocessFile). */
  parseText: string;
  /** The parse text before `rewriteGrammarGaps`, where that changed it: what an in-place edit is spliced into. */
  beforeGrammarGaps?: string;
  /** Offsets [start, end) of inactive regions (for hover/diagnostic suppression), sorted. */
  inactiveRanges: Array<{ start: number; end: number }>;
  /** Active #include directives in order. */
  includes: IncludeDirective[];
  /** Names of macros (defined anywhere in the TU so far) whose expansion contains __global__. */
  kernelMacros: string[];
  /**
   * Offsets [start, end) of the function-like macro invocations blanked or rewritten (name and arguments: a
   * template head written as `template<...>`, a branch kept as a block), sorted: an edit inside one (or that adds
   * a parenthesis) can change what is done with it, so it is no plain edit.
   */
  blankedInvocations: Array<{ start: number; end: number }>;
  /** `#pragma once` seen (active). */
  pragmaOnce: boolean;
  /** Active `#if`/`#elif` conditions that could not be evaluated (taken as false), zero-based lines. */
  unknownConditions: Array<{ line: number; text: string }>;
}

export interface PreprocessHooks extends ConditionHooks {}

interface Frame {
  /** The region around the conditional is active. */
  parentActive: boolean;
  /** Some branch was taken already. */
  taken: boolean;
  sawElse: boolean;
}

const CONDITIONALS = new Set(['if', 'ifdef', 'ifndef', 'elif', 'elifdef', 'elifndef', 'else', 'endif']);

/**
 * Processes `text`'s directives in order, mutating `macros` (`#define`/`#undef` in active regions), calling
 * `onInclude` at each active `#include` where it occurs, evaluating `#if`/`#elif` with the macros at that point.
 * Pure given (text, macros state, what onInclude does); linear in the text. The result's parse text has the
 * inactive regions and the conditional directive lines blanked, and specifier macros replaced by spaces (or by
 * `__global__` padded with spaces where the expansion holds `__global__` and the name is long enough), then
 * the constructs tree-sitter-cuda cannot parse rewritten (./grammar-gaps.ts).
 * An unterminated `#if` ends at the end of the file; a stray `#endif`/`#else`/`#elif` is ignored.
 */
export function preprocessFile(
  text: string,
  macros: MacroTable,
  onInclude: (inc: IncludeDirective) => void,
  file?: string,
  hooks: PreprocessHooks = {},
): PreprocessedFile {
  const scan = scanFile(text);
  const frames: Frame[] = [];
  const edits: Edit[] = [];
  const inactiveRanges: Array<{ start: number; end: number }> = [];
  const includes: IncludeDirective[] = [];
  const unknownConditions: Array<{ line: number; text: string }> = [];
  // Per name changed while this file is processed: its definition from each offset on.
  const history = new Map<string, Array<{ offset: number; def: MacroDefinition | undefined }>>();
  let pragmaOnce = false;
  let active = true;
  let inactiveFrom = 0;

  const lineAfter = (d: DirectiveLine): number => (d.end < text.length ? d.end + 1 : d.end);
  const evaluate = (d: DirectiveLine): boolean => {
    let value: boolean | undefined;
    if (d.name === 'ifdef' || d.name === 'elifdef') value = macros.has(firstWord(d.rest));
    else if (d.name === 'ifndef' || d.name === 'elifndef') value = !macros.has(firstWord(d.rest));
    else value = evaluateCondition((d.tokens ??= tokenize(d.rest)), macros, hooks);
    if (value === undefined) unknownConditions.push({ line: d.line, text: d.rest });
    return value ?? false;
  };
  const recordChanges = (since: number, offset: number): void => {
    for (const change of macros.changesSince(since)) {
      let h = history.get(change.name);
      if (!h) {
        h = [{ offset: 0, def: change.previous }];
        history.set(change.name, h);
      }
      h.push({ offset, def: macros.get(change.name) });
    }
  };

  for (const d of scan.directives) {
    if (CONDITIONALS.has(d.name)) {
      const wasActive = active;
      active = conditional(d, frames, active, evaluate);
      // Edits in text order: the inactive region a directive closes, then the directive line itself.
      if (!wasActive && active && d.lineStart > inactiveFrom) {
        inactiveRanges.push({ start: inactiveFrom, end: d.lineStart });
        edits.push({ start: inactiveFrom, end: d.lineStart });
      }
      if (wasActive || active) edits.push({ start: d.start, end: d.end });
      if (wasActive && !active) inactiveFrom = lineAfter(d);
      continue;
    }
    if (!active) continue;
    const before = macros.version;
    switch (d.name) {
      case 'define': {
        if (d.define?.file !== file || !d.define) d.define = { file, def: parseDefine(d.rest, file, d.line) };
        if (d.define.def) macros.define(d.define.def);
        break;
      }
      case 'undef':
        macros.undefine(firstWord(d.rest));
        break;
      case 'include':
      case 'include_next':
      case 'import': {
        const target = d.include ?? includeTarget(d.rest, macros);
        if (target && d.include === undefined && /^["<]/.test(d.rest)) d.include = target;
        if (target) {
          const inc: IncludeDirective = { ...target, line: d.line, start: d.start, end: d.end };
          if (d.name === 'include_next') inc.next = true;
          includes.push(inc);
          onInclude(inc);
        }
        break;
      }
      case 'pragma':
        if (/^once\b/.test(d.rest)) pragmaOnce = true;
        break;
      default:
        break;
    }
    if (macros.version !== before) recordChanges(before, d.end);
  }
  if (!active && text.length > inactiveFrom) {
    inactiveRanges.push({ start: inactiveFrom, end: text.length });
    edits.push({ start: inactiveFrom, end: text.length });
  }

  const blankedInvocations: Array<{ start: number; end: number }> = [];
  const replacements = specifierEdits(scan, macros, history, inactiveRanges, blankedInvocations);
  const beforeGrammarGaps = applyEdits(scan, mergeSorted(edits, replacements));
  const parseText = rewriteGrammarGaps(beforeGrammarGaps);
  return {
    parseText,
    ...(parseText !== beforeGrammarGaps ? { beforeGrammarGaps } : {}),
    inactiveRanges,
    blankedInvocations,
    includes,
    kernelMacros: macros.kernelMacroNames(),
    pragmaOnce,
    unknownConditions,
  };
}

function firstWord(rest: string): string {
  return /^[A-Za-z_$\u0080-\uffff][\w$\u0080-\uffff]*/.exec(rest)?.[0] ?? '';
}

/** Applies one conditional directive to the frame stack; returns whether the code after it is active. */
function conditional(d: DirectiveLine, frames: Frame[], active: boolean, evaluate: (d: DirectiveLine) => boolean): boolean {
  if (d.name === 'if' || d.name === 'ifdef' || d.name === 'ifndef') {
    if (!active) {
      frames.push({ parentActive: false, taken: true, sawElse: false });
      return false;
    }
    const taken = evaluate(d);
    frames.push({ parentActive: true, taken, sawElse: false });
    return taken;
  }
  const f = frames[frames.length - 1];
  if (!f) return active;
  if (d.name === 'endif') {
    frames.pop();
    return f.parentActive;
  }
  if (d.name === 'else') {
    const now = f.parentActive && !f.taken && !f.sawElse;
    f.sawElse = true;
    f.taken = true;
    return now;
  }
  // #elif, #elifdef, #elifndef
  if (!f.parentActive || f.taken || f.sawElse) return false;
  const taken = evaluate(d);
  f.taken = taken;
  return taken;
}

/** The header an `#include` names: `"x"`, `<x>`, or a macro expanding to one of those. */
export function includeTarget(rest: string, macros: MacroTable): { spelling: string; angled: boolean } | undefined {
  const direct = /^"([^"]*)"|^<([^>]*)>/.exec(rest);
  if (direct) return direct[1] !== undefined ? { spelling: direct[1], angled: false } : { spelling: direct[2], angled: true };
  if (!/^[A-Za-z_]/.test(rest)) return undefined;
  const expanded = expandMacros(rest, macros, 10_000).trim();
  const m = /^"([^"]*)"|^<(.*)>$/.exec(expanded);
  if (!m) return undefined;
  // A `<...>` built from tokens is spelled with the spaces between them dropped.
  return m[1] !== undefined ? { spelling: m[1], angled: false } : { spelling: m[2].replace(/\s+/g, ''), angled: true };
}

/** What the parse text does with the uses of one definition: a specifier macro's kind, or a MacroUse. */
type UseOfDefinition = SpecifierKind | MacroUse;

/**
 * Replacements of macro uses in code: each identifier naming an object-like macro that expands only to
 * specifiers, attributes or pragmas at that point of the file, or to namespace openings and closings (written in
 * place, collapsed), or to a `static_assert`; and each invocation of a function-like macro that invocationEdits
 * (./macro-uses.ts) blanks or rewrites. Names untouched while the file was processed have one definition
 * throughout (the final one); the others are looked up in their history.
 */
function specifierEdits(
  scan: FileScan,
  macros: MacroTable,
  history: ReadonlyMap<string, Array<{ offset: number; def: MacroDefinition | undefined }>>,
  inactive: ReadonlyArray<{ start: number; end: number }>,
  blankedInvocations: Array<{ start: number; end: number }>,
): Edit[] {
  const out: Edit[] = [];
  const text = scan.text;
  const uses = new Map<MacroDefinition, UseOfDefinition>();
  // The first edit of each invocation rewritten, with the invocation's span.
  const invocations = new Map<Edit, { start: number; end: number }>();
  const useOf = (def: MacroDefinition): UseOfDefinition => {
    let u = uses.get(def);
    if (u === undefined) {
      const kind = classifyMacro(def, macros);
      u = kind !== 'other' ? kind : classifyObjectUse(def, macros);
      uses.set(def, u);
    }
    return u;
  };
  const visit = (name: string): void => {
    if (CUDA_KEYWORDS.has(name)) return;
    const offsets = occurrences(scan, name);
    if (offsets.length === 0) return;
    const h = history.get(name);
    const final = macros.get(name);
    // Invocations of this name already looked at reach here: an occurrence inside one (nested) is not looked at
    // again, blanked or not, so each character is scanned once per name and nested uses cost nothing more.
    let coveredUntil = 0;
    for (const at of offsets) {
      const def = h ? definitionAt(h, at) : final;
      if (!def || at < coveredUntil) continue;
      const use = useOf(def);
      if (use === 'other' || (typeof use === 'object' && use.kind === 'keep') || inRanges(inactive, at)) continue;
      const end = at + name.length;
      if (typeof use === 'string') out.push(replacement(name, at, use));
      else if (use.kind === 'blank') out.push({ start: at, end });
      else if (use.kind === 'write') out.push({ start: at, end, text: use.text });
      // An invocation is expanded with the definitions in force where it stands.
      else {
        const { close, scanned } = invocationSpan(text, at, end);
        coveredUntil = scanned;
        if (close === undefined) continue;
        const rewrite = invocationEdits(text, at, end, close, history.size > 0 ? macrosAt(macros, history, at) : macros);
        if (rewrite) {
          out.push(...rewrite.edits);
          // A chained invocation (`NAME(a)(b)`) ends past the first group.
          const end = rewrite.close ?? close;
          invocations.set(rewrite.edits[0], { start: at, end });
          coveredUntil = rewrite.nestedFrom ?? Math.max(coveredUntil, end);
        }
      }
    }
  };
  const candidates = macros.specifierCandidates();
  for (const name of candidates) visit(name);
  for (const name of history.keys()) if (!candidates.has(name)) visit(name);
  // Invocations of names no macro defines anywhere in the file that can only be macros of a header not found.
  const definedHere = { get: (n: string) => macros.get(n), has: (n: string) => macros.has(n) || history.has(n) };
  for (const e of unknownMacroEdits(scan, definedHere, (at) => inRanges(inactive, at))) {
    out.push(e);
    invocations.set(e, { start: e.start, end: e.end });
  }
  // CUDA's `__align__(N)` (a function-like macro of the toolkit's headers) is not in the grammar; `alignas  (N)`,
  // of the same length, is what it means (`extern __shared__ __align__(1024) uint8_t smem[]`).
  for (const at of occurrences(scan, '__align__')) {
    if (!inRanges(inactive, at) && /^\s*\(/.test(scan.text.slice(at + 9, at + 41))) out.push({ start: at, end: at + 9, text: 'alignas  ' });
  }
  out.sort((a, b) => a.start - b.start);
  const kept = dropOverlaps(out);
  for (const e of kept) {
    const span = invocations.get(e);
    if (span) blankedInvocations.push(span);
  }
  return kept;
}

/** The edits without any that starts inside the one before it (an invocation blanked holds other uses). */
function dropOverlaps(edits: readonly Edit[]): Edit[] {
  const out: Edit[] = [];
  let end = 0;
  for (const e of edits) {
    if (e.start < end) continue;
    out.push(e);
    end = e.end;
  }
  return out;
}

function replacement(name: string, at: number, kind: SpecifierKind): Edit {
  const end = at + name.length;
  if (kind === 'kernel-specifier' && name.length >= 10) return { start: at, end, text: '__global__'.padEnd(name.length, ' ') };
  return { start: at, end };
}

function inRanges(ranges: ReadonlyArray<{ start: number; end: number }>, at: number): boolean {
  let lo = 0;
  let hi = ranges.length - 1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (ranges[mid].end <= at) lo = mid + 1;
    else if (ranges[mid].start > at) hi = mid - 1;
    else return true;
  }
  return false;
}

function mergeSorted(a: readonly Edit[], b: readonly Edit[]): Edit[] {
  const out: Edit[] = [];
  let i = 0;
  let j = 0;
  while (i < a.length || j < b.length) {
    if (j >= b.length || (i < a.length && a[i].start <= b[j].start)) out.push(a[i++]);
    else out.push(b[j++]);
  }
  return out;
}

/**
 * `text[start, end)` with every character but line breaks turned into a space, built in one buffer (a regular
 * expression replace makes one piece per character, which is slow and heavy on the collector for big regions).
 */
function blank(text: string, start: number, end: number): string {
  // Searches stay inside the region: looking past `end` would make many small regions quadratic.
  let firstBreak = start;
  while (firstBreak < end && text.charCodeAt(firstBreak) !== 10 && text.charCodeAt(firstBreak) !== 13) firstBreak++;
  if (firstBreak === end) return ' '.repeat(end - start);
  const bytes = Buffer.alloc(end - start, 0x20);
  for (let i = firstBreak; i < end; i++) {
    const c = text.charCodeAt(i);
    if (c === 10 || c === 13) bytes[i - start] = c;
  }
  return bytes.toString('latin1');
}

function sameEdits(a: readonly Edit[], b: readonly Edit[]): boolean {
  if (a.length !== b.length) return false;
  for (let k = 0; k < a.length; k++) {
    if (a[k].start !== b[k].start || a[k].end !== b[k].end || a[k].text !== b[k].text) return false;
  }
  return true;
}

/** The parse text: `scan.text` with the edits applied (sorted, non-overlapping), memoised per edit list. */
function applyEdits(scan: FileScan, edits: readonly Edit[]): string {
  if (edits.length === 0) return scan.text;
  const last = scan.lastParse;
  if (last && sameEdits(last.edits, edits)) return last.text;
  const text = scan.text;
  const parts: string[] = [];
  let pos = 0;
  for (const e of edits) {
    if (e.start < pos) continue;
    parts.push(text.slice(pos, e.start));
    parts.push(e.text ?? blank(text, e.start, e.end));
    pos = e.end;
  }
  parts.push(text.slice(pos));
  const result = parts.join('');
  scan.lastParse = { edits, text: result };
  return result;
}
