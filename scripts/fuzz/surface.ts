// What every surface of the fuzz harness shares: its budget, its statistics, and how it records an
// outcome (counting it, and handing a new failure class to the reproducer store).
import type { Outcome } from './outcome';
import type { Random } from './random';
import type { ReproducerStore } from './reproducers';
import type { MutationLimits } from './mutate';

export type SurfaceName = 'lint' | 'sim' | 'lsp' | 'dap';

export interface SurfaceBudget {
  /** Inputs to try (for lsp: edits per language). */
  count: number;
  /** Wall-clock seconds after which the surface stops early. */
  seconds: number;
  /** An input with no answer within this many milliseconds is a hang. */
  limitMs: number;
}

export interface SurfaceStats {
  surface: SurfaceName;
  tried: number;
  internalErrors: number;
  crashes: number;
  hangs: number;
  maxMs: number;
  maxRssMiB: number;
  /** Reproducers written (one per new failure signature). */
  saved: string[];
}

export interface SurfaceContext {
  /** The run's seed (recorded with each reproducer). */
  seed: number;
  rng: Random;
  budget: SurfaceBudget;
  limits: MutationLimits;
  store: ReproducerStore;
  root: string;
  /** Seconds of minimisation allowed per new failure. */
  minimiseSeconds: number;
  log: (line: string) => void;
}

export function emptyStats(surface: SurfaceName): SurfaceStats {
  return { surface, tried: 0, internalErrors: 0, crashes: 0, hangs: 0, maxMs: 0, maxRssMiB: 0, saved: [] };
}

/** Counts one outcome; returns whether it is a failure. */
export function count(stats: SurfaceStats, outcome: Outcome, rssMiB: number): boolean {
  stats.tried++;
  stats.maxMs = Math.max(stats.maxMs, outcome.ms);
  stats.maxRssMiB = Math.max(stats.maxRssMiB, rssMiB);
  if (outcome.verdict === 'internal-error') stats.internalErrors++;
  else if (outcome.verdict === 'crash') stats.crashes++;
  else if (outcome.verdict === 'hang') stats.hangs++;
  return outcome.verdict !== 'ok';
}

export function failures(stats: SurfaceStats): number {
  return stats.internalErrors + stats.crashes + stats.hangs;
}

/** A deadline helper: whether the surface still has time and inputs left. */
export function budgetLeft(stats: SurfaceStats, budget: SurfaceBudget, started: number): boolean {
  return stats.tried < budget.count && Date.now() - started < budget.seconds * 1000;
}
