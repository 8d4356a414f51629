// Which role branch (an `if` on thread identity, Croqtile's `inthreads.async`) an operation site sits in.
import type { KernelFacts, Site } from '../analysis/facts';
import { evalForThread } from '../analysis/threads';
import type { Expr, Stmt } from '../ir/types';

/** One `if` on the way to a statement, and which side of it the statement is on. */
export interface Branch {
  cond: Expr;
  then: boolean;
}

/** The `if` branches around a site, outermost first. */
export function branchesOf(site: Site): Branch[] {
  return site.ancestors.flatMap((a) => (a.stmt.kind === 'if' ? [{ cond: a.stmt.cond, then: a.branch === 'then' }] : []));
}

/**
 * The threads of a block of `blockSize` that take every thread-identity branch of `path` (the others, on data,
 * are assumed taken); undefined when one of them does not fold for some thread.
 */
export function threadsOnPath(facts: KernelFacts, path: Branch[], blockSize: number): number[] | undefined {
  const roles = path.filter((b) => facts.isThreadDependent(b.cond));
  const out: number[] = [];
  for (let tid = 0; tid < blockSize; tid++) {
    let takes = true;
    for (const b of roles) {
      const v = evalForThread(facts.resolve(b.cond), { tid, blockSize }, () => undefined, facts.constants);
      if (v === undefined) return undefined;
      if ((v !== 0) !== b.then) takes = false;
    }
    if (takes) out.push(tid);
  }
  return out;
}

/** The nearest enclosing `if` on thread identity (`if (threadIdx.x == 0) { init(...) }`), not beyond a loop. */
export function enclosingRoleIf(facts: KernelFacts, site: Site): Stmt | undefined {
  for (let i = site.ancestors.length - 1; i >= 0; i--) {
    const a = site.ancestors[i].stmt;
    if (a.kind === 'if' && facts.isThreadDependent(a.cond)) return a;
    if (a.kind === 'loop') return undefined;
  }
  return undefined;
}

/** The outermost role branch (`inthreads.async (...)`) holding a site, if any. */
export function roleOf(facts: KernelFacts, site: Site): Stmt | undefined {
  for (const a of site.ancestors) if (a.stmt.kind === 'if' && facts.isThreadDependent(a.stmt.cond)) return a.stmt;
  return undefined;
}
