// Croqtile executor entry point: runs a whole `.co` program. Host code of the chosen `__co__`
// function runs sequentially here; every outermost `parallel` it reaches is one device launch on a
// Machine (./launch.ts). Output is what the program prints, formatted like co-mock (the reference
// interpreter). Parameters bind from the request's arguments, symbolic dimensions from their shapes.
import type { CoFunction, CoStmt } from '../../lang/croqtile/ast';
import { detectEra } from '../../lang/croqtile/lower';
import { parseCroqtile } from '../../lang/croqtile/parser';
import { makeLineIndex } from '../../lang/croqtile/positions';
import { materialize } from '../args';
import { checksum } from '../memory';
import { Machine, SimError, type SimReport } from '../machine';
import type { NamedBuffer, SimulateRequest, SimulateResult } from '../run';
import { summarize } from '../run';
import { type Ctx, Env, Flow, HostStepLimit, Interp, viewOf } from './interp';
import { CroqLaunch } from './launch';
import { dtypeOf, int, Sc, View } from './values';
import { withCommas } from '../format';

const SLICE = 500_000;
const DEFAULT_MAX_STEPS = 50_000_000;


/** Stops the host program after a launch that did not complete. */
class LaunchStopped extends Error {
  constructor(
    readonly machine: Machine,
    readonly status: Exclude<SimulateResult['status'], 'completed'>,
    readonly report: SimReport | undefined,
  ) {
    super('launch stopped');
  }
}

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
    if (!f) throw new SimError(`${req.file} has no __co__ function '${req.kernel}' (it has: ${names.join(', ') || 'none'})`);
    return f;
  }
  if (fns.length === 1) return fns[0];
  if (fns.length === 0) throw new SimError(`${req.file} has no __co__ function to run`);
  const main = fns.find((f) => f.name === 'main');
  if (main) return main;
  const entries = fns.filter((f) => f.params.length === 0);
  throw new SimError(
    `${req.file} has ${fns.length} __co__ functions (${names.join(', ')}): choose one with --kernel` +
      (entries.length ? ` (entry points without parameters: ${entries.map((f) => f.name).join(', ')})` : ''),
  );
}

/** Binds the function's parameters from `req.args`; symbolic dimensions are defined from the shapes. */
function bindParams(fn: CoFunction, req: SimulateRequest, interp: Interp, ctx: Ctx): NamedBuffer[] {
  const buffers: NamedBuffer[] = [];
  const args = req.args ?? [];
  for (const a of args) if (!fn.params.some((p) => p.name === a.name)) throw new SimError(`--arg ${a.name}: ${fn.name} has no parameter '${a.name}' (parameters: ${fn.params.map((p) => p.name).join(', ') || 'none'})`);
  fn.params.forEach((p, index) => {
    const words = p.type.split(/\s+/);
    const elem = words[words.length - 1];
    const dt = dtypeOf(elem);
    if (!dt) throw new SimError(`parameter '${p.name}' has the element type '${elem}'`, interp.loc(p, fn.name), 'unsupported');
    const shapeText = p.dims.map((d) => interp.text(d)).join(',');
    const hint = p.dims.length ? `${p.name}=${dt.declared ? 'u8' : dt.dtype}[${shapeText}]` : `${p.name}=NUMBER`;
    const a = args.find((x) => x.name === p.name);
    if (!a) throw new SimError(`${fn.name} needs the argument '${p.name}': give --arg ${hint}`);
    if (!p.dims.length) {
      if (a.kind !== 'scalar') throw new SimError(`--arg ${a.text}: '${p.name}' is a scalar ${elem}, give a number`);
      ctx.env.vars.set(p.name, new Sc(a.value, dt.dtype));
      return;
    }
    if (a.kind !== 'buffer') throw new SimError(`--arg ${a.text}: '${p.name}' is a tensor, give ${hint}`);
    const okType = a.dtype === dt.dtype || (dt.declared !== undefined && (a.dtype === 'u8' || a.dtype === 's8'));
    if (!okType) throw new SimError(`--arg ${a.text}: '${p.name}' holds ${elem}, not ${a.dtype} (give ${hint})`);
    if (a.shape.length !== p.dims.length) throw new SimError(`--arg ${a.text}: '${p.name}' has ${p.dims.length} dimensions [${shapeText}], not ${a.shape.length}`);
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
        throw new SimError(`--arg ${a.text}: dimension ${i} of '${p.name}' must be ${want} (${sym}${d.kind === 'id' && ctx.env.lookup(d.name) ? ', bound by an earlier argument' : ''}), not ${got}`);
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

export function simulateCroqtile(req: SimulateRequest): SimulateResult {
  let stdout = '';
  const out = (text: string) => {
    stdout += text;
    req.onPrint?.(text);
  };
  const file = parseCroqtile(req.text);
  const lines = makeLineIndex(req.text);
  if (file.errors.length) {
    const shown = file.errors.slice(0, 5).map((e) => `  line ${lines.position(e.span.start).line + 1}: ${e.message}`);
    const more = file.errors.length > 5 ? `\n  … and ${file.errors.length - 5} more` : '';
    const msg = `${req.file}: the program has syntax errors, nothing was run\n${shown.join('\n')}${more}`;
    return errorResult('error', msg, stdout, 0, [], { kind: 'error', message: msg, loc: { line: lines.position(file.errors[0].span.start).line }, threads: [] });
  }
  const fns = file.functions.filter((f) => f.body.length > 0 || f.span.end > f.nameSpan.end);
  const maxSteps = req.maxSteps ?? DEFAULT_MAX_STEPS;
  const launches: Machine[] = [];
  let deviceSteps = 0;
  const era = detectEra(file);
  let buffers: NamedBuffer[] = [];
  let fn: CoFunction | undefined;
  const interp: Interp = new Interp({
    file,
    currentEraSyntax: usesCurrentEraSyntax(file.functions),
    text: req.text,
    lines,
    maxSteps,
    print: (text, t) => {
      const m = launches[launches.length - 1];
      if (t && m) m.print(text, t);
      else out(text);
    },
    launch: (s, ctx) => {
      const launch = new CroqLaunch({
        interp,
        root: s,
        hostCtx: ctx,
        era,
        onPrint: out,
        options: {
          seed: req.seed,
          schedule: req.schedule,
          maxSteps: Math.max(1, maxSteps - interp.steps - deviceSteps),
          latencies: req.latencies,
          trace: req.trace,
          detectRaces: req.detectRaces,
        },
      });
      const m = launch.machine;
      launches.push(m);
      for (;;) {
        const r = m.run({ untilSteps: m.steps + SLICE });
        if (r.status === 'paused') {
          req.onProgress?.(interp.steps + deviceSteps + m.steps, maxSteps);
          continue;
        }
        deviceSteps += m.steps;
        if (r.status !== 'completed') throw new LaunchStopped(m, r.status, r.report);
        return;
      }
    },
  });
  const finish = (status: SimulateResult['status'], report?: SimReport, message?: string): SimulateResult => {
    const last = launches[launches.length - 1];
    const steps = interp.steps + deviceSteps;
    if (!last) {
      const msg = message ?? report?.message ?? `completed: host code of ${fn?.name ?? 'the program'} ran ${withCommas(steps)} statements (no parallel region)`;
      return errorResult(status, msg, stdout, steps, buffers, report);
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
    if (req.trace) r.trace = launches.flatMap((m) => m.trace);
    return r;
  };
  try {
    fn = pickFunction(req, fns);
    const ctx: Ctx = { env: new Env(), loops: [], func: fn.name };
    buffers = bindParams(fn, req, interp, ctx);
    const gen = interp.execList(fn.body, ctx);
    let r = gen.next();
    while (!r.done) r = gen.next();
    if (r.value === Flow.Break || r.value === Flow.Continue) throw new SimError(`'${r.value === Flow.Break ? 'break' : 'continue'}' outside a loop`);
    const ret = ctx.returned;
    if (ret instanceof View && !buffers.some((b) => b.buffer === ret.buf)) {
      buffers = [...buffers, { name: 'return', dtype: ret.dtype, shape: ret.shape.slice(), buffer: ret.buf }];
    }
    return finish('completed');
  } catch (e) {
    if (e instanceof LaunchStopped) return finish(e.status, e.report);
    if (e instanceof HostStepLimit) {
      const msg = `step budget exhausted: ${withCommas(maxSteps)} statements ran without the program finishing (raise --max-steps, or look for an endless loop)`;
      return finish('step-limit', { kind: 'step-limit', message: msg, threads: [] });
    }
    if (e instanceof SimError) {
      const rep = reportOf(e, fn ? lines.position(fn.span.start).line : 0);
      return finish('error', rep, rep.message);
    }
    const err = e instanceof Error ? e : new Error(String(e));
    const msg = `internal simulator error: ${err.message}`;
    return finish('error', { kind: 'error', message: msg, threads: [] }, msg);
  }
}
