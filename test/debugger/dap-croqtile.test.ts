// Debug adapter protocol tests on Croqtile programs: `phaseflip dap` as a real process (DebugClient)
// over the 1P1C GEMM (event breakpoints, the Barriers and Futures scopes, a line breakpoint inside a
// `parallel` body with its frames and locals), the missing-bootstrap bug (a deadlock naming the
// blocked threads, whose frames point at their waits) and a program with two launches (thread ids
// restart: the client is told by thread events). Lines are found by the text on them.
import { mkdtempSync, writeFileSync } from 'node:fs';
import * as os from 'node:os';
import * as path from 'node:path';
import type { DebugClient } from '@vscode/debugadapter-testsupport';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { afterEach, describe, expect, it } from 'vitest';
import { EXAMPLES, children, collectEvents, collectOutput, frames, launch, lineOf, scope, startAdapter, stopAfter } from './dap-client';

const gemmFile = path.join(EXAMPLES, 'croqtile', 'sim', 'gemm_1p1c.co');
/** One block: warpgroup 0 produces (TMA copies), warpgroup 1 consumes (WGMMA); K = 512 is 8 tiles over 2 stages. */
const gemm = { program: gemmFile, args: ['lhs=f16[128,512]:random(1)', 'rhs=f16[128,512]:random(2)', 'output=f16[128,128]'] };
const bootstrapFile = path.join(EXAMPLES, 'croqtile', 'bugs', 'missing_bootstrap.co');
const bootstrap = { program: bootstrapFile, args: ['lhs=f16[64,256]', 'rhs=f16[64,256]', 'output=f16[64,64]'] };

let dc: DebugClient | undefined;

afterEach(async () => {
  await dc?.stop();
  dc = undefined;
});

async function adapter(): Promise<DebugClient> {
  dc = await startAdapter();
  return dc;
}

async function local(c: DebugClient, frameId: number, name: string): Promise<string | undefined> {
  return (await scope(c, frameId, 'Locals')).find((v) => v.name === name)?.value;
}

describe('phaseflip dap on Croqtile: the 1P1C GEMM', () => {
  it('a function breakpoint on an event slot stops at its phase completions with the Barriers scope showing the events', async () => {
    const c = await adapter();
    let id = 0;
    let stop = await launch(c, gemm, async (d) => {
      const r = await d.setFunctionBreakpointsRequest({ breakpoints: [{ name: 'full[1]' }] });
      expect(r.body.breakpoints[0]).toMatchObject({ verified: true });
      id = r.body.breakpoints[0].id!;
    });
    expect((await c.threadsRequest()).body.threads.map((t) => [t.id, t.name])).toEqual([
      [1, 'block 0 · wg 0 · producer'],
      [2, 'block 0 · wg 1 · consumer'],
    ]);
    // full[1] carries the odd K tiles 1, 3, 5, 7: four phase completions, each by the producer's copies.
    for (let n = 1; n <= 4; n++) {
      expect(stop?.body).toMatchObject({ reason: 'function breakpoint', threadId: 1, hitBreakpointIds: [id] });
      expect(stop!.body.description).toBe(`full[1] completed phase ${n - 1} → phase ${n}; last arrival by block 0 · wg 0 · producer`);
      const top = (await frames(c, 1))[0];
      const events = await scope(c, top.id, 'Barriers');
      expect(events.map((v) => v.name)).toEqual(['full[0]', 'full[1]', 'empty[0]', 'empty[1]']);
      const full1 = events.find((v) => v.name === 'full[1]')!;
      expect(full1.value).toMatch(new RegExp(`^phase ${n} · pending 1/1`));
      expect(await children(c, full1)).toMatchObject({ phase: String(n), parity: String(n & 1), expected: '1' });
      // No lane chooser: a Croqtile thread has one value per variable.
      expect((await scope(c, top.id, 'Locals')).some((v) => v.name === 'lane (shown)')).toBe(false);
      stop = await stopAfter(c, () => c.continueRequest({ threadId: 1 }));
    }
    expect(stop).toBeUndefined();
  });

  it('a conditional line breakpoint inside the consumer parallel body stops with its frames, locals and evaluation', async () => {
    const c = await adapter();
    const mma = lineOf(gemmFile, 'mma.row.row acc');
    const stop = await launch(c, gemm, (d) => d.setBreakpointsRequest({ source: { path: gemmFile }, breakpoints: [{ line: mma, condition: 'iv_k == 2 && iv_w == 1' }] }));
    expect(stop?.body).toMatchObject({ reason: 'breakpoint', threadId: 2 });
    const fs = await frames(c, 2);
    expect(fs.map((f) => [f.name, f.line])).toEqual([
      ['foreach iv_w = 1', mma],
      ['foreach iv_k = 2', lineOf(gemmFile, 'foreach {iv_w}')],
      ['inthreads.async (wg == 1)', lineOf(gemmFile, 'acc = mma.fill.f32') + 1],
      ['parallel t (128 threads as one)', lineOf(gemmFile, 'inthreads.async (wg == 1)')],
      ['parallel wg = 1', lineOf(gemmFile, 'parallel wg by 2')],
      ['gemm_1p1c', lineOf(gemmFile, 'parallel wg by 2')],
    ]);
    expect(fs[0].source?.path).toBe(gemmFile);
    expect(await local(c, fs[0].id, 'iv_w')).toBe('1');
    expect(await local(c, fs[1].id, 'iv_k')).toBe('2');
    expect(await local(c, fs[1].id, 'stage')).toBe('0');
    expect((await c.evaluateRequest({ expression: 'iv_k * 10 + iv_w + wg', frameId: fs[0].id, context: 'watch' })).body.result).toBe('22');
    expect((await c.evaluateRequest({ expression: 'empty[0]', frameId: fs[0].id, context: 'hover' })).body.result).toMatch(/^phase \d+ · pending \d+\/\d+/);
  });

  it('the Futures scope lists the copies the producer holds when it triggers full', async () => {
    const c = await adapter();
    const trigger = lineOf(gemmFile, 'trigger full.at(iv_k) after a, b');
    const stop = await launch(c, gemm, (d) => d.setBreakpointsRequest({ source: { path: gemmFile }, breakpoints: [{ line: trigger, condition: 'iv_k == 1' }] }));
    expect(stop?.body).toMatchObject({ reason: 'breakpoint', threadId: 1 });
    const top = (await frames(c, 1))[0];
    expect(top.line).toBe(trigger);
    const futures = await scope(c, top.id, 'Futures');
    const byName = Object.fromEntries(futures.map((f) => [f.name, f.value]));
    // a and b are the two TMA copies of K tile 1, issued on the two lines before the trigger.
    expect(byName.a).toMatch(new RegExp(`^(pending|ready) · .*\\(line ${lineOf(gemmFile, 'a = tma.copy.async')}\\)$`));
    expect(byName.b).toMatch(new RegExp(`^(pending|ready) · .*\\(line ${lineOf(gemmFile, 'b = tma.copy.async')}\\)$`));
    expect((await c.scopesRequest({ frameId: top.id })).body.scopes.map((s) => s.name)).toEqual(['Locals', 'Barriers', 'Async operations', 'Shared memory', 'Globals', 'Futures']);
  });
});

describe('phaseflip dap on Croqtile: deadlock', () => {
  it('the missing bootstrap stops with an exception naming both blocked threads, whose frames point at their waits', async () => {
    const c = await adapter();
    const stop = await launch(c, bootstrap);
    expect(stop?.body).toMatchObject({ reason: 'exception', text: 'Deadlock', allThreadsStopped: true });
    const d = stop!.body.description!;
    const producerWait = lineOf(bootstrapFile, 'wait empty[stage];');
    const consumerWait = lineOf(bootstrapFile, 'wait full[stage];');
    // The producer waits for empty[0], which the consumers never trigger; they wait for full[0].
    expect(d).toMatch(new RegExp(`^Deadlock: block 0 · p1 0 · producer waits on empty\\[0\\] \\(token of phase 0, parity 0\\) at line ${producerWait}[,;]`));
    expect(d).toMatch(new RegExp(`block 0 · p1 1 · consumer waits on full\\[0\\] \\(token of phase 0, parity 0\\) at line ${consumerWait}(,|$)`));
    expect(d).not.toMatch(/lanes?\)/);
    const info = await c.exceptionInfoRequest({ threadId: stop!.body.threadId! });
    expect(info.body).toMatchObject({ exceptionId: 'deadlock', description: d });
    const threads = (await c.threadsRequest()).body.threads;
    for (const [name, line] of [
      ['block 0 · p1 0 · producer', producerWait],
      ['block 0 · p1 1 · consumer', consumerWait],
    ] as const) {
      const t = threads.find((x) => x.name === name)!;
      const top = (await frames(c, t.id))[0];
      expect([top.name, top.line], name).toEqual(['foreach iv_k = 0', line]);
    }
  });
});

const TWO_LAUNCHES = `__co__ void two() {
  println("host before");
  parallel p by 1 : block {
    parallel t by 2 : thread {
      println("device", t);
    }
  }
  println("between");
  parallel q by 1 : block {
    parallel u by 1 : thread {
      x = 5;
      println("second", x + u);
    }
  }
  println("after");
}
`;

describe('phaseflip dap on Croqtile: launches', () => {
  it('thread ids restart with each launch: the old threads exit and the new ones start, forward and back', async () => {
    const dir = mkdtempSync(path.join(os.tmpdir(), 'phaseflip-dap-co-'));
    const file = path.join(dir, 'two.co');
    writeFileSync(file, TWO_LAUNCHES);
    const c = await adapter();
    const output = collectOutput(c);
    const threadEvents = collectEvents<DebugProtocol.ThreadEvent['body']>(c, 'thread');
    const invalidated = collectEvents<DebugProtocol.InvalidatedEvent['body']>(c, 'invalidated');
    await launch(c, { program: file, stopOnEntry: true });
    expect((await c.threadsRequest()).body.threads.map((t) => [t.id, t.name])).toEqual([
      [1, 'block 0 · t 0'],
      [2, 'block 0 · t 1'],
    ]);
    expect(threadEvents).toEqual([]);
    const x = lineOf(file, 'x = 5;');
    await c.setBreakpointsRequest({ source: { path: file }, breakpoints: [{ line: x }] });
    const stop = await stopAfter(c, () => c.continueRequest({ threadId: 1 }));
    expect(stop?.body).toMatchObject({ reason: 'breakpoint', threadId: 1 });
    expect(threadEvents).toEqual([
      { reason: 'exited', threadId: 1 },
      { reason: 'exited', threadId: 2 },
      { reason: 'started', threadId: 1 },
    ]);
    expect(invalidated).toContainEqual({ areas: ['threads'] });
    expect((await c.threadsRequest()).body.threads.map((t) => [t.id, t.name])).toEqual([[1, 'block 0 · u 0']]);
    expect((await frames(c, 1)).map((f) => [f.name, f.line])).toEqual([
      ['parallel u = 0', x],
      ['two', lineOf(file, 'parallel u by 1')],
    ]);
    expect(output.some((o) => o.category === 'console' && /^launch 2: the parallel at line 9 .*thread ids restart at 1/.test(o.output))).toBe(true);
    expect(output.filter((o) => o.category === 'stdout').map((o) => o.output)).toEqual(expect.arrayContaining(['host before\n', 'device 0\n', 'device 1\n', 'between\n']));
    // Back to the first launch: its two threads again.
    threadEvents.length = 0;
    const back = await stopAfter(c, () => c.reverseContinueRequest({ threadId: 1 }));
    expect(back?.body.reason).toBe('entry');
    expect(threadEvents).toEqual([
      { reason: 'exited', threadId: 1 },
      { reason: 'started', threadId: 1 },
      { reason: 'started', threadId: 2 },
    ]);
    expect((await c.threadsRequest()).body.threads.map((t) => t.name)).toEqual(['block 0 · t 0', 'block 0 · t 1']);
  });

  it('logPhaseFlips on Croqtile names the event, the block and the thread that completed it', async () => {
    const c = await adapter();
    const output = collectOutput(c);
    const exited = c.waitForEvent('exited');
    expect(await launch(c, { ...gemm, logPhaseFlips: true })).toBeUndefined();
    await exited;
    const flips = output.filter((o) => o.category === 'console' && /^(full|empty)\[\d\] \(block 0\)/.test(o.output)).map((o) => o.output.trim());
    // 8 K tiles: full[s] and empty[s] each complete once per tile of their stage.
    expect(flips).toHaveLength(16);
    expect(flips[0]).toMatch(/^full\[0\] \(block 0\): phase 0 → 1, last arrival by block 0 · wg 0 · producer, line \d+$/);
    expect(flips.filter((f) => /^empty\[\d\]/.test(f)).every((f) => f.includes('last arrival by block 0 · wg 1 · consumer, line ' + lineOf(gemmFile, 'trigger empty.at(iv_k)')))).toBe(true);
  });
});
