// Helpers shared by the Croqtile-only rules (event roles, bootstrap triggers, loops over rings).
import type { KernelFacts, Site } from '../analysis/facts';
import type { Stmt } from '../ir/types';
import { WAIT_KINDS } from './util';

export const CO_SOURCES = ['Croqtile tutorial ch05/ch06 (bootstrap, mma.commit)', 'Croqtile Documents/Documentation/events.md'];

/** The outermost role branch (`inthreads.async (...)`) holding a site, if any. */
export function roleOf(facts: KernelFacts, site: Site): Stmt | undefined {
  for (const a of site.ancestors) if (a.stmt.kind === 'if' && facts.isThreadDependent(a.stmt.cond)) return a.stmt;
  return undefined;
}

export function isEvent(facts: KernelFacts, base: string): boolean {
  return /\bevent\b/.test(facts.kernel.decls.get(base)?.type ?? '');
}

export function isReadyEvent(facts: KernelFacts, base: string): boolean {
  return /= ready/.test(facts.kernel.decls.get(base)?.type ?? '');
}

export const ARRIVE = new Set(['arrive', 'arrive-expect-tx']);

/** A trigger that runs before its role waits on anything: a bootstrap credit. */
export function isBootstrapTrigger(facts: KernelFacts, site: Site): boolean {
  if (!ARRIVE.has(site.op.kind) || site.op.api.startsWith('wait')) return false;
  const role = roleOf(facts, site);
  const waitsOfRole = facts.sites.filter((o) => WAIT_KINDS.has(o.op.kind) && o.op.api === 'wait' && roleOf(facts, o) === role);
  // A credit handed out before the role starts its own waiting loop; a role that never waits is a
  // plain producer (a one-shot handoff), not a bootstrap.
  return waitsOfRole.length > 0 && waitsOfRole.every((o) => o.order > site.order);
}
