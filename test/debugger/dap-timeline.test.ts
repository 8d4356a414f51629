// The barrier timeline over DAP (`phaseflip dap` as a real process): the `phaseflip/timeline`
// request answers core's timeline model, `phaseflip/timelineChanged` follows every stop, and
// `phaseflip/travel` moves to a cycle and stops there (the panel's click-to-travel).
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DebugClient } from '@vscode/debugadapter-testsupport';
import { afterEach, describe, expect, it } from 'vitest';
import type { TimelineModel } from '../../core/index';
import { EXAMPLES, failure, launch, nextStop } from './dap-client';
import { startAdapter } from './dap-client';

const ringFile = path.join(EXAMPLES, 'good', 'producer_missing_bootstrap.cu');
const ring = { program: ringFile, kernel: 'stream_sum', grid: 1, block: 160, args: ['in=f32[6144]:iota', 'out=f32[128]', 'num_tiles=6'] };

let dc: DebugClient | undefined;
afterEach(async () => {
  await dc?.stop();
  dc = undefined;
});

async function timeline(c: DebugClient): Promise<TimelineModel> {
  const r = await c.customRequest('phaseflip/timeline');
  return (r.body as { model: TimelineModel }).model;
}

describe('phaseflip dap: the barrier timeline', () => {
  it('answers the timeline at a phase-flip stop, announces changes, and travels back and forth by cycle', async () => {
    const c = (dc = await startAdapter());
    const changed: unknown[] = [];
    c.on('phaseflip/timelineChanged', (e: { body: unknown }) => changed.push(e.body));
    let stop = await launch(c, ring, (d) => d.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'slot_ready[2]' }] }));
    expect(stop?.body.reason).toBe('function breakpoint');
    // The event follows the stop (it may arrive just after the stopped event resolved).
    for (let i = 0; i < 50 && !changed.length; i++) await new Promise((r) => setTimeout(r, 20));
    expect(changed.length).toBeGreaterThanOrEqual(1);
    const first = await timeline(c);
    expect(first.title).toBe('producer_missing_bootstrap.cu · stream_sum');
    expect(first.barriers.map((b) => b.label)).toContain('slot_ready[2]');
    expect(first.barriers.find((b) => b.label === 'slot_ready[2]')!.flips).toHaveLength(1);
    // Tooltips quote the source: every named line's text is there, lines zero-based.
    const arrival = first.barriers.find((b) => b.label === 'slot_ready[0]')!.arrivals[0];
    expect(first.lines![`:${arrival.at!.line}`]).toMatch(/arrive/);

    stop = await new Promise((resolve) => {
      c.once('stopped', resolve);
      void c.continueRequest({ threadId: 1 });
    });
    const later = await timeline(c);
    expect(later.cursor!).toBeGreaterThan(first.cursor!);
    expect(later.events).toBeGreaterThan(first.events);

    // Click-to-travel: back to the first stop's cycle.
    const back = nextStop(c);
    const announced = c.waitForEvent('phaseflip/timelineChanged');
    await c.customRequest('phaseflip/travel', { cycle: first.cursor });
    expect((await back)?.body).toMatchObject({ reason: 'step', description: expect.stringMatching(/^travelled to cycle \d+/) });
    await announced;
    const there = await timeline(c);
    expect(there.cursor!).toBeGreaterThanOrEqual(first.cursor!);
    expect(there.cursor!).toBeLessThan(later.cursor!);
    // The recorded future stays on the picture.
    expect(there.events).toBe(later.events);
    // The stack shows where the stopped warp is.
    const st = await c.stackTraceRequest({ threadId: (await back)!.body.threadId! });
    expect(st.body.stackFrames[0].line).toBeGreaterThan(0);

    // And forward again.
    const fwd = nextStop(c);
    await c.customRequest('phaseflip/travel', { cycle: later.cursor });
    expect((await fwd)?.body.reason).toBe('step');
    expect((await timeline(c)).cursor!).toBeGreaterThanOrEqual(later.cursor!);
  }, 60_000);

  it('while the kernel runs, a client that asked for the timeline is told it changed (about once a second) and can read it', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-dap-timeline-'));
    try {
      const program = path.join(dir, 'spin.cu');
      // Long enough to run for seconds on the simulator, bounded by maxSteps.
      writeFileSync(program, '__global__ void spin(int* out) {\n  int x = 0;\n  for (int i = 0; i < 100000000; ++i) x += i;\n  out[threadIdx.x] = x;\n}\n');
      const c = (dc = await startAdapter());
      const entry = await launch(c, { program, kernel: 'spin', grid: 1, block: 32, args: ['out=i32[32]'], stopOnEntry: true, maxSteps: 400_000_000 });
      expect(entry?.body.reason).toBe('entry');
      await timeline(c);
      const ticks: { running?: boolean }[] = [];
      c.on('phaseflip/timelineChanged', (e: { body: { running?: boolean } }) => ticks.push(e.body));
      const started = Date.now();
      void c.continueRequest({ threadId: entry!.body.threadId ?? 1 });
      for (let i = 0; i < 300 && !ticks.some((t) => t.running); i++) await new Promise((r) => setTimeout(r, 20));
      expect(ticks.some((t) => t.running === true), `no tick in ${Date.now() - started} ms`).toBe(true);
      // And what it answers then is the picture so far (a request while running is answered).
      expect((await timeline(c)).end).toBeGreaterThan(0);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  }, 60_000);

  it('refuses a travel without a cycle, and a timeline before any launch', async () => {
    const c = (dc = await startAdapter());
    expect(await failure(c.customRequest('phaseflip/timeline'))).toMatch(/no kernel is being debugged/);
    await launch(c, { ...ring, stopOnEntry: true });
    expect(await failure(c.customRequest('phaseflip/travel', { cycle: 'soon' }))).toMatch(/needs 'cycle', a number ≥ 0/);
    expect(await failure(c.customRequest('phaseflip/travel', {}))).toMatch(/needs 'cycle'/);
  }, 60_000);
});
