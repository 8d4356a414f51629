// The debug runtime's breakpoints: line breakpoints (verified on statement lines, with conditions,
// hit counts and logpoints), barrier (function) breakpoints, barrier watches (data breakpoints) and
// exception filters, and which of them a phase flip or a statement hits. Conditions and logpoints are
// evaluated by the language's evaluator (DebugTarget.evaluator); nothing here knows a language.
import type { SimThread, SourceLoc } from '../sim/machine';
import type { DebugTarget } from './target';
import { truthy } from './expression';
import type { BarrierWatch, ExceptionFilter, FunctionBreakpoint, LineBreakpoint } from './types';

/** Where statements start: the lines breakpoints verify on, and the statement that enters each line. */
export interface StatementLines {
  lines: Set<number>;
  starts: Set<SourceLoc>;
}

/** What a line breakpoint does when a thread enters its line. */
export type LineHit = { kind: 'none' } | { kind: 'log'; text: string } | { kind: 'stop'; description: string };

const NO_HIT: LineHit = { kind: 'none' };

/** Zero-based lines where some statement starts, from a program's instruction lists. */
export function statementLines(code: Iterable<readonly { stmt: boolean; loc: SourceLoc }[]>): StatementLines {
  const lines = new Set<number>();
  const starts = new Set<SourceLoc>();
  // A line's breakpoint is hit where execution enters the line: at its first statement, or at the
  // first one after a statement of another line (a loop's increment), not at each piece of it.
  for (const list of code) {
    let prev = -1;
    for (const ins of list) {
      if (!ins.stmt) continue;
      lines.add(ins.loc.line);
      if (ins.loc.line !== prev) starts.add(ins.loc);
      prev = ins.loc.line;
    }
  }
  return { lines, starts };
}

export class Breakpoints {
  private lines = new Map<number, LineBreakpoint & { hits: number }>();
  private functions: FunctionBreakpoint[] = [];
  private watches: BarrierWatch[] = [];
  private filters = new Set<ExceptionFilter>(['deadlock', 'misuse', 'race']);

  /** Whether any line breakpoint is set (the line hook is needed). */
  get hasLines(): boolean {
    return this.lines.size > 0;
  }

  /** Replaces the line breakpoints; returns, in order, whether each line has a statement. */
  setLines(bps: LineBreakpoint[], statementLines: Set<number>, unverified: string): { line: number; verified: boolean; message?: string }[] {
    this.lines = new Map();
    return bps.map((bp) => {
      const verified = statementLines.has(bp.line);
      if (verified) this.lines.set(bp.line, { ...bp, hits: 0 });
      return { line: bp.line, verified, message: verified ? undefined : unverified };
    });
  }

  setFunctions(bps: FunctionBreakpoint[]): { name: string; verified: boolean }[] {
    this.functions = bps.filter((b) => b.name.trim());
    return bps.map((b) => ({ name: b.name, verified: !!b.name.trim() }));
  }

  /** Replaces the watches; each is verified when its barrier is among `known` now. */
  setWatches(watches: BarrierWatch[], known: readonly { label: string; block: number }[]): (BarrierWatch & { verified: boolean })[] {
    this.watches = watches.filter((w) => w.label.trim()).map((w) => ({ label: w.label.trim(), block: w.block }));
    return watches.map((w) => ({ label: w.label, block: w.block, verified: !!w.label.trim() && known.some((b) => b.label === w.label.trim() && b.block === w.block) }));
  }

  setFilters(filters: ExceptionFilter[]): void {
    this.filters = new Set(filters);
  }

  has(filter: ExceptionFilter): boolean {
    return this.filters.has(filter);
  }

  /** The function breakpoint, else the watch, a flip of `label` in `block` hits. */
  flipHit(label: string, block: number): { fbp?: FunctionBreakpoint; watch?: BarrierWatch } {
    const fbp = this.functions.find((f) => barrierNameMatches(f.name, label));
    const watch = fbp ? undefined : this.watches.find((w) => w.label === label && w.block === block);
    return { fbp, watch };
  }

  /**
   * Thread `t` entering `loc` (a statement start): counts a hit on its line's breakpoint and says
   * whether to log or stop. Conditions and log messages are evaluated in the thread's innermost frame.
   */
  lineHit(loc: SourceLoc, starts: Set<SourceLoc>, target: DebugTarget, t: SimThread): LineHit {
    const bp = this.lines.get(loc.line);
    if (!bp || !starts.has(loc)) return NO_HIT;
    let conditionError: string | undefined;
    let evaluate: ((expr: string) => number) | undefined;
    if (bp.condition?.trim()) {
      try {
        evaluate = target.evaluator(t, 0);
        if (!truthy(evaluate(bp.condition))) return NO_HIT;
      } catch (e) {
        conditionError = `breakpoint condition '${bp.condition}' could not be evaluated: ${(e as Error).message}`;
      }
    }
    bp.hits++;
    if (!conditionError && bp.hitCondition?.trim() && !hitMatches(bp.hitCondition, bp.hits)) return NO_HIT;
    if (bp.logMessage !== undefined && !conditionError) return { kind: 'log', text: `${interpolate(bp.logMessage, evaluate ?? target.evaluator(t, 0))}\n` };
    return { kind: 'stop', description: conditionError ?? `breakpoint at line ${loc.line + 1}` };
  }
}

/** Whether a function breakpoint name (`full` or `full[1]`) names a barrier label. */
export function barrierNameMatches(name: string, label: string): boolean {
  const n = name.trim();
  return label === n || label.startsWith(`${n}[`);
}

/** A logpoint's message with each `{expr}` replaced by its value (or `<why not>`). */
function interpolate(message: string, evaluate: (expr: string) => number): string {
  return message.replace(/\{([^{}]*)\}/g, (_all, expr: string) => {
    try {
      return String(evaluate(expr));
    } catch (e) {
      return `<${(e as Error).message}>`;
    }
  });
}

function hitMatches(cond: string, hits: number): boolean {
  const m = /^(==|>=|<=|>|<|%)?\s*(\d+)$/.exec(cond.trim()); // trimmed first: adjacent blank runs backtrack quadratically
  if (!m) return true;
  const n = Number(m[2]);
  switch (m[1] ?? '==') {
    case '==':
      return hits === n;
    case '>=':
      return hits >= n;
    case '<=':
      return hits <= n;
    case '>':
      return hits > n;
    case '<':
      return hits < n;
    default:
      return n > 0 && hits % n === 0;
  }
}
