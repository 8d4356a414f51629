// The shared-memory race detector as the machine drives it: unordered accesses are races naming both
// sides; __syncthreads, mbarrier phases, async copies completing tx and tcgen05-style commits order
// them; correct producer/consumer rings raise nothing under any schedule.
import { describe, expect, it } from 'vitest';
import type { SimThread } from '../../../core/sim/machine';
import { machine, type Op, repeat } from './script';

const nops = (n: number): Op[] => repeat(n, () => [{ op: 'nop' }]);
const two = (a: Op[], b: Op[]) => (t: SimThread) => (t.tid === 0 ? a : t.tid === 1 ? b : []);

describe('race detection', () => {
  it('reports an unordered write and read, naming both threads and lines', () => {
    const r = machine(two([{ op: 'write', offset: 8 }], [...nops(3), { op: 'read', offset: 8 }]), { block: [2, 1, 1] }).m.run();
    expect(r.status).toBe('race');
    expect(r.report?.message).toBe(
      "data race on shared 'smem' byte 8: read by block 0 · warp 0 · lane 1 at line 4 is not ordered by any barrier with the write by block 0 · warp 0 · lane 0 at line 1",
    );
    expect(r.report?.threads).toEqual([1, 0]);
    expect(r.report?.other).toMatchObject({ thread: 0, write: true, loc: { line: 0 } });
  });

  it('reports write-write and read-then-write, and not disjoint words', () => {
    expect(machine(two([{ op: 'write', offset: 0 }], [{ op: 'write', offset: 0 }]), { block: [2, 1, 1] }).m.run().status).toBe('race');
    expect(machine(two([{ op: 'read', offset: 0 }], [{ op: 'write', offset: 0 }]), { block: [2, 1, 1] }).m.run().status).toBe('race');
    expect(machine(two([{ op: 'write', offset: 0 }], [{ op: 'write', offset: 4 }]), { block: [2, 1, 1] }).m.run().status).toBe('completed');
    expect(machine(two([{ op: 'read', offset: 0 }], [{ op: 'read', offset: 0 }]), { block: [2, 1, 1] }).m.run().status).toBe('completed');
  });

  it('tells the bytes of a word apart once a thread accesses part of one (neighbouring f16 or fp8 elements)', () => {
    const run = (a: Op[], b: Op[]) => machine(two(a, b), { block: [2, 1, 1] }).m.run().status;
    expect(run([{ op: 'write', offset: 0, size: 2 }], [{ op: 'write', offset: 2, size: 2 }])).toBe('completed');
    expect(run([{ op: 'write', offset: 5, size: 1 }], [{ op: 'write', offset: 4, size: 1 }])).toBe('completed');
    expect(run([{ op: 'write', offset: 0, size: 2 }], [{ op: 'read', offset: 0, size: 2 }])).toBe('race');
    // A whole-word access after the halves were written races with both of them; one written before is kept per byte.
    expect(run([{ op: 'write', offset: 0, size: 2 }], [...nops(3), { op: 'read', offset: 0 }])).toBe('race');
    expect(run([{ op: 'write', offset: 0 }], [...nops(3), { op: 'write', offset: 3, size: 1 }])).toBe('race');
  });

  it('treats accesses ordered by __syncthreads as no race', () => {
    const { m } = machine(two([{ op: 'write', offset: 0 }, { op: 'sync' }, { op: 'sync' }, { op: 'write', offset: 0 }], [{ op: 'sync' }, { op: 'read', offset: 0 }, { op: 'sync' }]), { block: [2, 1, 1], schedule: 'random', seed: 3 });
    expect(m.run().status).toBe('completed');
  });

  it('treats accesses ordered by an mbarrier phase (arrive → wait) as no race, and time alone as no order', () => {
    const writer: Op[] = [{ op: 'write', offset: 0 }, { op: 'arrive', bar: 'b' }];
    expect(machine(two(writer, [{ op: 'waitParity', bar: 'b', parity: 0 }, { op: 'read', offset: 0 }]), { block: [2, 1, 1], barriers: { b: 1 } }).m.run().status).toBe('completed');
    expect(machine(two(writer, [...nops(100), { op: 'read', offset: 0 }]), { block: [2, 1, 1], barriers: { b: 1 } }).m.run().status).toBe('race');
    // Waiting on some other barrier orders nothing.
    const other = machine(two([...writer, { op: 'arrive', bar: 'c' }], [{ op: 'waitParity', bar: 'c', parity: 0 }, { op: 'read', offset: 0 }]), { block: [2, 1, 1], barriers: { b: 1, c: 1 } });
    expect(other.m.run().status).toBe('completed'); // c is arrived after the write by the same thread: ordered
    const unrelated = machine(two([{ op: 'arrive', bar: 'c' }, { op: 'write', offset: 0 }], [{ op: 'waitParity', bar: 'c', parity: 0 }, ...nops(100), { op: 'read', offset: 0 }]), { block: [2, 1, 1], barriers: { c: 1 } });
    expect(unrelated.m.run().status).toBe('race');
  });

  it('orders an async copy before readers that wait on the barrier it completes', () => {
    const producer: Op[] = [{ op: 'arrive', bar: 'full', tx: 64 }, { op: 'async', engine: 'tma', latency: 600, writes: [0, 64], tx: 'full', txBytes: 64, label: 'TMA load' }];
    const ok = machine(two(producer, [{ op: 'waitParity', bar: 'full', parity: 0 }, { op: 'read', offset: 60 }]), { block: [2, 1, 1], barriers: { full: 1 } });
    expect(ok.m.run().status).toBe('completed');
    const r = machine(two(producer, [...nops(2000), { op: 'read', offset: 60 }]), { block: [2, 1, 1], barriers: { full: 1 } }).m.run();
    expect(r.status).toBe('race');
    expect(r.report?.message).toBe(
      "data race on shared 'smem' byte 60: read by block 0 · warp 0 · lane 1 at line 2001 is not ordered by any barrier with the write by an async operation issued by block 0 · warp 0 · lane 0 at line 2",
    );
  });

  it('reports a TMA writing a buffer a consumer is still reading without a release', () => {
    const r = machine(two([...nops(5), { op: 'async', engine: 'tma', latency: 600, writes: [0, 64], label: 'TMA load' }], [{ op: 'read', offset: 16 }, ...nops(10)]), { block: [2, 1, 1] }).m.run();
    expect(r.status).toBe('race');
    expect(r.report?.message).toBe(
      "data race on shared 'smem' byte 0: write by TMA load issued by block 0 · warp 0 · lane 0 at line 6 is not ordered by any barrier with the read by block 0 · warp 0 · lane 1 at line 1",
    );
  });

  /** A 2-stage TMA ring: thread 0 loads 64-byte stages, warp 1 reads them and releases. */
  const tmaRing = (iters: number, releaseBeforeRead = false) => (t: SimThread): Op[] => {
    if (t.tid === 0)
      return repeat(iters, (i) => [
        { op: 'waitParity', bar: `empty${i % 2}`, parity: (Math.floor(i / 2) & 1) ^ 1 },
        { op: 'arrive', bar: `full${i % 2}`, tx: 64 },
        { op: 'async', engine: 'tma', latency: 600, writes: [(i % 2) * 64, 64], tx: `full${i % 2}`, txBytes: 64, label: 'TMA load' },
      ]);
    if (t.warp === 1 && t.lane < 16) {
      const read: Op = { op: 'read', offset: (i: number) => i } as never;
      void read;
      return repeat(iters, (i) => {
        const r: Op = { op: 'read', offset: (i % 2) * 64 + t.lane * 4 };
        const rel: Op = { op: 'arrive', bar: `empty${i % 2}` };
        return [{ op: 'waitParity', bar: `full${i % 2}`, parity: Math.floor(i / 2) & 1 }, ...(releaseBeforeRead ? [rel, r] : [r, rel])];
      });
    }
    return [];
  };
  const RING = { full0: 1, full1: 1, empty0: 16, empty1: 16 };

  it('raises nothing on a correct 2-stage producer/consumer ring, under every schedule', () => {
    for (const schedule of ['round-robin', 'random', 'adversarial'] as const) {
      for (const seed of [1, 2, 3]) {
        const { m } = machine(tmaRing(8), { block: [64, 1, 1], barriers: RING, schedule, seed, quantum: 3 });
        expect(m.run(), `${schedule} seed ${seed}`).toEqual({ status: 'completed' });
        expect(m.phaseFlips).toBe(16);
      }
    }
  });

  it('catches a consumer that releases the stage before reading it', () => {
    const statuses = new Set<string>();
    for (const seed of [1, 2, 3, 4]) statuses.add(machine(tmaRing(8, true), { block: [64, 1, 1], barriers: RING, schedule: 'random', seed }).m.run().status);
    expect(statuses).toEqual(new Set(['race']));
  });

  it('orders an MMA’s reads before the next load through a tcgen05-style commit on the empty barrier', () => {
    const mma = (waitEmpty: boolean) =>
      two(
        [
          { op: 'async', engine: 'tcgen05', latency: 150, reads: [0, 64], label: 'tcgen05.mma' },
          { op: 'afterAll', engine: 'tcgen05', bar: 'empty' },
          ...(waitEmpty ? [{ op: 'waitParity', bar: 'empty', parity: 0 } as Op] : nops(1000)),
          { op: 'async', engine: 'tma', latency: 600, writes: [0, 64], label: 'TMA load' },
        ],
        [],
      );
    expect(machine(mma(true), { block: [2, 1, 1], barriers: { empty: 1 } }).m.run().status).toBe('completed');
    const r = machine(mma(false), { block: [2, 1, 1], barriers: { empty: 1 } }).m.run();
    expect(r.status).toBe('race');
    expect(r.report?.message).toContain('write by TMA load issued by block 0 · warp 0 · lane 0');
  });

  it('keeps going after a race when continueOnMisuse, reporting each to listeners', () => {
    const { m } = machine(two([{ op: 'write', offset: 0 }, { op: 'write', offset: 4 }], [...nops(2), { op: 'read', offset: 0 }, { op: 'read', offset: 4 }]), { block: [2, 1, 1], continueOnMisuse: true });
    const races: string[] = [];
    m.listeners.push((e) => e.kind === 'report' && races.push(e.report.message.slice(0, 36)));
    expect(m.run().status).toBe('completed');
    expect(races).toEqual(["data race on shared 'smem' byte 0: r", "data race on shared 'smem' byte 4: r"]);
  });

  it('can be switched off', () => {
    const { m } = machine(two([{ op: 'write', offset: 8 }], [{ op: 'read', offset: 8 }]), { block: [2, 1, 1], detectRaces: false });
    expect(m.run().status).toBe('completed');
    expect(m.races).toBeUndefined();
  });
});
