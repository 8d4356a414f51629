// The Phaseflip debug session: a Debug Adapter Protocol server over the simulator's debug runtime
// (core/debug/runtime.ts). It only translates: launch arguments → a SimulateRequest, DAP requests →
// runtime calls, runtime stops and output → DAP events, zero-based lines → the client's. Runs inline
// in the VS Code extension and standalone over stdio (`phaseflip dap`, debugger/main.ts).
import * as fs from 'node:fs';
import * as path from 'node:path';
import { PassThrough } from 'node:stream';
import {
  Breakpoint,
  Event,
  ExitedEvent,
  Handles,
  InitializedEvent,
  InvalidatedEvent,
  LoggingDebugSession,
  OutputEvent,
  ProgressEndEvent,
  ProgressStartEvent,
  ProgressUpdateEvent,
  Source,
  StackFrame,
  StoppedEvent,
  TerminatedEvent,
  Response,
  Thread,
  ThreadEvent,
} from '@vscode/debugadapter';
import type { DebugProtocol } from '@vscode/debugprotocol';
import { type DebugRuntime, type DebugStop, type ExceptionFilter, type PhaseFlip, type TimelineSource, createDebugRuntime, preloadLanguages, toChromeTrace, withCommas } from '../core/index';
import { LaunchConfigError, type LaunchPlan, type PhaseflipLaunchArguments, planLaunch, simErrorAsConfigError } from './launch-config';
import { FrameReader, argumentProblem, messageProblem } from './frames';
import { type BreakpointIds, DEFAULT_FILTERS, EXCEPTION_FILTERS, exceptionInfo, toDapStop } from './stops';
import { LANE_VARIABLE, VariableStore, barrierSummary } from './variables';

/** How long a `continue` runs before the client gets a progress notification. */
const PROGRESS_AFTER_MS = 500;
/** How often a running session tells a client that watches the timeline that it changed. */
const TIMELINE_TICK_MS = 1000;
/**
 * The barrier timeline's custom requests and event (the editor's timeline panel uses them):
 * `phaseflip/timeline` answers `{ model }` (core's TimelineModel, lines zero-based);
 * `phaseflip/travel` `{ cycle }` travels there and stops (a `stopped` event, reason `step`);
 * `phaseflip/timelineChanged` (event, `{ running }`) follows every stop and, once a client asked for the
 * timeline, ticks while the kernel runs.
 */
export const TIMELINE_REQUEST = 'phaseflip/timeline';
export const TRAVEL_REQUEST = 'phaseflip/travel';
export const TIMELINE_EVENT = 'phaseflip/timelineChanged';

/** Lines a breakpoint may move down over blank lines, comments and `{` to reach a statement. */
const MAX_BREAKPOINT_MOVE = 5;

const REPL_HELP = `Phaseflip debug console:
  EXPR            evaluate in the selected frame's lane: locals, threadIdx.x, blockIdx.x, lane, warp,
                  numbers, + - * / %, comparisons, && || ! and parentheses
  NAME@lanes      the value of local NAME in all 32 lanes of the selected warp
  BARRIER         a barrier's state (full[1]), or every barrier of an array (full)
  BUFFER          a shared-memory or global buffer
  :lane N         show lane N of the selected warp (its frames, locals, breakpoints and steps)
  :lane           which lane is shown
  :help           this text
`;

export class PhaseflipDebugSession extends LoggingDebugSession {
  private rt?: DebugRuntime;
  private plan?: LaunchPlan;
  private launchArgs?: PhaseflipLaunchArguments;
  private readonly vars = new VariableStore(() => this.rt);
  private readonly frames = new Handles<{ thread: number; frame: number }>();
  private client: { progress: boolean; invalidated: boolean } = { progress: false, invalidated: false };
  private configurationDone?: () => void;
  private readonly configured = new Promise<void>((resolve) => (this.configurationDone = resolve));
  private nextId = 1;
  private ids: BreakpointIds = { lines: [], functions: [], data: [] };
  /** The last configuration requests, re-applied to a restarted runtime. */
  private lineArgs?: DebugProtocol.SetBreakpointsArguments;
  private functionNames: string[] = [];
  private filters: ExceptionFilter[] = [...DEFAULT_FILTERS];
  private watches: { label: string; block: number }[] = [];
  private lastStop?: DebugStop;
  /** The Croqtile launch whose threads the client was last told about, and their ids. */
  private shownLaunch = 0;
  private shownThreads: number[] = [];
  /** The warp the last stop concerned: evaluate without a frame runs in it. */
  private focus = 1;
  private running = false;
  private ended = false;
  private exit?: { status: string; message: string };
  private terminated = false;
  private progressId?: string;
  /** Bumped on restart: a run of the old runtime must not report into the new one. */
  private generation = 0;
  /** Whether `initialize` was answered: other requests before it are refused (disconnect excepted). */
  private initializeSeen = false;
  /** Whether a client asked for the timeline (then it hears of changes while the kernel runs). */
  private timelineWanted = false;
  /** Source texts (the program's under '', headers by path) the timeline's tooltips quote, read once per launch. */
  private readonly sourceTexts = new Map<string, string[] | undefined>();

  constructor() {
    super();
    // The engine's lines and columns are zero-based; the base class converts to the client's.
    this.setDebuggerLinesStartAt1(false);
    this.setDebuggerColumnsStartAt1(false);
    // Load the CUDA grammar (WASM), the simulator and the debug targets while the client is still initializing: the launch needs them.
    void preloadLanguages();
  }

  // ------------------------------------------------------------------ protocol

  /**
   * Reads the client's frames with our own bounded reader (debugger/frames.ts) instead of the
   * library's, which exits the process on a frame that is not JSON and buffers any Content-Length.
   * The library still writes the output; its input is a stream that never carries anything.
   */
  override start(inStream: NodeJS.ReadableStream, outStream: NodeJS.WritableStream): void {
    super.start(new PassThrough(), outStream);
    const reader = new FrameReader({ message: (m) => this.handleMessage(m as DebugProtocol.ProtocolMessage), problem: (text) => this.malformed(text) });
    inStream.on('data', (chunk: Buffer | string) => reader.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk));
    inStream.on('close', () => this.shutdown());
    inStream.on('error', () => this.shutdown());
    inStream.resume();
  }

  /**
   * Every message passes here, from the stdio reader or from VS Code inline: what is not a DAP message
   * is answered (an error response when it names a request to answer, else an output event) and the
   * session goes on.
   */
  override handleMessage(message: DebugProtocol.ProtocolMessage): void {
    const problem = messageProblem(message);
    if (problem) {
      const m = message as unknown as Record<string, unknown> | null;
      const seq = m && typeof m === 'object' && m.type === 'request' && typeof m.seq === 'number' && Number.isInteger(m.seq) ? m.seq : undefined;
      if (seq === undefined) this.malformed(problem);
      else this.refuse({ seq, command: typeof m!.command === 'string' ? m!.command : '' }, 1010, problem);
      return;
    }
    if (message.type === 'request') {
      const request = message as DebugProtocol.Request;
      // `arguments` is optional for every request; the handlers read fields of it.
      request.arguments ??= {};
      if (request.command === 'initialize') {
        // pathFormat is optional and defaults to 'path' (the library refuses it when absent).
        const args = request.arguments as DebugProtocol.InitializeRequestArguments;
        if (args.pathFormat === undefined) request.arguments = { ...args, pathFormat: 'path' };
        this.initializeSeen = true;
      } else if (!this.initializeSeen && request.command !== 'disconnect' && request.command !== 'terminate') {
        this.refuse(request, 1011, `'${request.command}' before 'initialize': send 'initialize' first`);
        return;
      }
      const missing = argumentProblem(request.command, request.arguments as Record<string, unknown>);
      if (missing) {
        this.refuse(request, 1012, missing);
        return;
      }
    }
    super.handleMessage(message);
  }

  /** A handler that throws answers its request with an error and the session goes on (never a crash). */
  protected override dispatchRequest(request: DebugProtocol.Request): void {
    try {
      super.dispatchRequest(request);
    } catch (e) {
      this.refuse(request, 1015, `internal error in the debug adapter while handling '${request.command}': ${e instanceof Error ? e.message : String(e)}`);
    }
  }

  /** The timeline's requests; others the adapter does not know get an error response that names them. */
  protected override customRequest(command: string, response: DebugProtocol.Response, args: unknown): void {
    if (command === TIMELINE_REQUEST) {
      this.guard(response, () => {
        const rt = this.runtime(response);
        if (!rt) return;
        this.timelineWanted = true;
        response.body = { model: rt.timeline({ title: this.timelineTitle(), sourceLine: (at) => this.sourceLine(at) }) };
        this.sendResponse(response);
      });
      return;
    }
    if (command === TRAVEL_REQUEST) {
      const cycle = (args as { cycle?: unknown } | undefined)?.cycle;
      if (typeof cycle !== 'number' || !Number.isFinite(cycle) || cycle < 0) {
        this.sendErrorResponse(response, { id: 1016, format: `'${TRAVEL_REQUEST}' needs 'cycle', a number ≥ 0`, showUser: false });
        return;
      }
      if (this.running) {
        this.sendErrorResponse(response, { id: 2005, format: 'the kernel is running: pause it before travelling in time', showUser: true });
        return;
      }
      void this.guardAsync(response, () => this.travel(response, (rt) => rt.travelTo(cycle)));
      return;
    }
    this.sendErrorResponse(response, { id: 1014, format: `unknown request '${command}'`, showUser: false });
  }

  private timelineTitle(): string {
    const plan = this.plan;
    return plan ? [path.basename(plan.programPath), plan.request.kernel].filter(Boolean).join(' · ') : '';
  }

  /** The text of a source line for the timeline's tooltips (the program's, or a header's). */
  private sourceLine(at: TimelineSource): string | undefined {
    if (!this.plan) return undefined;
    const file = at.file ?? '';
    if (!this.sourceTexts.has(file)) {
      let lines: string[] | undefined;
      try {
        lines = (at.file === undefined ? this.plan.request.text : fs.readFileSync(at.file, 'utf8')).split('\n');
      } catch {
        lines = undefined;
      }
      this.sourceTexts.set(file, lines);
    }
    return this.sourceTexts.get(file)?.[at.line];
  }

  private timelineChanged(): void {
    this.sendEvent(new Event(TIMELINE_EVENT, { running: this.running }));
  }

  /** An error response to a request that never reached a handler. */
  private refuse(request: { seq: number; command: string }, id: number, text: string): void {
    const response = new Response({ seq: request.seq, type: 'request', command: request.command });
    this.sendErrorResponse(response, { id, format: text.replace(/[{}]/g, (c) => (c === '{' ? '(' : ')')), showUser: false });
  }

  /** Input that is no message to answer: the client hears of it on its error output. */
  private malformed(text: string): void {
    this.sendEvent(new OutputEvent(`Phaseflip: ignored malformed DAP input: ${text}\n`, 'stderr'));
  }

  // ------------------------------------------------------------------ lifecycle

  protected override initializeRequest(response: DebugProtocol.InitializeResponse, args: DebugProtocol.InitializeRequestArguments): void {
    this.client = { progress: args.supportsProgressReporting === true, invalidated: args.supportsInvalidatedEvent === true };
    response.body = {
      ...response.body,
      supportsConfigurationDoneRequest: true,
      supportsStepBack: true,
      supportsConditionalBreakpoints: true,
      supportsHitConditionalBreakpoints: true,
      supportsLogPoints: true,
      supportsFunctionBreakpoints: true,
      exceptionBreakpointFilters: EXCEPTION_FILTERS,
      supportsExceptionInfoRequest: true,
      supportsDataBreakpoints: true,
      supportsEvaluateForHovers: true,
      supportsSetVariable: true,
      supportsTerminateRequest: true,
      supportsRestartRequest: true,
      supportsDelayedStackTraceLoading: true,
      supportsCancelRequest: true,
      // next/stepIn/stepOut with singleThread run only that warp's lanes (Croqtile: that thread).
      supportsSingleThreadExecutionRequests: true,
    };
    this.sendResponse(response);
  }

  protected override configurationDoneRequest(response: DebugProtocol.ConfigurationDoneResponse): void {
    this.configurationDone?.();
    this.sendResponse(response);
  }

  protected override launchRequest(response: DebugProtocol.LaunchResponse, args: DebugProtocol.LaunchRequestArguments & PhaseflipLaunchArguments): Promise<void> {
    return this.guardAsync(response, async () => {
      try {
        await this.startRuntime(args ?? {});
      } catch (e) {
        this.fail(response, e);
        return;
      }
      this.sendEvent(new InitializedEvent());
      // Breakpoints arrive between `initialized` and configurationDone; clients that never send it
      // (it is optional for them) still get the launch after a while.
      await Promise.race([this.configured, new Promise((resolve) => setTimeout(resolve, 5000))]);
      this.sendResponse(response);
      this.begin();
    });
  }

  protected override restartRequest(response: DebugProtocol.RestartResponse, args: DebugProtocol.RestartArguments | undefined): Promise<void> {
    return this.guardAsync(response, async () => {
      this.rt?.pause();
      const launch = (args?.arguments as PhaseflipLaunchArguments | undefined) ?? this.launchArgs ?? {};
      try {
        await this.startRuntime(launch);
      } catch (e) {
        this.fail(response, e);
        return;
      }
      this.reapplyBreakpoints();
      this.sendResponse(response);
      this.begin();
    });
  }

  protected override terminateRequest(response: DebugProtocol.TerminateResponse): void {
    this.stopRunning();
    this.sendResponse(response);
    this.sendEvent(new TerminatedEvent());
  }

  protected override disconnectRequest(response: DebugProtocol.DisconnectResponse, args: DebugProtocol.DisconnectArguments, request?: DebugProtocol.Request): void {
    this.stopRunning();
    super.disconnectRequest(response, args, request);
  }

  private stopRunning(): void {
    this.terminated = true;
    this.rt?.pause();
  }

  /** Validates the configuration and builds the runtime (stopped at entry). */
  private async startRuntime(args: PhaseflipLaunchArguments): Promise<void> {
    const plan = planLaunch(args);
    const rt = createDebugRuntime(plan.request);
    // Croqtile host code runs up to the first launch inside start(): keep its output until the launch
    // is accepted, then send it after the banner.
    let generation: number | undefined;
    const early: OutputEvent[] = [];
    rt.on('output', (e) => {
      const event = new OutputEvent(e.text, e.category);
      if (generation === undefined) early.push(event);
      else if (generation === this.generation) this.sendEvent(event);
    });
    try {
      await rt.start();
    } catch (e) {
      throw simErrorAsConfigError(e, plan.request, plan.programPath);
    }
    this.generation++;
    generation = this.generation;
    this.launchArgs = args;
    this.plan = plan;
    this.sourceTexts.clear();
    this.rt = rt;
    this.ended = false;
    this.exit = undefined;
    this.terminated = false;
    this.lastStop = undefined;
    rt.on('exited', (e) => {
      if (generation !== this.generation) return;
      this.ended = true;
      this.exit = e;
    });
    if (plan.logPhaseFlips) rt.on('flip', (e) => generation === this.generation && this.console(this.flipLine(e)));
    this.shownLaunch = rt.launchIndex;
    this.shownThreads = rt.threads().map((t) => t.id);
    rt.setExceptionFilters(this.filters);
    const r = plan.request;
    const geometry = r.grid && r.block ? ` on grid ${r.grid.join('×')}, block ${r.block.join('×')}` : '';
    this.console(`Phaseflip: simulating ${path.basename(plan.programPath)}${r.kernel ? ` · ${r.kernel}` : ''}${geometry} (${r.schedule ?? 'round-robin'} schedule, seed ${r.seed ?? 1})`);
    const shape = rt.geometry();
    if (shape) this.console(`Phaseflip: launch configuration: block ${shape.block.join('×')} from ${blockOrigin(args)}; grid ${shape.grid.join('×')}${r.grid ? '' : ' (the default)'}`);
    for (const event of early) this.sendEvent(event);
  }

  /** After configuration: stop at entry or run. */
  private begin(): void {
    const rt = this.rt;
    if (!rt) return;
    if (this.plan?.stopOnEntry) this.reportStop({ reason: 'entry', description: 'stopped at the kernel entry', thread: 1, steps: 0 });
    else void this.run(() => rt.continue());
  }

  private reapplyBreakpoints(): void {
    const rt = this.rt;
    if (!rt) return;
    if (this.lineArgs) this.applyLineBreakpoints(this.lineArgs);
    rt.setFunctionBreakpoints(this.functionNames.map((name) => ({ name })));
    rt.setExceptionFilters(this.filters);
    if (this.watches.length) rt.setBarrierWatches(this.watches);
  }

  // ------------------------------------------------------------------ breakpoints

  protected override setBreakPointsRequest(response: DebugProtocol.SetBreakpointsResponse, args: DebugProtocol.SetBreakpointsArguments): void {
    this.guard(response, () => {
      response.body = { breakpoints: this.applyLineBreakpoints(args) };
      this.sendResponse(response);
    });
  }

  private applyLineBreakpoints(args: DebugProtocol.SetBreakpointsArguments): DebugProtocol.Breakpoint[] {
    const requested: DebugProtocol.SourceBreakpoint[] = args.breakpoints ?? (args.lines ?? []).map((line) => ({ line }));
    const rt = this.rt;
    const program = this.plan?.programPath;
    const sourcePath = args.source.path ? path.resolve(args.source.path) : undefined;
    if (!rt || !program || sourcePath !== program) {
      return requested.map((bp) => this.breakpoint(false, bp.line, program ? `not part of the simulated program (${path.basename(program)})` : 'the kernel is not launched yet'));
    }
    this.lineArgs = args;
    const statementLines = rt.statementLines();
    const text = this.plan!.request.text.split('\n');
    const placed = requested.map((bp) => ({ bp, line: placeBreakpoint(this.convertClientLineToDebugger(bp.line), statementLines, text) }));
    const results = rt.setBreakpoints(
      placed.filter((p) => p.line !== undefined).map((p) => ({ line: p.line!, condition: p.bp.condition, hitCondition: p.bp.hitCondition, logMessage: p.bp.logMessage })),
    );
    let next = 0;
    const lines: BreakpointIds['lines'] = [];
    const out = placed.map((p) => {
      if (p.line === undefined) return this.breakpoint(false, p.bp.line, 'no statement of the simulated kernel starts on this line');
      const r = results[next++];
      const bp = this.breakpoint(r.verified, this.convertDebuggerLineToClient(p.line), r.message);
      if (r.verified) lines.push({ id: bp.id!, line: p.line });
      return bp;
    });
    this.ids.lines = lines;
    return out;
  }

  protected override setFunctionBreakPointsRequest(response: DebugProtocol.SetFunctionBreakpointsResponse, args: DebugProtocol.SetFunctionBreakpointsArguments): void {
    this.guard(response, () => {
      const text = this.plan?.request.text ?? '';
      const requested = args?.breakpoints ?? [];
      this.functionNames = requested.map((b) => b.name);
      this.rt?.setFunctionBreakpoints(requested.map((b) => ({ name: b.name })));
      this.ids.functions = [];
      response.body = {
        breakpoints: requested.map((b) => {
          const name = b.name.trim();
          const base = /^([A-Za-z_]\w*)(\s*\[\s*\d+\s*\])?$/.exec(name);
          if (!base) return this.breakpoint(false, undefined, `'${b.name}' is not a barrier name: use the barrier (bar), an element of an array (full[1]) or the array (full)`);
          if (!new RegExp(`\\b${base[1]}\\b`).test(text)) return this.breakpoint(false, undefined, `no barrier named '${base[1]}' in ${this.plan ? path.basename(this.plan.programPath) : 'the program'}`);
          const bp = this.breakpoint(true, undefined, `stops when ${name} completes a phase`);
          this.ids.functions.push({ id: bp.id!, name });
          return bp;
        }),
      };
      this.sendResponse(response);
    });
  }

  protected override setExceptionBreakPointsRequest(response: DebugProtocol.SetExceptionBreakpointsResponse, args: DebugProtocol.SetExceptionBreakpointsArguments): void {
    this.guard(response, () => {
      const known = new Set(EXCEPTION_FILTERS.map((f) => f.filter));
      this.filters = [...(args?.filters ?? []), ...(args?.filterOptions ?? []).map((o) => o.filterId)].filter((f) => known.has(f)) as ExceptionFilter[];
      this.rt?.setExceptionFilters(this.filters);
      this.sendResponse(response);
    });
  }

  protected override dataBreakpointInfoRequest(response: DebugProtocol.DataBreakpointInfoResponse, args: DebugProtocol.DataBreakpointInfoArguments): void {
    this.guard(response, () => {
      const rt = this.rt;
      const ref = args.variablesReference !== undefined ? this.vars.get(args.variablesReference) : undefined;
      const block = ref?.kind === 'barriers' ? ref.block : ref ? undefined : this.blockOf(this.focus);
      const barrier = rt && block !== undefined ? rt.barriers().find((b) => b.block === block && b.label === args.name) : undefined;
      if (!barrier) response.body = { dataId: null, description: 'only barriers in the Barriers scope can have data breakpoints' };
      else response.body = { dataId: barrier.id, description: `phase changes of ${barrier.label}${rt!.numBlocks > 1 ? ` (block ${barrier.block})` : ''}`, accessTypes: ['write'], canPersist: false };
      this.sendResponse(response);
    });
  }

  protected override setDataBreakpointsRequest(response: DebugProtocol.SetDataBreakpointsResponse, args: DebugProtocol.SetDataBreakpointsArguments): void {
    this.guard(response, () => {
      const rt = this.rt;
      const watches: { label: string; block: number }[] = [];
      this.ids.data = [];
      const breakpoints = (args?.breakpoints ?? []).map((d) => {
        const m = /^(\d+):(.+)$/.exec(d.dataId);
        if (!m) return this.breakpoint(false, undefined, `'${d.dataId}' is not a barrier`);
        watches.push({ block: Number(m[1]), label: m[2] });
        const bp = this.breakpoint(true, undefined, `stops when ${m[2]} changes phase`);
        this.ids.data.push({ id: bp.id!, barrier: d.dataId });
        return bp;
      });
      this.watches = watches;
      rt?.setBarrierWatches(watches);
      response.body = { breakpoints };
      this.sendResponse(response);
    });
  }

  private breakpoint(verified: boolean, line: number | undefined, message?: string): DebugProtocol.Breakpoint {
    const bp: DebugProtocol.Breakpoint = new Breakpoint(verified, line);
    bp.id = this.nextId++;
    if (message) bp.message = message;
    return bp;
  }

  // ------------------------------------------------------------------ execution

  protected override continueRequest(response: DebugProtocol.ContinueResponse): void {
    const rt = this.runtime(response);
    if (!rt) return;
    response.body = { allThreadsContinued: true };
    this.sendResponse(response);
    void this.run(() => rt.continue());
  }

  protected override nextRequest(response: DebugProtocol.NextResponse, args: DebugProtocol.NextArguments): void {
    this.step(response, (rt) => rt.stepOver(args.threadId, { singleThread: args.singleThread === true }));
  }

  protected override stepInRequest(response: DebugProtocol.StepInResponse, args: DebugProtocol.StepInArguments): void {
    this.step(response, (rt) => rt.stepIn(args.threadId, { singleThread: args.singleThread === true }));
  }

  protected override stepOutRequest(response: DebugProtocol.StepOutResponse, args: DebugProtocol.StepOutArguments): void {
    this.step(response, (rt) => rt.stepOut(args.threadId, { singleThread: args.singleThread === true }));
  }

  private step(response: DebugProtocol.Response, action: (rt: DebugRuntime) => Promise<DebugStop>): void {
    const rt = this.runtime(response);
    if (!rt) return;
    this.sendResponse(response);
    void this.run(() => action(rt));
  }

  protected override stepBackRequest(response: DebugProtocol.StepBackResponse): Promise<void> {
    return this.guardAsync(response, () => this.travel(response, (rt) => rt.stepBack()));
  }

  protected override reverseContinueRequest(response: DebugProtocol.ReverseContinueResponse): Promise<void> {
    return this.guardAsync(response, () => this.travel(response, (rt) => rt.reverseContinue()));
  }

  /** Time travel replays synchronously-ish and can fail ("replay diverged"): answer after it. */
  private async travel(response: DebugProtocol.Response, action: (rt: DebugRuntime) => Promise<DebugStop>): Promise<void> {
    const rt = this.runtime(response);
    if (!rt) return;
    if (this.ended) {
      this.sendErrorResponse(response, { id: 2002, format: 'the kernel has ended: restart the session to go back in time', showUser: true });
      return;
    }
    let stop: DebugStop;
    this.resetHandles();
    try {
      stop = await action(rt);
    } catch (e) {
      this.sendErrorResponse(response, { id: 2003, format: (e as Error).message, showUser: true });
      return;
    }
    this.sendResponse(response);
    this.reportStop(stop);
  }

  protected override pauseRequest(response: DebugProtocol.PauseResponse): void {
    this.rt?.pause();
    this.sendResponse(response);
  }

  protected override cancelRequest(response: DebugProtocol.CancelResponse, args: DebugProtocol.CancelArguments): void {
    if (args?.progressId && args.progressId === this.progressId) this.rt?.pause();
    this.sendResponse(response);
  }

  /** Runs the kernel until the runtime stops, with progress for long runs; reports the stop or the end. */
  private async run(action: () => Promise<DebugStop>): Promise<void> {
    const generation = this.generation;
    this.resetHandles();
    this.running = true;
    const progress = this.client.progress ? this.startProgress() : undefined;
    // A client watching the timeline sees it grow while the kernel runs.
    const ticker = this.timelineWanted ? setInterval(() => this.timelineChanged(), TIMELINE_TICK_MS) : undefined;
    let stop: DebugStop | undefined;
    let error: unknown;
    try {
      stop = await action();
    } catch (e) {
      error = e;
    } finally {
      progress?.();
      if (ticker) clearInterval(ticker);
      this.running = false;
    }
    if (generation !== this.generation || this.terminated) return;
    if (error !== undefined) {
      // An internal simulator error: say so, and stay stopped where the runtime is.
      this.sendEvent(new OutputEvent(`Phaseflip: the simulator failed: ${error instanceof Error ? error.message : String(error)}\n`, 'stderr'));
      this.reportStop({ reason: 'error', description: `internal simulator error: ${error instanceof Error ? error.message : String(error)}`, thread: this.focus, steps: this.rt?.steps ?? 0 });
      return;
    }
    if (this.ended) this.reportEnd();
    else if (stop) this.reportStop(stop);
  }

  /** Starts a delayed progress notification; returns the function that ends it. */
  private startProgress(): () => void {
    const id = `phaseflip-run-${this.nextId++}`;
    let started = false;
    let ticker: ReturnType<typeof setInterval> | undefined;
    const timer = setTimeout(() => {
      started = true;
      this.progressId = id;
      const start = new ProgressStartEvent(id, 'Simulating', `${this.rt?.steps ?? 0} statements`) as DebugProtocol.ProgressStartEvent;
      start.body.cancellable = true;
      this.sendEvent(start);
      ticker = setInterval(() => this.sendEvent(new ProgressUpdateEvent(id, `${withCommas(this.rt?.steps ?? 0)} statements`)), 250);
    }, PROGRESS_AFTER_MS);
    return () => {
      clearTimeout(timer);
      if (ticker) clearInterval(ticker);
      if (started) this.sendEvent(new ProgressEndEvent(id));
      this.progressId = undefined;
    };
  }

  private reportStop(stop: DebugStop): void {
    this.lastStop = stop;
    if (stop.thread !== undefined) this.focus = stop.thread;
    this.announceThreads();
    const dap = toDapStop(stop, this.ids, this.hasLanes());
    const event = new StoppedEvent(dap.reason, stop.thread ?? this.focus) as DebugProtocol.StoppedEvent;
    event.body.allThreadsStopped = true;
    event.body.description = dap.description;
    if (dap.text) event.body.text = dap.text;
    if (dap.hitBreakpointIds) event.body.hitBreakpointIds = dap.hitBreakpointIds;
    this.sendEvent(event);
    // At a deadlock every blocked warp says what it waits on (the Call Stack shows each thread's stop description).
    for (const [thread, waits] of blockedByThread(stop)) {
      if (thread === event.body.threadId) continue;
      const each = new StoppedEvent('exception', thread) as DebugProtocol.StoppedEvent;
      each.body.allThreadsStopped = false;
      each.body.preserveFocusHint = true;
      each.body.description = `Waits on ${waits.map((w) => `${w.waitsOn} at ${w.where}`).join('; ')}`;
      each.body.text = 'Deadlock';
      this.sendEvent(each);
    }
    this.timelineChanged();
  }

  /**
   * Croqtile thread ids restart with each launch: when the launch changed (forward, or back by time
   * travel), the old threads exit and the new ones start, so clients drop what they cached.
   */
  private announceThreads(): void {
    const rt = this.rt;
    if (!rt || rt.launchIndex === this.shownLaunch) return;
    for (const id of this.shownThreads) this.sendEvent(new ThreadEvent('exited', id));
    this.shownLaunch = rt.launchIndex;
    this.shownThreads = rt.threads().map((t) => t.id);
    for (const id of this.shownThreads) this.sendEvent(new ThreadEvent('started', id));
    if (this.client.invalidated) this.sendEvent(new InvalidatedEvent(['threads']));
  }

  /** The Debug Console line of a phase flip (`logPhaseFlips`); lines one-based like the client's. */
  private flipLine(e: PhaseFlip): string {
    const who = e.lastArriver ? `, last arrival by ${e.lastArriver}${e.line !== undefined ? `, line ${this.convertDebuggerLineToClient(e.line)}` : ''}` : '';
    // Only programs of several launches (Croqtile) name the launch after the first.
    const launch = e.launch > 0 ? `launch ${e.launch + 1}, ` : '';
    return `${e.barrier} (${launch}block ${e.block}): phase ${e.oldPhase} → ${e.newPhase}${who}`;
  }

  private reportEnd(): void {
    const exit = this.exit ?? { status: 'completed', message: 'completed' };
    this.console(`Phaseflip: ${exit.message}`);
    this.writeTrace();
    this.timelineChanged();
    this.sendEvent(new ExitedEvent(exit.status === 'completed' ? 0 : 1));
    this.sendEvent(new TerminatedEvent());
  }

  private writeTrace(): void {
    const file = this.plan?.tracePath;
    const rt = this.rt;
    if (!file || !rt) return;
    const recorded = rt.trace();
    const trace = toChromeTrace(recorded.events, { thread: recorded.thread, title: [path.basename(this.plan!.programPath), this.plan!.request.kernel].filter(Boolean).join(' · ') });
    const launches = recorded.launches > 1 ? `, ${recorded.launches} launches` : '';
    try {
      fs.writeFileSync(file, JSON.stringify(trace));
      this.console(`Phaseflip: wrote the trace to ${file} (${recorded.events.length} events${launches}; open it in ui.perfetto.dev)`);
    } catch (e) {
      this.sendEvent(new OutputEvent(`Phaseflip: cannot write the trace to ${file}: ${(e as Error).message}\n`, 'stderr'));
    }
  }

  // ------------------------------------------------------------------ state

  protected override threadsRequest(response: DebugProtocol.ThreadsResponse): void {
    response.body = { threads: this.rt ? this.rt.threads().map((t) => new Thread(t.id, t.label)) : [] };
    this.sendResponse(response);
  }

  protected override stackTraceRequest(response: DebugProtocol.StackTraceResponse, args: DebugProtocol.StackTraceArguments): void {
    this.guard(response, () => {
      const rt = this.runtime(response);
      if (!rt) return;
      const frames = rt.frames(args.threadId);
      const start = args.startFrame ?? 0;
      const end = args.levels ? start + args.levels : frames.length;
      const source = this.source();
      response.body = {
        totalFrames: frames.length,
        stackFrames: frames.slice(start, end).map((f, k) => {
          // A frame in a header of the translation unit shows that header.
          const where = f.loc.file !== undefined ? new Source(path.basename(f.loc.file), f.loc.file) : source;
          const frame = new StackFrame(this.frames.create({ thread: args.threadId, frame: start + k }), f.name, where, this.convertDebuggerLineToClient(f.loc.line), this.convertDebuggerColumnToClient(f.loc.character ?? 0));
          return frame;
        }),
      };
      this.sendResponse(response);
    });
  }

  protected override scopesRequest(response: DebugProtocol.ScopesResponse, args: DebugProtocol.ScopesArguments): void {
    this.guard(response, () => {
      const f = this.frames.get(args.frameId);
      if (!f) throw new Error(`unknown frame ${args.frameId}: the kernel has run since`);
      response.body = { scopes: this.vars.scopes(f.thread, f.frame) };
      this.sendResponse(response);
    });
  }

  protected override variablesRequest(response: DebugProtocol.VariablesResponse, args: DebugProtocol.VariablesArguments): void {
    this.guard(response, () => {
      const ref = this.vars.get(args.variablesReference);
      response.body = { variables: ref && !this.running ? this.vars.variables(ref, args) : [] };
      this.sendResponse(response);
    });
  }

  protected override setVariableRequest(response: DebugProtocol.SetVariableResponse, args: DebugProtocol.SetVariableArguments): void {
    this.guard(response, () => {
      const ref = this.vars.get(args.variablesReference);
      if (ref?.kind !== 'locals' || args.name !== LANE_VARIABLE) throw new Error(`'${args.name}' is read-only: the debugger shows the simulator's state; only '${LANE_VARIABLE}' can be set`);
      const lane = this.setLane(ref.thread, args.value);
      response.body = { value: String(lane) };
      this.sendResponse(response);
    });
  }

  protected override exceptionInfoRequest(response: DebugProtocol.ExceptionInfoResponse): void {
    const info = exceptionInfo(this.lastStop, this.hasLanes());
    if (!info) {
      this.sendErrorResponse(response, { id: 2004, format: 'the last stop was not an exception', showUser: false });
      return;
    }
    response.body = info;
    this.sendResponse(response);
  }

  protected override evaluateRequest(response: DebugProtocol.EvaluateResponse, args: DebugProtocol.EvaluateArguments): void {
    const f = args.frameId !== undefined ? this.frames.get(args.frameId) : undefined;
    const thread = f?.thread ?? this.focus;
    const frame = f?.frame ?? 0;
    const expr = args.expression.trim();
    this.guard(
      response,
      () => {
        const rt = this.runtime(response);
        if (!rt) return;
        response.body = this.evaluate(rt, expr, thread, frame);
        this.sendResponse(response);
      },
      args.context === 'repl',
    );
  }

  private evaluate(rt: DebugRuntime, expr: string, thread: number, frame: number): DebugProtocol.EvaluateResponse['body'] {
    if (expr === ':help' || expr === 'help') return { result: REPL_HELP, variablesReference: 0 };
    const lane = /^:lane(?:\s+(.*))?$/.exec(expr);
    if (lane) {
      const shown = rt.thread(thread);
      const label = shown?.label ?? `thread ${thread}`;
      if (lane[1] === undefined) return { result: `showing lane ${shown?.lane ?? 0} of ${label}`, variablesReference: 0 };
      return { result: `showing lane ${this.setLane(thread, lane[1])} of ${label}`, variablesReference: 0 };
    }
    if (expr.startsWith(':')) throw new Error(`unknown command '${expr.split(/\s/)[0]}': try :lane N or :help`);
    const all = /^([A-Za-z_]\w*)@lanes$/.exec(expr);
    if (all) {
      const values = rt.laneValues(thread, all[1], frame);
      // The runtime shows a lane it cannot evaluate the name in as `<why>`.
      if (values.every((v) => /^<.*>$/.test(v.value))) throw new Error(`'${all[1]}' is not a local of this frame in any lane`);
      return { result: values.map((v) => `${v.lane}: ${v.value}`).join(', '), variablesReference: this.vars.ref({ kind: 'lanes', thread, frame, name: all[1] }), namedVariables: values.length };
    }
    const block = this.blockOf(thread);
    const barriers = rt.barriers().filter((b) => b.block === block);
    const barrier = barriers.find((b) => b.label === expr.replace(/\s+/g, ''));
    if (barrier) {
      const v = this.vars.barrierVariable(barrier);
      return { result: v.value, variablesReference: v.variablesReference, namedVariables: v.namedVariables };
    }
    const array = /^[A-Za-z_]\w*$/.test(expr) ? barriers.filter((b) => b.label.startsWith(`${expr}[`)) : [];
    if (array.length) {
      return {
        result: array.map((b) => `${b.label}: ${barrierSummary(b)}`).join('; '),
        variablesReference: this.vars.ref({ kind: 'object', value: Object.fromEntries(array.map((b) => [b.label, { phase: b.phase, parity: b.parity, pending: b.pending, expected: b.expected, tx: b.tx }])) }),
      };
    }
    const shared = rt.sharedMemory(block).find((b) => b.name === expr);
    const buffer = shared ?? rt.globals().find((b) => b.name === expr);
    const locals = rt.locals(thread, frame);
    if (buffer && !locals.some((l) => l.name === expr)) {
      const v = shared ? this.vars.sharedVariable(shared) : this.vars.bufferVariable(buffer);
      return { result: v.value, type: v.type, variablesReference: v.variablesReference, indexedVariables: v.indexedVariables };
    }
    const local = [...locals].reverse().find((l) => l.name === expr);
    if (local && !Number.isFinite(Number(local.value))) return { result: local.value, type: local.type, variablesReference: 0 };
    return { result: formatNumber(rt.evaluate(thread, expr, frame)), variablesReference: 0 };
  }

  private setLane(thread: number, text: string): number {
    const lane = Number(text.trim());
    if (!/^\d+$/.test(text.trim()) || lane > 31) throw new Error(`a lane is 0..31, got '${text.trim()}'`);
    const rt = this.rt!;
    rt.setLane(thread, lane);
    const shown = rt.thread(thread)?.lane;
    if (shown !== lane) throw new Error(`warp ${thread} has no lane ${lane} (the block is smaller)`);
    if (this.client.invalidated) this.sendEvent(new InvalidatedEvent(['stacks', 'variables'], thread));
    return lane;
  }

  // ------------------------------------------------------------------ helpers

  private resetHandles(): void {
    this.vars.reset();
    this.frames.reset();
  }

  private source(): Source | undefined {
    return this.plan ? new Source(path.basename(this.plan.programPath), this.plan.programPath) : undefined;
  }

  /** Whether a thread has lanes to count (CUDA warps), not one value per variable (Croqtile). */
  private hasLanes(): boolean {
    return (this.rt?.lanesPerThread ?? 32) > 1;
  }

  private blockOf(thread: number): number {
    return this.rt?.thread(thread)?.block ?? 0;
  }

  private console(line: string): void {
    this.sendEvent(new OutputEvent(`${line}\n`, 'console'));
  }

  /** The runtime, or an error response when there is none (no launch yet). */
  private runtime(response: DebugProtocol.Response): DebugRuntime | undefined {
    if (this.rt) return this.rt;
    this.sendErrorResponse(response, { id: 2001, format: 'no kernel is being debugged: launch one first', showUser: false });
    return undefined;
  }

  /** Runs a handler; an exception becomes an error response rather than a dead adapter. */
  private guard(response: DebugProtocol.Response, fn: () => void, showUser = false): void {
    try {
      fn();
    } catch (e) {
      this.sendErrorResponse(response, { id: 2000, format: e instanceof Error ? e.message : String(e), showUser });
    }
  }

  /** The async version of `guard`: a rejected handler must not become an unhandled rejection. */
  private async guardAsync(response: DebugProtocol.Response, fn: () => Promise<void>): Promise<void> {
    try {
      await fn();
    } catch (e) {
      this.sendErrorResponse(response, { id: 2000, format: e instanceof Error ? e.message : String(e), showUser: true });
    }
  }

  /** A failed launch or restart: the message names the field, and the user sees it. */
  private fail(response: DebugProtocol.Response, e: unknown): void {
    const message = e instanceof LaunchConfigError ? e.message : `internal error: ${e instanceof Error ? e.message : String(e)}`;
    this.sendErrorResponse(response, { id: 1001, format: message, showUser: true });
  }
}

/**
 * Where a breakpoint on zero-based `line` goes: the line itself when a statement starts there,
 * else the next statement line when only blank lines, comments or `{` lie between; else nowhere.
 */
export function placeBreakpoint(line: number, statementLines: ReadonlySet<number>, text: readonly string[]): number | undefined {
  if (statementLines.has(line)) return line;
  let inComment = false;
  for (let l = line; l < Math.min(text.length, line + MAX_BREAKPOINT_MOVE + 1); l++) {
    if (l > line && statementLines.has(l)) return l;
    let rest = text[l] ?? '';
    if (inComment) {
      const end = rest.indexOf('*/');
      if (end < 0) continue;
      inComment = false;
      rest = rest.slice(end + 2);
    }
    rest = rest.replace(/\/\*.*?\*\//g, '').replace(/\/\/.*$/, '');
    const open = rest.indexOf('/*');
    if (open >= 0) {
      inComment = true;
      rest = rest.slice(0, open);
    }
    if (!/^\s*\{?\s*$/.test(rest)) return undefined;
  }
  return undefined;
}

/** Where a launch's block came from, as the session's first lines say it. */
function blockOrigin(args: PhaseflipLaunchArguments): string {
  const source = typeof args.blockSource === 'string' && args.blockSource.trim() ? args.blockSource.trim() : undefined;
  if (args.block === undefined) return "the kernel's __launch_bounds__, else the simulator's default of 128 (the configuration gives no block)";
  if (!source) return 'the launch configuration';
  return args.blockDefault === true ? `${source} — edit "block" if the kernel expects another size` : source;
}

/** A deadlock stop's blocked entries grouped by debugger thread, in order. */
function blockedByThread(stop: DebugStop): Map<number, NonNullable<DebugStop['blocked']>> {
  const out = new Map<number, NonNullable<DebugStop['blocked']>>();
  if (stop.reason !== 'deadlock') return out;
  for (const b of stop.blocked ?? []) {
    let list = out.get(b.thread);
    if (!list) out.set(b.thread, (list = []));
    list.push(b);
  }
  return out;
}

function formatNumber(v: number): string {
  return Number.isInteger(v) ? String(v) : String(Number(v.toPrecision(9)));
}
