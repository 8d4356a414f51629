// Arrivals per phase against a barrier's init count, from the per-thread replay: the arrive instances that
// alone exceed the count (over-arrival) and the barriers whose arrivals from all threads together stay below
// it (under-arrival). What the count rules (PF401, and tilus's PF410/PF411) report, each in its own words.
import type { KernelFacts } from '../analysis/facts';
import { maxArrivalsPerPhase } from '../analysis/protocol-run';
import type { BarrierOp } from '../ir/types';

export interface ArrivalBalance {
  /** Arrive instances executed by more arrivals than the count, keyed by the arrive. */
  over: Map<BarrierOp, { total: number; expected: number; threads: number }>;
  /** Waited barriers whose arrivals per phase stay below the count, keyed by the init. */
  under: Map<BarrierOp, { max: number; expected: number }>;
}

/** The balance at every block size the kernel is analysed at (a finding must hold at all of them); undefined when not replayed. */
export function arrivalBalance(k: KernelFacts): ArrivalBalance | undefined {
  if (k.sites.some((s) => s.op.remote)) return undefined;
  const runs = k.runs();
  if (!runs) return undefined;
  let over: ArrivalBalance['over'] | undefined;
  let under: ArrivalBalance['under'] | undefined;
  for (const run of runs) {
    const o: ArrivalBalance['over'] = new Map();
    const u: ArrivalBalance['under'] = new Map();
    const instance = new Map<string, { total: number; threads: number; op: BarrierOp; key: string }>();
    for (const a of run.actors) {
      for (const e of a.events) {
        if (e.kind !== 'arrive' || run.uncertain.has(e.key)) continue;
        const id = `${e.key}@${e.op.range.start.line}:${e.op.range.start.character}#${e.iter}`;
        const cur = instance.get(id) ?? { total: 0, threads: 0, op: e.op, key: e.key };
        cur.total += e.count * a.threads.length;
        cur.threads += a.threads.length;
        instance.set(id, cur);
      }
    }
    for (const inst of instance.values()) {
      // tcgen05.commit is issued per thread but warp-wide issue is common and its arrival count
      // per warp is not pinned down here: never treat it as over-arrival evidence.
      if (inst.op.kind === 'mma-commit-arrive') continue;
      const init = run.initializers.get(inst.key);
      if (!init || init.count === undefined || init.threads.length !== 1) continue;
      if (inst.total > init.count) o.set(inst.op, { total: inst.total, expected: init.count, threads: inst.threads });
    }
    for (const [key, init] of run.initializers) {
      // `[\s\S]` rather than `.`: the cut then matches at the first bracket instead of retrying every one (quadratic).
      if (init.count === undefined || init.threads.length !== 1 || run.uncertain.has(key) || k.escapes(key.replace(/\[[\s\S]*$/, ''))) continue;
      const waited = run.actors.some((a) => a.events.some((e) => e.kind === 'wait' && e.key === key));
      const max = maxArrivalsPerPhase(run, key);
      if (waited && max > 0 && max < init.count) u.set(init.op, { max, expected: init.count });
    }
    over = intersect(over, o);
    under = intersect(under, u);
  }
  return { over: over ?? new Map(), under: under ?? new Map() };
}

function intersect<T>(acc: Map<BarrierOp, T> | undefined, next: Map<BarrierOp, T>): Map<BarrierOp, T> {
  if (!acc) return next;
  for (const key of [...acc.keys()]) if (!next.has(key)) acc.delete(key);
  return acc;
}
