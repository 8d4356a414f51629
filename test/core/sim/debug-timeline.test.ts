// The debug runtime's barrier timeline (DebugRuntime.timeline) and travel in time by cycle
// (DebugRuntime.travelTo) on the examples' three-slot ring: the timeline grows as the kernel runs,
// keeps its recorded future after travelling back, and travelling forward ignores breakpoints.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArg } from '../../../core/sim/args';
import { createDebugRuntime } from '../../../core/debug-programs';
import type { SimulateRequest } from '../../../core/sim/run';

const examples = path.join(__dirname, '..', '..', '..', 'examples');

function ring(rel = 'good/producer_missing_bootstrap.cu'): SimulateRequest {
  const file = path.join(examples, rel);
  return { file, text: readFileSync(file, 'utf8'), kernel: 'stream_sum', grid: [1, 1, 1], block: [160, 1, 1], maxSteps: 5_000_000, args: ['in=f32[6144]:iota', 'out=f32[128]', 'num_tiles=6'].map(parseArg) };
}

describe('DebugRuntime.timeline and travelTo', () => {
  it('the timeline grows with the run; its cursor is the machine clock; trace() stays empty unless asked', async () => {
    const rt = createDebugRuntime(ring());
    await rt.start();
    expect(rt.timeline().events).toBe(0);
    rt.setFunctionBreakpoints([{ name: 'slot_ready[1]' }]);
    const stop = await rt.continue();
    expect(stop.reason).toBe('phase-flip');
    const t = rt.timeline({ sourceLine: (a) => `line ${a.line}` });
    expect(t.events).toBeGreaterThan(0);
    const ready1 = t.barriers.find((b) => b.label === 'slot_ready[1]')!;
    expect(ready1.flips).toHaveLength(1);
    expect(t.cursor).toBe(t.end);
    expect(ready1.flips[0].time).toBeLessThanOrEqual(t.cursor!);
    expect(Object.values(t.lines!).every((l) => /^line \d+$/.test(l))).toBe(true);
    expect(rt.trace().events).toEqual([]);
  });

  it('travels back to a cycle, keeps the recorded future, and forward again past a breakpoint', async () => {
    const rt = createDebugRuntime(ring());
    await rt.start();
    rt.setFunctionBreakpoints([{ name: 'slot_ready[2]' }]);
    expect((await rt.continue()).reason).toBe('phase-flip');
    rt.setFunctionBreakpoints([]);
    // Run on to the third flip of slot_ready[2] (phase 2 → 3), well past slot_ready[0]'s first flips.
    rt.setFunctionBreakpoints([{ name: 'slot_ready[2]' }]);
    await rt.continue();
    const far = rt.timeline();
    const now = far.cursor!;
    const first0 = far.barriers.find((b) => b.label === 'slot_ready[0]')!.flips[0].time;
    expect(first0).toBeLessThan(now);

    const back = await rt.travelTo(first0 + 1);
    expect(back.reason).toBe('step');
    expect(back.description).toMatch(/^travelled to cycle \d+/);
    const there = rt.timeline();
    expect(there.cursor).toBeGreaterThanOrEqual(first0 + 1);
    expect(there.cursor).toBeLessThan(now);
    // The future stays on the timeline (the schedule is deterministic), after the cursor, its warps
    // still named by the roles they had there.
    expect(there.events).toBe(far.events);
    expect(there.warps.map((w) => w.label)).toEqual(far.warps.map((w) => w.label));
    expect(there.end).toBe(far.end);
    // slot_ready[0] has completed its first phase there, not its later ones.
    expect(rt.barriers().find((b) => b.label === 'slot_ready[0]')!.phase).toBe(1);

    // Forward to where we were: the slot_ready[2] breakpoint on the way does not stop the trip.
    const ahead = await rt.travelTo(now);
    expect(ahead.reason).toBe('step');
    expect(rt.timeline().cursor).toBeGreaterThanOrEqual(now);
    // The trip passed slot_ready[2]'s first flip (a breakpoint) without stopping there.
    expect(rt.barriers().find((b) => b.label === 'slot_ready[2]')!.phase).toBeGreaterThanOrEqual(1);
    // Time travel by checkpoints still works after a trip.
    expect((await rt.stepBack()).reason).toBe('step');
    // And the run goes on to the end with the same result as without travelling.
    rt.setFunctionBreakpoints([]);
    expect((await rt.continue()).reason).toBe('completed');
  });

  it('travelling to the deadlock of the ring without bootstrap stops there', async () => {
    const rt = createDebugRuntime(ring('bugs/producer_missing_bootstrap.cu'));
    await rt.start();
    const stop = await rt.travelTo(1_000_000);
    expect(stop.reason).toBe('deadlock');
    const t = rt.timeline();
    expect(t.markers.map((m) => m.kind)).toEqual(['deadlock']);
  });

  it('refuses a time that is not a cycle', async () => {
    const rt = createDebugRuntime(ring());
    await rt.start();
    await expect(rt.travelTo(-1)).rejects.toThrow(/cycle ≥ 0/);
    await expect(rt.travelTo(Number.NaN)).rejects.toThrow(/cycle ≥ 0/);
  });

  it('a Croqtile program: one row per event slot, one per simulated thread, and the deadlock of the missing bootstrap', async () => {
    const file = path.join(examples, 'croqtile', 'bugs', 'missing_bootstrap.co');
    const rt = createDebugRuntime({ file, text: readFileSync(file, 'utf8'), maxSteps: 5_000_000, args: ['lhs=f16[64,256]', 'rhs=f16[64,256]', 'output=f16[64,64]'].map(parseArg) });
    await rt.start();
    const stop = await rt.continue();
    expect(stop.reason).toBe('deadlock');
    const t = rt.timeline();
    expect(t.barriers.length).toBeGreaterThan(0);
    expect(t.warps.length).toBeGreaterThan(0);
    // Croqtile threads have no lanes: rows and ticks name threads.
    expect(t.warps.every((w) => /^thread \d+/.test(w.label))).toBe(true);
    expect(t.markers.map((m) => m.kind)).toEqual(['deadlock']);
    expect(t.warps.some((w) => w.waits.some((x) => x.unfinished))).toBe(true);
  });
});
