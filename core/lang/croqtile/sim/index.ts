// Croqtile executor entry point: runs a whole `.co` program. Host code of the chosen `__co__`
// function runs sequentially here; every outermost `parallel` it reaches is one device launch on a
// Machine (./launch.ts). Output is what the program prints, formatted like co-mock (the reference
// interpreter). Parameters bind from the request's arguments, symbolic dimensions from their shapes.
//
// One host runner (`CroqtileProgram`) serves both faces: `next()` runs host code up to the next
// device launch and hands it over, the caller runs that launch's machine (to the end for
// `simulate`, under debugger control for the debug runtime) and reports how it ended with
// `endLaunch`; host code resumes at the next `next()`. Host code is deterministic, so running a new
// program object again reproduces every launch (the debugger's time travel relies on it).
import type { CoFunction, CoStmt } from '../ast';
import { detectEra } from '../lower';
import { parseCroqtile } from '../parser';
import { makeLineIndex } from '../positions';
import { materialize } from '../../../sim/args';
import { checksum } from '../../../sim/memory';
import { DEFAULT_MAX_STEPS, type LaunchField, type Machine, type RunResult, SimError, type SimReport, type SimThread } from '../../../sim/machine';
import type { NamedBuffer, PreparedSimulation, SimulateRequest, SimulateResult } from '../../../sim/run';
import { summarize } from '../../../sim/run';
import { type Ctx, Env, Flow, HostStepLimit, Interp, viewOf } from './interp';
import { CroqLaunch } from './launch';
import { dtypeOf, int, Sc, View } from './values';
import { withCommas } from '../../../sim/format';

const SLICE = 500_000;



/** Whether any function uses the current era's event syntax (to reject era-A `mma.commit` mixed into it). */
function usesCurrentEraSyntax(fns: CoFunction[]): boolean {
  let found = false;
  const visit = (list: CoStmt[]): void => {
    for (const s of list) {
      if (s.kind === 'event-decl' && s.items.some((i) => i.ready)) found = true;
      if (s.kind === 'trigger' && s.after.length) found = true;
      if ((s.kind === 'wait' || s.kind === 'trigger') && s.targets.some((t) => t.kind === 'method' && t.name === 'at')) found = true;
      if (s.kind === 'if') {
        visit(s.then);
        visit(s.else);
      } else if ('body' in s) visit(s.body);
    }
  };
  for (const f of fns) visit(f.body);
  return found;
}

function pickFunction(req: SimulateRequest, fns: CoFunction[]): CoFunction {
  const names = fns.map((f) => f.name);
  if (req.kernel) {
    const f = fns.find((x) => x.name === req.kernel);
    if (!f) throw SimError.ofRequest({ kind: 'kernel', unknown: { name: req.kernel, available: names } }, `${req.file} has no __co__ function '${req.kernel}' (it has: ${names.join(', ') || 'none'})`);
    return f;
  }
  if (fns.length === 1) return fns[0];
  if (fns.length === 0) throw SimError.ofRequest({ kind: 'kernel' }, `${req.file} has no __co__ function to run`);
  const main = fns.find((f) => f.name === 'main');
  if (main) return main;
  const entries = fns.filter((f) => f.params.length === 0);
  throw SimError.ofRequest(
    { kind: 'kernel' },
    `${req.file} has ${fns.length} __co__ functions (${names.join(', ')}): choose one with --kernel` +
      (entries.length ? ` (entry points without parameters: ${entries.map((f) => f.name).join(', ')})` : ''),
  );
}

/** Binds the function's parameters from `req.args`; symbolic dimensions are defined from the shapes. */
function bindParams(fn: CoFunction, req: SimulateRequest, interp: Interp, ctx: Ctx): NamedBuffer[] {
  const buffers: NamedBuffer[] = [];
  const args = req.args ?? [];
  for (const a of args) if (!fn.params.some((p) => p.name === a.name)) throw SimError.ofRequest({ kind: 'arg', name: a.name }, `--arg ${a.name}: ${fn.name} has no parameter '${a.name}' (parameters: ${fn.params.map((p) => p.name).join(', ') || 'none'})`);
  fn.params.forEach((p, index) => {
    const words = p.type.split(/\s+/);
    const elem = words[words.length - 1];
    const dt = dtypeOf(elem);
    if (!dt) throw new SimError(`parameter '${p.name}' has the element type '${elem}'`, interp.loc(p, fn.name), 'unsupported');
    const shapeText = p.dims.map((d) => interp.text(d)).join(',');
    const hint = p.dims.length ? `${p.name}=${dt.declared ? 'u8' : dt.dtype}[${shapeText}]` : `${p.name}=NUMBER`;
    const a = args.find((x) => x.name === p.name);
    if (!a) throw SimError.ofRequest({ kind: 'args' }, `${fn.name} needs the argument '${p.name}': give --arg ${hint}`);
    if (!p.dims.length) {
      if (a.kind !== 'scalar') throw SimError.ofRequest({ kind: 'arg', name: a.name }, `--arg ${a.text}: '${p.name}' is a scalar ${elem}, give a number`);
      ctx.env.vars.set(p.name, new Sc(a.value, dt.dtype));
      return;
    }
    if (a.kind !== 'buffer') throw SimError.ofRequest({ kind: 'arg', name: a.name }, `--arg ${a.text}: '${p.name}' is a tensor, give ${hint}`);
    const okType = a.dtype === dt.dtype || (dt.declared !== undefined && (a.dtype === 'u8' || a.dtype === 's8'));
    if (!okType) throw SimError.ofRequest({ kind: 'arg', name: a.name }, `--arg ${a.text}: '${p.name}' holds ${elem}, not ${a.dtype} (give ${hint})`);
    if (a.shape.length !== p.dims.length) throw SimError.ofRequest({ kind: 'arg', name: a.name }, `--arg ${a.text}: '${p.name}' has ${p.dims.length} dimensions [${shapeText}], not ${a.shape.length}`);
    p.dims.forEach((d, i) => {
      const got = a.shape[i];
      if (d.kind === 'id' && (d.name === '?' || d.name === '??')) return;
      if (d.kind === 'id' && !ctx.env.lookup(d.name) && !interp.o.file.defines.has(d.name)) {
        ctx.env.vars.set(d.name, int(got));
        return;
      }
      const want = interp.intOf(interp.ev(d, ctx), d, ctx);
      if (want !== got) {
        const sym = d.kind === 'id' ? `${d.name} = ${want}` : `${interp.text(d)} = ${want}`;
        throw SimError.ofRequest({ kind: 'arg', name: a.name }, `--arg ${a.text}: dimension ${i} of '${p.name}' must be ${want} (${sym}${d.kind === 'id' && ctx.env.lookup(d.name) ? ', bound by an earlier argument' : ''}), not ${got}`);
      }
    });
    const nb = materialize({ ...a, dtype: a.dtype }, index);
    buffers.push(nb);
    ctx.env.vars.set(p.name, viewOf(nb.buffer, a.dtype, a.shape.slice(), dt.declared));
  });
  return buffers;
}

function errorResult(status: SimulateResult['status'], message: string, stdout: string, steps: number, buffers: NamedBuffer[], report?: SimReport): SimulateResult {
  return {
    status,
    message,
    report,
    phaseFlips: 0,
    cycles: 0,
    steps,
    barriers: [],
    buffers: buffers.map((b) => ({ name: b.name, dtype: b.dtype, shape: b.shape, checksum: checksum(b.buffer), buffer: b.buffer })),
    stdout,
  };
}

function reportOf(e: SimError, fallbackLine: number): SimReport {
  const loc = e.loc ?? { line: fallbackLine };
  const message = e.kind === 'unsupported' ? `not supported by the simulator: ${e.message} at line ${loc.line + 1}` : e.loc ? `${e.message} (line ${loc.line + 1})` : e.message;
  return { kind: e.kind, message, loc: e.loc, threads: [] };
}

export { CroqLaunch, deviceLists, launchBody, showValue, type FutureInfo } from './launch';

/** One device launch handed over by the host runner. */
export interface CroqtileLaunch {
  /** 0 for the program's first launch. */
  index: number;
  launch: CroqLaunch;
  machine: Machine;
}

export interface CroqtileProgramOptions {
  /** Every output text (host and device), with the device thread that printed it. */
  onOutput?: (text: string, t?: SimThread) => void;
  /** Machines keep running after misuse and races (the debugger reports them itself). */
  continueOnMisuse?: boolean;
}

/** The host runner: host code in order, one launch at a time (see the header). */
export class CroqtileProgram {
  /** Undefined when the file has syntax errors. */
  readonly interp?: Interp;
  /** The `__co__` function that runs (set by the first `next()`). */
  fn?: CoFunction;
  readonly launches: Machine[] = [];
  stdout = '';
  /** Global buffers bound to the parameters (and the returned tensor, once the program has ended). */
  buffers: NamedBuffer[] = [];
  /** When the program failed because the request does not fit it: the launch field at fault. */
  requestField?: LaunchField;
  private deviceSteps = 0;
  private readonly maxSteps: number;
  private gen?: Generator<void, Flow, void>;
  private ctx?: Ctx;
  private pending?: CroqLaunch;
  private final?: SimulateResult;
  private started = false;

  constructor(
    readonly req: SimulateRequest,
    private readonly opts: CroqtileProgramOptions = {},
  ) {
    const file = parseCroqtile(req.text);
    const lines = makeLineIndex(req.text);
    this.maxSteps = req.maxSteps ?? DEFAULT_MAX_STEPS;
    if (file.errors.length) {
      const shown = file.errors.slice(0, 5).map((e) => `  line ${lines.position(e.span.start).line + 1}: ${e.message}`);
      const more = file.errors.length > 5 ? `\n  … and ${file.errors.length - 5} more` : '';
      const msg = `${req.file}: the program has syntax errors, nothing was run\n${shown.join('\n')}${more}`;
      this.final = errorResult('error', msg, '', 0, [], { kind: 'error', message: msg, loc: { line: lines.position(file.errors[0].span.start).line }, threads: [] });
      return;
    }
    const era = detectEra(file);
    const interp: Interp = new Interp({
      file,
      currentEraSyntax: usesCurrentEraSyntax(file.functions),
      text: req.text,
      lines,
      maxSteps: this.maxSteps,
      print: (text, t) => {
        const m = this.launches[this.launches.length - 1];
        if (t && m) m.print(text, t);
        else this.out(text);
      },
      launch: (s, ctx) => {
        const launch = new CroqLaunch({
          interp,
          root: s,
          hostCtx: ctx,
          era,
          onPrint: (text, t) => this.out(text, t),
          options: {
            seed: req.seed,
            schedule: req.schedule,
            maxSteps: Math.max(1, this.maxSteps - interp.steps - this.deviceSteps),
            latencies: req.latencies,
            trace: req.trace,
            detectRaces: req.detectRaces,
            continueOnMisuse: opts.continueOnMisuse,
          },
        });
        this.launches.push(launch.machine);
        this.pending = launch;
      },
    });
    this.interp = interp;
  }

  private out(text: string, t?: SimThread): void {
    this.stdout += text;
    this.req.onPrint?.(text);
    this.opts.onOutput?.(text, t);
  }

  /** Statements run so far: host code plus every finished launch. */
  get steps(): number {
    return (this.interp?.steps ?? 0) + this.deviceSteps;
  }

  /** Whether a launch `next()` returned has not been ended with `endLaunch` yet. */
  get launchRunning(): boolean {
    return !!this.pending;
  }

  /** Whether the program has ended (then `result()` says how). */
  get done(): boolean {
    return !!this.final;
  }

  /**
   * Runs host code up to the next device launch and returns it (blocks not launched yet), or
   * returns undefined when the program has ended. Call `endLaunch` before calling it again.
   */
  next(): CroqtileLaunch | undefined {
    if (this.final || !this.interp) return undefined;
    if (this.pending) throw new Error('CroqtileProgram.next: the previous launch has not ended (call endLaunch)');
    const interp = this.interp;
    try {
      if (!this.started) {
        this.started = true;
        const fns = interp.o.file.functions.filter((f) => f.body.length > 0 || f.span.end > f.nameSpan.end);
        try {
          this.fn = pickFunction(this.req, fns);
          this.ctx = { env: new Env(), loops: [], func: this.fn.name };
          this.buffers = bindParams(this.fn, this.req, interp, this.ctx);
        } catch (e) {
          // Only these errors can be about the request: a launch's geometry comes from the program.
          if (e instanceof SimError) this.requestField = e.field;
          throw e;
        }
        this.gen = interp.execList(this.fn.body, this.ctx);
      }
      const r = this.gen!.next();
      if (!r.done) {
        const launch = this.pending as CroqLaunch | undefined;
        if (!launch) throw new Error('host code yielded without a launch');
        return { index: this.launches.length - 1, launch, machine: launch.machine };
      }
      if (r.value === Flow.Break || r.value === Flow.Continue) throw new SimError(`'${r.value === Flow.Break ? 'break' : 'continue'}' outside a loop`);
      const ret = this.ctx!.returned;
      if (ret instanceof View && !this.buffers.some((b) => b.buffer === ret.buf)) {
        this.buffers = [...this.buffers, { name: 'return', dtype: ret.dtype, shape: ret.shape.slice(), buffer: ret.buf }];
      }
      this.finish('completed');
    } catch (e) {
      this.pending = undefined;
      this.fail(e);
    }
    return undefined;
  }

  /** How the launch `next()` returned ended; anything but completion ends the program. */
  endLaunch(r: RunResult): void {
    const launch = this.pending;
    if (!launch) throw new Error('CroqtileProgram.endLaunch: no launch is running');
    if (r.status === 'paused') throw new Error('CroqtileProgram.endLaunch: the launch has not ended');
    this.pending = undefined;
    this.deviceSteps += launch.machine.steps;
    if (r.status !== 'completed') this.finish(r.status, r.report);
  }

  /** The outcome, once `done`. */
  result(): SimulateResult {
    if (!this.final) throw new Error('CroqtileProgram.result: the program has not ended');
    return this.final;
  }

  private fail(e: unknown): void {
    const fn = this.fn;
    if (e instanceof HostStepLimit) {
      const msg = `step budget exhausted: ${withCommas(this.maxSteps)} statements ran without the program finishing (raise --max-steps, or look for an endless loop)`;
      this.finish('step-limit', { kind: 'step-limit', message: msg, threads: [] });
    } else if (e instanceof SimError) {
      const rep = reportOf(e, fn && this.interp ? this.interp.line(fn.span) : 0);
      this.finish('error', rep, rep.message);
    } else {
      const err = e instanceof Error ? e : new Error(String(e));
      const msg = `internal simulator error: ${err.message}`;
      this.finish('error', { kind: 'error', message: msg, threads: [] }, msg);
    }
  }

  private finish(status: SimulateResult['status'], report?: SimReport, message?: string): void {
    const launches = this.launches;
    const last = launches[launches.length - 1];
    const steps = this.steps;
    const { buffers, stdout } = this;
    if (!last) {
      const msg = message ?? report?.message ?? `completed: host code of ${this.fn?.name ?? 'the program'} ran ${withCommas(steps)} statements (no parallel region)`;
      this.final = errorResult(status, msg, stdout, steps, buffers, report);
      return;
    }
    const r = summarize(last, status, report, buffers, stdout);
    r.steps = steps;
    r.cycles = launches.reduce((a, m) => a + m.cycles, 0);
    r.phaseFlips = launches.reduce((a, m) => a + m.phaseFlips, 0);
    r.barriers = launches.flatMap((m) => m.barrierStates());
    if (message) r.message = message;
    else if (status === 'completed' && launches.length > 1) {
      r.message = `completed: ${launches.length} launches ran ${withCommas(steps)} statements, ${r.phaseFlips} phase flip(s), ${withCommas(r.cycles)} simulated cycles`;
    }
    if (this.req.trace) r.trace = launches.flatMap((m) => m.trace);
    this.final = r;
  }
}

/** Runs a whole program: every launch to its end, in order. */
export function simulateCroqtile(req: SimulateRequest): SimulateResult {
  return runProgram(new CroqtileProgram(req), req);
}

/** What `simulate` runs for a Croqtile request: the parsed program, run to its end on demand. */
export function prepareCroqtileSimulation(req: SimulateRequest): PreparedSimulation {
  const program = new CroqtileProgram(req);
  return { run: () => runProgram(program, req) };
}

function runProgram(program: CroqtileProgram, req: SimulateRequest): SimulateResult {
  for (let l = program.next(); l; l = program.next()) {
    const m = l.machine;
    for (;;) {
      const r = m.run({ untilSteps: m.steps + SLICE });
      if (r.status === 'paused') {
        req.onProgress?.(program.steps + m.steps, req.maxSteps ?? DEFAULT_MAX_STEPS);
        continue;
      }
      program.endLaunch(r);
      break;
    }
  }
  return program.result();
}
