// The protocol replay's barriers follow the simulator's mbarrier state machine, with the replay's
// abstractions: actors stand for classes of threads, rejected init counts are not modelled, tokens
// compare phase numbers.
import { describe, expect, it } from 'vitest';
import { ReplayBarriers } from '../../../core/analysis/replay-barriers';
import { Mbarrier } from '../../../core/sim/mbarrier';

describe('replay barriers', () => {
  it('an actor of N threads arrives N times: the phase completes when the init count is reached', () => {
    const b = new ReplayBarriers();
    b.init('full', 4);
    expect(b.arrive('full', 1, 3, false)).toBe(0);
    expect(b.state('full')).toMatchObject({ phase: 0, pending: 1, expected: 4 });
    expect(b.parityBlocks('full', 0)).toBe(true);
    expect(b.parityBlocks('full', 1)).toBe(false);
    b.arrive('full', 1, 1, false);
    expect(b.state('full')).toMatchObject({ phase: 1, pending: 4 });
    expect(b.parityBlocks('full', 0)).toBe(false);
    expect(b.completedPhases()).toEqual(new Map([['full', 1]]));
  });

  it('agrees with the simulator state machine on drops and over-arrival', () => {
    const b = new ReplayBarriers();
    const mb = new Mbarrier();
    b.init('k', 3);
    mb.init(3);
    for (const [count, threads, drop] of [[1, 1, true], [1, 2, false], [1, 3, false], [2, 1, true]] as const) {
      b.arrive('k', count, threads, drop);
      mb.arrive(count * threads, 0, drop);
      expect(b.state('k')).toEqual(mb.state);
    }
  });

  it('tokens compare phases; barriers never initialised, or with a count the hardware rejects, never block', () => {
    const b = new ReplayBarriers();
    b.init('t', 1);
    const token = b.arrive('t', 1, 1, false)!;
    expect(b.tokenBlocks('t', token)).toBe(false);
    expect(b.tokenBlocks('t', token + 1)).toBe(true);
    expect(b.tokenBlocks('t', undefined)).toBe(false);
    b.init('t', 0);
    expect(b.state('t')).toBeUndefined();
    expect(b.parityBlocks('t', 0)).toBe(false);
    expect(b.arrive('t', 1, 1, false)).toBeUndefined();
    expect(b.parityBlocks('never', 0)).toBe(false);
  });
});
