// Rewrites of lowered statement lists that the lowering (lower.ts) applies when it inlines a helper or
// lowers a switch: breaks and trailing returns dropped, a thin wrapper's statements moved to its call site.
import type { Range } from '../../api';
import type { Stmt } from '../../ir/types';
import { visitStmts } from '../../ir/visit';

export function stripSwitchBreaks(list: Stmt[]): Stmt[] {
  return list
    .filter((s) => s.kind !== 'break')
    .map((s) => (s.kind === 'if' ? { ...s, then: stripSwitchBreaks(s.then), else: stripSwitchBreaks(s.else) } : s));
}

export function dropTrailingReturns(body: Stmt[]): Stmt[] {
  const out = [...body];
  while (out.length && out[out.length - 1].kind === 'return') out.pop();
  // A helper's top-level `if (...) return;` ends only the helper; keep returns that sit in loops.
  return out.map((s) => (s.kind === 'if' ? { ...s, then: s.then.filter((t) => t.kind !== 'return'), else: s.else.filter((t) => t.kind !== 'return') } : s));
}

export function containsStructure(body: Stmt[]): boolean {
  let found = false;
  visitStmts(body, (s) => {
    if (s.kind === 'loop') found = true;
    if (s.kind === 'if' && (hasOp(s.then) || hasOp(s.else))) found = true;
  });
  return found || body.filter((s) => s.kind === 'op').length > 2;
}

export function hasOp(stmts: Stmt[]): boolean {
  let found = false;
  visitStmts(stmts, (s) => {
    if (s.kind === 'op' || s.kind === 'sync') found = true;
  });
  return found;
}

/** Moves a thin wrapper's statements to the call site (an operation keeps where it really is in `via`). */
export function atCallSite(stmts: Stmt[], site: Range, returnsToo: boolean): void {
  visitStmts(stmts, (s) => {
    if (s.kind === 'op') {
      s.op.via.unshift(s.op.range);
      s.op.range = site;
      s.range = site;
    } else if (s.kind === 'assign' || s.kind === 'sync' || s.kind === 'access' || (returnsToo && s.kind === 'return')) s.range = site;
  });
}
