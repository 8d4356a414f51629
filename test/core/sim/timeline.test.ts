// The barrier timeline model (core/sim/timeline.ts) built from traces the simulator recorded on the
// example kernels: phases with their parity between flips, arrivals with who arrived, expect_tx and
// complete_tx bytes, warps' blocked stretches on the barrier they wait for, and report markers.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArg } from '../../../core/sim/args';
import type { SimulateRequest, SimulateResult } from '../../../core/sim/run';
import { buildTimeline, type TimelineModel } from '../../../core/sim/timeline';
import { simulate } from '../../../core/simulate';

const examples = path.join(__dirname, '..', '..', '..', 'examples');

async function record(rel: string, extra: Omit<Partial<SimulateRequest>, 'args'> & { args: string[] }): Promise<{ r: SimulateResult; model: TimelineModel; text: string[] }> {
  const file = path.join(examples, rel);
  const text = readFileSync(file, 'utf8');
  const { args, ...rest } = extra;
  const r = await simulate({ file, text, grid: [1, 1, 1], maxSteps: 5_000_000, trace: true, ...rest, args: args.map(parseArg) });
  const model = buildTimeline(r.trace!, { thread: (i) => r.threads?.[i], title: rel });
  return { r, model, text: text.split('\n') };
}

const ring = (rel: string) => record(rel, { kernel: 'stream_sum', block: [160, 1, 1], args: ['in=f32[6144]:iota', 'out=f32[128]', 'num_tiles=6'] });

describe('buildTimeline', () => {
  it('the ring: one row per slot, phases alternating parity between its flips, arrivals labelled by warp and lane', async () => {
    const { r, model, text } = await ring('good/producer_missing_bootstrap.cu');
    expect(r.status, r.message).toBe('completed');
    expect(model.barriers.map((b) => b.label)).toEqual(['slot_free[0]', 'slot_free[1]', 'slot_free[2]', 'slot_ready[0]', 'slot_ready[1]', 'slot_ready[2]']);
    // Every flip the run made is on some row, and the totals agree with the simulator's summary.
    const flips = model.barriers.reduce((n, b) => n + b.flips.length, 0);
    expect(flips).toBe(r.phaseFlips);
    for (const b of model.barriers) {
      const summary = r.barriers.find((s) => s.label === b.label)!;
      expect(b.flips.length, b.label).toBe(summary.state.phase);
      // Phases tile the row from its init to the end: k, k+1 …, each its parity, the last open.
      expect(b.phases.map((p) => p.phase)).toEqual([...Array(summary.state.phase + 1).keys()]);
      for (const p of b.phases) expect(p.parity).toBe(p.phase & 1);
      for (let k = 1; k < b.phases.length; k++) expect(b.phases[k].start).toBe(b.phases[k - 1].end);
      expect(b.phases.at(-1)!.open).toBe(true);
      expect(b.phases.slice(0, -1).every((p) => !p.open)).toBe(true);
      expect(b.phases.at(-1)!.end).toBe(model.end);
      // A flip ends the phase it completed.
      for (const f of b.flips) expect(b.phases[f.completed].end).toBe(f.time);
      // Arrivals are sorted by time and each counted towards a phase the row has.
      expect(b.arrivals.map((a) => a.time)).toEqual([...b.arrivals.map((a) => a.time)].sort((x, y) => x - y));
      for (const a of b.arrivals) expect(a.phase).toBeLessThanOrEqual(summary.state.phase);
    }
    // slot_ready[s] is arrived on by the producer (warp 0, lane 0); the source line is the arrive.
    const ready = model.barriers.find((b) => b.label === 'slot_ready[0]')!;
    expect(ready.arrivals[0]).toMatchObject({ who: 'w0·l0', count: 1 });
    expect(ready.arrivals[0].by).toMatch(/^block 0 · warp 0 · lane 0/);
    expect(text[ready.arrivals[0].at!.line]).toMatch(/arrive/);
    // The consumers (warps 1-4) block on slot_ready; those rows name the barrier they wait for.
    const consumer = model.warps.find((w) => w.warp === 1)!;
    expect(consumer.waits.length).toBeGreaterThan(0);
    expect(consumer.waits.every((w) => w.barrier === undefined || /^0:slot_(ready|free)\[\d\]$/.test(w.barrier))).toBe(true);
    expect(consumer.waits.some((w) => w.barrier?.startsWith('0:slot_ready['))).toBe(true);
    for (const w of consumer.waits) expect(w.end).toBeGreaterThan(w.start);
    expect(model.markers).toEqual([]);
    expect(model.events).toBe(r.trace!.length);
  });

  it('the ring without bootstrap deadlocks: a deadlock marker on the rows involved, waits that never end', async () => {
    const { r, model } = await ring('bugs/producer_missing_bootstrap.cu');
    expect(r.status).toBe('deadlock');
    expect(model.markers).toHaveLength(1);
    const m = model.markers[0];
    expect(m).toMatchObject({ kind: 'deadlock', time: model.end });
    expect(m.message).toMatch(/deadlock/i);
    expect(m.rows).toEqual(expect.arrayContaining(['0:slot_free[0]', '0:slot_ready[0]', '0:0', '0:1', '0:4']));
    const producer = model.warps.find((w) => w.warp === 0)!;
    const last = producer.waits.at(-1)!;
    expect(last).toMatchObject({ barrier: '0:slot_free[0]', unfinished: true, end: model.end, lanes: 1 });
    const consumer = model.warps.find((w) => w.warp === 2)!;
    expect(consumer.waits.at(-1)).toMatchObject({ barrier: '0:slot_ready[0]', unfinished: true, lanes: 32 });
  });

  it('TMA: expect_tx announced by the arrive, complete_tx bytes of each copy, on full[s]', async () => {
    const { r, model } = await record('good/expect_tx_bytes_mismatch.cu', { kernel: 'weighted_sum', block: [160, 1, 1], args: ['in=f32[18432]:iota', 'out=f32[128]', 'num_tiles=2'] });
    expect(r.status, r.message).toBe('completed');
    const full = model.barriers.find((b) => b.label === 'full[0]')!;
    expect(full.count).toBe(1);
    expect(full.arrivals[0]).toMatchObject({ tx: 4608, who: 'w0·l0' });
    const completed = full.tx.filter((t) => t.kind === 'complete-tx').map((t) => t.bytes);
    expect(completed).toEqual([4096, 512]);
    expect(full.tx.every((t) => t.by.startsWith('a copy issued by block 0 · warp 0 · lane 0'))).toBe(true);
    // The phase completes at the second copy's completion.
    expect(full.flips[0].time).toBe(full.tx.filter((t) => t.kind === 'complete-tx')[1].time);
  });

  it('a misuse report becomes a marker on its barrier row; a cursor widens the end', () => {
    const model = buildTimeline(
      [
        { kind: 'init', time: 0, thread: 0, barrier: 'bar', block: 0, count: 1 },
        { kind: 'arrive', time: 2, thread: 0, barrier: 'bar', block: 0, count: 1, tx: 0, phase: 0 },
        { kind: 'phase', time: 2, barrier: 'bar', block: 0, completed: 0, lastArriver: 0 },
        { kind: 'arrive', time: 3, thread: 33, barrier: 'bar', block: 0, count: 2, tx: 0, phase: 1 },
        { kind: 'report', time: 3, thread: 33, report: { kind: 'misuse', message: 'barrier misuse: arrive on bar\nmore', threads: [33], barrier: { label: 'bar', block: 0 }, loc: { line: 7 } } },
      ],
      { thread: (i) => ({ block: 0, warp: i >> 5, lane: i & 31 }), cursor: 10 },
    );
    expect(model.end).toBe(10);
    expect(model.cursor).toBe(10);
    expect(model.markers).toEqual([{ kind: 'misuse', time: 3, message: 'barrier misuse: arrive on bar', at: { line: 7 }, rows: ['0:bar', '0:1'] }]);
    expect(model.barriers[0].phases).toEqual([
      { start: 0, end: 2, phase: 0, parity: 0, open: false },
      { start: 2, end: 10, phase: 1, parity: 1, open: true },
    ]);
    expect(model.barriers[0].arrivals[1]).toMatchObject({ who: 'w1·l1', count: 2, phase: 1 });
  });

  it('a data race the simulator found becomes a race marker at the racing line', async () => {
    const text = `__global__ void k(float* out) {
  __shared__ float s[4];
  if (threadIdx.x == 0) s[0] = 1.0f;
  if (threadIdx.x == 32) s[0] = 2.0f;
  out[0] = s[0];
}
`;
    const r = await simulate({ file: 'race.cu', text, kernel: 'k', grid: [1, 1, 1], block: [64, 1, 1], trace: true, args: ['out=f32[4]'].map(parseArg) });
    expect(r.report?.kind).toBe('race');
    const model = buildTimeline(r.trace!, { thread: (i) => r.threads?.[i] });
    const races = model.markers.filter((m) => m.kind === 'race');
    expect(races.length).toBeGreaterThan(0);
    // The accesses are on lines 3, 4 (the writes) and 5 (the read); lines in the model are zero-based.
    const racingLines = new Set([3, 4, 5].map((l) => l - 1));
    expect(races.every((m) => m.at !== undefined && racingLines.has(m.at.line))).toBe(true);
    expect(races[0]!.message).toMatch(/^data race on shared 's'/);
    expect(races[0]!.rows.length).toBeGreaterThan(0);
  });

  it('an empty trace is an empty model', () => {
    expect(buildTimeline([])).toEqual({ end: 0, events: 0, barriers: [], warps: [], markers: [] });
  });
});
