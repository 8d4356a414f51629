// The protocol replay's barriers: one simulator mbarrier (core/sim/mbarrier.ts, the exact PTX state
// machine) per barrier key, so the linter and the simulator agree on phases, arrivals, drops and
// parity. What stays abstract lives here: an actor stands for a class of identical threads (its
// arrivals count once per thread); a barrier initialised with a count the hardware rejects is not
// modelled, like one never initialised (it never blocks and completes no phase); and a token wait
// compares phase numbers, so a token taken before a re-initialisation never counts as complete.
// Uncertain barriers (unknown slots, counts or paths) are the replay's business: it never calls here.
import { Mbarrier, type MbarrierState } from '../sim/mbarrier';

export class ReplayBarriers {
  private readonly byKey = new Map<string, Mbarrier>();

  /** `key` is initialised for `count` arrivals per phase; initialising it again starts it over. */
  init(key: string, count: number): void {
    const mb = new Mbarrier();
    if (mb.init(count)) this.byKey.delete(key);
    else this.byKey.set(key, mb);
  }

  /**
   * `count` arrivals by each of `threads` threads (with `drop`, they also leave later phases).
   * Returns the token (the phase arrived on), or undefined when `key` is not modelled.
   */
  arrive(key: string, count: number, threads: number, drop: boolean): number | undefined {
    const mb = this.byKey.get(key);
    if (!mb) return undefined;
    const total = count * threads;
    // Counts the evaluation made zero or negative arrive nowhere.
    if (!(total > 0)) return mb.state.phase;
    return mb.arrive(total, 0, drop).token;
  }

  /** A `try_wait.parity` loop on `key` would block now (its phase with that parity has not completed). */
  parityBlocks(key: string, parity: number): boolean {
    const mb = this.byKey.get(key);
    return mb !== undefined && !mb.parityComplete(parity);
  }

  /** A token wait on `key` would block now (the token's phase has not completed); unknown tokens pass. */
  tokenBlocks(key: string, token: number | undefined): boolean {
    const mb = this.byKey.get(key);
    return mb !== undefined && token !== undefined && !mb.hasCompleted(token);
  }

  /** The state of `key`, if it is modelled. */
  state(key: string): Readonly<MbarrierState> | undefined {
    return this.byKey.get(key)?.state;
  }

  /** Phases completed so far, by key. */
  completedPhases(): Map<string, number> {
    const out = new Map<string, number>();
    for (const [key, mb] of this.byKey) out.set(key, mb.state.phase);
    return out;
  }
}
