// Helpers shared by rule files: naming barriers in messages and building text edits for fixes.
import type { Range, TextEdit } from '../api';
import type { KernelFacts, Site } from '../analysis/facts';
import type { BarrierOp, Expr, Stmt } from '../ir/types';

export function lineOf(text: string, line: number): string {
  let start = 0;
  for (let i = 0; i < line; i++) {
    const nl = text.indexOf('\n', start);
    if (nl < 0) return '';
    start = nl + 1;
  }
  const end = text.indexOf('\n', start);
  return text.slice(start, end < 0 ? text.length : end);
}

export function indentOf(text: string, line: number): string {
  return /^\s*/.exec(lineOf(text, line))?.[0] ?? '';
}

export function textOf(text: string, r: Range): string {
  if (r.start.line === r.end.line) return lineOf(text, r.start.line).slice(r.start.character, r.end.character);
  const lines = [lineOf(text, r.start.line).slice(r.start.character)];
  for (let l = r.start.line + 1; l < r.end.line; l++) lines.push(lineOf(text, l));
  lines.push(lineOf(text, r.end.line).slice(0, r.end.character));
  return lines.join('\n');
}

/** Inserts a whole line after the line holding `r.end`, indented like `indentLine`. */
export function insertLineAfter(text: string, r: Range, code: string, indentLine = r.start.line): TextEdit {
  const line = r.end.line;
  const eol = lineOf(text, line).length;
  return { range: { start: { line, character: eol }, end: { line, character: eol } }, newText: `\n${indentOf(text, indentLine)}${code}` };
}

/** Inserts a whole line before the line holding `r.start`. */
export function insertLineBefore(text: string, r: Range, code: string): TextEdit {
  const line = r.start.line;
  return { range: { start: { line, character: 0 }, end: { line, character: 0 } }, newText: `${indentOf(text, line)}${code}\n` };
}

/** `full[stage]` as the user spelled the operand, without a leading `&`. */
export function barrierName(op: BarrierOp): string {
  const t = op.barrier?.text ?? op.barrier?.base ?? 'the barrier';
  return t.replace(/^&\s*/, '').replace(/\s+/g, ' ');
}

export function line1(r: Range): number {
  return r.start.line + 1;
}

export function exprText(e: Expr | undefined): string {
  return e ? e.text.replace(/\s+/g, ' ') : '?';
}

/** The nearest enclosing `if` on thread identity (`if (threadIdx.x == 0) { init(...) }`). */
export function enclosingRoleIf(facts: KernelFacts, site: Site): Stmt | undefined {
  for (let i = site.ancestors.length - 1; i >= 0; i--) {
    const a = site.ancestors[i].stmt;
    if (a.kind === 'if' && facts.isThreadDependent(a.cond)) return a;
    if (a.kind === 'loop') return undefined;
  }
  return undefined;
}

export const ARRIVE_KINDS = new Set(['arrive', 'arrive-expect-tx', 'arrive-drop', 'mma-commit-arrive', 'cp-async-arrive-noinc']);
export const WAIT_KINDS = new Set(['wait-parity', 'wait-token']);

export function isBlockingWait(op: BarrierOp): boolean {
  return WAIT_KINDS.has(op.kind) && op.result === 'blocking';
}
