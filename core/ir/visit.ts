// Walking the kernel IR's statement trees: shared by the front ends, the analysis and the rules.
import type { Stmt } from './types';

/** Pre-order visit of a statement tree (loop steps included). */
export function visitStmts(stmts: Stmt[], visit: (s: Stmt) => void): void {
  for (const s of stmts) {
    visit(s);
    if (s.kind === 'if') {
      visitStmts(s.then, visit);
      visitStmts(s.else, visit);
    } else if (s.kind === 'loop') {
      visitStmts(s.body, visit);
      if (s.step) visitStmts(s.step, visit);
    }
  }
}
