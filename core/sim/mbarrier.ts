// The mbarrier as PTX defines it: phase, pending arrivals, expected count, tx-count, arrive_drop, and
// the token / parity wait rules. The one mbarrier state machine: the simulator (and the debugger over
// it) and the linter's protocol replay (core/analysis/replay-barriers.ts) both use it. It is a plain
// state machine with no scheduling and no DAP knowledge; misuse is reported, never thrown.

export interface MbarrierState {
  /** Completed phases so far (the phase bit is `phase & 1`). */
  phase: number;
  /** Arrivals still missing in the current phase. */
  pending: number;
  /** Arrivals each new phase starts with (init count, lowered by arrive_drop). */
  expected: number;
  /**
   * Transaction bytes still outstanding in the current phase. It may go negative for a while: a
   * copy (say a multicast peer's TMA) can complete before the arrive.expect_tx that announces it.
   */
  tx: number;
  initialized: boolean;
}

export type MbarrierMisuse =
  | { kind: 'not-initialized'; operation: string }
  | { kind: 'over-arrival'; arrivals: number; pending: number }
  /** `bytes` completed in the phase, `outstanding` announced (expect_tx) in it. */
  | { kind: 'tx-underflow'; bytes: number; outstanding: number }
  | { kind: 'stale-token'; tokenPhase: number; phase: number }
  | { kind: 'bad-count'; count: number };

/** Largest arrival count a shared-memory mbarrier accepts (2^20 - 1). */
export const MAX_COUNT = (1 << 20) - 1;

const NOT_DONE: { done: boolean } = Object.freeze({ done: false });

export class Mbarrier {
  readonly state: MbarrierState = { phase: 0, pending: 0, expected: 0, tx: 0, initialized: false };
  /** Bytes announced and completed in the current phase (for the underflow report). */
  private announced = 0;
  private completed = 0;
  /** Called when a phase completes, with the phase number that just completed. */
  onPhaseComplete?: (completed: number) => void;

  init(count: number): MbarrierMisuse | undefined {
    if (!Number.isInteger(count) || count < 1 || count > MAX_COUNT) return { kind: 'bad-count', count };
    Object.assign(this.state, { phase: 0, pending: count, expected: count, tx: 0, initialized: true });
    this.announced = this.completed = 0;
    return undefined;
  }

  inval(): void {
    this.state.initialized = false;
  }

  /**
   * `count` arrivals (optionally announcing `txBytes` first, as arrive.expect_tx does). Returns the
   * token: the phase the arrival belongs to. Over-arrival spills into the next phase, as the
   * hardware does, and is reported.
   */
  arrive(count = 1, txBytes = 0, drop = false): { token: number; misuse?: MbarrierMisuse } {
    const token = this.arriveToken(count, txBytes, drop);
    return { token, misuse: this.arriveMisuse };
  }

  /** The misuse of the last `arriveToken` call, if any. */
  arriveMisuse: MbarrierMisuse | undefined;

  /**
   * `arrive` without a result object (the simulator arrives once per thread and statement): returns the
   * token and leaves the misuse, if any, in `arriveMisuse`.
   */
  arriveToken(count = 1, txBytes = 0, drop = false): number {
    const s = this.state;
    if (!s.initialized) {
      this.arriveMisuse = { kind: 'not-initialized', operation: 'arrive' };
      return s.phase;
    }
    const token = s.phase;
    s.tx += txBytes;
    this.announced += txBytes;
    let misuse: MbarrierMisuse | undefined;
    if (count > s.pending) misuse = { kind: 'over-arrival', arrivals: count, pending: s.pending };
    if (drop) s.expected = Math.max(0, s.expected - count);
    let left = count;
    while (left > 0) {
      const take = Math.min(left, s.pending);
      s.pending -= take;
      left -= take;
      misuse ??= this.underflow();
      if (!this.tryComplete() || s.expected === 0) break;
    }
    this.arriveMisuse = misuse;
    return token;
  }

  /** expect_tx without an arrival. */
  expectTx(bytes: number): MbarrierMisuse | undefined {
    if (!this.state.initialized) return { kind: 'not-initialized', operation: 'expect_tx' };
    this.state.tx += bytes;
    this.announced += bytes;
    this.tryComplete();
    return undefined;
  }

  /**
   * An asynchronous copy delivered `bytes` (complete_tx). Completing before the announcement is
   * legal while arrivals are still pending; more bytes than announced once all arrived is not.
   */
  completeTx(bytes: number): MbarrierMisuse | undefined {
    const s = this.state;
    if (!s.initialized) return { kind: 'not-initialized', operation: 'complete_tx' };
    s.tx -= bytes;
    this.completed += bytes;
    const misuse = this.underflow();
    this.tryComplete();
    return misuse;
  }

  /** All arrivals are in but more bytes completed than were announced: the phase can never complete. */
  private underflow(): MbarrierMisuse | undefined {
    const s = this.state;
    return s.pending === 0 && s.tx < 0 ? { kind: 'tx-underflow', bytes: this.completed, outstanding: this.announced } : undefined;
  }

  /** try_wait.parity P succeeds once the phase with parity P completed: the current parity differs. */
  parityComplete(parity: number): boolean {
    return (this.state.phase & 1) !== (parity & 1);
  }

  /**
   * A token wait succeeds once the token's phase completed. Only the current or the immediately
   * preceding phase is a valid token; anything older is undefined behaviour (reported as stale).
   */
  tokenComplete(token: number): { done: boolean; misuse?: MbarrierMisuse } {
    if (!this.tokenDone(token)) return NOT_DONE;
    const s = this.state;
    if (token < s.phase - 1 || token > s.phase) return { done: true, misuse: { kind: 'stale-token', tokenPhase: token, phase: s.phase } };
    return { done: s.phase > token };
  }

  /** A blocking wait on parity `v` (`parity`) or on token `v` is satisfied: `parityComplete` or `tokenDone`. */
  waitDone(parity: boolean, v: number): boolean {
    return parity ? this.parityComplete(v) : this.tokenDone(v);
  }

  /** Whether phase number `phase` has completed (no staleness check: the linter's replay asks this of its tokens). */
  hasCompleted(phase: number): boolean {
    return this.state.phase > phase;
  }

  /** `tokenComplete(token).done` without building the result: the phase completed, or the token is stale. */
  tokenDone(token: number): boolean {
    const p = this.state.phase;
    return token < p - 1 || token > p || p > token;
  }

  /** The phase completes when no arrival and no transaction byte is outstanding (tx-count exactly 0). */
  private tryComplete(): boolean {
    const s = this.state;
    if (s.pending > 0 || s.tx !== 0) return false;
    const completed = s.phase;
    s.phase++;
    s.pending = s.expected;
    s.tx = 0;
    this.announced = this.completed = 0;
    this.onPhaseComplete?.(completed);
    return true;
  }
}
