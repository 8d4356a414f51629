// The mbarrier state machine against the PTX / CUDA-guide rules it encodes.
import { describe, expect, it } from 'vitest';
import { Mbarrier } from '../../../core/sim/mbarrier';

describe('mbarrier', () => {
  it('rejects invalid init counts and use before init', () => {
    const b = new Mbarrier();
    expect(b.arrive().misuse).toEqual({ kind: 'not-initialized', operation: 'arrive' });
    expect(b.init(0)).toEqual({ kind: 'bad-count', count: 0 });
    expect(b.init(1 << 20)).toEqual({ kind: 'bad-count', count: 1 << 20 });
    expect(b.init(4)).toBeUndefined();
  });

  it('completes a phase after `count` arrivals and reloads the count', () => {
    const b = new Mbarrier();
    b.init(3);
    b.arrive();
    b.arrive();
    expect(b.state).toMatchObject({ phase: 0, pending: 1 });
    b.arrive();
    expect(b.state).toMatchObject({ phase: 1, pending: 3 });
  });

  it('answers parity waits by the immediately preceding phase (producer-start-at-1 rule)', () => {
    const b = new Mbarrier();
    b.init(1);
    // A fresh barrier is in phase 0: parity 1 (the "previous" phase) counts as complete.
    expect(b.parityComplete(1)).toBe(true);
    expect(b.parityComplete(0)).toBe(false);
    b.arrive();
    expect(b.parityComplete(0)).toBe(true);
    expect(b.parityComplete(1)).toBe(false);
  });

  it('answers token waits and reports tokens older than the preceding phase', () => {
    const b = new Mbarrier();
    b.init(1);
    const { token } = b.arrive(0);
    expect(token).toBe(0);
    expect(b.tokenComplete(token).done).toBe(false);
    b.arrive();
    expect(b.tokenComplete(token)).toEqual({ done: true });
    b.arrive();
    expect(b.tokenComplete(token).misuse).toEqual({ kind: 'stale-token', tokenPhase: 0, phase: 2 });
  });

  it('says whether a numbered phase has completed, without judging staleness', () => {
    const b = new Mbarrier();
    b.init(1);
    expect(b.hasCompleted(0)).toBe(false);
    b.arrive();
    b.arrive();
    expect(b.hasCompleted(0)).toBe(true);
    expect(b.hasCompleted(1)).toBe(true);
    expect(b.hasCompleted(2)).toBe(false);
  });

  it('holds the phase until announced transaction bytes arrive', () => {
    const b = new Mbarrier();
    b.init(1);
    b.arrive(1, 1024);
    expect(b.state).toMatchObject({ phase: 0, pending: 0, tx: 1024 });
    expect(b.completeTx(512)).toBeUndefined();
    expect(b.state.phase).toBe(0);
    b.completeTx(512);
    expect(b.state).toMatchObject({ phase: 1, tx: 0 });
  });

  it('lets bytes complete before their announcement while arrivals are pending (tx-count may go negative)', () => {
    const b = new Mbarrier();
    b.init(1);
    expect(b.completeTx(1024)).toBeUndefined();
    expect(b.state).toMatchObject({ phase: 0, pending: 1, tx: -1024 });
    expect(b.arrive(1, 1024).misuse).toBeUndefined();
    expect(b.state).toMatchObject({ phase: 1, pending: 1, tx: 0 });
  });

  it('reports more bytes than announced once every arrival is in, and never completes that phase', () => {
    const b = new Mbarrier();
    b.init(1);
    b.arrive(1, 1024);
    expect(b.completeTx(2048)).toEqual({ kind: 'tx-underflow', bytes: 2048, outstanding: 1024 });
    expect(b.state).toMatchObject({ phase: 0, pending: 0, tx: -1024 });
    // Stray bytes in a phase whose arrivals are still pending are caught at the last arrival.
    const c = new Mbarrier();
    c.init(2);
    c.arrive(1, 512);
    expect(c.completeTx(576)).toBeUndefined();
    expect(c.arrive().misuse).toEqual({ kind: 'tx-underflow', bytes: 576, outstanding: 512 });
    expect(c.state.phase).toBe(0);
    // An expect_tx that covers the excess lets the phase complete.
    expect(c.expectTx(64)).toBeUndefined();
    expect(c.state).toMatchObject({ phase: 1, tx: 0 });
  });

  it('lowers the expected count for later phases with arrive_drop', () => {
    const b = new Mbarrier();
    b.init(2);
    b.arrive(1, 0, true);
    b.arrive();
    expect(b.state).toMatchObject({ phase: 1, pending: 1, expected: 1 });
  });

  it('spills over-arrival into the next phases, as the hardware does', () => {
    const b = new Mbarrier();
    const flips: number[] = [];
    b.onPhaseComplete = (p) => flips.push(p);
    b.init(1);
    const r = b.arrive(3);
    expect(r.misuse).toEqual({ kind: 'over-arrival', arrivals: 3, pending: 1 });
    expect(flips).toEqual([0, 1, 2]);
    expect(b.state.phase).toBe(3);
  });
});
