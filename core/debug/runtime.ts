// The simulator's debug runtime: runs a program's launches under debugger control (continue, step,
// pause, line / barrier breakpoints, barrier watches, exception filters, time travel by deterministic
// replay) and exposes what a debugger shows as plain values. It knows no language (the program and
// its launches come from a DebugProgramFactory, target.ts) and nothing of DAP (debugger/ translates).
// The contract, for contributors: docs/debugger.md, "Debug runtime".
import type { Machine, MachineEvent, RunResult, SimThread, SourceLoc, TraceEvent } from '../sim/machine';
import { SimError } from '../sim/machine';
import { buildTimeline, type TimelineModel, type TimelineSource } from '../sim/timeline';
import type { TraceThread } from '../sim/trace';
import { Breakpoints, type StatementLines, statementLines } from './breakpoints';
import { type Checkpoint, type CheckpointFlip, fingerprint, replaySegment, type Segment, segmentOf } from './replay';
import type { DebugBuffer, DebugProgram, DebugProgramFactory, DebugTarget, FrameInfo, LocalInfo } from './target';
import { ThreadMap } from './threads';
import type { AsyncOpView, BarrierView, BarrierWatch, BufferView, DebugEvents, DebugStop, DebugThread, DebugTrace, ExceptionFilter, FunctionBreakpoint, FutureView, LineBreakpoint, SharedBufferView, StepOptions, StopReason } from './types';
import { asyncOpViews, barriersByBuffer, barrierViews, blockedThreads, bufferElements, futureViews, globalBufferViews, mergedTrace, sharedBufferViews } from './views';

export type * from './types';
export type { DebugBuffer, DebugProgram, DebugProgramFactory, DebugProgramHooks, DebugProgramResult, DebugTarget, FrameInfo, FutureInfo, LocalInfo, StatementGate } from './target';
export { barrierNameMatches } from './breakpoints';
export { evaluate } from './expression';

/** Statements a step may run before it gives up and says what the lane waits on. */
export const STEP_BUDGET = 2_000_000;
/** Statements per slice of `continue` (between slices `pause` is honoured and the event loop runs). */
const SLICE = 200_000;
/** Slices of a step are smaller: a step must notice its lane exiting. */
const STEP_SLICE = 20_000;
/** The smallest slice of a travel forward in time (between slices it checks the clock). */
const TRAVEL_SLICE = 64;
/** Trace events a session records for its timeline (unless the request asked for the trace): memory stays bounded. */
const TIMELINE_EVENT_LIMIT = 2_000_000;

interface StepTarget {
  kind: 'over' | 'in' | 'out';
  /** Only the debugger thread's lanes run. */
  single: boolean;
  /** The debugger thread stepped. */
  id: number;
  thread: SimThread;
  depth: number;
  line: number;
}

type Listener<K extends keyof DebugEvents> = (e: DebugEvents[K]) => void;

export class DebugRuntime {
  /** The language's id (`cuda`, `croqtile`). */
  readonly language: string;
  private program?: DebugProgram;
  /** The launch running now (after a program's last launch, that launch). */
  private target?: DebugTarget;
  /** Global buffers as they were when the current launch started. */
  private buffers?: readonly DebugBuffer[];
  /** Segments of the launches before the current one, by launch index. */
  private launchSegments: Segment[][] = [];
  /** Statements before the current launch (host code and earlier launches). */
  private stepBase = 0;
  private readonly bps = new Breakpoints();
  private readonly ids: ThreadMap;
  private readonly listeners: { [K in keyof DebugEvents]: Listener<K>[] } = { stopped: [], output: [], exited: [], flip: [] };
  /** Steps at the end of every `Machine.run` call of the current launch, in order (what a replay repeats). */
  private segments: Segment[] = [];
  private checkpoints: Checkpoint[] = [];
  /** Set while rebuilding a past state: no stops, no output. */
  private replaying = false;
  /** Set by the hook or a listener during a run; read when the run returns. */
  private pendingStop?: DebugStop;
  private flipsThisRun: CheckpointFlip[] = [];
  private step?: StepTarget;
  /** Tells a thread's new arrival at a statement from a re-entry (installed with the hook). */
  private gate?: { enters(t: SimThread, loc: SourceLoc): boolean };
  private pauseRequested = false;
  private lastStop?: DebugStop;
  private exited = false;
  /** The deadlock / error / step-limit stop that ended the run (reported again as `exited`). */
  private terminalStop?: DebugStop;
  private verified?: StatementLines;
  /** Whether the request asked for the trace (the timeline records it anyway; `trace()` shows it only when asked). */
  private traceRequested = false;
  /**
   * The longest trace recorded in the current launch: after travelling back, the machine's trace is
   * a prefix of it (the schedule is deterministic), and the timeline shows the rest as the future.
   */
  private horizon?: { launch: number; events: TraceEvent[] };
  /**
   * Where each machine thread was placed (`launch:index`), kept across replays: roles are inferred as
   * threads run, so after travelling back the timeline still names the warps of its recorded future.
   */
  private readonly placements = new Map<string, TraceThread>();
  /** Set while travelling forward to a time: breakpoints and the phase-flip filter do not stop it. */
  private travelling = false;

  constructor(private readonly factory: DebugProgramFactory) {
    this.language = factory.language;
    this.ids = new ThreadMap(factory.lanes, () => this.machine, () => this.target);
  }

  // ------------------------------------------------------------------ events

  on<K extends keyof DebugEvents>(kind: K, fn: Listener<K>): void {
    (this.listeners[kind] as Listener<K>[]).push(fn);
  }

  private emit<K extends keyof DebugEvents>(kind: K, e: DebugEvents[K]): void {
    for (const fn of this.listeners[kind] as Listener<K>[]) fn(e);
  }

  // ------------------------------------------------------------------ lifecycle

  /**
   * Builds the (first) launch and stops at entry (blocks launched, nothing run). Bad requests
   * (unknown kernel or function, wrong arguments, syntax errors) reject with the simulator's message.
   */
  async start(): Promise<DebugStop> {
    await this.build();
    const program = this.program!;
    const stop: DebugStop = this.target
      ? { reason: 'entry', description: program.entryDescription, thread: 1, line: this.displayed(1)?.loc.line, steps: this.steps }
      : { reason: 'entry', description: program.noLaunchDescription, steps: this.steps };
    this.record(stop);
    return stop;
  }

  private async build(): Promise<void> {
    this.stepBase = 0;
    this.target = undefined;
    this.verified = undefined;
    this.program = undefined;
    const program = await this.factory.create({ output: (text, t) => this.programOutput(text, t) });
    this.program = program;
    const first = program.next();
    if (first) {
      this.attach(first);
      return;
    }
    const r = program.result();
    if (r.status !== 'completed') throw new SimError(r.message, undefined, 'error', r.field);
  }

  /** Takes over a launch: listeners, breakpoints, and its blocks launched without running a statement. */
  private attach(target: DebugTarget): void {
    const m = target.machine;
    // Misuse and races become stops (or output) here rather than ending the run.
    m.options.continueOnMisuse = true;
    // The timeline reads the trace: record it from the first statement (recording changes no schedule).
    this.traceRequested = m.tracing;
    m.tracing = true;
    m.listeners.push((e) => this.onMachineEvent(m, e));
    this.target = target;
    this.stepBase = this.program!.steps;
    this.buffers = this.program!.buffers;
    // Breakpoints match statements by identity: a rebuilt launch has new ones.
    this.verified = undefined;
    this.statementLines();
    this.updateHook();
    this.runMachine({ untilSteps: 0 });
  }

  /** Program output (device output carries its thread). */
  private programOutput(text: string, t?: SimThread): void {
    if (this.replaying) return;
    const m = this.target?.machine;
    this.emit('output', { text, category: 'stdout', thread: t && m && t === m.threads[t.index] ? this.ids.id(t) : undefined });
  }

  /**
   * A launch completed: the program runs on to the next launch (true, it is attached) or to its end
   * (false).
   */
  private nextLaunch(r: RunResult): boolean {
    const program = this.program!;
    program.endLaunch(r);
    const next = program.next();
    // After the last launch its segments stay current: stepping back from the end replays them.
    if (!next) return false;
    this.launchSegments.push(this.segments);
    this.segments = [];
    this.attach(next);
    if (!this.replaying) {
      const m = next.machine;
      this.emit('output', { text: `launch ${next.index + 1}: ${next.title} (${m.numBlocks} block(s) × ${m.blockSize} thread(s)); thread ids restart at 1\n`, category: 'console' });
    }
    return true;
  }

  private get machine(): Machine {
    if (!this.target) {
      if (this.program) throw new Error('the program has no parallel region running');
      throw new Error('the debug runtime has not started (call start() first)');
    }
    return this.target.machine;
  }

  /** Which launch runs now (0 for the first; always 0 for a single-launch program). */
  get launchIndex(): number {
    return this.target?.index ?? 0;
  }

  /** Machine threads per debugger thread (32 for a CUDA warp, 1 for a Croqtile thread). */
  get lanesPerThread(): number {
    return this.ids.lanes;
  }

  /** Whether the program's threads hold futures (`futures()` lists them). */
  get hasFutures(): boolean {
    return this.factory.futures;
  }

  // ------------------------------------------------------------------ breakpoints

  /** Replaces the line breakpoints; returns, in order, whether each line has a statement. */
  setBreakpoints(bps: LineBreakpoint[]): { line: number; verified: boolean; message?: string }[] {
    const lines = this.statementLines();
    const out = this.bps.setLines(bps, lines, this.program?.unverifiedLineMessage ?? 'no statement starts on this line');
    this.updateHook();
    return out;
  }

  /** Replaces the barrier breakpoints; each is verified when a barrier of that name exists or may exist. */
  setFunctionBreakpoints(bps: FunctionBreakpoint[]): { name: string; verified: boolean }[] {
    return this.bps.setFunctions(bps);
  }

  /**
   * Replaces the barrier watches (data breakpoints): each stops right after its barrier (label in
   * block) changes phase. Verified when that barrier exists now.
   */
  setBarrierWatches(watches: BarrierWatch[]): (BarrierWatch & { verified: boolean })[] {
    return this.bps.setWatches(watches, this.target?.machine.barriers ?? []);
  }

  setExceptionFilters(filters: ExceptionFilter[]): void {
    this.bps.setFilters(filters);
  }

  /** Zero-based lines where some statement starts (the statements the program's threads run). */
  statementLines(): Set<number> {
    this.verified ??= statementLines(this.program?.statementCode() ?? []);
    return this.verified.lines;
  }

  private updateHook(): void {
    if (!this.target) return;
    const m = this.machine;
    const need = !this.replaying && !this.travelling && (this.bps.hasLines || !!this.step);
    if (need && !m.lineHook) {
      const last = this.lastStop;
      const t = last?.lane !== undefined && last.thread !== undefined ? this.ids.lane(last.thread, last.lane) : undefined;
      this.gate = this.target.statementGate(t);
      m.lineHook = (x, loc) => this.atStatement(x, loc);
    } else if (!need) m.lineHook = undefined;
  }

  /** The line hook: breakpoints and stepping, on shown lanes only. Returns true to stop before `loc`. */
  private atStatement(t: SimThread, loc: SourceLoc): boolean {
    if (this.pendingStop) return true;
    if (!this.gate!.enters(t, loc)) return false;
    const ids = this.ids;
    if (ids.lanes > 1 && ids.laneIndex(t) !== ids.laneOf(ids.id(t))) return false;
    const target = this.target!;
    const s = this.step;
    if (s && s.thread === t) {
      const depth = target.frames(t).length;
      const changed = s.kind === 'out' ? depth < s.depth : s.kind === 'in' ? depth !== s.depth || loc.line !== s.line : depth < s.depth || (depth === s.depth && loc.line !== s.line);
      if (changed) return this.stopBefore(t, { reason: 'step', description: `stepped to line ${loc.line + 1}` }, loc);
    }
    const hit = this.bps.lineHit(loc, this.verified!.starts, target, t);
    if (hit.kind === 'none') return false;
    if (hit.kind === 'log') {
      this.emit('output', { text: hit.text, category: 'console', thread: ids.id(t) });
      return false;
    }
    return this.stopBefore(t, { reason: 'breakpoint', description: hit.description }, loc);
  }

  private stopBefore(t: SimThread, s: { reason: StopReason; description: string }, loc: SourceLoc): true {
    this.pendingStop = { ...s, thread: this.ids.id(t), lane: this.ids.laneIndex(t), line: loc.line, steps: 0 };
    return true;
  }

  private onMachineEvent(m: Machine, e: MachineEvent): void {
    if (m !== this.target?.machine) return;
    if (this.replaying) {
      // The recording paused after every flip (a thread hands control back mid-statement there):
      // the replay must too, to leave every thread where it was.
      if (e.kind === 'phase') m.pause();
      return;
    }
    // Output (host and device) arrives through the program (programOutput).
    if (e.kind === 'print') return;
    const ids = this.ids;
    if (e.kind === 'phase') {
      const b = e.barrier;
      const arriver = e.lastArriver;
      const flip = { barrier: b.label, block: b.block, completed: e.completed, lastArriver: arriver ? ids.arriver(arriver) : undefined };
      this.flipsThisRun.push(flip);
      // Pause after every flip: it is a checkpoint for stepping back.
      m.pause();
      this.emit('flip', { barrier: b.label, block: b.block, oldPhase: e.completed, newPhase: e.completed + 1, lastArriver: flip.lastArriver, thread: arriver ? ids.id(arriver) : undefined, line: arriver?.loc.line, launch: this.launchIndex });
      if (this.pendingStop || this.travelling) return;
      const { fbp, watch } = this.bps.flipHit(b.label, b.block);
      if (fbp || watch || this.bps.has('phase-flip')) {
        // The stop names the last arriver's debugger thread, whose frames show its shown lane: say where the arriving lane is when it is another.
        const lane = arriver ? ids.laneIndex(arriver) : 0;
        const elsewhere = arriver && lane !== ids.laneOf(ids.id(arriver)) ? ` (lane ${lane} arrived at line ${arriver.loc.line + 1}; ':lane ${lane}' shows it)` : '';
        const what = `${b.label}${m.numBlocks > 1 ? ` (block ${b.block})` : ''} completed phase ${e.completed} → phase ${e.completed + 1}${flip.lastArriver ? `; last arrival by ${flip.lastArriver}` : ''}${elsewhere}`;
        this.pendingStop = {
          reason: watch ? 'data' : 'phase-flip',
          description: watch ? `watched barrier ${what}` : what,
          thread: arriver ? ids.id(arriver) : undefined,
          line: arriver?.loc.line,
          barrier: b.label,
          block: b.block,
          oldPhase: e.completed,
          newPhase: e.completed + 1,
          lastArriver: flip.lastArriver,
          hitBreakpoint: fbp ? { kind: 'function', name: fbp.name } : watch ? { kind: 'data', name: watch.label } : undefined,
          steps: 0,
        };
      }
      return;
    }
    const r = e.report;
    if (r.kind !== 'misuse' && r.kind !== 'race') return;
    if (this.bps.has(r.kind) && !this.pendingStop) {
      const t = r.threads.length ? m.threads[r.threads[0]] : undefined;
      // Show the lane the report is about: its frames put the exception at its source line.
      if (t) ids.show(ids.id(t), ids.laneIndex(t));
      this.pendingStop = { reason: r.kind, description: r.message, thread: t ? ids.id(t) : undefined, lane: t ? ids.laneIndex(t) : undefined, line: r.loc?.line, report: r, steps: 0 };
      m.pause();
    } else this.emit('output', { text: `${r.message}\n`, category: 'stderr' });
  }

  // ------------------------------------------------------------------ execution

  /** Runs until a stop (breakpoint, flip filter, report, end). */
  continue(): Promise<DebugStop> {
    return this.drive(undefined);
  }

  stepOver(thread: number, options: StepOptions = {}): Promise<DebugStop> {
    return this.stepKind('over', thread, options);
  }

  stepIn(thread: number, options: StepOptions = {}): Promise<DebugStop> {
    return this.stepKind('in', thread, options);
  }

  stepOut(thread: number, options: StepOptions = {}): Promise<DebugStop> {
    return this.stepKind('out', thread, options);
  }

  /** Asks a running `continue`/step to stop at its next slice boundary (reason `pause`). */
  pause(): void {
    this.pauseRequested = true;
  }

  private stepKind(kind: StepTarget['kind'], thread: number, options: StepOptions): Promise<DebugStop> {
    if (this.exited || !this.target) return this.drive(undefined);
    const t = this.displayed(thread);
    if (!t) throw new Error(`no thread ${thread}`);
    if (t.status === 'done' || t.status === 'faulted') return Promise.resolve(this.stopAt({ reason: 'step', thread, description: `${this.ids.label(t)} has exited`, steps: 0 }));
    // The line of the lane's pc (after a replay `t.loc` may still name the statement before it).
    const frames = this.target.frames(t);
    return this.drive({ kind, single: options.singleThread === true, id: thread, thread: t, depth: frames.length, line: frames[0]?.loc.line ?? t.loc.line });
  }

  private async drive(step: StepTarget | undefined): Promise<DebugStop> {
    if (this.exited || !this.target || this.machine.isFinished) return this.finish();
    this.step = step;
    this.pauseRequested = false;
    this.updateHook();
    let start = this.steps;
    try {
      for (;;) {
        const m = this.machine;
        const r = step?.single ? this.runFrozen(step) : this.runMachine({ untilSteps: m.steps + (step ? STEP_SLICE : SLICE) });
        if (!r) return this.stopAt(this.frozenStop(step!));
        if (r.status === 'completed') {
          if (!this.nextLaunch(r)) return this.programEnd();
          this.updateHook();
          if (step) {
            const l = this.target!;
            return this.stopAt({ reason: 'step', thread: 1, line: this.displayed(1)?.loc.line, description: `launch ${l.index + 1} started: ${l.title}`, steps: 0 });
          }
          start = this.steps;
          continue;
        }
        if (r.status !== 'paused') return this.terminal(r);
        if (this.pendingStop) {
          const stop = this.pendingStop;
          this.pendingStop = undefined;
          return this.stopAt(stop);
        }
        if (this.flipsThisRun.length) {
          this.record(undefined);
          continue;
        }
        if (step) {
          const t = step.thread;
          if (t.status === 'done' || t.status === 'faulted') return this.stopAt({ reason: 'step', thread: step.id, description: `${this.ids.label(t)} exited`, steps: 0 });
          if (this.steps - start >= STEP_BUDGET)
            return this.stopAt({
              reason: 'step',
              thread: step.id,
              line: t.loc.line,
              description: t.status === 'blocked' && t.wait ? `${this.ids.label(t)} is still waiting on ${t.wait.describe()} after ${STEP_BUDGET} statements` : `the step did not reach another line within ${STEP_BUDGET} statements`,
              steps: 0,
            });
        }
        if (this.pauseRequested) return this.stopAt({ reason: 'pause', description: 'paused', thread: step?.id ?? 1, steps: 0 });
        // Let the event loop deliver `pause` (and keep the host responsive) between slices.
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } finally {
      this.step = undefined;
      this.updateHook();
    }
  }

  /** One `Machine.run`, recorded as a segment; flips it saw make a checkpoint. */
  private runMachine(limits: { untilSteps?: number; budget?: number; thread?: SimThread; frozen?: boolean }): RunResult {
    const m = this.machine;
    this.flipsThisRun = [];
    const quanta = m.quanta;
    const r = m.run(limits);
    this.segments.push(segmentOf(m, quanta, limits));
    if (!this.traceRequested && m.tracing && m.trace.length > TIMELINE_EVENT_LIMIT) m.tracing = false;
    return r;
  }

  /**
   * One slice of a single-thread step: the thread's lanes that can run take turns (the shown lane
   * first), a quantum each, until STEP_SLICE statements ran, a run stops (hook, flip, report, pause)
   * or no lane can run. When none can and async work is in flight, its next completion lands (a
   * frozen `Machine.run` on a blocked lane: time jumps, no other thread runs) and the lanes are tried
   * again. Undefined when no lane could run and nothing was in flight: they wait on frozen threads.
   */
  private runFrozen(step: StepTarget): RunResult | undefined {
    const m = this.machine;
    const lanes = this.ids.lanesOf(step.id);
    const order = [step.thread, ...lanes.filter((l) => l !== step.thread)];
    // A blocked lane whose wait is met is woken by the machine before it runs (at the top of `run`).
    const runnable = (l: SimThread) => l.status === 'ready' || (l.status === 'blocked' && !!l.wait?.ready());
    const end = m.steps + STEP_SLICE;
    let ran = false;
    const turn = (lane: SimThread): RunResult | undefined => {
      ran = true;
      const r = this.runMachine({ thread: lane, budget: Math.min(m.quantum, end - m.steps), frozen: true });
      if (r.status !== 'paused' || this.pendingStop || this.flipsThisRun.length || this.pauseRequested || m.steps >= end) return r;
      if (step.thread.status === 'done' || step.thread.status === 'faulted') return r;
      return undefined;
    };
    for (;;) {
      let any = false;
      for (const lane of order) {
        if (!runnable(lane)) continue;
        any = true;
        const r = turn(lane);
        if (r) return r;
      }
      if (any) continue;
      // Async engines are not threads: a copy or MMA in flight lands even while the others are frozen.
      const blocked = order.find((l) => l.status === 'blocked');
      if (!blocked || !m.asyncInFlight.length) return ran ? { status: 'paused' } : undefined;
      const r = turn(blocked);
      if (r) return r;
    }
  }

  /** The stop of a single-thread step none of whose lanes can run. */
  private frozenStop(step: StepTarget): DebugStop {
    const t = step.thread;
    if (t.status === 'done' || t.status === 'faulted') return { reason: 'step', thread: step.id, description: `${this.ids.label(t)} exited`, steps: 0 };
    const lane = t.status === 'blocked' ? t : (this.ids.lanesOf(step.id).find((l) => l.status === 'blocked') ?? t);
    const line = this.target!.frames(lane)[0]?.loc.line ?? lane.loc.line;
    const wait = lane.wait?.describe();
    const what = wait ? `waits on ${wait}${/ at line \d+/.test(wait) ? '' : ` at line ${line + 1}`}` : `cannot run at line ${line + 1}`;
    const who = lane === step.thread ? this.ids.label(lane) : this.ids.arriver(lane);
    // The step lands async work in flight before it gives up, so only the frozen threads are left.
    return { reason: 'step', thread: step.id, description: `${who} ${what}, which only the other threads can release, and a single-thread step froze them: continue, or step without singleThread`, steps: 0 };
  }

  private record(stop: DebugStop | undefined): void {
    const flip = this.flipsThisRun[this.flipsThisRun.length - 1];
    this.checkpoints.push({ launch: this.launchIndex, segment: this.segments.length - 1, steps: this.steps, cycles: this.target?.machine.cycles ?? 0, fingerprint: this.fingerprint(), stop, flip });
    this.flipsThisRun = [];
  }

  private fingerprint(): string {
    return this.target ? `launch ${this.launchIndex}, ${fingerprint(this.target.machine)}, total ${this.steps}` : `no launch, ${this.steps}`;
  }

  private stopAt(stop: DebugStop): DebugStop {
    stop.steps = this.steps;
    this.placeStop(stop);
    this.record(stop);
    this.lastStop = stop;
    this.emit('stopped', stop);
    return stop;
  }

  /** Points the stop at its thread's top frame (the shown lane's pc: `loc` may still name the statement before it). */
  private placeStop(stop: DebugStop): void {
    if (stop.thread === undefined) return;
    const shown = this.displayed(stop.thread);
    const top = shown && shown.status !== 'done' && shown.status !== 'faulted' ? this.target?.frames(shown)[0] : undefined;
    if (top) stop.line = top.loc.line;
    else stop.line ??= shown?.loc.line;
  }

  private terminal(r: RunResult): DebugStop {
    const m = this.machine;
    const report = r.report;
    if (this.program?.launchRunning) this.program.endLaunch(r);
    if (r.status === 'deadlock') {
      const stop: DebugStop = { reason: 'deadlock', description: report?.message ?? 'deadlock', report, blocked: blockedThreads(m, report, this.ids), steps: this.steps };
      stop.thread = stop.blocked?.[0]?.thread;
      stop.line = stop.blocked?.[0]?.line;
      if (!this.bps.has('deadlock')) return this.finish(stop);
      this.terminalStop = stop;
      return this.stopAt(stop);
    }
    const reason: StopReason = r.status === 'step-limit' ? 'step-limit' : 'error';
    const t = report?.threads.length ? m.threads[report.threads[0]] : undefined;
    if (t) this.ids.show(this.ids.id(t), this.ids.laneIndex(t));
    this.terminalStop = { reason, description: report?.message ?? r.status, report, thread: t ? this.ids.id(t) : undefined, lane: t ? this.ids.laneIndex(t) : undefined, line: report?.loc?.line, steps: this.steps };
    return this.stopAt(this.terminalStop);
  }

  /** The program ended after its last launch: completed, or failed there (host code after it). */
  private programEnd(): DebugStop {
    const r = this.program!.result();
    if (r.status === 'completed') return this.finish();
    const reason: StopReason = r.status === 'step-limit' ? 'step-limit' : 'error';
    this.terminalStop = { reason, description: r.message, report: r.report, line: r.report?.loc?.line, steps: this.steps };
    return this.stopAt(this.terminalStop);
  }

  /** The end of the run: `exited` is emitted once; later calls return the same stop. */
  private finish(stop?: DebugStop): DebugStop {
    if (this.exited && this.lastStop) return this.lastStop;
    // The program ends here only once it has (after its last launch and what runs after it).
    const completed = (): DebugStop => ({ reason: 'completed', description: this.program?.done ? this.program.result().message : 'completed', steps: this.steps });
    const done = stop ?? this.terminalStop ?? completed();
    this.exited = true;
    this.lastStop = done;
    // The end is a checkpoint too (stepping back from it goes to the stop before), unless it was
    // already recorded as a stop.
    if (!this.terminalStop) this.record(done);
    const status = done.reason === 'completed' ? 'completed' : done.reason === 'deadlock' ? 'deadlock' : done.reason === 'step-limit' ? 'step-limit' : 'error';
    this.emit('exited', { status, message: done.description });
    return done;
  }

  // ------------------------------------------------------------------ time travel

  /** Goes back to the previous checkpoint (phase flip or stop); at the first one, to the entry. */
  stepBack(): Promise<DebugStop> {
    return this.goBack(() => true, false);
  }

  /** Goes back to the previous stop that was not a step (breakpoint, flip filter, report), or the entry. */
  reverseContinue(): Promise<DebugStop> {
    return this.goBack((c) => !!c.stop && c.stop.reason !== 'step' && c.stop.reason !== 'pause', true);
  }

  /** The last checkpoint is where the machine is now; look before it. */
  private async goBack(wanted: (c: Checkpoint) => boolean, keepReason: boolean): Promise<DebugStop> {
    let i = this.checkpoints.length - 2;
    while (i > 0 && !wanted(this.checkpoints[i])) i--;
    if (i < 0) i = 0;
    return this.replayTo(i, keepReason);
  }

  /** Rebuilds from the request and replays the recorded segments up to checkpoint `index`. */
  private async replayTo(index: number, keepReason: boolean, announce = true): Promise<DebugStop> {
    this.keepHorizon();
    const target = this.checkpoints[index];
    const current = this.launchIndex;
    const recorded = target.launch === current ? this.segments : this.launchSegments[target.launch];
    const segments = recorded.slice(0, target.segment + 1);
    const before = { target: this.target, segments: this.segments, program: this.program, buffers: this.buffers, launchSegments: this.launchSegments, stepBase: this.stepBase };
    this.replaying = true;
    this.segments = [];
    this.launchSegments = [];
    try {
      await this.build();
      // The launches before the target's run to their end.
      while (this.launchIndex < target.launch) {
        let r = this.machine.run();
        while (r.status === 'paused') r = this.machine.run();
        if (r.status !== 'completed' || !this.nextLaunch(r)) throw new Error(`replay diverged: launch ${this.launchIndex + 1} ended (${r.status}) differently than recorded`);
      }
      if (this.target) {
        const m = this.machine;
        for (let s = 1; s < segments.length; s++) {
          const seg = segments[s];
          // A call that ended at a flip ran until the flip paused it (which may come after its last
          // statement, when an async completion flips); the replay pauses there too. Other calls end
          // at their statement count.
          const atFlip = seg.flips > segments[s - 1].flips;
          const thread = seg.thread !== undefined ? m.threads[seg.thread] : undefined;
          const r = replaySegment(m, seg, seg.steps - segments[s - 1].steps, atFlip, thread);
          this.segments.push({ ...seg });
          if (r.status !== 'paused' && s < segments.length - 1) throw new Error(`replay diverged: the run ended (${r.status}) at ${this.stepBase + m.steps} statements, before the recorded stop at ${target.steps}`);
        }
      }
      const fp = this.fingerprint();
      if (fp !== target.fingerprint) throw new Error(`replay diverged: expected ${target.fingerprint}, got ${fp} (the schedule is not reproducible under this policy)`);
    } catch (e) {
      // Stay where we were: the old machine is untouched.
      this.replaying = false;
      Object.assign(this, before);
      this.verified = undefined;
      this.statementLines();
      if (this.target) this.machine.lineHook = undefined;
      this.updateHook();
      throw e;
    } finally {
      this.replaying = false;
    }
    this.launchSegments = before.launchSegments.slice(0, target.launch);
    this.checkpoints = this.checkpoints.slice(0, index + 1);
    this.exited = false;
    this.terminalStop = undefined;
    this.pendingStop = undefined;
    this.flipsThisRun = [];
    const base = target.stop ?? {
      reason: 'step' as const,
      description: target.flip ? `back at the flip of ${target.flip.barrier}: phase ${target.flip.completed} → ${target.flip.completed + 1}` : 'stepped back',
      barrier: target.flip?.barrier,
      block: target.flip?.block,
      oldPhase: target.flip?.completed,
      newPhase: target.flip ? target.flip.completed + 1 : undefined,
      lastArriver: target.flip?.lastArriver,
      steps: target.steps,
    };
    // Stepping back reports a step (DAP's convention); reverse-continue, the stop it lands on.
    const stop: DebugStop = { ...base, reason: base.reason === 'entry' || keepReason ? base.reason : 'step', steps: target.steps };
    // Installed afresh, so a lane stopped before (or blocked in) a statement does not stop there again.
    this.lastStop = stop;
    this.updateHook();
    if (announce) this.emit('stopped', stop);
    return stop;
  }

  /**
   * Travels to simulated cycle `cycle` of the current launch: back to the last checkpoint (phase flip
   * or stop) at or before it by replay, then forward, statement slice by slice, until the clock (the
   * furthest any thread got) reaches it. Breakpoints and the phase-flip filter do not stop the trip;
   * misuse and races do, and so does the end of the launch or a deadlock.
   */
  async travelTo(cycle: number): Promise<DebugStop> {
    if (!this.target) throw new Error('no launch is running: there is no time to travel in');
    if (!Number.isFinite(cycle) || cycle < 0) throw new Error(`a time to travel to is a cycle ≥ 0, got ${cycle}`);
    const launch = this.launchIndex;
    let back: DebugStop | undefined;
    if (cycle < this.machine.cycles) {
      let i = -1;
      for (let k = this.checkpoints.length - 1; k >= 0; k--) {
        const c = this.checkpoints[k];
        if (c.launch === launch && c.cycles <= cycle) {
          i = k;
          break;
        }
        if (c.launch < launch) break;
      }
      // Before the launch's first checkpoint: its first one (the entry, or where the launch began).
      if (i < 0) i = Math.max(0, this.checkpoints.findIndex((c) => c.launch === launch));
      back = await this.replayTo(i, false, false);
    }
    if (this.exited || !this.target || this.machine.cycles >= cycle) {
      const stop: DebugStop = { ...(back ?? this.lastStop ?? { reason: 'step', steps: this.steps }), reason: 'step', description: `travelled to cycle ${this.target?.machine.cycles ?? 0}${back?.barrier ? ` (${back.description})` : ''}`, steps: this.steps };
      this.lastStop = stop;
      this.placeStop(stop);
      this.emit('stopped', stop);
      return stop;
    }
    return this.runForwardTo(cycle, back?.thread ?? this.lastStop?.thread);
  }

  private async runForwardTo(cycle: number, thread: number | undefined): Promise<DebugStop> {
    this.travelling = true;
    this.pauseRequested = false;
    this.updateHook();
    try {
      for (;;) {
        const m = this.machine;
        if (m.cycles >= cycle) break;
        // Statements per cycle so far estimate how far to run before looking at the clock again.
        const rate = m.steps / Math.max(1, m.cycles);
        const r = this.runMachine({ untilSteps: m.steps + Math.max(TRAVEL_SLICE, Math.min(SLICE, Math.floor(((cycle - m.cycles) * rate) / 2))) });
        if (r.status === 'completed') return this.nextLaunch(r) ? this.stopAt({ reason: 'step', thread: 1, description: `launch ${this.target!.index + 1} started: ${this.target!.title}`, steps: 0 }) : this.programEnd();
        if (r.status !== 'paused') return this.terminal(r);
        if (this.pendingStop) {
          const stop = this.pendingStop;
          this.pendingStop = undefined;
          return this.stopAt(stop);
        }
        if (this.flipsThisRun.length) this.record(undefined);
        if (this.pauseRequested) return this.stopAt({ reason: 'pause', description: 'paused', thread: thread ?? 1, steps: 0 });
        await new Promise((resolve) => setTimeout(resolve, 0));
      }
    } finally {
      this.travelling = false;
      this.updateHook();
    }
    return this.stopAt({ reason: 'step', description: `travelled to cycle ${this.machine.cycles}`, thread: thread ?? 1, steps: 0 });
  }

  /** Keeps the current launch's trace as the horizon when it is the longest recorded. */
  private keepHorizon(): void {
    if (!this.target) return;
    const events = this.machine.trace;
    const h = this.horizon;
    if (h && h.launch === this.launchIndex && h.events.length > events.length && samePrefix(events, h.events)) return;
    this.horizon = { launch: this.launchIndex, events };
  }

  /**
   * The barrier timeline of the current launch: every event recorded so far, and after travelling
   * back the recorded future too, with the cursor at the machine's clock. `sourceLine` gives the
   * text of a line for the tooltips.
   */
  timeline(options: { title?: string; sourceLine?: (at: TimelineSource) => string | undefined } = {}): TimelineModel {
    if (!this.target) return buildTimeline([], { title: options.title });
    this.keepHorizon();
    const m = this.machine;
    const program = this.program!;
    const stopped = !m.tracing ? ` (the timeline stopped recording after ${m.trace.length} events)` : '';
    const title = `${options.title ?? this.target.title}${stopped}`;
    const launch = this.launchIndex;
    const place = (i: number): TraceThread | undefined => {
      const key = `${launch}:${i}`;
      const now = m.threads[i] ? program.traceThread(m.threads[i]) : undefined;
      const before = this.placements.get(key);
      if (now && (now.role !== undefined || !before)) this.placements.set(key, now);
      return now?.role !== undefined ? now : (before ?? now);
    };
    return buildTimeline(this.horizon!.events, { thread: place, cursor: m.cycles, title, sourceLine: options.sourceLine });
  }

  // ------------------------------------------------------------------ state

  /** Statements run so far (the whole program's: host code and earlier launches included). */
  get steps(): number {
    // Between and after launches the program counts (host code after the last one too).
    if (this.program && !this.program.launchRunning) return this.program.steps;
    return this.stepBase + (this.target?.machine.steps ?? 0);
  }

  /** Debugger threads per block (warps for CUDA, simulated threads for Croqtile). */
  get warpsPerBlock(): number {
    return this.ids.perBlock;
  }

  /** Shows (and follows) another lane of a debugger thread. */
  setLane(thread: number, lane: number): void {
    this.factory.checkLane(lane);
    if (this.ids.lanes > 1) this.ids.show(thread, lane);
  }

  /** The shown lane's machine thread of debugger thread `id` (undefined when it does not exist). */
  displayed(id: number): SimThread | undefined {
    return this.ids.displayed(id);
  }

  threads(): DebugThread[] {
    return this.ids.all();
  }

  /** One debugger thread (what `threads()` lists), without listing the others. */
  thread(id: number): DebugThread | undefined {
    return this.target && this.displayed(id) ? this.ids.describe(id) : undefined;
  }

  /** The current launch's grid and block, when a launch runs. */
  geometry(): { grid: [number, number, number]; block: [number, number, number] } | undefined {
    const m = this.target?.machine;
    return m ? { grid: [...m.grid], block: [...m.blockDim] } : undefined;
  }

  /** Blocks in the current launch's grid (views name the block only when there are several). */
  get numBlocks(): number {
    return this.machine.numBlocks;
  }

  /**
   * Call frames of the thread's shown lane, innermost first. A lane that faulted (an unsupported
   * construct, an out-of-bounds access) has none left: at the stop that reports it, its one frame is
   * where the report points, so the editor opens the exception there.
   */
  frames(thread: number): FrameInfo[] {
    const t = this.displayed(thread);
    const frames = (t && this.target?.frames(t)) || [];
    const stop = this.lastStop;
    const loc = stop?.report?.loc;
    if (!loc || !t || stop.thread !== thread || stop.steps !== this.steps || stop.lane !== this.ids.laneIndex(t)) return frames;
    if (!frames.length) return [{ name: loc.func ?? this.target?.title ?? 'kernel', loc }];
    // A lane paused right after the statement it misused (or raced in): its top frame shows that statement.
    if (frames[0].loc.func === loc.func && frames[0].loc.file === loc.file) return [{ ...frames[0], loc }, ...frames.slice(1)];
    return frames;
  }

  locals(thread: number, frame = 0): LocalInfo[] {
    const t = this.displayed(thread);
    return (t && this.target?.locals(t, frame)) || [];
  }

  /** Evaluates an expression (the Watch/hover language of conditions) in a thread's shown lane. */
  evaluate(thread: number, expr: string, frame = 0): number {
    const t = this.displayed(thread);
    if (!t || !this.target) throw new Error(`no thread ${thread}`);
    return this.target.evaluator(t, frame)(expr);
  }

  /**
   * A variable (a local's formatted value) or an expression (evaluated) in every lane of a thread:
   * 32 entries for a full CUDA warp, one for Croqtile. A lane where it cannot be evaluated shows why.
   */
  laneValues(thread: number, name: string, frame = 0): { lane: number; value: string }[] {
    if (!this.displayed(thread)) throw new Error(`no thread ${thread}`);
    const target = this.target!;
    const out: { lane: number; value: string }[] = [];
    for (const t of this.ids.lanesOf(thread)) {
      const local = target.locals(t, frame).find((l) => l.name === name.trim());
      let value: string;
      if (local) value = local.value;
      else {
        try {
          value = String(target.evaluator(t, frame)(name));
        } catch (e) {
          value = `<${(e as Error).message}>`;
        }
      }
      out.push({ lane: this.ids.laneIndex(t), value });
    }
    return out;
  }

  barriers(): BarrierView[] {
    return this.target ? barrierViews(this.machine, this.ids) : [];
  }

  asyncOps(): AsyncOpView[] {
    return this.target ? asyncOpViews(this.machine, this.ids) : [];
  }

  /** Futures every live thread holds (in flight, landed, or waited); `[]` for languages without them. */
  futures(): FutureView[] {
    return this.target ? futureViews(this.machine, this.target, this.ids) : [];
  }

  /** Shared-memory buffers of a block (CUDA: static `__shared__` variables, then dynamic shared memory). */
  sharedMemory(block: number): SharedBufferView[] {
    if (!this.target || !this.machine.blockAt(block)?.state) return [];
    const inBuffer = barriersByBuffer(this.machine, this.barriers(), block);
    return sharedBufferViews(block, this.target.sharedBuffers(block), (buf) => inBuffer.get(buf) ?? []);
  }

  /** Global buffers bound to the kernel's (or program's) arguments. */
  globals(): BufferView[] {
    return globalBufferViews((this.target ? this.buffers : this.program?.buffers) ?? []);
  }

  /**
   * Elements `[start, start + count)` of a buffer a view named (`BufferView.key`), decoded by its
   * dtype; at most 1,000 when no count is given. Keys hold while the machine stays stopped.
   */
  bufferElements(key: string, start = 0, count?: number): { index: number; value: string }[] {
    const m = /^shared:(\d+):/.exec(key);
    const view = (m ? this.sharedMemory(Number(m[1])) : this.globals()).find((b) => b.key === key);
    return view ? bufferElements(view, start, count) : [];
  }

  /**
   * The trace recorded so far (empty unless the request asked for `trace`): every launch so far,
   * renumbered and laid end to end, so one Chrome trace shows the whole program.
   */
  trace(): DebugTrace {
    const program = this.program;
    if (!this.traceRequested) return { events: [], thread: () => undefined, launches: program?.launches.length ?? 0 };
    return mergedTrace(program?.launches ?? [], (t) => program!.traceThread(t));
  }
}

/** Whether `short` is the start of `long` (the schedule is deterministic: its last event suffices, with its first). */
function samePrefix(short: readonly TraceEvent[], long: readonly TraceEvent[]): boolean {
  if (!short.length) return true;
  const who = (e: TraceEvent) => (e.kind === 'phase' ? e.lastArriver : e.thread);
  const same = (a: TraceEvent, b: TraceEvent) => a.kind === b.kind && a.time === b.time && who(a) === who(b);
  return same(short[0], long[0]) && same(short[short.length - 1], long[short.length - 1]);
}
