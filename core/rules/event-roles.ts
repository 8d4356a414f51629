// Croqtile events as the rules see them: which barriers are events, which start `= ready`, and which
// triggers are bootstrap credits (handed out before their role waits on anything).
import type { KernelFacts, Site } from '../analysis/facts';
import { WAIT_KINDS } from './op-kinds';
import { roleOf } from './roles';

export function isEvent(facts: KernelFacts, base: string): boolean {
  return /\bevent\b/.test(facts.kernel.decls.get(base)?.type ?? '');
}

export function isReadyEvent(facts: KernelFacts, base: string): boolean {
  return /= ready/.test(facts.kernel.decls.get(base)?.type ?? '');
}

/** The operation kinds a `trigger` lowers to. */
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
