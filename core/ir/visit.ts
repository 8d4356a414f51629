// Walking the kernel IR's statement trees: shared by the front ends, the analysis and the rules.
import type { Stmt } from './types';

/**
 * Pre-order visit of a statement tree (loop steps included). Iterative (an explicit stack of statement lists):
 * however deeply the input nests, the walk cannot overflow the call stack.
 */
export function visitStmts(stmts: Stmt[], visit: (s: Stmt) => void): void {
  // Each entry is a list and the index of its next statement; a statement's own lists are visited before the
  // statements after it, as a recursive pre-order walk would.
  const stack: { list: Stmt[]; next: number }[] = [{ list: stmts, next: 0 }];
  while (stack.length > 0) {
    const top = stack[stack.length - 1];
    if (top.next >= top.list.length) {
      stack.pop();
      continue;
    }
    const s = top.list[top.next++];
    visit(s);
    if (s.kind === 'if') {
      stack.push({ list: s.else, next: 0 }, { list: s.then, next: 0 });
    } else if (s.kind === 'loop') {
      if (s.step) stack.push({ list: s.step, next: 0 });
      stack.push({ list: s.body, next: 0 });
    }
  }
}
