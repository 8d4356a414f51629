// Whole programs ("harness mode"): a .cu file run from its `main()`, host code and kernels together,
// as `phaseflip sim prog.cu` without --kernel does. Host code is compiled by the same compiler as
// device code (with the host hooks of host-hooks.ts and the prelude of host-prelude.ts) and runs as
// one simulated thread, `host`, on a one-thread machine. The program is a sequence of segments, each
// a Machine: host code up to a kernel launch, the kernel, host code up to the next launch, and so on
// (the host thread's frames carry over from one host segment to the next). That is the shape the
// debug runtime drives (core/debug/target.ts: launches one after another), so host frames are
// steppable and a kernel's warps appear when it launches.
//
// CUDA semantics kept: a launch whose configuration the runtime refuses runs nothing and sets the last
// error; a kernel runs to its end at its launch, and what the GPU would report surfaces as on the GPU:
// a deadlock ends the program with the deadlock report (the GPU hangs); an illegal access, an
// over-arrival or a device assert is a launch failure that the next synchronising call returns
// (sticky), with the simulator's report on stderr; a race in a kernel that completes lets the program
// run on, and the run ends with status `race` after the program's output. Stdout is the program's.
import * as path from 'node:path';
import { Project } from '../../../project/project';
import { loadCudaLanguage, Parser, parseWhole, type SyntaxNode } from '../parser';
import { fileOf, registerHeaderTree } from '../syntax-nodes';
import { buildCudaUnit } from '../unit';
import { DEFAULT_MAX_STEPS, type Executor, Machine, type RunResult, type SimBlock, SimError, type SimReport, type SimThread } from '../../../sim/machine';
import { Buffer, checksum, copyBytes, type Pointer } from '../../../sim/memory';
import { withCommas } from '../../../sim/format';
import type { NamedBuffer, PreparedSimulation, SimulateRequest, SimulateResult } from '../../../sim/run';
import { definesMain, MAX_STDOUT } from '../../../sim/run';
import { Compiler, type FnInst } from './compile';
import { CompileCache, compileKey } from './compile-cache';
import { declaredClusterDims } from './cluster-dims';
import { CudaExecutor, failingExecutor, type FrameInfo } from './executor';
import { ProgramHooks } from './host-hooks';
import { expandFunctionMacros } from './host-macros';
import { HOST_PRELUDE, HOST_PRELUDE_FILE } from './host-prelude';
import { DEFAULT_DYNAMIC_SMEM, HostState, type KernelLaunch, ProgramExit } from './host-runtime';
import { type BlockCtx, type CompiledFn, Frame, type Instr, storePointer, ThreadCtx } from './runtime';
import type { TemplateBinding } from './templates';
import { type CType, sizeOfType } from './types';

/** Whether a request runs a whole program: no kernel, geometry or arguments given, and the file defines `main`. */
export function isWholeProgram(req: SimulateRequest): boolean {
  return req.kernel === undefined && req.grid === undefined && req.block === undefined && !req.args?.length && definesMain(req.text);
}

/** A whole program compiled: main, what it calls and the kernels it launches. */
interface CompiledProgram {
  compiler: Compiler;
  main: FnInst;
  sourceTexts: Map<string | undefined, string>;
  /** Buffer ids 1..firstId-1 are the compile's; a run numbers its own from firstId. */
  firstId: number;
}

const compiledPrograms = new CompileCache<CompiledProgram>();

/** Empties the compiled-program cache (tests compare a fresh compile with a cached one). */
export function clearCompiledPrograms(): void {
  compiledPrograms.clear();
}

/** How often a whole program reused a compile and how often it compiled, and how many are kept. */
export function compiledProgramStats(): { hits: number; misses: number; size: number } {
  return { hits: compiledPrograms.hits, misses: compiledPrograms.misses, size: compiledPrograms.size };
}

/** One segment of a program, handed to whoever runs it (`simulate` to its end, the debugger step by step). */
export interface ProgramSegment {
  kind: 'host' | 'kernel';
  machine: Machine;
  /** 0 for the program's first segment. */
  index: number;
  /** `host code of main`, `kernel tma_ring (line 97)`. */
  title: string;
}

/** The host thread's executor: main's frames on a one-thread machine, resumed segment after segment. */
class HostExecutor extends CudaExecutor {
  exitCode?: number;
  private ts?: ThreadCtx;
  private readonly blk: BlockCtx;

  constructor(
    compiler: Compiler,
    main: FnInst,
    ids: () => number,
    readonly host: HostState,
  ) {
    super(compiler, main, [], ids);
    this.blk = { rank: 0, shared: [], dynamic: new Buffer(ids(), 'extern __shared__', 'shared', 0), window: [], baseOf: new Map(), tmemNext: 0 };
  }

  override startBlock(_m: Machine, block: SimBlock): void {
    block.state = this.blk;
  }

  override startThread(m: Machine, t: SimThread): void {
    let ts = this.ts;
    if (!ts) {
      ts = new ThreadCtx(t, m, this.blk, this);
      ts.race = false;
      // main's caller: receives its return value and ends the program with it.
      const exit: CompiledFn = { name: 'exit', code: [exitInstr(this.kernel.fn.loc)], nslots: 1, mem: [], locals: [], loc: this.kernel.fn.loc };
      const base = new Frame(exit, ts, null);
      const f = new Frame(this.kernel.fn, ts, base);
      f.retSlot = 0;
      // int main(int argc, char** argv): one argument, the program's name.
      if (this.kernel.params.length >= 2) {
        const name = new Buffer(this.nextBufferId(), 'argv[0]', 'host', 64);
        name.bytes.set(new TextEncoder().encode(this.host.programName.slice(0, 63)));
        const argv = new Buffer(this.nextBufferId(), 'argv', 'host', 16);
        storePointer(argv, 0, { buf: name, offset: 0 });
        storePointer(argv, 8, null);
        f.v[0] = 1;
        f.v[1] = { buf: argv, offset: 0 };
      }
      ts.frame = f;
      this.ts = ts;
    } else {
      // The same host thread on the next segment's machine.
      Object.assign(ts as { t: SimThread; m: Machine }, { t, m });
    }
    t.state = ts;
    t.role = 'host';
    t.loc = this.frames(t)[0]?.loc ?? this.kernel.fn.loc;
  }

  override endBlock(): void {}

  /** main's frames, without the caller that receives its return value. */
  override frames(t: SimThread): FrameInfo[] {
    const all = super.frames(t);
    return all.length > 1 ? all.slice(0, -1) : all;
  }

  override run(m: Machine, t: SimThread, budget: number): number {
    try {
      return super.run(m, t, budget);
    } catch (e) {
      if (!(e instanceof ProgramExit)) throw e;
      this.exitCode = e.code;
      t.status = 'done';
      return 1;
    }
  }

  /** Ends the current host segment after the statement running now (a kernel launch). */
  yieldToKernel(): void {
    const ts = this.ts!;
    ts.t.status = 'done';
    ts.m.yieldNow = true;
  }
}

function exitInstr(loc: Instr['loc']): Instr {
  return {
    run: (f) => {
      const v = f.v[0];
      throw new ProgramExit(typeof v === 'number' ? v & 0xff : 0);
    },
    runRow: undefined,
    rowFx: false,
    loc,
    stmt: false,
    target: 0,
    site: -1,
  };
}

export interface CudaProgramOptions {
  /** Program output as it happens: stdout, stderr, and device printf with the thread that printed. */
  onOutput?: (text: string, stream: 'stdout' | 'stderr', t?: SimThread) => void;
  /** Kernels keep running after misuse and races (the debugger reports them itself). */
  continueOnMisuse?: boolean;
}

/** A whole CUDA program: its segments one after another (see the header). */
/**
 * A whole program's default step budget: host code legitimately loops far longer than a kernel (a CPU
 * reference GEMM is tens of millions of statements), so it is not held to the kernels' 50 M.
 */
export const HOST_MAX_STEPS = 2_000_000_000;

export class CudaProgram {
  readonly launches: Machine[] = [];
  readonly segments: ProgramSegment[] = [];
  readonly host: HostState;
  /** The whole program's budget: `maxSteps` when given, else HOST_MAX_STEPS. */
  private readonly maxSteps: number;
  /** Without an explicit budget each kernel launch gets the kernels' default of its own (a spin loop is a kernel's). */
  private readonly kernelMaxSteps: number | undefined;
  private hostEx?: HostExecutor;
  private running?: ProgramSegment;
  private pendingKernel?: ProgramSegment;
  private final?: SimulateResult;
  private finishedSteps = 0;
  private kernels = 0;
  private readonly races: SimReport[] = [];
  private readonly failures: SimReport[] = [];
  private nextId = 1;
  compiler?: Compiler;
  /** Each file's text with `__cluster_dims__` still in it, by path (undefined: the program's file). */
  private sourceTexts = new Map<string | undefined, string>();

  private constructor(
    readonly req: SimulateRequest,
    private readonly opts: CudaProgramOptions,
  ) {
    this.maxSteps = req.maxSteps ?? HOST_MAX_STEPS;
    this.kernelMaxSteps = req.maxSteps === undefined ? DEFAULT_MAX_STEPS : undefined;
    let outLen = 0;
    this.host = new HostState(
      () => this.nextId++,
      (text, stream) => {
        if (stream === 'stdout') {
          outLen += text.length;
          if (outLen <= MAX_STDOUT) req.onPrint?.(text);
        }
        opts.onOutput?.(text, stream);
      },
    );
    this.host.launch = (l) => this.launchKernel(l);
    this.host.programName = `./${path.basename(req.file).replace(/\.[^.]*$/, '')}`;
  }

  /** Parses and compiles the program (host code up front; each kernel at its first launch). */
  static async create(req: SimulateRequest, opts: CudaProgramOptions = {}): Promise<CudaProgram> {
    const p = new CudaProgram(req, opts);
    await p.compile();
    return p;
  }

  private async compile(): Promise<void> {
    const req = this.req;
    const language = await loadCudaLanguage();
    const unit = buildCudaUnit(req.text, req.file ? path.resolve(req.file) : undefined, req.file ? new Project({ explicit: req.compile }) : undefined, undefined);
    const key = compileKey('program', req, unit);
    const cached = compiledPrograms.get(key);
    if (cached) {
      // Numbered as a fresh compile numbers them: this run's buffers start after the compile's.
      this.nextId = cached.firstId;
      this.compiler = cached.compiler;
      this.sourceTexts = cached.sourceTexts;
      cached.compiler.bufferIds = () => this.nextId++;
      this.hostEx = new HostExecutor(cached.compiler, cached.main, () => this.nextId++, this.host);
      return;
    }
    const parser = new Parser();
    parser.setLanguage(language);
    const roots: SyntaxNode[] = [];
    const prelude = parseWhole(parser, HOST_PRELUDE);
    if (prelude) {
      registerHeaderTree(prelude, HOST_PRELUDE_FILE);
      roots.push(prelude.rootNode);
    }
    // Host code as the compiler sees it: macros expanded. (A local `T x(n);` that the grammar reads as a
    // prototype is declared as the constructor call it is by the compiler's declarations, for device code too.)
    const hostText = (text: string, file: string) => parseWhole(parser, expandFunctionMacros(text, unit.tu.macros, file));
    // Each file's text as parsed but before the grammar-gap blanking, which hides `__cluster_dims__`
    // from tree-sitter (cluster-dims.ts reads the attribute there; the blanking keeps offsets).
    const unblanked = (pre: { parseText: string; beforeGrammarGaps?: string }, file: string) => expandFunctionMacros(pre.beforeGrammarGaps ?? pre.parseText, unit.tu.macros, file);
    this.sourceTexts.set(undefined, unblanked({ parseText: unit.parseText, beforeGrammarGaps: unit.tu.main.pre.beforeGrammarGaps }, req.file));
    // Every project header: a harness's host helpers (error checks, references) live there too.
    for (const file of unit.projectHeaders()) {
      this.sourceTexts.set(file.path, unblanked(file.pre, file.path));
      const tree = hostText(file.pre.parseText, file.path);
      if (!tree) continue;
      registerHeaderTree(tree, file.path);
      roots.push(tree.rootNode);
    }
    const tree = hostText(unit.parseText, req.file);
    if (!tree) throw new SimError(`${req.file}: could not parse the file`);
    const compiler = new Compiler(tree.rootNode, () => this.nextId++, roots);
    compiler.missingIncludes = unit.tu.missing.filter((m) => !m.angled).map((m) => `"${m.spelling}"`);
    compiler.host = new ProgramHooks(req.file);
    this.compiler = compiler;
    const main = compiler.functions.get('main')?.find((d) => !d.owner && !d.tparams);
    if (!main) throw SimError.ofRequest({ kind: 'kernel' }, `${req.file} has no main() to run: name a kernel with --kernel`);
    try {
      compiler.prepareFileScope();
      const inst = compiler.instantiate(main, new Map(), main.node);
      // Kept only when main compiled (a failed compile is compiled again each time, for its report).
      compiledPrograms.set(key, { compiler, main: inst, sourceTexts: this.sourceTexts, firstId: this.nextId });
      this.hostEx = new HostExecutor(compiler, inst, () => this.nextId++, this.host);
    } catch (e) {
      if (!(e instanceof SimError)) throw e;
      const rep = reportOf(e, req.file);
      // A construct the grammar could not read is the likely cause: say where.
      const bad = firstSyntaxError(tree.rootNode);
      if (bad) rep.message += ` (the file has a syntax error at ${path.basename(req.file)}:${bad.startPosition.row + 1}: '${bad.text.slice(0, 40)}')`;
      this.finish('error', rep, undefined);
    }
  }

  /**
   * The device allocations (cudaMalloc), by the variable each was made for and typed by its pointer;
   * of several made for one name, the last (freed ones keep their last contents).
   */
  get buffers(): NamedBuffer[] {
    const byName = new Map(this.host.allocations.map((b) => [b.name, b]));
    return [...byName.values()].map((b) => ({ name: b.name, dtype: b.dtype ?? 'u8', shape: b.shape ?? [b.size], buffer: b }));
  }

  /** Statements run so far: every ended segment, host and kernels. */
  get steps(): number {
    return this.finishedSteps;
  }

  get launchRunning(): boolean {
    return !!this.running;
  }

  get done(): boolean {
    return !!this.final;
  }

  /** Runs up to the next segment and hands it over, or returns undefined when the program has ended. */
  next(): ProgramSegment | undefined {
    if (this.final) return undefined;
    if (this.running) throw new Error('CudaProgram.next: the previous segment has not ended (call endLaunch)');
    const kernel = this.pendingKernel;
    if (kernel) {
      this.pendingKernel = undefined;
      this.running = kernel;
      return kernel;
    }
    const ex = this.hostEx!;
    if (ex.exitCode !== undefined) {
      this.finish('completed');
      return undefined;
    }
    const m = new Machine(ex, {
      grid: [1, 1, 1],
      block: [1, 1, 1],
      maxSteps: Math.max(1, this.maxSteps - this.finishedSteps),
      detectRaces: false,
      trace: this.req.trace,
      continueOnMisuse: this.opts.continueOnMisuse,
    });
    // A `__host__ __device__` function's printf, called from host code, prints as device code does.
    m.listeners.push((e) => {
      if (e.kind === 'print') this.host.out(e.text);
    });
    return this.start('host', m, this.segments.some((s) => s.kind === 'host') ? 'host code of main (after the launch)' : 'host code of main');
  }

  private start(kind: ProgramSegment['kind'], m: Machine, title: string): ProgramSegment {
    const s: ProgramSegment = { kind, machine: m, index: this.segments.length, title };
    this.segments.push(s);
    this.launches.push(m);
    if (kind === 'host') this.running = s;
    return s;
  }

  /** A race a kernel reported while it ran on (simulate mode); the run ends with it after the program's output. */
  noteRace(report: SimReport): void {
    if (this.races.length < 20) this.races.push(report);
  }

  /** How the segment `next()` handed over ended. */
  endLaunch(r: RunResult): void {
    const s = this.running;
    if (!s) throw new Error('CudaProgram.endLaunch: no segment is running');
    if (r.status === 'paused') throw new Error('CudaProgram.endLaunch: the segment has not ended');
    this.running = undefined;
    this.finishedSteps += s.machine.steps;
    if (s.kind === 'host') {
      if (r.status === 'completed') return;
      // Host code's one thread is `host`, not a lane of a block; a step limit there is the program's.
      const rep = r.report && { ...r.report, message: r.report.message.replace(/block 0 · warp 0 · lane 0 · host/g, 'host code').replace('without the kernel finishing', 'without the program finishing') };
      this.finish(r.status, rep);
      return;
    }
    this.host.deviceCycles += s.machine.cycles;
    if (r.status === 'completed') return;
    if (r.status === 'race') {
      if (r.report) this.noteRace(r.report);
      return;
    }
    const rep = r.report;
    // A tx-count underflow leaves the phase unable to complete: the GPU hangs there (gemm/bug_tail_expect_tx), it does not fault.
    const hangs = rep?.misuse?.kind === 'tx-underflow';
    if (r.status === 'deadlock' || r.status === 'step-limit' || !rep || rep.kind === 'unsupported' || hangs) {
      // The GPU would hang (deadlock), or the simulator cannot go on: the program ends here.
      this.finish(r.status, rep, rep && `${s.title}: ${rep.message}`);
      return;
    }
    // A fault (out of bounds, misuse, trap, device assert): the kernel aborts; the host sees a launch failure.
    const code = rep.kind === 'oob' ? (/misaligned/.test(rep.message) ? 716 : 700) : /^assertion failed/.test(rep.message) ? 710 : 719;
    this.host.pending = code;
    this.failures.push(rep);
    this.host.out(`phaseflip: ${s.title} failed (the GPU reports ${code === 719 ? 'an unspecified launch failure' : code === 710 ? 'a device-side assert' : code === 716 ? 'a misaligned address' : 'an illegal memory access'}): ${rep.message}\n`, 'stderr');
  }

  /** The host's `k<<<…>>>(…)`: the runtime's configuration checks, then the kernel as the next segment. */
  private launchKernel(l: KernelLaunch): number {
    const h = this.host;
    if (h.sticky) return h.sticky;
    const threads = l.block[0] * l.block[1] * l.block[2];
    const INVALID_VALUE = 1;
    if (l.block.some((d) => d < 1) || l.block[0] > 1024 || l.block[1] > 1024 || l.block[2] > 64 || threads > 1024) return h.result(INVALID_VALUE);
    if (l.grid.some((d) => d < 1) || l.grid[0] > 2 ** 31 - 1 || l.grid[1] > 65535 || l.grid[2] > 65535) return h.result(INVALID_VALUE);
    if (l.dynamicSmem > (h.maxDynamicSmem.get(l.declName) ?? DEFAULT_DYNAMIC_SMEM)) return h.result(INVALID_VALUE);
    const compiler = this.compiler!;
    const decl = compiler.kernels.find((d) => d.name === l.declName)!;
    let cluster = l.cluster;
    let executor: Executor;
    try {
      // A kernel's compile-time __cluster_dims__ apply to every launch of it, `<<<>>>` included.
      cluster ??= declaredClusterDims(compiler, decl, l.binding as TemplateBinding, this.sourceTexts.get(fileOf(decl.node)));
      // Compiled with main (the launch's parameter types), or compiled again here for its report; a
      // compile's buffers are numbered from this run (a cached compile serves several).
      compiler.bufferIds = () => this.nextId++;
      const inst = compiler.instantiate(decl, l.binding as TemplateBinding, decl.node);
      const cuda = new CudaExecutor(compiler, inst, l.args.map((a, i) => deviceArg(a, inst.params[i]?.name ?? `#${i}`, inst.params[i]?.type, this.host.pinned, () => this.nextId++)), () => this.nextId++, this.hostEx!.storage);
      // Every live device allocation is reachable by address (tensor maps and integer-cast pointers name buffers by id).
      for (const b of this.host.allocations) if (b.space === 'global') cuda.registerBuffer(b);
      executor = cuda;
    } catch (e) {
      if (!(e instanceof SimError)) throw e;
      executor = failingExecutor(e);
    }
    const m = new Machine(executor, {
      grid: l.grid,
      block: l.block,
      dynamicSmem: l.dynamicSmem,
      cluster,
      seed: this.req.seed,
      schedule: this.req.schedule,
      maxSteps: Math.max(1, Math.min(this.kernelMaxSteps ?? Infinity, this.maxSteps - this.finishedSteps - (this.running?.machine.steps ?? 0))),
      latencies: this.req.latencies,
      trace: this.req.trace,
      detectRaces: this.req.detectRaces,
      lockstep: this.req.lockstep,
      continueOnMisuse: this.opts.continueOnMisuse,
    });
    m.listeners.push((e) => {
      if (e.kind === 'print') {
        this.host.stdout += e.text;
        if (this.host.stdout.length <= MAX_STDOUT) this.req.onPrint?.(e.text);
        this.opts.onOutput?.(e.text, 'stdout', e.thread);
      }
    });
    this.kernels++;
    this.pendingKernel = this.start('kernel', m, `kernel ${l.name} (launched at line ${l.line + 1})`);
    this.hostEx!.yieldToKernel();
    return h.result(0);
  }

  result(): SimulateResult {
    if (!this.final) throw new Error('CudaProgram.result: the program has not ended');
    return this.final;
  }

  private finish(status: SimulateResult['status'], report?: SimReport, message?: string): void {
    const h = this.host;
    const kernels = this.launches.filter((_, i) => this.segments[i]?.kind === 'kernel');
    const exitCode = this.hostEx?.exitCode;
    let st = status;
    let rep = report;
    let msg = message ?? report?.message;
    if (status === 'completed') {
      const what = `the program exited with code ${exitCode ?? 0} after ${this.kernels} kernel launch(es), ${withCommas(this.finishedSteps)} statements`;
      if (this.races.length) {
        st = 'race';
        rep = this.races[0];
        msg = `${rep.message}\n(${what}; its output is as the simulator ran it)`;
      } else msg = `completed: ${what}`;
    }
    const stdout = h.stdout.length > MAX_STDOUT ? `${h.stdout.slice(0, MAX_STDOUT)}\n… output truncated after ${withCommas(MAX_STDOUT)} characters\n` : h.stdout;
    this.final = {
      status: st,
      message: msg ?? st,
      report: rep,
      phaseFlips: kernels.reduce((a, m) => a + m.phaseFlips, 0),
      cycles: kernels.reduce((a, m) => a + m.cycles, 0),
      steps: this.finishedSteps,
      barriers: kernels.flatMap((m) => m.barrierStates()),
      buffers: this.buffers.map((b) => ({ name: b.name, dtype: b.dtype, shape: b.shape, checksum: checksum(b.buffer), buffer: b.buffer })),
      stdout,
      stderr: h.stderr,
      exitCode: status === 'completed' ? (exitCode ?? 0) : undefined,
      launchFailures: this.failures.map((f) => f.message),
      trace: this.req.trace ? this.launches.flatMap((m) => m.trace) : undefined,
    };
  }
}

/**
 * A kernel argument as the device sees it: a host pointer (malloc, new, a stack array; not pinned
 * memory, which is mapped) becomes a pointer into nothing, so the kernel's first access faults as the
 * GPU's illegal address does (programs/host_pointer.cu).
 */
function deviceArg(v: unknown, param: string, type: CType | undefined, pinned: ReadonlySet<Buffer>, id: () => number): unknown {
  const p = v as Pointer | null;
  if (type?.k === 'struct' && p && typeof p === 'object' && 'buf' in p) {
    // A struct passed by value (a `const __grid_constant__ CUtensorMap`, a params struct): the launch copies
    // its bytes into the kernel's parameter space then, as CUDA does, so later host writes do not reach it.
    const size = sizeOfType(type);
    const copy = new Buffer(id(), param, 'const', size);
    copyBytes({ buf: copy, offset: 0 }, p, size);
    return { buf: copy, offset: 0 };
  }
  if (p && typeof p === 'object' && 'buf' in p && p.buf.space !== 'global' && p.buf.space !== 'const' && !pinned.has(p.buf)) {
    return { buf: new Buffer(id(), `host memory '${p.buf.name}' (a host pointer passed as '${param}')`, 'host', 0), offset: p.offset };
  }
  return v;
}


function firstSyntaxError(n: SyntaxNode): SyntaxNode | undefined {
  if (!n.hasError) return undefined;
  // An unnamed bit-field (`uint16_t : 2;`) reads as a declarator whose name is missing: valid C++.
  if (n.isMissing && n.type === 'field_identifier' && n.nextSibling?.type === 'bitfield_clause') return undefined;
  if (n.type === 'ERROR' || n.isMissing) return n;
  for (const ch of n.children) {
    const found = ch && firstSyntaxError(ch);
    if (found) return found;
  }
  return n.type === 'ERROR' ? n : undefined;
}

/** A compile error in host code: "not supported by the simulator: X at FILE:LINE" (the header's name when X is in one). */
function reportOf(e: SimError, file: string): SimReport {
  const loc = e.loc;
  const where = loc ? ` at ${path.basename(loc.file ?? file)}:${loc.line + 1}` : '';
  const message = e.kind === 'unsupported' ? `not supported by the simulator: ${e.message}${where}` : `${e.message}${where}`;
  return { kind: e.kind, message, loc, threads: [] };
}

/** What `simulate` runs for a whole program: every segment to its end, in order. */
export async function prepareCudaProgram(req: SimulateRequest): Promise<PreparedSimulation> {
  const program = await CudaProgram.create(req);
  return { run: () => runProgram(program, req) };
}

const SLICE = 500_000;

function runProgram(program: CudaProgram, req: SimulateRequest): SimulateResult {
  for (let s = program.next(); s; s = program.next()) {
    const m = s.machine;
    for (;;) {
      const r = m.run({ untilSteps: m.steps + SLICE });
      if (r.status === 'paused') {
        req.onProgress?.(program.steps + m.steps, req.maxSteps ?? HOST_MAX_STEPS);
        continue;
      }
      // A race in a kernel: noted, and the kernel runs on (the GPU does not stop for it).
      if (r.status === 'race' && !m.isFinished) {
        if (r.report) program.noteRace(r.report);
        continue;
      }
      program.endLaunch(r);
      break;
    }
  }
  return program.result();
}
