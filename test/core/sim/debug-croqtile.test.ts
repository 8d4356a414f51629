// Tests for the debug runtime (core/debug/runtime.ts) on Croqtile programs: threads named by block,
// parallel indices and role; breakpoints inside parallel bodies with frames and locals; event
// breakpoints and watches; stepping; deadlocks; time travel within and across launches; program
// output and the end of the program. Lines are found by the text on them, never by number.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArg } from '../../../core/sim/args';
import type { DebugEvents, DebugRuntime, DebugStop } from '../../../core/debug/runtime';
import { createDebugRuntime } from '../../../core/debug-programs';
import type { SimulateRequest } from '../../../core/sim/run';

const examples = path.join(__dirname, '..', '..', '..', 'examples', 'croqtile');

function request(rel: string, args: string[]): SimulateRequest {
  const file = path.join(examples, rel);
  return { file, text: readFileSync(file, 'utf8'), maxSteps: 5_000_000, args: args.map(parseArg) };
}

const gemm = () => request('sim/gemm_1p1c.co', ['lhs=f16[128,512]:random(1)', 'rhs=f16[128,512]:random(2)', 'output=f16[128,128]']);
/** Two blocks (block_m 0 and 1) of the tutorial-era seed. */
const seed = () => request('seeds/pipeline_1p1c.co', ['lhs=f16[128,256]:random(1)', 'rhs=f16[64,256]:random(2)', 'output=f16[128,64]']);
const bootstrap = () => request('bugs/missing_bootstrap.co', ['lhs=f16[64,256]', 'rhs=f16[64,256]', 'output=f16[64,64]']);

/** A program with two launches and output from host code and from both launches. */
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
const twoLaunches = (): SimulateRequest => ({ file: 'two.co', text: TWO_LAUNCHES, args: [] });

/** Zero-based line of the only line containing `text`. */
function lineOf(req: SimulateRequest, text: string): number {
  const found = req.text.split('\n').flatMap((l, i) => (l.includes(text) ? [i] : []));
  if (found.length !== 1) throw new Error(`'${text}' is on ${found.length} lines`);
  return found[0];
}

function local(rt: DebugRuntime, thread: number, name: string, frame = 0): string | undefined {
  return rt.locals(thread, frame).find((l) => l.name === name)?.value;
}

function collect<K extends keyof DebugEvents>(rt: DebugRuntime, kind: K): DebugEvents[K][] {
  const out: DebugEvents[K][] = [];
  rt.on(kind, (e) => out.push(e));
  return out;
}

describe('DebugRuntime on Croqtile', () => {
  it('stops at the first launch with one thread per simulated thread, named by block, index and role', async () => {
    const rt = createDebugRuntime(gemm());
    expect(rt.language).toBe('croqtile');
    const stop = await rt.start();
    expect(stop).toMatchObject({ reason: 'entry', thread: 1 });
    expect(rt.threads()).toEqual([
      { id: 1, block: 0, warp: 0, lane: 0, lanes: 1, role: 'producer (wg == 0)', label: 'block 0 · wg 0 · producer', status: 'running' },
      { id: 2, block: 0, warp: 1, lane: 0, lanes: 1, role: 'consumer (wg == 1)', label: 'block 0 · wg 1 · consumer', status: 'running' },
    ]);
    // Nothing ran yet: the thread is shown at the block body's first statement.
    expect(stop.line).toBe(lineOf(gemm(), 'shared event full[STAGES]'));
    expect(rt.frames(1).map((f) => f.name)).toEqual(['gemm_1p1c']);
    expect(local(rt, 1, 'K')).toBe('512');
    expect(local(rt, 1, 'lhs')).toBe('global f16 [128, 512] in lhs');

    const two = createDebugRuntime(seed());
    await two.start();
    expect(two.threads().map((t) => `${t.id} ${t.label}`)).toEqual(['1 block 0 · p1 0 · producer', '2 block 0 · p1 1 · consumer', '3 block 1 · p1 0 · producer', '4 block 1 · p1 1 · consumer']);
  });

  it('a conditional line breakpoint inside nested parallel and foreach bodies stops with their frames and locals', async () => {
    const req = gemm();
    const rt = createDebugRuntime(req);
    await rt.start();
    const line = lineOf(req, 'mma.row.row acc');
    const host = lineOf(req, '__co__ void gemm_1p1c');
    expect(rt.setBreakpoints([{ line, condition: 'iv_k == 2 && iv_w == 1' }, { line: host }]).map((b) => b.verified)).toEqual([true, false]);
    const stop = await rt.continue();
    expect(stop).toMatchObject({ reason: 'breakpoint', thread: 2, line, lane: 0 });
    const frames = rt.frames(2);
    expect(frames.map((f) => f.name)).toEqual(['foreach iv_w = 1', 'foreach iv_k = 2', 'inthreads.async (wg == 1)', 'parallel t (128 threads as one)', 'parallel wg = 1', 'gemm_1p1c']);
    // Each frame is where the thread is inside it: the mma, the inner foreach, the outer foreach …
    expect(frames.slice(0, 4).map((f) => f.loc.line)).toEqual([line, lineOf(req, 'foreach {iv_w}'), lineOf(req, 'acc = mma.fill.f32') + 1, lineOf(req, 'inthreads.async (wg == 1)')]);
    expect(rt.locals(2, 0)).toEqual([{ name: 'iv_w', type: 's32', value: '1' }]);
    expect(local(rt, 2, 'iv_k', 1)).toBe('2');
    expect(local(rt, 2, 'stage', 1)).toBe('0');
    expect(rt.locals(2, 2).find((l) => l.name === 'acc')).toMatchObject({ type: 'f32 [128, 128]' });
    expect(local(rt, 2, 'wg', 4)).toBe('1');
    expect(local(rt, 2, 'block_m', 5)).toBe('0');
    // Conditions, watches and lane values see every scalar in scope.
    expect(rt.evaluate(2, 'iv_k * 10 + iv_w + wg')).toBe(22);
    expect(rt.laneValues(2, 'iv_k')).toEqual([{ lane: 0, value: '2' }]);
    expect(rt.laneValues(2, 'stage + 1', 1)).toEqual([{ lane: 0, value: '1' }]);
    expect(rt.laneValues(2, 'nope')[0].value).toMatch(/'nope' is not a number/);
    // The producer is ahead, waiting for a free stage or holding its copies.
    expect(rt.frames(1)[0].name).toMatch(/^foreach iv_k = \d$/);
    // The breakpoint's condition is false for the rest of the run.
    expect((await rt.continue()).reason).toBe('completed');
  });

  it('a function breakpoint on an event slot stops at each of its phase completions, an array name on every slot', async () => {
    const rt = createDebugRuntime(gemm());
    await rt.start();
    rt.setFunctionBreakpoints([{ name: 'full[1]' }]);
    const first = await rt.continue();
    expect(first).toMatchObject({ reason: 'phase-flip', barrier: 'full[1]', block: 0, oldPhase: 0, newPhase: 1, lastArriver: 'block 0 · wg 0 · producer', hitBreakpoint: { kind: 'function', name: 'full[1]' } });
    // full[1] completes when the copies of K tile 1 land; the consumer has not passed tile 1 yet.
    expect(rt.barriers().find((b) => b.label === 'full[1]')).toMatchObject({ id: '0:full[1]', phase: 1, expected: 1 });
    const consumerTile = Number(local(rt, 2, 'iv_k') ?? rt.frames(2).map((f) => /^foreach iv_k = (\d+)$/.exec(f.name)?.[1]).find((x) => x !== undefined));
    expect(consumerTile).toBeLessThanOrEqual(1);
    expect(await rt.continue()).toMatchObject({ reason: 'phase-flip', barrier: 'full[1]', oldPhase: 1, newPhase: 2 });

    const all = createDebugRuntime(gemm());
    await all.start();
    all.setFunctionBreakpoints([{ name: 'full' }]);
    const flips: string[] = [];
    for (let s = await all.continue(); s.reason === 'phase-flip'; s = await all.continue()) flips.push(`${s.barrier} ${s.oldPhase}→${s.newPhase} ${s.hitBreakpoint?.name}`);
    // Eight K tiles alternate between the two stages.
    expect(flips).toEqual([0, 1, 2, 3, 4, 5, 6, 7].map((k) => `full[${k % 2}] ${k >> 1}→${(k >> 1) + 1} full`));
  });

  it('a barrier watch stops with reason data when that barrier changes phase', async () => {
    const req = gemm();
    const rt = createDebugRuntime(req);
    await rt.start();
    rt.setBreakpoints([{ line: lineOf(req, 'wait full.at(iv_k)') }]);
    await rt.continue();
    rt.setBreakpoints([]);
    expect(rt.setBarrierWatches([{ label: 'empty[0]', block: 0 }, { label: 'nope', block: 0 }, { label: 'empty[0]', block: 3 }])).toEqual([
      { label: 'empty[0]', block: 0, verified: true },
      { label: 'nope', block: 0, verified: false },
      { label: 'empty[0]', block: 3, verified: false },
    ]);
    const stop = await rt.continue();
    expect(stop).toMatchObject({ reason: 'data', barrier: 'empty[0]', block: 0, oldPhase: 0, newPhase: 1, lastArriver: 'block 0 · wg 1 · consumer', hitBreakpoint: { kind: 'data', name: 'empty[0]' } });
    expect(stop.line).toBe(lineOf(req, 'trigger empty.at(iv_k)'));
  });

  it('the producer holds pending futures of its copies, which the Futures view lists', async () => {
    const req = gemm();
    const rt = createDebugRuntime(req);
    await rt.start();
    rt.setBreakpoints([{ line: lineOf(req, 'trigger full.at(iv_k) after a, b'), condition: 'iv_k == 1' }]);
    await rt.continue();
    const futures = rt.futures().filter((f) => f.thread === 1);
    expect(futures.map((f) => ({ name: f.name, state: f.state, line: f.line, block: f.block }))).toEqual([
      { name: 'a', state: 'pending', line: lineOf(req, 'a = tma.copy.async'), block: 0 },
      { name: 'b', state: 'pending', line: lineOf(req, 'b = tma.copy.async'), block: 0 },
    ]);
    expect(futures[0].what).toMatch(/tma\.copy\.async/);
    expect(local(rt, 1, 'a')).toMatch(/^pending: a \(tma\.copy\.async/);
    expect(rt.asyncOps().map((o) => o.issuer)).toContain('block 0 · wg 0 · producer');
    expect(rt.sharedMemory(0).map((b) => `${b.name} ${b.dtype} [${b.shape}]`)).toEqual(['lhs_s[0] f16 [128,64]', 'lhs_s[1] f16 [128,64]', 'rhs_s[0] f16 [128,64]', 'rhs_s[1] f16 [128,64]', 'out_s f16 [128,128]']);
    expect(rt.globals().map((b) => b.name)).toEqual(['lhs', 'rhs', 'output']);
  });

  it('steps over a loop, into a construct and out of it', async () => {
    const req = gemm();
    const rt = createDebugRuntime(req);
    await rt.start();
    rt.setBreakpoints([{ line: lineOf(req, 'mma.row.row acc'), condition: 'iv_k == 2 && iv_w == 1' }]);
    await rt.continue();
    rt.setBreakpoints([]);
    // Over the rest of the inner loop (one statement, the same line) to the statement after it.
    const over = await rt.stepOver(2);
    expect(over).toMatchObject({ reason: 'step', thread: 2, line: lineOf(req, 'trigger empty.at(iv_k)') });
    expect(rt.frames(2)[0].name).toBe('foreach iv_k = 2');
    // Into the next iteration: its first statement.
    const next = await rt.stepOver(2);
    expect(next.line).toBe(lineOf(req, 'wait full.at(iv_k)') - 1);
    expect(rt.frames(2)[0].name).toBe('foreach iv_k = 3');
    await rt.stepOver(2);
    await rt.stepOver(2);
    const into = await rt.stepIn(2);
    expect(into.line).toBe(lineOf(req, 'mma.row.row acc'));
    expect(rt.frames(2)[0].name).toBe('foreach iv_w = 0');
    const out = await rt.stepOut(2);
    expect(out.line).toBe(lineOf(req, 'trigger empty.at(iv_k)'));
    expect(rt.frames(2).map((f) => f.name)[0]).toBe('foreach iv_k = 3');
  });

  it('a missing bootstrap stops with a deadlock naming the blocked threads, whose frames point at their waits', async () => {
    const req = bootstrap();
    const rt = createDebugRuntime(req);
    const exited = collect(rt, 'exited');
    await rt.start();
    const stop = await rt.continue();
    expect(stop.reason).toBe('deadlock');
    const blocked = stop.blocked!.map((b) => `${b.thread} ${b.label}: ${b.barrier} ×${b.lanes} @${b.line}`);
    expect(blocked.sort()).toEqual([`1 block 0 · p1 0 · producer: empty[0] ×1 @${lineOf(req, 'wait empty[stage]')}`, `2 block 0 · p1 1 · consumer: full[0] ×1 @${lineOf(req, 'wait full[stage]')}`]);
    expect(rt.threads().map((t) => t.status)).toEqual(['blocked', 'blocked']);
    expect(rt.frames(1)[0]).toMatchObject({ name: 'foreach iv_k = 0', loc: { line: lineOf(req, 'wait empty[stage]') } });
    expect(rt.frames(2)[0].loc.line).toBe(lineOf(req, 'wait full[stage]'));
    expect(rt.barriers().find((b) => b.label === 'full[0]')!.waiting).toEqual([{ thread: 2, label: 'block 0 · p1 1 · consumer', lanes: 1, parity: undefined, token: 0 }]);
    expect(exited).toEqual([]);
    const end = await rt.continue();
    expect(end.reason).toBe('deadlock');
    expect(exited).toEqual([{ status: 'deadlock', message: stop.description }]);
  });

  it('stepBack returns to the previous phase flip with identical state, and forward again', async () => {
    const rt = createDebugRuntime(seed());
    await rt.start();
    rt.setExceptionFilters(['phase-flip']);
    for (let i = 0; i < 5; i++) await rt.continue();
    const atFlip = await rt.continue();
    expect(atFlip.reason).toBe('phase-flip');
    expect(atFlip.hitBreakpoint).toBeUndefined();
    const snapshot = () => ({ barriers: rt.barriers(), threads: rt.threads(), frames: [1, 2, 3, 4].map((t) => rt.frames(t)), locals: [1, 2, 3, 4].map((t) => rt.locals(t, 0)), steps: rt.steps });
    const state = snapshot();
    const later = await rt.continue();
    expect(later.steps).toBeGreaterThan(atFlip.steps);
    expect(rt.barriers()).not.toEqual(state.barriers);
    const back = await rt.stepBack();
    expect(back).toMatchObject({ reason: 'step', barrier: atFlip.barrier, block: atFlip.block, oldPhase: atFlip.oldPhase, newPhase: atFlip.newPhase, steps: atFlip.steps });
    expect(snapshot()).toEqual(state);
    const again = await rt.continue();
    expect(again).toMatchObject({ reason: 'phase-flip', barrier: later.barrier, block: later.block, oldPhase: later.oldPhase, steps: later.steps });
  });

  it('stepping back from every flip of the GEMM (both schedules) restores the state seen there', async () => {
    for (const schedule of ['round-robin', 'adversarial'] as const) {
      const rt = createDebugRuntime({ ...gemm(), schedule });
      await rt.start();
      rt.setExceptionFilters(['phase-flip']);
      const seen: { stop: DebugStop; state: string }[] = [];
      const state = () => JSON.stringify({ b: rt.barriers(), t: rt.threads(), f: [1, 2].map((t) => rt.frames(t)), l: [1, 2].map((t) => rt.locals(t, 0)), a: rt.asyncOps(), u: rt.futures(), s: rt.steps });
      for (let s = await rt.continue(); s.reason === 'phase-flip'; s = await rt.continue()) seen.push({ stop: s, state: state() });
      expect(seen).toHaveLength(16);
      for (let i = seen.length - 1; i >= 0; i--) {
        const back = await rt.stepBack();
        expect(back, `${schedule}: flip ${i}`).toMatchObject({ barrier: seen[i].stop.barrier, oldPhase: seen[i].stop.oldPhase, steps: seen[i].stop.steps });
        expect(state(), `${schedule}: flip ${i}`).toBe(seen[i].state);
      }
      expect((await rt.stepBack()).reason).toBe('entry');
    }
  });

  it('a breakpoint in the second block stops there; reverseContinue goes back to the previous stop', async () => {
    const req = seed();
    const rt = createDebugRuntime(req);
    await rt.start();
    rt.setBreakpoints([{ line: lineOf(req, 'trigger empty[stage]'), condition: 'block_m == 1' }]);
    const first = await rt.continue();
    expect(first).toMatchObject({ reason: 'breakpoint', thread: 4 });
    expect(local(rt, 4, 'iv_k', 0)).toBe('0');
    await rt.continue();
    expect(local(rt, 4, 'iv_k', 0)).toBe('1');
    const back = await rt.reverseContinue();
    expect(back).toMatchObject({ reason: 'breakpoint', thread: 4, steps: first.steps });
    expect(local(rt, 4, 'iv_k', 0)).toBe('0');
    // Going on from there passes the breakpoint once, as before.
    await rt.continue();
    expect(local(rt, 4, 'iv_k', 0)).toBe('1');
  });

  it('runs every launch in order: program output, launch announcements, breakpoints in a later launch, exited at the end', async () => {
    const req = twoLaunches();
    const rt = createDebugRuntime(req);
    const output = collect(rt, 'output');
    const exited = collect(rt, 'exited');
    const start = await rt.start();
    expect(start.reason).toBe('entry');
    expect(rt.threads().map((t) => t.label)).toEqual(['block 0 · t 0', 'block 0 · t 1']);
    expect(output.map((o) => o.text)).toEqual(['host before\n']);
    rt.setBreakpoints([{ line: lineOf(req, 'x = 5;') }]);
    const stop = await rt.continue();
    expect(stop).toMatchObject({ reason: 'breakpoint', thread: 1, line: lineOf(req, 'x = 5;') });
    expect(rt.launchIndex).toBe(1);
    expect(rt.threads().map((t) => t.label)).toEqual(['block 0 · u 0']);
    const stdout = output.filter((o) => o.category === 'stdout');
    expect(stdout.map((o) => o.text).sort()).toEqual(['between\n', 'device 0\n', 'device 1\n', 'host before\n']);
    // Device output names the thread that printed it; host output none.
    expect(stdout.filter((o) => o.text.startsWith('device')).map((o) => o.thread).sort()).toEqual([1, 2]);
    expect(stdout.find((o) => o.text === 'between\n')!.thread).toBeUndefined();
    expect(output.filter((o) => o.category === 'console').map((o) => o.text)).toEqual([`launch 2: the parallel at line ${lineOf(req, 'parallel q by 1') + 1} (1 block(s) × 1 thread(s)); thread ids restart at 1\n`]);
    expect(exited).toEqual([]);
    const end = await rt.continue();
    expect(end.reason).toBe('completed');
    expect(end.description).toMatch(/^completed: 2 launches ran/);
    expect(output.filter((o) => o.category === 'stdout').slice(-2).map((o) => o.text)).toEqual(['second 5\n', 'after\n']);
    expect(exited).toEqual([{ status: 'completed', message: end.description }]);
  });

  it('time travel crosses launches: reverseContinue from the second launch returns to a stop in the first', async () => {
    const req = twoLaunches();
    const rt = createDebugRuntime(req);
    const output = collect(rt, 'output');
    await rt.start();
    rt.setBreakpoints([{ line: lineOf(req, 'println("device", t)'), condition: 't == 1' }, { line: lineOf(req, 'x = 5;') }]);
    const inFirst = await rt.continue();
    expect(rt.launchIndex).toBe(0);
    expect(local(rt, inFirst.thread!, 't', 0)).toBe('1');
    await rt.continue();
    expect(rt.launchIndex).toBe(1);
    const printed = output.length;
    const back = await rt.reverseContinue();
    expect(back).toMatchObject({ reason: 'breakpoint', thread: inFirst.thread, steps: inFirst.steps });
    expect(rt.launchIndex).toBe(0);
    expect(local(rt, inFirst.thread!, 't', 0)).toBe('1');
    // Replaying prints nothing again.
    expect(output).toHaveLength(printed);
    // Forward again into the second launch.
    expect(await rt.continue()).toMatchObject({ reason: 'breakpoint', thread: 1, line: lineOf(req, 'x = 5;') });
    expect(rt.launchIndex).toBe(1);
  });

  it('stepping over the last statement of a launch stops at the next launch; the end counts every statement', async () => {
    const req = twoLaunches();
    const rt = createDebugRuntime(req);
    await rt.start();
    rt.setBreakpoints([{ line: lineOf(req, 'println("device", t)'), condition: 't == 1' }]);
    const bp = await rt.continue();
    rt.setBreakpoints([]);
    const next = await rt.stepOver(bp.thread!);
    expect(next).toMatchObject({ reason: 'step', thread: 1, description: `launch 2 started: the parallel at line ${lineOf(req, 'parallel q by 1') + 1}` });
    expect(rt.launchIndex).toBe(1);
    expect(rt.frames(1).map((f) => f.name)).toEqual(['two']);
    const end = await rt.continue();
    expect(end.reason).toBe('completed');
    // 4 host statements (3 println, and the second launch's parallel) … as the program reports them.
    expect(end.description).toBe(`completed: 2 launches ran ${end.steps} statements, 0 phase flip(s), 5 simulated cycles`);
  });

  it('a device error stops with reason error on its thread and line, then the program exits with it', async () => {
    const req = request('bugs/mma_commit_current_era.co', ['lhs=f16[64,512]:random(1)', 'rhs=f16[128,512]:random(2)', 'output=f16[64,128]']);
    const rt = createDebugRuntime(req);
    const exited = collect(rt, 'exited');
    await rt.start();
    const stop = await rt.continue();
    expect(stop).toMatchObject({ reason: 'error', thread: 2, line: lineOf(req, 'mma.commit; // expect') });
    expect(stop.description).toMatch(/^mma\.commit in a kernel written with current-era events/);
    expect(exited).toEqual([]);
    expect((await rt.continue()).reason).toBe('error');
    expect(exited).toEqual([{ status: 'error', message: stop.description }]);
  });

  it('pause stops a program that spins forever, inside its loop', async () => {
    const text = '__co__ void f() {\n  parallel p by 1 : block {\n    parallel t by 1 : thread {\n      i = 0;\n      while (true) {\n        i = i + 1;\n      }\n    }\n  }\n}\n';
    const rt = createDebugRuntime({ file: 'spin.co', text, args: [], maxSteps: 50_000_000 });
    await rt.start();
    const running = rt.continue();
    rt.pause();
    expect(await running).toMatchObject({ reason: 'pause', thread: 1 });
    expect(Number(local(rt, 1, 'i'))).toBeGreaterThan(1000);
    expect(rt.frames(1).map((f) => f.name)).toEqual(['parallel t', 'f']);
    expect(rt.threads()[0].status).toBe('running');
  });

  it('bad requests reject with the simulator message; a program without parallel regions just completes', async () => {
    const req = gemm();
    await expect(createDebugRuntime({ ...req, args: req.args!.slice(0, 2) }).start()).rejects.toThrow(/gemm_1p1c needs the argument 'output'/);
    await expect(createDebugRuntime({ ...req, kernel: 'nope' }).start()).rejects.toThrow(/has no __co__ function 'nope'/);
    await expect(createDebugRuntime({ file: 'bad.co', text: '__co__ void f() { parallel {', args: [] }).start()).rejects.toThrow(/syntax errors/);
    const host = createDebugRuntime({ file: 'host.co', text: '__co__ void f() {\n  println("only host");\n}\n', args: [] });
    const output = collect(host, 'output');
    const exited = collect(host, 'exited');
    const entry: DebugStop = await host.start();
    expect(entry.reason).toBe('entry');
    expect(host.threads()).toEqual([]);
    expect(host.barriers()).toEqual([]);
    expect(output.map((o) => o.text)).toEqual(['only host\n']);
    expect((await host.continue()).reason).toBe('completed');
    expect(exited).toHaveLength(1);
    expect(() => host.setLane(1, 3)).toThrow(/one lane/);
  });

  it("trace() renumbers every launch's threads and lays the launches end to end in time", async () => {
    // Two launches of two threads each: their start-of-parallel syncs put every thread in the trace.
    const text = TWO_LAUNCHES.replace('parallel u by 1 : thread', 'parallel u by 2 : thread');
    const rt = createDebugRuntime({ file: 'two.co', text, args: [], trace: true });
    await rt.start();
    expect((await rt.continue()).reason).toBe('completed');
    const trace = rt.trace();
    expect(trace.launches).toBe(2);
    // Launch 1's threads (t 0, t 1) keep indices 0 and 1; launch 2's (u 0, u 1) become 2 and 3.
    expect([0, 1, 2, 3].map((i) => trace.thread(i))).toEqual([
      { block: 0, warp: 0, role: undefined },
      { block: 0, warp: 1, role: undefined },
      { block: 0, warp: 0, role: undefined },
      { block: 0, warp: 1, role: undefined },
    ]);
    expect(trace.thread(4)).toBeUndefined();
    const threadOf = (e: (typeof trace.events)[number]) => (e.kind === 'phase' ? -1 : e.thread);
    expect([...new Set(trace.events.map(threadOf))].sort()).toEqual([0, 1, 2, 3]);
    // Launch 2's events come after every event of launch 1.
    const end1 = Math.max(...trace.events.filter((e) => threadOf(e) < 2).map((e) => e.time));
    const start2 = Math.min(...trace.events.filter((e) => threadOf(e) >= 2).map((e) => e.time));
    expect(start2).toBeGreaterThanOrEqual(end1);
  });

  it('a single-thread step runs only its thread, lands async work in flight, stops on what frozen threads must release, and replays exactly', async () => {
    const req = { ...gemm(), trace: true };
    const rt = createDebugRuntime(req);
    await rt.start();
    const flips: string[] = [];
    rt.on('flip', (f) => flips.push(`${f.barrier} ${f.oldPhase}`));
    const waitEmpty = lineOf(req, 'wait empty.at(iv_k)');
    rt.setBreakpoints([{ line: waitEmpty, condition: 'iv_k == 0' }]);
    expect(await rt.continue()).toMatchObject({ reason: 'breakpoint', thread: 1 });
    rt.setBreakpoints([]);
    const consumer = JSON.stringify([rt.frames(2), rt.locals(2, 0)]);
    // The producer issues tiles 0 and 1 (both stages start free), then waits for a stage the frozen consumer must free.
    const states: { steps: number; state: string }[] = [];
    let stop = await rt.stepOver(1, { singleThread: true });
    for (let i = 0; i < 20 && !/froze/.test(stop.description); i++) {
      expect(stop.reason).toBe('step');
      expect(JSON.stringify([rt.frames(2), rt.locals(2, 0)])).toBe(consumer);
      states.push({ steps: rt.steps, state: JSON.stringify([rt.frames(1), rt.locals(1, 0), rt.barriers(), rt.futures()]) });
      stop = await rt.stepOver(1, { singleThread: true });
    }
    expect(stop).toMatchObject({ reason: 'step', thread: 1, line: waitEmpty });
    // Before giving up, the step landed its four TMA copies (a and b of tiles 0 and 1): both stages are full, nothing is in flight.
    expect(stop.description).toBe(`block 0 · wg 0 · producer waits on empty[0] (parity 0) at line ${waitEmpty + 1}, which only the other threads can release, and a single-thread step froze them: continue, or step without singleThread`);
    expect(flips).toEqual(['full[0] 0', 'full[1] 0']);
    expect(rt.asyncOps()).toEqual([]);
    expect(rt.frames(1)[0].name).toBe('foreach iv_k = 2');
    expect(JSON.stringify([rt.frames(2), rt.locals(2, 0)])).toBe(consumer);
    expect(states.length).toBeGreaterThanOrEqual(8);
    // The consumer's second MMA of a stage waits on the first: stepping over the slices alone lands each and reaches the trigger.
    const mmaLine = lineOf(req, 'mma.row.row acc');
    rt.setBreakpoints([{ line: mmaLine, condition: 'iv_k == 0 && iv_w == 1' }]);
    expect(await rt.continue()).toMatchObject({ reason: 'breakpoint', thread: 2, line: mmaLine });
    rt.setBreakpoints([]);
    const producer = JSON.stringify([rt.frames(1), rt.locals(1, 0)]);
    const completed = () => rt.trace().events.filter((e) => e.kind === 'async-complete' && e.engine === 'mma').length;
    const mmasBefore = completed();
    const mma = await rt.stepOver(2, { singleThread: true });
    expect(mma).toMatchObject({ reason: 'step', thread: 2, line: lineOf(req, 'trigger empty.at(iv_k)'), description: `stepped to line ${lineOf(req, 'trigger empty.at(iv_k)') + 1}` });
    expect(rt.frames(2)[0].name).toBe('foreach iv_k = 0');
    // Slices 1, 2 and 3 were issued and landed during the step; the producer did not move.
    expect(completed() - mmasBefore).toBe(3);
    expect(rt.asyncOps()).toEqual([]);
    expect(JSON.stringify([rt.frames(1), rt.locals(1, 0)])).toBe(producer);
    for (const want of states.reverse()) {
      while (rt.steps > want.steps) await rt.stepBack();
      expect(rt.steps).toBe(want.steps);
      expect(JSON.stringify([rt.frames(1), rt.locals(1, 0), rt.barriers(), rt.futures()])).toBe(want.state);
    }
  });

  it('mixed single-thread and ordinary steps replay exactly under every schedule', async () => {
    for (const schedule of ['round-robin', 'random', 'adversarial'] as const) {
      const req = { ...gemm(), schedule, seed: 3 };
      const rt = createDebugRuntime(req);
      await rt.start();
      rt.setBreakpoints([{ line: lineOf(req, 'mma.row.row acc'), condition: 'iv_k == 1 && iv_w == 1' }]);
      await rt.continue();
      rt.setBreakpoints([]);
      const snap = () => JSON.stringify([rt.steps, rt.frames(1), rt.frames(2), rt.locals(1, 0), rt.locals(2, 0), rt.barriers(), rt.futures()]);
      const states = [snap()];
      for (let k = 0; k < 8; k++) {
        await rt.stepOver(k % 3 ? 1 : 2, { singleThread: k % 2 === 0 });
        states.push(snap());
      }
      // Back through every step, passing over the flip checkpoints in between (a single-thread step
      // landing async work flips barriers without running a statement: same step count as its start).
      for (let k = states.length - 2; k >= 0; k--) {
        let back;
        do back = await rt.stepBack();
        while (/^back at the flip/.test(back.description));
        expect(snap(), `${schedule}: state ${k}`).toBe(states[k]);
      }
    }
  });
});
