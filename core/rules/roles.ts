// Which role branch (an `if` on thread identity, Croqtile's `inthreads.async`) an operation site sits in.
import type { KernelFacts, Site } from '../analysis/facts';
import type { Stmt } from '../ir/types';

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
