// The shared-memory race detector as the machine drives it: unordered accesses are races naming both
// sides; __syncthreads, mbarrier phases, async copies completing tx and tcgen05-style commits order
// them; correct producer/consumer rings raise nothing under any schedule.
import { describe, expect, it } from 'vitest';
import type { SimThread } from '../../../core/sim/machine';
import { machine, type Op, repeat } from './script';
import { RaceDetector } from '../../../core/sim/races';
import { Buffer } from '../../../core/sim/memory';

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
          { op: 'waitAll', engine: 'tma' }, // the block may not exit before the load lands
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

  describe('generic and async proxies', () => {
    const store: Op = { op: 'async', engine: 'bulk', latency: 600, reads: [0, 64], label: 'TMA store' };
    const run = (a: Op[], b: Op[]) => machine(two(a, b), { block: [2, 1, 1] }).m.run();

    it('reports a generic write read by a bulk store with no fence.proxy.async between, naming both lines', () => {
      const r = run([{ op: 'sync' }, store, { op: 'waitAll', engine: 'bulk' }], [{ op: 'write', offset: 8 }, { op: 'sync' }]);
      expect(r.status).toBe('race');
      expect(r.report?.message).toBe(
        "data race on shared 'smem' byte 0: read through the async proxy by TMA store issued by block 0 · warp 0 · lane 0 at line 2 does not see the generic-proxy write by block 0 · warp 0 · lane 1 at line 1: no fence.proxy.async is ordered between them (the writer, or a thread ordered after it, must fence before the async operation is issued)",
      );
      expect(r.report?.threads).toEqual([0, 1]);
    });

    it('is ordered by the writer’s fence before the barrier, or by the issuer’s fence after it (cumulative)', () => {
      expect(run([{ op: 'sync' }, store, { op: 'waitAll', engine: 'bulk' }], [{ op: 'write', offset: 8 }, { op: 'fenceProxyAsync' }, { op: 'sync' }]).status).toBe('completed');
      expect(run([{ op: 'sync' }, { op: 'fenceProxyAsync' }, store, { op: 'waitAll', engine: 'bulk' }], [{ op: 'write', offset: 8 }, { op: 'sync' }]).status).toBe('completed');
      // A fence before the barrier that orders the write is no fence for it.
      expect(run([{ op: 'fenceProxyAsync' }, { op: 'sync' }, store, { op: 'waitAll', engine: 'bulk' }], [{ op: 'write', offset: 8 }, { op: 'sync' }]).status).toBe('race');
    });

    it('does not cover a write made after the fence', () => {
      const r = run([{ op: 'sync' }, store, { op: 'waitAll', engine: 'bulk' }], [{ op: 'write', offset: 8 }, { op: 'fenceProxyAsync' }, { op: 'write', offset: 12 }, { op: 'sync' }]);
      expect(r.status).toBe('race');
      expect(r.report?.message).toContain('byte 0: read through the async proxy by TMA store');
      expect(r.report?.message).toContain('generic-proxy write by block 0 · warp 0 · lane 1 at line 3');
    });

    it('needs the fence even when the issuing thread wrote the data itself', () => {
      expect(run([{ op: 'write', offset: 0 }, store, { op: 'waitAll', engine: 'bulk' }], []).status).toBe('race');
      expect(run([{ op: 'write', offset: 0 }, { op: 'fenceProxyAsync' }, store, { op: 'waitAll', engine: 'bulk' }], []).status).toBe('completed');
    });

    it('asks no fence of a generic-proxy async op (the non-bulk cp.async), nor of a fenced write read by an MMA', () => {
      const generic: Op = { ...store, proxy: 'generic' } as Op;
      expect(run([{ op: 'sync' }, generic, { op: 'waitAll', engine: 'bulk' }], [{ op: 'write', offset: 8 }, { op: 'sync' }]).status).toBe('completed');
      const mma: Op = { op: 'async', engine: 'wgmma', latency: 120, reads: [0, 64], label: 'wgmma' };
      expect(run([{ op: 'sync' }, mma, { op: 'waitAll', engine: 'wgmma' }], [{ op: 'write', offset: 8 }, { op: 'fenceProxyAsync' }, { op: 'sync' }]).status).toBe('completed');
      expect(run([{ op: 'sync' }, mma, { op: 'waitAll', engine: 'wgmma' }], [{ op: 'write', offset: 8 }, { op: 'sync' }]).status).toBe('race');
    });

    it('asks no fence for async-to-generic hand-overs or for a TMA refilling a slot released after its reads', () => {
      // TMA write → mbarrier → generic read, and the ring (consumer reads, arrives on empty, producer waits, TMA writes).
      const { m } = machine(tmaRing(6), { block: [64, 1, 1], barriers: RING, schedule: 'random', seed: 5 });
      expect(m.run()).toEqual({ status: 'completed' });
      // A bulk store reading what a TMA load wrote: both async, ordered by the wait on the load's barrier.
      const load: Op = { op: 'async', engine: 'tma', latency: 600, writes: [0, 64], tx: 'full', txBytes: 64, label: 'TMA load' };
      const r = machine(two([{ op: 'arrive', bar: 'full', tx: 64 }, load, { op: 'waitParity', bar: 'full', parity: 0 }, store, { op: 'waitAll', engine: 'bulk' }], []), { block: [2, 1, 1], barriers: { full: 1 } }).m.run();
      expect(r.status).toBe('completed');
    });
  });

  describe('mbarrier init as a write', () => {
    const init: Op = { op: 'init', bar: 'b', count: 1 };

    it('reports a use not ordered after the init, though the init ran first, naming both lines', () => {
      const r = machine(two([init, ...nops(3)], [...nops(2), { op: 'arrive', bar: 'b' }]), { block: [2, 1, 1] }).m.run();
      expect(r.status).toBe('race');
      expect(r.report?.message).toBe(
        "data race on mbarrier b (shared 'bars'): arrive by block 0 · warp 0 · lane 1 at line 3 is not ordered after its init by block 0 · warp 0 · lane 0 at line 1 (the init writes the barrier word; a __syncthreads/bar.sync, or fence.mbarrier_init and a cluster barrier, must come between)",
      );
      expect(r.report?.threads).toEqual([1, 0]);
    });

    it('accepts uses after a block sync, and the init thread’s own uses', () => {
      expect(machine(two([init, { op: 'sync' }, { op: 'arrive', bar: 'b' }], [{ op: 'sync' }, { op: 'waitParity', bar: 'b', parity: 0 }]), { block: [2, 1, 1] }).m.run().status).toBe('completed');
      expect(machine(two([init, { op: 'arrive', bar: 'b' }, { op: 'waitParity', bar: 'b', parity: 0 }], []), { block: [2, 1, 1] }).m.run().status).toBe('completed');
    });

    it('reports an async copy completing on the barrier when its issue is not ordered after the init', () => {
      const copy: Op = { op: 'async', engine: 'tma', latency: 50, writes: [0, 16], tx: 'b', txBytes: 16, label: 'TMA load' };
      const r = machine(two([init, ...nops(3)], [...nops(2), copy, ...nops(100)]), { block: [2, 1, 1] }).m.run();
      expect(r.status).toBe('race');
      expect(r.report?.message).toMatch(/^data race on mbarrier b \(shared 'bars'\): complete_tx \(TMA load\) by block 0 · warp 0 · lane 1 at line 3 is not ordered after its init by block 0 · warp 0 · lane 0 at line 1/);
    });
  });

  describe('teardown while async work is in flight', () => {
    it('reports an mbarrier.inval while a copy that completes on it is in flight, at the inval', () => {
      const copy: Op = { op: 'async', engine: 'tma', latency: 600, writes: [0, 16], tx: 'full', txBytes: 16, label: 'TMA load' };
      const r = machine(two([{ op: 'arrive', bar: 'full', tx: 16 }, copy, { op: 'inval', bar: 'full' }, { op: 'waitAll', engine: 'tma' }], []), { block: [2, 1, 1], barriers: { full: 1 } }).m.run();
      expect(r.status).toBe('misuse');
      expect(r.report?.message).toBe('mbarrier.inval of full by block 0 · warp 0 · lane 0 at line 3 while TMA load issued by block 0 · warp 0 · lane 0 at line 2 is still in flight');
      // After the wait the copy is done: the inval is fine.
      const ok = machine(two([{ op: 'arrive', bar: 'full', tx: 16 }, copy, { op: 'waitParity', bar: 'full', parity: 0 }, { op: 'inval', bar: 'full' }], []), { block: [2, 1, 1], barriers: { full: 1 } }).m.run();
      expect(ok.status).toBe('completed');
    });

    it('reports a block that exits before an async write into its shared memory landed', () => {
      const r = machine(two([{ op: 'async', engine: 'tma', latency: 600, writes: [0, 16], label: 'TMA load' }], [{ op: 'nop' }]), { block: [2, 1, 1] }).m.run();
      expect(r.status).toBe('race');
      expect(r.report?.message).toMatch(/^the exit of block 0 \(its last thread\) by block 0 · warp 0 · lane \d at line \d while TMA load issued by block 0 · warp 0 · lane 0 at line 1 is still in flight$/);
    });

    it('reports a tearDown (tcgen05.dealloc) while an MMA writing tensor memory is in flight', () => {
      const mma: Op = {
        op: 'call',
        fn: (m, t) => {
          const op = m.asyncIssue(t, 'tcgen05', 'tcgen05.mma', 150, () => {});
          m.asyncEffects(op, { writesTmem: true });
        },
      };
      const dealloc: Op = { op: 'call', fn: (m, t) => m.tearDown(t, 'tcgen05.dealloc', (o) => !!o.writesTmem) };
      const r = machine(two([mma, dealloc, { op: 'waitAll', engine: 'tcgen05' }], []), { block: [2, 1, 1] }).m.run();
      expect(r.status).toBe('misuse');
      expect(r.report?.message).toBe('tcgen05.dealloc by block 0 · warp 0 · lane 0 at line 2 while tcgen05.mma issued by block 0 · warp 0 · lane 0 at line 1 is still in flight');
      expect(machine(two([mma, { op: 'waitAll', engine: 'tcgen05' }, dealloc], []), { block: [2, 1, 1] }).m.run().status).toBe('completed');
    });

    it('reports a copy whose destination covers an initialised mbarrier, at the copy', () => {
      const over: Op = {
        op: 'call',
        fn: (m, t) => {
          const bars = (m.blocks[t.block].state as { barriers: import('../../../core/sim/memory').Buffer }).barriers;
          const op = m.asyncIssue(t, 'tma', 'TMA load 64 B → bars', 10, (mm) => mm.accessAsync(op, bars, 0, 64, true));
        },
      };
      const r = machine(two([over, { op: 'waitAll', engine: 'tma' }], []), { block: [2, 1, 1], barriers: { full: 1 } }).m.run();
      expect(r.status).toBe('misuse');
      expect(r.report?.message).toBe("TMA load 64 B → bars issued by block 0 · warp 0 · lane 0 at line 1 writes over mbarrier full: the copy's destination covers the barrier's 8 bytes");
    });
  });
});

describe('published phases keep only the clock entries in use', () => {
  it('a thread that acquires a phase published before the block used async lanes keeps what it knows there', () => {
    const races = new RaceDetector();
    races.addBlock(0, 2);
    const smem = new Buffer(1, 'smem', 'shared', 64);
    const loc = { line: 1, character: 0 };
    const arrivers = { length: 1, at: () => 0 };
    // Thread 0 completes a phase of barrier 7 while the block's clocks are 2 entries wide.
    races.arrive(7, 0);
    races.release(7, arrivers);
    // Thread 1 issues an async copy (an async lane: the clocks widen) that writes smem, and sees it complete.
    races.asyncIssue(100, 1);
    expect(races.asyncAccess(100, smem, 0, 16, true, loc)).toBeUndefined();
    races.asyncAcquire(100, 1);
    // Acquiring the older, narrower phase must not forget the copy's completion.
    races.acquire(7, 1);
    expect(races.access(1, smem, 0, 4, false, loc)).toBeUndefined();
    // Thread 0 never saw the copy: its read races with it.
    expect(races.access(0, smem, 0, 4, false, loc)).toMatchObject({ thread: 1, write: true, async: true });
  });
});
