// The simulator runtime (core/sim/machine.ts) driven by a scripted executor: scheduling policies,
// block waves, run limits, mbarrier services, deadlock reports, syncs, warp exchanges, async engines.
import { describe, expect, it } from 'vitest';
import { Machine, type MachineEvent, type SimThread, SimError, validateGeometry } from '../../../core/sim/machine';
import { Buffer, write } from '../../../core/sim/memory';
import { runLaunch } from '../../../core/sim/run';
import { machine, type Op, repeat, ScriptExecutor } from './script';

const nops = (n: number): Op[] => repeat(n, () => [{ op: 'nop' }]);

/** A 2-stage producer/consumer ring: thread 0 produces, thread 32 consumes, `iters` items. */
function ring(iters: number): (t: SimThread) => Op[] {
  return (t) => {
    if (t.tid === 0) {
      t.role = 'producer';
      return repeat(iters, (i) => [
        { op: 'waitParity', bar: `empty${i % 2}`, parity: (Math.floor(i / 2) & 1) ^ 1 },
        { op: 'arrive', bar: `full${i % 2}` },
      ]);
    }
    if (t.tid === 32) {
      t.role = 'consumer';
      return repeat(iters, (i) => [
        { op: 'waitParity', bar: `full${i % 2}`, parity: Math.floor(i / 2) & 1 },
        { op: 'arrive', bar: `empty${i % 2}` },
      ]);
    }
    return [];
  };
}
const RING_BARRIERS = { full0: 1, full1: 1, empty0: 1, empty1: 1 };

describe('scheduler', () => {
  const run = (schedule: 'random' | 'round-robin' | 'adversarial', seed: number) => {
    const log: string[] = [];
    const { m } = machine(() => nops(30), { block: [8, 1, 1], schedule, seed, quantum: 4, log });
    expect(m.run().status).toBe('completed');
    return log;
  };

  it('replays the same interleaving for the same seed, under every policy', () => {
    for (const policy of ['random', 'round-robin', 'adversarial'] as const) expect(run(policy, 7)).toEqual(run(policy, 7));
  });

  it('interleaves differently for different seeds under the random policy', () => {
    const a = run('random', 1);
    expect(run('random', 2)).not.toEqual(a);
    expect(run('random', 3)).not.toEqual(a);
    // Same statements, different order.
    expect([...run('random', 2)].sort()).toEqual([...a].sort());
  });

  it('round-robin keeps threads within one quantum of each other in simulated time', () => {
    const { m } = machine(() => nops(1000), { block: [4, 1, 1], quantum: 10 });
    for (let k = 1; k <= 20; k++) {
      expect(m.run({ untilSteps: k * 97 }).status).toBe('paused');
      const times = m.threads.map((t) => t.time);
      expect(Math.max(...times) - Math.min(...times)).toBeLessThanOrEqual(10);
    }
    expect(m.run().status).toBe('completed');
    expect(m.threads.map((t) => t.steps)).toEqual([1000, 1000, 1000, 1000]);
  });

  it('adversarial lets the producer run ahead until it blocks; round-robin interleaves', () => {
    const lead = (schedule: 'adversarial' | 'round-robin') => {
      const log: string[] = [];
      const { m } = machine(ring(6), { block: [64, 1, 1], schedule, quantum: 1, barriers: RING_BARRIERS, log });
      expect(m.run().status).toBe('completed');
      expect(m.phaseFlips).toBe(12);
      const firstConsumer = log.findIndex((e) => e.startsWith('32:'));
      return log.slice(0, firstConsumer).filter((e) => e.startsWith('0:')).length;
    };
    // Both stages filled (wait, arrive, wait, arrive) before the consumer runs at all.
    expect(lead('adversarial')).toBe(4);
    expect(lead('round-robin')).toBeLessThan(4);
  });

  it('launches blocks in waves of residentBlocks, each starting when an earlier one finished', () => {
    const live: number[] = [];
    let m!: Machine;
    const made = machine(() => [{ op: 'call', fn: (mm) => live.push(mm.blocks.filter((b) => !b.done).length) }, ...nops(20)], { grid: [10, 1, 1], block: [4, 1, 1], residentBlocks: 3 });
    m = made.m;
    expect(m.run().status).toBe('completed');
    expect(made.ex.ended).toEqual([0, 1, 2, 3, 4, 5, 6, 7, 8, 9]);
    expect(Math.max(...live)).toBe(3);
    expect(m.blocks.every((b) => b.done)).toBe(true);
    // Block 3 took the place of a block of the first wave: it cannot start before that one ended.
    expect(m.blocks[3].threads[0].time - 21).toBeGreaterThanOrEqual(20);
    expect(m.cycles).toBeGreaterThanOrEqual(4 * 21 - 1);
  });

  it('stops at untilSteps and runs single threads with a budget', () => {
    const { m } = machine(() => nops(50), { block: [4, 1, 1] });
    expect(m.run({ untilSteps: 5 })).toEqual({ status: 'paused' });
    expect(m.steps).toBe(5);
    const t2 = m.threads[2];
    const before = m.threads.map((t) => t.steps);
    expect(m.run({ thread: t2, budget: 3 }).status).toBe('paused');
    expect(t2.steps).toBe(before[2] + 3);
    expect(m.threads.filter((t) => t !== t2).map((t) => t.steps)).toEqual(before.filter((_, i) => i !== 2));
    expect(m.run().status).toBe('completed');
  });

  it('steps a blocked thread by letting the others run until it is released', () => {
    const { m } = machine((t) => (t.tid === 0 ? [{ op: 'waitParity', bar: 'b', parity: 0 }, { op: 'nop' }] : [...nops(10), { op: 'arrive', bar: 'b' }]), { block: [2, 1, 1], barriers: { b: 1 } });
    const t0 = m.threads[0] ?? undefined;
    expect(t0).toBeUndefined(); // blocks launch lazily
    expect(m.run({ untilSteps: 0 }).status).toBe('paused');
    const waiter = m.threads[0];
    expect(m.run({ thread: waiter, budget: 1 }).status).toBe('paused');
    expect(waiter.status).toBe('blocked');
    for (let i = 0; i < 30 && waiter.status !== 'done'; i++) m.run({ thread: waiter, budget: 1 });
    expect(waiter.status).toBe('done');
    expect(m.threads[1].steps).toBe(11);
  });

  it('pauses when asked from a listener and resumes where it stopped', () => {
    const { m } = machine(() => [{ op: 'print', text: 'a' }, ...nops(5), { op: 'print', text: 'b' }], { block: [1, 1, 1] });
    m.listeners.push((e) => {
      if (e.kind === 'print') m.pause();
    });
    expect(m.run().status).toBe('paused');
    expect(m.steps).toBe(1);
    expect(m.run().status).toBe('paused');
    expect(m.steps).toBe(7);
    expect(m.run().status).toBe('completed');
  });

  it('stops with step-limit at maxSteps and keeps answering it', () => {
    const { m } = machine(() => nops(10_000), { block: [2, 1, 1], maxSteps: 100 });
    const r = m.run();
    expect(r.status).toBe('step-limit');
    expect(r.report?.message).toContain('100 thread-statements ran without the kernel finishing');
    expect(m.steps).toBe(100);
    expect(m.run()).toEqual(r);
  });

  it('pauses at a statement the line hook stops at, without executing it', () => {
    const { m } = machine(() => nops(6), { block: [1, 1, 1] });
    let hits = 0;
    m.lineHook = (_t, loc) => loc.line === 3 && hits++ === 0;
    expect(m.run().status).toBe('paused');
    expect(m.steps).toBe(3);
    expect(m.run().status).toBe('completed');
    expect(m.steps).toBe(6);
  });

  it('reports an executor that makes no progress instead of hanging', () => {
    const ex = new ScriptExecutor(() => nops(1));
    ex.run = () => 0;
    const m = new Machine(ex, { grid: [1, 1, 1], block: [1, 1, 1] });
    const r = m.run();
    expect(r.status).toBe('error');
    expect(r.report?.message).toContain('the executor made no progress on block 0 · warp 0 · lane 0');
  });

  it('reports faults from starting a block, naming the construct', () => {
    const ex = new ScriptExecutor(() => nops(1));
    ex.startBlock = () => {
      throw new SimError('tensor maps', { line: 4 }, 'unsupported');
    };
    const r = new Machine(ex, { grid: [2, 1, 1], block: [1, 1, 1] }).run();
    expect(r).toMatchObject({ status: 'error', report: { kind: 'unsupported', message: 'not supported by the simulator: tensor maps at line 5' } });
  });

  it('rejects impossible launch configurations and options with clear messages', () => {
    const bad = (o: Partial<Parameters<typeof validateGeometry>[0]>) => () => validateGeometry({ grid: [1, 1, 1], block: [1, 1, 1], ...o });
    expect(bad({ block: [1025, 1, 1] })).toThrow('1025 threads per block exceeds the hardware limit of 1024');
    expect(bad({ grid: [0, 1, 1] })).toThrow('grid dimensions must be positive integers, got 0,1,1');
    expect(bad({ block: [2.5, 1, 1] })).toThrow('block dimensions must be positive integers');
    expect(bad({ grid: [1, 70000, 1] })).toThrow('gridDim.y and gridDim.z are limited to 65535');
    expect(bad({ dynamicSmem: 300_000 })).toThrow('dynamic shared memory 300000 bytes');
    expect(bad({ residentBlocks: 0 })).toThrow('residentBlocks must be a positive integer, got 0');
    expect(bad({ quantum: 1.5 })).toThrow('quantum must be a positive integer');
    expect(bad({ grid: [1, 1, 1], block: [1, 1, 1] })).not.toThrow();
  });
});

describe('mbarrier services', () => {
  it('counts and traces every phase flip with its last arriver', () => {
    const { m } = machine(() => repeat(3, () => [{ op: 'arrive', bar: 'b' }]), { barriers: { b: 1 }, trace: true });
    expect(m.run().status).toBe('completed');
    expect(m.phaseFlips).toBe(3);
    const phases = m.trace.filter((e) => e.kind === 'phase');
    expect(phases.map((e) => e.kind === 'phase' && [e.completed, e.lastArriver, e.barrier])).toEqual([
      [0, 0, 'b'],
      [1, 0, 'b'],
      [2, 0, 'b'],
    ]);
    expect(m.barrierStates()[0].state).toMatchObject({ phase: 3, pending: 1 });
  });

  it('passes a parity-1 wait on a fresh barrier at once and blocks parity 0 until the phase completes', () => {
    const order: string[] = [];
    const { m } = machine(
      (t) =>
        t.tid === 0
          ? [{ op: 'waitParity', bar: 'b', parity: 1 }, { op: 'call', fn: () => order.push('passed parity 1') }, { op: 'waitParity', bar: 'b', parity: 0 }, { op: 'call', fn: () => order.push('passed parity 0') }]
          : [...nops(20), { op: 'call', fn: () => order.push('arrive') }, { op: 'arrive', bar: 'b' }],
      { block: [2, 1, 1], barriers: { b: 1 } },
    );
    expect(m.run().status).toBe('completed');
    expect(order).toEqual(['passed parity 1', 'arrive', 'passed parity 0']);
    // The waiter resumes no earlier than the arrival that released it.
    expect(m.threads[0].time).toBeGreaterThanOrEqual(21);
  });

  it('waits on a token until its phase completed', () => {
    const seen: number[] = [];
    const { m } = machine(
      (t) =>
        t.tid === 0
          ? [{ op: 'arrive', bar: 'b', save: 'tok' }, { op: 'waitToken', bar: 'b', token: 'tok' }, { op: 'call', fn: (mm) => seen.push(mm.phaseFlips) }]
          : [...nops(10), { op: 'arrive', bar: 'b' }],
      { block: [2, 1, 1], barriers: { b: 2 } },
    );
    expect(m.run().status).toBe('completed');
    expect(seen).toEqual([1]);
  });

  it('reports a token older than the preceding phase as stale', () => {
    const { m } = machine(() => [{ op: 'arrive', bar: 'b', save: 'tok', count: 1 }, { op: 'arrive', bar: 'b' }, { op: 'waitToken', bar: 'b', token: 'tok' }], { barriers: { b: 1 } });
    const r = m.run();
    expect(r.status).toBe('misuse');
    expect(r.report?.message).toBe(
      'barrier misuse: wait(token) on b by block 0 · warp 0 · lane 0 at line 3: the token is from phase 0 but the barrier is in phase 2; only the current or the immediately preceding phase is valid',
    );
    expect(r.report?.misuse).toEqual({ kind: 'stale-token', tokenPhase: 0, phase: 2 });
  });

  it('reports over-arrival, and keeps going when continueOnMisuse', () => {
    const prog = () => [{ op: 'arrive', bar: 'b', count: 3 } as Op, { op: 'nop' } as Op];
    const r = machine(prog, { barriers: { b: 2 } }).m.run();
    expect(r.status).toBe('misuse');
    expect(r.report?.message).toBe('barrier misuse: arrive on b by block 0 · warp 0 · lane 0 at line 1: 3 arrival(s) but only 2 pending in this phase; the excess spills into the next phase');
    const { m } = machine(prog, { barriers: { b: 2 }, continueOnMisuse: true });
    const reports: string[] = [];
    m.listeners.push((e: MachineEvent) => e.kind === 'report' && reports.push(e.report.kind));
    expect(m.run().status).toBe('completed');
    expect(reports).toEqual(['misuse']);
    expect(m.barrierStates()[0].state).toMatchObject({ phase: 1, pending: 1 });
  });

  it('reports use before init', () => {
    const r = machine(() => [{ op: 'waitParity', bar: 'nobody', parity: 0 }]).m.run();
    expect(r.status).toBe('misuse');
    expect(r.report?.message).toBe('barrier misuse: wait on nobody by block 0 · warp 0 · lane 0 at line 1: wait on a barrier that was never initialised (or was invalidated)');
  });

  it('accepts bytes that complete before their expect_tx, and reports more bytes than announced once all arrived', () => {
    const early = machine(() => [{ op: 'async', engine: 'tma', latency: 0, tx: 'full', txBytes: 1024 }, ...nops(5), { op: 'arrive', bar: 'full', tx: 1024 }, { op: 'waitParity', bar: 'full', parity: 0 }], { barriers: { full: 1 } }).m;
    expect(early.run().status).toBe('completed');
    expect(early.phaseFlips).toBe(1);
    const over = machine(
      (t) =>
        t.tid === 0
          ? [{ op: 'arrive', bar: 'full', tx: 1024 }, { op: 'async', engine: 'tma', latency: 100, tx: 'full', txBytes: 2048, label: 'TMA load' }, { op: 'waitParity', bar: 'full', parity: 0 }]
          : [...nops(300), { op: 'arrive', bar: 'full' }],
      { block: [2, 1, 1], barriers: { full: 2 } },
    ).m;
    const r = over.run();
    expect(r.status).toBe('misuse');
    expect(r.report?.message).toBe(
      'barrier misuse: arrive on full by block 0 · warp 0 · lane 1 at line 301: 2048 transaction bytes completed in this phase but only 1024 were announced (tx-count underflow), so the phase cannot complete',
    );
    // Bytes that land in a later phase than meant leave it short: a deadlock that says so.
    const late = machine(
      () => [
        { op: 'arrive', bar: 'full', tx: 1024 },
        { op: 'async', engine: 'tma', latency: 100, tx: 'full', txBytes: 1024 },
        { op: 'async', engine: 'tma', latency: 100, tx: 'full', txBytes: 1024 },
        { op: 'waitParity', bar: 'full', parity: 0 },
        { op: 'waitParity', bar: 'full', parity: 1 },
      ],
      { barriers: { full: 1 } },
    ).m.run();
    expect(late.status).toBe('deadlock');
    expect(late.report?.message.split('\n').slice(1)).toEqual([
      '  block 0 · warp 0 · lane 0 waits on full (parity 1) at line 5',
      '  full is in phase 1 (parity 1) and needs 1 more arrival of 1 (nobody has arrived in this phase) and has received 1024 transaction bytes more than were announced',
    ]);
  });

  it('lowers later phases’ count with arrive_drop so the remaining thread goes on alone', () => {
    const { m } = machine(
      (t) => (t.tid === 0 ? [{ op: 'arrive', bar: 'b', drop: true }] : repeat(3, (i) => [{ op: 'arrive', bar: 'b' }, { op: 'waitParity', bar: 'b', parity: i & 1 }])),
      { block: [2, 1, 1], barriers: { b: 2 } },
    );
    expect(m.run().status).toBe('completed');
    expect(m.barrierStates()[0].state).toMatchObject({ phase: 3, expected: 1 });
  });

  it('runs the completion function once per phase, on the last arriver', () => {
    const calls: number[] = [];
    const last: number[] = [];
    const arrivals: number[][] = [[]];
    const { m, ex } = machine(
      (t) => [
        ...(t.tid === 0 ? [{ op: 'call', fn: (mm: Machine) => (ex.barrier(mm, 0, 'b').onComplete = () => calls.push(mm.phaseFlips)) } as Op] : []),
        { op: 'sync' },
        ...repeat(3, (i) => [{ op: 'call', fn: () => arrivals[i].push(t.index) } as Op, { op: 'arrive', bar: 'b' } as Op, { op: 'waitParity', bar: 'b', parity: i & 1 } as Op, { op: 'call', fn: () => (arrivals[i + 1] ??= []) } as Op]),
      ],
      { block: [4, 1, 1], barriers: { b: 4 }, schedule: 'random', seed: 5, quantum: 1 },
    );
    m.listeners.push((e) => e.kind === 'phase' && last.push(e.lastArriver!.index));
    expect(m.run().status).toBe('completed');
    expect(calls).toEqual([1, 2, 3]);
    expect(last).toEqual(arrivals.slice(0, 3).map((a) => a[a.length - 1]));
  });
});

describe('deadlock report', () => {
  const missingBootstrap = (t: SimThread): Op[] => {
    if (t.warp === 0 && t.lane === 0) {
      t.role = 'producer';
      return [{ op: 'waitParity', bar: 'empty', parity: 0 }, { op: 'arrive', bar: 'full' }];
    }
    if (t.warp === 1) {
      t.role = 'consumer';
      return [{ op: 'waitParity', bar: 'full', parity: 0 }, { op: 'arrive', bar: 'empty' }];
    }
    return [];
  };
  const lineOf = (t: SimThread, pc: number) => (t.warp === 0 ? 10 : 20) + pc;

  it('names every blocked group, the barrier, parity, line and what is missing', () => {
    const { m } = machine(missingBootstrap, { block: [64, 1, 1], barriers: { full: 1, empty: 32 }, lineOf });
    const r = m.run();
    expect(r.status).toBe('deadlock');
    expect(r.report?.message).toBe(
      [
        'deadlock: all 33 live threads are blocked and no asynchronous work is in flight',
        '  block 0 · warp 0 · lane 0 · producer waits on empty (parity 0) at line 11',
        '  block 0 · warp 1 · consumer (32 threads) wait on full (parity 0) at line 21',
        '  empty is in phase 0 (parity 0) and needs 32 more arrivals of 32 (nobody has arrived in this phase)',
        '  full is in phase 0 (parity 0) and needs 1 more arrival of 1 (nobody has arrived in this phase)',
      ].join('\n'),
    );
    expect(r.report?.blocked).toHaveLength(33);
    expect(r.report?.missing).toEqual([
      { barrier: 'empty', pending: 32, expected: 32, tx: 0, arrivedThisPhase: [] },
      { barrier: 'full', pending: 1, expected: 1, tx: 0, arrivedThisPhase: [] },
    ]);
    expect(r.report?.loc).toEqual({ line: 10 });
  });

  it('merges identical blocks and lists who already arrived', () => {
    const prog = (t: SimThread): Op[] => (t.warp === 1 && t.lane < 16 ? [{ op: 'arrive', bar: 'empty' }] : missingBootstrap(t));
    const r = machine(prog, { grid: [4, 1, 1], block: [64, 1, 1], barriers: { full: 1, empty: 32 }, lineOf }).m.run();
    expect(r.report?.message.split('\n')).toEqual([
      'deadlock: all 68 live threads are blocked and no asynchronous work is in flight',
      '  blocks 0-3 · warp 0 · producer (4 threads) wait on empty (parity 0) at line 11',
      '  blocks 0-3 · warp 1 · consumer (64 threads) wait on full (parity 0) at line 21',
      '  empty (blocks 0-3) is in phase 0 (parity 0) and needs 16 more arrivals of 32 (arrived so far: warp 1 (16 threads))',
      '  full (blocks 0-3) is in phase 0 (parity 0) and needs 1 more arrival of 1 (nobody has arrived in this phase)',
    ]);
  });

  it('does not call threads waiting on an async op in flight deadlocked', () => {
    const { m } = machine(
      (t) => (t.tid === 0 ? [{ op: 'arrive', bar: 'full', tx: 4096 }, { op: 'async', engine: 'tma', latency: 5000, tx: 'full', txBytes: 4096 }, { op: 'waitParity', bar: 'full', parity: 0 }] : [{ op: 'waitParity', bar: 'full', parity: 0 }]),
      { block: [64, 1, 1], barriers: { full: 1 } },
    );
    expect(m.run().status).toBe('completed');
    expect(m.cycles).toBeGreaterThanOrEqual(5000);
    expect(Math.min(...m.threads.map((t) => t.time))).toBeGreaterThanOrEqual(5000);
  });

  it('says which thread exited when the others wait at __syncthreads forever', () => {
    const r = machine((t) => (t.tid === 1 ? [{ op: 'nop' }] : [{ op: 'sync' }]), { block: [4, 1, 1] }).m.run();
    expect(r.status).toBe('deadlock');
    expect(r.report?.message.split('\n')).toEqual([
      'deadlock: all 3 live threads are blocked and no asynchronous work is in flight',
      '  block 0 · warp 0 (3 threads) wait on __syncthreads (3 of 4 arrived) at line 1',
      '  1 thread has already exited (block 0 · warp 0 · lane 1), so __syncthreads in block 0 can never complete',
    ]);
  });
});

describe('block and warp syncs', () => {
  it('__syncthreads in a loop keeps generations apart under any schedule', () => {
    for (const seed of [1, 2, 3]) {
      const count = [0, 0, 0, 0, 0];
      const bad: string[] = [];
      const { m } = machine(
        () =>
          repeat(5, (k) => [
            { op: 'call', fn: () => count[k]++ },
            { op: 'sync' },
            { op: 'call', fn: (_m, t) => count[k] !== 8 && bad.push(`${t.index} saw ${count[k]} in round ${k}`) },
          ]),
        { block: [8, 1, 1], schedule: 'random', seed, quantum: 2 },
      );
      expect(m.run().status).toBe('completed');
      expect(bad).toEqual([]);
    }
  });

  it('named barriers: consumers at bar.sync pass only after every producer did bar.arrive', () => {
    const produced = new Set<number>();
    const early: number[] = [];
    const { m } = machine(
      (t) =>
        t.warp < 2
          ? [...nops(t.tid % 7), { op: 'call', fn: () => produced.add(t.tid) }, { op: 'arriveBlock', id: 1, count: 128 }]
          : [{ op: 'sync', id: 1, count: 128 }, { op: 'call', fn: () => produced.size < 64 && early.push(t.tid) }],
      { block: [128, 1, 1], schedule: 'random', seed: 9 },
    );
    expect(m.run().status).toBe('completed');
    expect(early).toEqual([]);
  });

  it('reports a named barrier count the block cannot reach', () => {
    const r = machine(() => [{ op: 'sync', id: 1, count: 256 }], { block: [64, 1, 1] }).m.run();
    expect(r.status).toBe('error');
    expect(r.report?.message).toBe('bar.sync 1, 256: thread count 256 is outside 1..64 (the block size) (block 0 · warp 0 · lane 0, line 1)');
  });

  it('__syncwarp meets the lanes in the mask only', () => {
    const { m } = machine((t) => (t.lane < 16 ? [{ op: 'syncWarp', mask: 0xffff }, { op: 'nop' }] : nops(3)), { block: [32, 1, 1] });
    expect(m.run().status).toBe('completed');
  });

  it('warp exchanges give every lane all values, round after round, and respect partial masks', () => {
    const got = new Map<string, number[]>();
    const { m } = machine(
      (t) => [
        ...repeat(3, (r) => [
          { op: 'exchange', value: (th) => th.lane * 10 + r, save: `x${r}` } as Op,
          { op: 'call', fn: (_m, th) => got.set(`${th.lane}:${r}`, ((th.state as { vars: Map<string, number[]> }).vars.get(`x${r}`) ?? []).slice()) } as Op,
        ]),
        ...(t.lane < 8 ? [{ op: 'exchange', mask: 0xff, value: (th: SimThread) => -th.lane, save: 'p' } as Op, { op: 'call', fn: (_m: Machine, th: SimThread) => got.set(`${th.lane}:p`, (th.state as { vars: Map<string, number[]> }).vars.get('p')!.slice()) } as Op] : []),
      ],
      { block: [32, 1, 1], schedule: 'random', seed: 4, quantum: 1 },
    );
    expect(m.run().status).toBe('completed');
    for (let lane = 0; lane < 32; lane++) for (let r = 0; r < 3; r++) expect(got.get(`${lane}:${r}`)).toEqual(Array.from({ length: 32 }, (_, i) => i * 10 + r));
    const partial = got.get('5:p')!;
    expect(partial.slice(0, 8)).toEqual([-0, -1, -2, -3, -4, -5, -6, -7]);
    expect(partial.slice(8).every((v) => v === undefined)).toBe(true);
  });

  it('limits a full mask to the lanes a partial last warp has', () => {
    const { m } = machine(() => [{ op: 'exchange', value: (t) => t.lane, save: 'x' }, { op: 'syncWarp' }], { block: [40, 1, 1] });
    expect(m.run().status).toBe('completed');
  });
});

describe('async engines', () => {
  it('completes work in latency order and moves blocked threads to the completion time', () => {
    const done: string[] = [];
    const { m } = machine(() => [
      { op: 'async', engine: 'tma', latency: 300, complete: () => done.push('slow') },
      { op: 'async', engine: 'tma', latency: 100, complete: () => done.push('fast') },
      { op: 'commit', engine: 'tma' },
      { op: 'waitAll', engine: 'tma' },
    ]);
    expect(m.run().status).toBe('completed');
    expect(done).toEqual(['fast', 'slow']);
    expect(m.threads[0].time).toBeGreaterThanOrEqual(300);
    expect(m.cycles).toBeGreaterThanOrEqual(300);
  });

  it('wait_group N waits for every group but the N newest, even when a newer one finishes first', () => {
    const seen: boolean[] = [];
    const { m } = machine(() => [
      { op: 'async', engine: 'cp', latency: 500, save: 'A' },
      { op: 'commit', engine: 'cp' },
      { op: 'async', engine: 'cp', latency: 50, save: 'B' },
      { op: 'commit', engine: 'cp' },
      { op: 'async', engine: 'cp', latency: 900, save: 'C' },
      { op: 'commit', engine: 'cp' },
      { op: 'waitGroups', engine: 'cp', n: 1 },
      { op: 'call', fn: (_m, t) => seen.push(...['A', 'B', 'C'].map((k) => ((t.state as { vars: Map<string, { done: boolean }> }).vars.get(k)!.done))) },
      { op: 'waitGroups', engine: 'cp', n: 0 },
    ]);
    expect(m.run().status).toBe('completed');
    expect(seen).toEqual([true, true, false]);
    expect(m.threads[0].time).toBeGreaterThanOrEqual(900);
  });

  it('asyncAfterAll arrives once the earlier ops completed (tcgen05.commit)', () => {
    const { m } = machine(
      (t) =>
        t.tid === 0
          ? [{ op: 'async', engine: 'tcgen05', latency: 150 }, { op: 'async', engine: 'tcgen05', latency: 400 }, { op: 'afterAll', engine: 'tcgen05', bar: 'mma' }]
          : [{ op: 'waitParity', bar: 'mma', parity: 0 }],
      { block: [2, 1, 1], barriers: { mma: 1 } },
    );
    expect(m.run().status).toBe('completed');
    expect(m.threads[1].time).toBeGreaterThanOrEqual(400);
  });

  it('waits for one op (futures)', () => {
    const { m } = machine((t) => (t.tid === 0 ? [{ op: 'async', engine: 'dma', latency: 250, save: 'f' }, { op: 'waitOp', saved: 'f' }] : []), { block: [2, 1, 1] });
    expect(m.run().status).toBe('completed');
    expect(m.threads[0].time).toBeGreaterThanOrEqual(250);
  });

  it('keeps a block alive while its async work is in flight', () => {
    const ended: number[][] = [];
    const { m, ex } = machine(() => [{ op: 'async', engine: 'tma', latency: 1000, complete: () => ended.push(ex.ended.slice()) }], { grid: [2, 1, 1], residentBlocks: 1 });
    expect(m.run().status).toBe('completed');
    expect(ended).toEqual([[], [0]]);
    expect(ex.ended).toEqual([0, 1]);
    // Block 1 started when block 0 (and its copy) finished.
    expect(m.blocks[1].threads[0].time).toBeGreaterThanOrEqual(1000);
  });

  it('a frozen single-thread run lands one in-flight completion per call instead of running other threads, and never calls that a deadlock', () => {
    const landed: string[] = [];
    const { m } = machine(
      (t) =>
        t.tid === 0
          ? [
              { op: 'async', engine: 'tma', latency: 500, save: 'slow', complete: () => landed.push('slow') },
              { op: 'async', engine: 'tma', latency: 300, save: 'fast', complete: () => landed.push('fast') },
              { op: 'waitOp', saved: 'slow' },
              { op: 'nop' },
            ]
          : t.tid === 1
            ? [{ op: 'waitParity', bar: 'never', parity: 0 }]
            : nops(20),
      { block: [3, 1, 1], barriers: { never: 1 } },
    );
    expect(m.run({ untilSteps: 0 }).status).toBe('paused');
    const [issuer, stuck, other] = m.threads;
    // Issues both, then blocks on the slow one.
    expect(m.run({ thread: issuer, budget: 10, frozen: true })).toEqual({ status: 'paused' });
    expect(issuer.status).toBe('blocked');
    expect(m.asyncInFlight).toHaveLength(2);
    // The earliest completion lands (time jumps to it); the issuer still waits, so the call ends there.
    expect(m.run({ thread: issuer, budget: 10, frozen: true })).toEqual({ status: 'paused' });
    expect(landed).toEqual(['fast']);
    expect(issuer.status).toBe('blocked');
    expect(issuer.time).toBe(300);
    // The next lands and releases it: it runs on to its end in the same call.
    expect(m.run({ thread: issuer, budget: 10, frozen: true })).toEqual({ status: 'paused' });
    expect(landed).toEqual(['fast', 'slow']);
    expect(issuer.status).toBe('done');
    expect(issuer.time).toBeGreaterThanOrEqual(500);
    // Nothing in flight and a wait no one will release: paused, not a deadlock report.
    expect(m.run({ thread: stuck, budget: 10, frozen: true })).toEqual({ status: 'paused' });
    expect(stuck.status).toBe('blocked');
    // No other thread ran a statement meanwhile.
    expect(other.steps).toBe(0);
    expect(m.steps).toBe(4);
    // Without `frozen` the blocked thread lets the others run.
    m.run({ thread: stuck, budget: 5 });
    expect(other.steps).toBe(5);
  });

  it('turns a fault inside a completion callback into a report naming the issuer', () => {
    const small = new Buffer(99, 'out', 'global', 16, undefined, 'f32', [4]);
    const oob = machine(() => [{ op: 'async', engine: 'tma', latency: 10, label: 'TMA store', complete: () => write({ buf: small, offset: 16 }, 'f32', 1) }, ...nops(50)]).m.run();
    expect(oob.status).toBe('error');
    expect(oob.report?.kind).toBe('oob');
    expect(oob.report?.message).toBe("out-of-bounds global access: element 4 (bytes 16..19) of 'out' (4 × f32, 16 bytes) by TMA store issued by block 0 · warp 0 · lane 0 at line 1");
    const err = machine(() => [{ op: 'async', engine: 'tma', latency: 10, label: 'TMA load', complete: () => { throw new SimError('box exceeds the tensor map'); } }, ...nops(50)]).m.run();
    expect(err.report?.message).toBe('TMA load: box exceeds the tensor map (issued by block 0 · warp 0 · lane 0, line 1)');
  });
});

describe('bookkeeping', () => {
  it('lists barrier waiters', () => {
    const { m } = machine((t) => (t.tid < 3 ? [{ op: 'waitParity', bar: 'b', parity: 0 }] : nops(100)), { block: [4, 1, 1], barriers: { b: 1 } });
    m.run({ untilSteps: 10 });
    expect(m.barrierStates()).toEqual([{ label: 'b', block: 0, state: { phase: 0, pending: 1, expected: 1, tx: 0, initialized: true }, waiting: [0, 1, 2].map((thread) => ({ thread, parity: 0, token: undefined })) }]);
  });

  it('releases finished blocks: executor state, race clocks, barrier memory', () => {
    let maxLive = 0;
    const { m } = machine(
      () => [{ op: 'write', offset: 0 }, { op: 'arrive', bar: 'b' }, { op: 'waitParity', bar: 'b', parity: 0 }, { op: 'sync' }, { op: 'call', fn: (mm) => (maxLive = Math.max(maxLive, mm.races!.liveBlocks)) }],
      { grid: [64, 1, 1], block: [1, 1, 1], barriers: { b: 1 }, residentBlocks: 4 },
    );
    expect(m.run().status).toBe('completed');
    expect(maxLive).toBeLessThanOrEqual(4);
    expect(m.races!.liveBlocks).toBe(0);
    expect(m.races!.liveOps).toBe(0);
    expect(m.threads.every((t) => t.state === undefined)).toBe(true);
    expect(m.barriers.every((b) => b.buf === undefined)).toBe(true);
  });

  it('detects races in late waves, whose blocks reuse finished blocks\' clocks, and none where they are ordered', () => {
    // Every block: a barrier phase (it publishes and reuses accumulated clocks), then thread 1 writes what thread 2
    // reads. The other blocks sync six times first (their threads' clocks run ahead) and order the two with a
    // __syncthreads; block `racy` does neither, so a clock entry left over from an earlier block would hide its race.
    const run = (racy: number) => {
      const { m } = machine(
        (t): Op[] => [
          { op: 'arrive', bar: 'b' },
          { op: 'waitParity', bar: 'b', parity: 0 },
          ...(t.block === racy ? [] : repeat(6, (): Op[] => [{ op: 'sync' }])),
          ...(t.tid === 1 ? [{ op: 'write', offset: 4 } as Op] : []),
          ...(t.block === racy ? [] : [{ op: 'sync' } as Op]),
          ...(t.tid === 2 ? [{ op: 'read', offset: 4 } as Op] : []),
        ],
        { grid: [20, 1, 1], block: [4, 1, 1], barriers: { b: 4 }, residentBlocks: 2 },
      );
      return { m, r: m.run() };
    };
    const clean = run(-1);
    expect(clean.r.status).toBe('completed');
    expect(clean.m.races!.liveBlocks).toBe(0);
    const { m, r } = run(13);
    expect(r.status).toBe('race');
    expect(r.report!.threads.map((i) => m.threads[i].block)).toEqual([13, 13]);
    expect(r.report!.threads.map((i) => m.threads[i].tid).sort()).toEqual([1, 2]);
  });
});

describe('scale', () => {
  /** Each thread: arrive + wait on a block barrier, shared write, __syncthreads, neighbour read, work, __syncthreads. */
  const kernel = (t: SimThread): Op[] => [
    { op: 'arrive', bar: 'b' },
    { op: 'waitParity', bar: 'b', parity: 0 },
    { op: 'write', offset: t.tid * 4 },
    { op: 'sync' },
    { op: 'read', offset: ((t.tid + 1) % 128) * 4 },
    ...nops(8),
    { op: 'sync' },
  ];
  const launch = (blocks: number) => {
    let maxLive = 0;
    let maxClocks = 0;
    const { m } = machine((t) => [...kernel(t), { op: 'call', fn: (mm) => ((maxLive = Math.max(maxLive, mm.blocks.filter((b) => !b.done).length)), (maxClocks = Math.max(maxClocks, mm.races!.liveBlocks))) }], {
      grid: [blocks, 1, 1],
      block: [128, 1, 1],
      barriers: { b: 128 },
      residentBlocks: 32,
    });
    const start = performance.now();
    const r = m.run();
    return { m, r, ms: performance.now() - start, maxLive, maxClocks };
  };

  it('runs 1,024 blocks × 128 threads in waves of 32 with per-statement cost independent of the grid', () => {
    const small = launch(128);
    const big = launch(1024);
    expect(big.r.status).toBe('completed');
    expect(big.m.steps).toBe(1024 * 128 * 15);
    expect(big.m.phaseFlips).toBe(1024);
    // Bounded state: never more than the resident blocks live or holding race clocks; nothing left at the end.
    expect(big.maxLive).toBe(32);
    expect(big.maxClocks).toBeLessThanOrEqual(32);
    expect(big.m.races!.liveBlocks).toBe(0);
    expect(big.m.threads.every((t) => t.state === undefined && t.asyncGroups.size === 0)).toBe(true);
    // 8× the blocks costs about 8× the time (generous margin for a shared machine), not 64×.
    const perStatement = (x: typeof small) => x.ms / x.m.steps;
    expect(perStatement(big)).toBeLessThan(perStatement(small) * 3);
  }, 120_000);
});

describe('runLaunch', () => {
  it('streams program output, reports progress between slices and summarises the run', () => {
    const { m } = machine((t) => [{ op: 'print', text: `hi ${t.tid}\n` }, ...nops(200_000)], { block: [4, 1, 1], barriers: { b: 1 } });
    const printed: string[] = [];
    const progress: number[] = [];
    const out = new Buffer(7, 'out', 'global', 4, undefined, 'f32', [1]);
    const r = runLaunch({ machine: m, buffers: [{ name: 'out', dtype: 'f32', shape: [1], buffer: out }] }, { onPrint: (s) => printed.push(s), onProgress: (n) => progress.push(n) });
    expect(printed).toEqual(['hi 0\n', 'hi 1\n', 'hi 2\n', 'hi 3\n']);
    expect(r.stdout).toBe(printed.join(''));
    expect(progress).toEqual([500_000]);
    expect(r).toMatchObject({ status: 'completed', steps: 800_004, phaseFlips: 0, buffers: [{ name: 'out', checksum: '4b95f515' }] });
    expect(r.message).toBe('completed: 4 threads in 1 block(s) ran 800,004 statements, 0 phase flip(s), 200,001 simulated cycles');
    expect(r.barriers).toEqual([{ label: 'b', block: 0, state: { phase: 0, pending: 1, expected: 1, tx: 0, initialized: true }, waiting: [] }]);
  });

  it('gives the report’s message when the run stops on one', () => {
    const { m } = machine(() => [{ op: 'waitParity', bar: 'b', parity: 0 }], { barriers: { b: 1 } });
    const r = runLaunch({ machine: m, buffers: [] }, {});
    expect(r.status).toBe('deadlock');
    expect(r.message).toBe(r.report?.message);
  });
});
