// Chrome trace export (core/sim/trace.ts) of traces recorded by a real Machine (driven by the fake
// executor in test/cli/fake-simulate.ts), checked against the Trace Event Format rules Perfetto
// enforces: named processes and threads, unique tids, properly nested slices, paired async events.
import { describe, expect, it } from 'vitest';
import type { TraceEvent } from '../../../core/sim/machine';
import type { SimulateRequest } from '../../../core/sim/run';
import { numberRanges as ranges } from '../../../core/sim/format';
import { type ChromeTraceEvent, type TraceThread, TIME_NOTE, toChromeTrace, waitName } from '../../../core/sim/trace';
import { type FakeKernel, fakeSimulate } from '../../cli/fake-simulate';

const BLOCK = 64;

async function record(kernel: FakeKernel, grid: [number, number, number] = [1, 1, 1]): Promise<TraceEvent[]> {
  const req: SimulateRequest = { file: 'k.cu', text: '', kernel, grid, block: [BLOCK, 1, 1], trace: true, args: [] };
  const result = await fakeSimulate()(req);
  expect(result.trace).toBeDefined();
  return result.trace!;
}

/** The fake kernel's layout: warp 0 consumers, warp 1 producers. */
const placement = (i: number): TraceThread => {
  const tid = i % BLOCK;
  return { block: Math.floor(i / BLOCK), warp: tid >> 5, lane: tid & 31, role: tid >> 5 === 0 ? 'consumer' : 'producer' };
};

function names(events: ChromeTraceEvent[], kind: 'process_name' | 'thread_name'): Map<string, string> {
  const out = new Map<string, string>();
  for (const e of events) if (e.ph === 'M' && e.name === kind) out.set(kind === 'process_name' ? `${e.pid}` : `${e.pid}/${e.tid}`, (e.args as { name: string }).name);
  return out;
}

function trackOf(events: ChromeTraceEvent[], name: string): { pid: number; tid: number } {
  const found = events.find((e) => e.ph === 'M' && e.name === 'thread_name' && (e.args as { name: string }).name === name);
  if (!found) throw new Error(`no track named '${name}'`);
  return { pid: found.pid, tid: found.tid! };
}

/** Perfetto drops slices that overlap without nesting; every track here must be clean. */
function expectProperlyNested(events: ChromeTraceEvent[]): void {
  const byTrack = new Map<string, ChromeTraceEvent[]>();
  for (const e of events) {
    if (e.ph !== 'X') continue;
    const key = `${e.pid}/${e.tid}`;
    byTrack.set(key, [...(byTrack.get(key) ?? []), e]);
  }
  for (const [key, slices] of byTrack) {
    slices.sort((a, b) => a.ts! - b.ts! || b.dur! - a.dur!);
    const stack: number[] = [];
    for (const s of slices) {
      while (stack.length && s.ts! >= stack[stack.length - 1]) stack.pop();
      if (stack.length) expect(s.ts! + s.dur!, `slice '${s.name}' on ${key} crosses its parent`).toBeLessThanOrEqual(stack[stack.length - 1]);
      stack.push(s.ts! + s.dur!);
    }
  }
}

describe('toChromeTrace on a real run', () => {
  it('lays out blocks, warps and barriers as processes and tracks with unique tids', async () => {
    const trace = toChromeTrace(await record('pipeline', [2, 1, 1]), { thread: placement, title: 'k.cu · pipeline' });
    const ev = trace.traceEvents;
    expect(names(ev, 'process_name')).toEqual(new Map([['1', 'block 0'], ['2', 'block 1']]));
    const threads = [...names(ev, 'thread_name').values()].sort();
    expect(threads).toEqual(['barrier full', 'barrier full', 'warp 0 · consumer', 'warp 0 · consumer', 'warp 1 · producer', 'warp 1 · producer']);
    const tids = ev.filter((e) => e.name === 'thread_name').map((e) => e.tid);
    expect(new Set(tids).size).toBe(tids.length);
    // Every event sits on a process that has a name, and every thread-scoped event on a named track.
    const named = names(ev, 'thread_name');
    for (const e of ev) {
      expect(names(ev, 'process_name').has(`${e.pid}`)).toBe(true);
      if (e.ph === 'X' || (e.ph === 'i' && e.s === 't')) expect(named.has(`${e.pid}/${e.tid}`)).toBe(true);
    }
    expect(trace.otherData).toEqual({ generator: 'phaseflip sim', timeUnit: TIME_NOTE, title: 'k.cu · pipeline' });
    expect(JSON.parse(JSON.stringify(trace))).toEqual(trace);
  });

  it('turns phase flips, arrives, waits and async copies into the right events', async () => {
    const raw = await record('pipeline');
    const ev = toChromeTrace(raw, { thread: placement }).traceEvents;
    const barrier = trackOf(ev, 'barrier full');
    const consumers = trackOf(ev, 'warp 0 · consumer');
    const producers = trackOf(ev, 'warp 1 · producer');

    const flip = raw.find((e) => e.kind === 'phase')!;
    const flips = ev.filter((e) => e.ph === 'i' && e.tid === barrier.tid);
    expect(flips).toHaveLength(1);
    expect(flips[0]).toMatchObject({ name: 'full phase 0 complete', s: 't', ts: flip.time, args: { completedPhase: 0, parityNow: 1 } });

    // One instant per arrive, on the arriving thread's warp.
    const arrives = ev.filter((e) => e.name === 'arrive full');
    expect(arrives).toHaveLength(raw.filter((e) => e.kind === 'arrive').length);
    expect(arrives.filter((e) => e.tid === producers.tid)).toHaveLength(32);
    expect(arrives.filter((e) => e.tid === consumers.tid).map((e) => e.args!.tx)).toEqual([128]);

    // The consumers' parity wait: one slice over all 32 lanes, from the first wait to the last wake-up.
    const starts = raw.filter((e) => e.kind === 'wait-start' && e.what === 'full (parity 0)');
    const ends = raw.filter((e) => e.kind === 'wait-end' && e.what === 'full (parity 0)');
    const wait = ev.find((e) => e.ph === 'X' && e.name === 'wait full (parity 0)')!;
    expect(wait).toMatchObject({ pid: consumers.pid, tid: consumers.tid, args: { threads: '0-31', lanes: '0-31', waits: ['full (parity 0)'] } });
    expect(wait.ts).toBe(Math.min(...starts.map((e) => e.time)));
    expect(wait.ts! + wait.dur!).toBe(Math.max(...ends.map((e) => e.time)));
    expect(wait.dur).toBeGreaterThanOrEqual(600); // the copy's latency

    // __syncthreads waits read as one rendezvous, without the arrival counts.
    expect(ev.filter((e) => e.ph === 'X').map((e) => e.name)).toContain('wait __syncthreads');

    // The copy: an async slice from issue to completion, 600 cycles.
    const b = ev.filter((e) => e.ph === 'b');
    const e = ev.filter((x) => x.ph === 'e');
    expect(b).toHaveLength(1);
    expect(e).toHaveLength(1);
    expect(b[0]).toMatchObject({ name: 'copy in → stage', cat: 'tma', pid: consumers.pid });
    expect(e[0]).toMatchObject({ name: b[0].name, cat: b[0].cat, id: b[0].id, pid: b[0].pid });
    expect(e[0].ts! - b[0].ts!).toBe(600);

    expectProperlyNested(ev);
    // Timestamps are whole cycles and non-decreasing after the metadata.
    const timed = ev.filter((x) => x.ph !== 'M').map((x) => x.ts!);
    expect(timed.every((t) => Number.isInteger(t) && t >= 0)).toBe(true);
    expect(timed).toEqual([...timed].sort((x, y) => x - y));
  });

  it('draws a deadlocked wait to the end of the trace and says it never woke', async () => {
    const raw = await record('hang');
    const ev = toChromeTrace(raw, { thread: placement }).traceEvents;
    const end = Math.max(...raw.map((e) => e.time));
    const stuck = ev.filter((e) => e.ph === 'X' && e.args?.unfinished);
    expect(stuck).toHaveLength(1);
    expect(stuck[0].name).toBe('wait full (parity 0) (never woke)');
    expect(stuck[0].ts! + stuck[0].dur!).toBe(end);
    expect(ev.some((e) => e.ph === 'i' && e.name.includes('phase'))).toBe(false);
    expectProperlyNested(ev);
  });

  it('gives each thread its own track when their placement is unknown', async () => {
    const ev = toChromeTrace(await record('pipeline')).traceEvents;
    const procs = names(ev, 'process_name');
    expect([...procs.values()]).toContain('threads');
    expect([...names(ev, 'thread_name').values()]).toContain('thread 40');
    expectProperlyNested(ev);
  });
});

describe('toChromeTrace on hand-made traces', () => {
  const lane = (i: number): TraceThread => ({ block: 0, warp: 0, lane: i });

  it('merges partly overlapping lane waits into one slice covering their union', () => {
    const raw: TraceEvent[] = [
      { kind: 'wait-start', time: 10, thread: 0, what: 'full (parity 0)' },
      { kind: 'wait-start', time: 12, thread: 1, what: 'empty (parity 1)' },
      { kind: 'wait-end', time: 50, thread: 0, what: 'full (parity 0)' },
      { kind: 'wait-end', time: 70, thread: 1, what: 'empty (parity 1)' },
      { kind: 'wait-start', time: 80, thread: 0, what: 'full (parity 1)' },
      { kind: 'wait-end', time: 90, thread: 0, what: 'full (parity 1)' },
    ];
    const slices = toChromeTrace(raw, { thread: lane }).traceEvents.filter((e) => e.ph === 'X');
    expect(slices.map((s) => [s.name, s.ts, s.dur, s.args!.lanes])).toEqual([
      ['wait full (parity 0)', 10, 60, '0-1'],
      ['wait full (parity 1)', 80, 10, '0'],
    ]);
    expect(slices[0].args!.waits).toEqual(['full (parity 0)', 'empty (parity 1)']);
  });

  it('closes async work still in flight at the end of the trace', () => {
    const raw: TraceEvent[] = [
      { kind: 'async-issue', time: 5, thread: 0, op: 7, engine: 'wgmma', label: 'wgmma 64x128x16' },
      { kind: 'wait-start', time: 6, thread: 0, what: 'wgmma wait_group 0' },
    ];
    const ev = toChromeTrace(raw, { thread: lane }).traceEvents;
    const end = ev.find((e) => e.ph === 'e')!;
    expect(end).toMatchObject({ name: 'wgmma 64x128x16', cat: 'wgmma', id: 'op7', ts: 6, args: { unfinished: true } });
  });

  it('puts arrivals made on no thread’s behalf on a global marker', () => {
    const ev = toChromeTrace([{ kind: 'arrive', time: 3, thread: -1, barrier: 'full[2]', block: 0, count: 1, tx: 0, phase: 4 }], { thread: lane }).traceEvents;
    expect(ev).toEqual([{ name: 'arrive full[2]', ph: 'i', s: 'g', ts: 3, pid: 1, args: { thread: -1, count: 1, tx: 0, phase: 4 } }]);
  });

  it('an empty trace is still a valid document', () => {
    expect(toChromeTrace([])).toEqual({ traceEvents: [], otherData: { generator: 'phaseflip sim', timeUnit: TIME_NOTE } });
  });
});

describe('helpers', () => {
  it('waitName drops the arrival counts', () => {
    expect(waitName('__syncthreads (3 of 64 arrived)')).toBe('__syncthreads');
    expect(waitName('bar.sync 1, 128 (5 of 128 arrived)')).toBe('bar.sync 1, 128');
    expect(waitName('warp collective (mask 0xffffffff, 3 of 32 lanes)')).toBe('warp collective (mask 0xffffffff)');
    expect(waitName('full[1] (parity 0)')).toBe('full[1] (parity 0)');
  });

  it('ranges compresses runs', () => {
    expect(ranges([9, 0, 1, 2, 3, 7, 10, 2])).toBe('0-3,7,9-10');
    expect(ranges([])).toBe('');
  });
});
