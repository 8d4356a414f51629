// CUDA executor of the simulator: turns a .cu file, a kernel name, launch geometry and SPEC
// arguments into a ready-to-run Launch (a Machine whose threads execute the kernel).
//
// Design. The file is parsed once with tree-sitter-cuda. `compile.ts` compiles the kernel and
// every device function, member function, template instance and lambda it reaches into a flat
// array of instructions per function; an instruction is a JS closure `(frame) => next pc`, and
// expressions inside it are closures `(frame) => value` specialised by C++ type at compile time
// (types.ts holds the exact integer/float arithmetic). Scalars live in per-frame slot arrays;
// arrays, structs and address-taken locals live in per-frame local buffers; `__shared__`
// variables get one buffer each per block (executor.ts), placed in a 32-bit shared window so
// `__cvta_generic_to_shared` and inline PTX addresses map back to buffer + offset. Calls to user
// functions and every builtin that can block (waits, syncs, shuffles, asm) are hoisted into their
// own instructions, so a thread blocks without losing its place and the debugger sees real frames
// (`CudaExecutor.frames(t)` / `locals(t, i)`); `&&`, `||` and `?:` with such calls become branches.
// Every instruction carries its zero-based source line. A template kernel runs as the instantiation
// the request names (`k<4, float>`) or the one the file launches (kernel-instances.ts).
// A compile is kept for the next requests with the same inputs (compile-cache.ts): launches share
// instructions, and each has its own run state (runtime.ts RunStorage, executor.ts).
//
// Supported: the C++ subset of typical warp-specialised kernels (integer, float, half/bf16 types,
// pointers, multi-dimensional arrays, structs with member functions, templates with deduced or
// explicit arguments, class templates with static constexpr members, member templates, constructors
// and default member initialisers, `if constexpr`, lambdas, references, enums, typedef/using, unions and
// bit-fields, conversion operators, parameter packs, static locals, all operators and statements but
// goto/exceptions), the CUDA runtime (builtins.ts: syncs, warp collectives, atomics,
// math, printf, assert, cooperative groups, cuda::barrier, cuda::ptx::mbarrier_*, __mbarrier_*,
// bulk copies, memcpy_async, cp.async pipelines) and inline PTX (ptx.ts: mbarrier.*, cp.async*,
// bar.sync, fences; ptx-tcgen05.ts: tcgen05 alloc/mma kind::f16/commit/ld/st/cp, CTA pairs included;
// ptx-wgmma.ts: wgmma groups). A try_wait in a retry
// loop blocks until its phase completes; one whose result is not retried gives up after its time
// limit in cycles, or at once when it has none (hardware may return false early); a test_wait
// probes, except in a retry loop, where it blocks.
// Anything else stops with "not supported by the simulator: <construct> at line N".
//
// To add a builtin, see the header of builtins.ts; to add a PTX instruction, `compileOp` in ptx.ts.
import * as path from 'node:path';
import { Project } from '../../../project/project';
import { loadCudaLanguage, Parser, parseWhole, type SyntaxNode } from '../parser';
import { fileOf, registerHeaderTree } from '../syntax-nodes';
import { buildCudaUnit } from '../unit';
import { isFloat, sizeOf } from '../../../sim/dtypes';
import { Machine, type MachineOptions, SimError } from '../../../sim/machine';
import { materialize, tensorMapOf } from '../../../sim/args';
import { Buffer } from '../../../sim/memory';
import { TENSOR_MAP_BYTES, writeTensorMap } from '../../../sim/tensor-map';
import { type ArgSpec, type Launch, type NamedBuffer, type PreparedSimulation, runLaunch, type SimulateRequest } from '../../../sim/run';
import { Compiler, FnCx, type FnDecl, type FnInst, named } from './compile';
import { CompileCache, compileKey } from './compile-cache';
import { declaredClusterDims } from './cluster-dims';
import { chooseKernel } from './kernel-instances';
import { type TemplateBinding, templateParams, templateScope } from './templates';
import { CudaExecutor, failingExecutor } from './executor';
import { isWholeProgram, prepareCudaProgram } from './host-program';
import type { Executor } from '../../../sim/machine';
import { type CType, isFloatDt, isNum, isTensorMapType, tensorMapType, typeName } from './types';

export { CudaExecutor, type FrameInfo, type LocalInfo } from './executor';
export { chooseKernel, type KernelChoice, type KernelInstance, kernelInstantiations, parseKernelName } from './kernel-instances';

/**
 * What `simulate` runs for a CUDA request: its one launch, run to the end on demand, or the whole
 * program from its main() when no kernel is named and the file has one (host-program.ts).
 */
export async function prepareCudaSimulation(req: SimulateRequest): Promise<PreparedSimulation> {
  if (isWholeProgram(req)) return prepareCudaProgram(req);
  const launch = await prepareCudaLaunch(req);
  return { run: () => runLaunch(launch, req) };
}

/**
 * A kernel request compiled: the parsed translation unit, the compiler with every function the kernel
 * reaches compiled into instructions, and the first buffer id a launch numbers its own buffers from.
 * Compiled code holds no state a run writes (RunStorage, runtime.ts), so one serves any number of
 * launches, one after another or alive together (a paused debug session beside a run).
 */
interface CompiledKernel {
  compiler: Compiler;
  decl: FnDecl;
  binding: TemplateBinding;
  kernelName: string;
  params: { name: string; type: CType }[];
  /** Undefined when the body could not be compiled: the launch then faults with that report (never cached). */
  inst?: FnInst;
  /** Buffer ids 1..nextId-1 are the compile's (global variables); a launch's arguments and memory come after. */
  nextId: number;
  sourceTexts: Map<string | undefined, string>;
}

const compiledKernels = new CompileCache<CompiledKernel>();

/** Empties the compiled-kernel cache (tests compare a fresh compile with a cached one). */
export function clearCompiledKernels(): void {
  compiledKernels.clear();
}

/** How often a launch reused a compiled kernel and how often it compiled one, and how many are kept. */
export function compiledKernelStats(): { hits: number; misses: number; size: number } {
  return { hits: compiledKernels.hits, misses: compiledKernels.misses, size: compiledKernels.size };
}

async function compiledKernel(req: SimulateRequest): Promise<CompiledKernel> {
  const language = await loadCudaLanguage();
  // The translation unit: the file preprocessed with its includes' macros, and the headers that hold
  // device code, whose functions and types the kernel may use (parsed in inclusion order).
  const unit = buildCudaUnit(req.text, req.file ? path.resolve(req.file) : undefined, req.file ? new Project({ explicit: req.compile }) : undefined, undefined);
  const key = compileKey(`kernel ${req.kernel ?? ''}`, req, unit);
  const cached = compiledKernels.get(key);
  if (cached) return cached;
  const parser = new Parser();
  parser.setLanguage(language);
  const headerRoots: SyntaxNode[] = [];
  // Each file's text before the grammar-gap blanking (which hides `__cluster_dims__` from tree-sitter).
  const sourceTexts = new Map<string | undefined, string>([[undefined, unit.tu.main.pre.beforeGrammarGaps ?? unit.parseText]]);
  for (const file of unit.deviceHeaders()) {
    sourceTexts.set(file.path, file.pre.beforeGrammarGaps ?? file.pre.parseText);
    const headerTree = parseWhole(parser, file.pre.parseText);
    if (!headerTree) continue;
    registerHeaderTree(headerTree, file.path);
    headerRoots.push(headerTree.rootNode);
  }
  const tree = parseWhole(parser, unit.parseText);
  if (!tree) throw new SimError(`${req.file}: could not parse the file`);
  let nextId = 1;
  const compiler = new Compiler(tree.rootNode, () => nextId++, headerRoots);
  compiler.missingIncludes = unit.tu.missing.filter((m) => !m.angled).map((m) => `"${m.spelling}"`);
  const { decl, binding, name: kernelName } = chooseKernel(compiler, req.kernel, req.file);
  const { params, inst } = kernelParams(compiler, decl, binding);
  const compiled: CompiledKernel = { compiler, decl, binding, kernelName, params, inst, nextId, sourceTexts };
  if (inst) compiledKernels.set(key, compiled);
  return compiled;
}

export async function prepareCudaLaunch(req: SimulateRequest): Promise<Launch> {
  const { compiler, decl, binding, kernelName, params, inst, nextId: firstId, sourceTexts } = await compiledKernel(req);
  // This launch's buffers (arguments, shared and local memory) are numbered after the compile's.
  let nextId = firstId;
  const ids = () => nextId++;

  // Arguments are checked before a compile error is reported, so a wrong command line is reported first.
  const buffers: NamedBuffer[] = [];
  const values: unknown[] = [];
  const given = new Map((req.args ?? []).map((a) => [a.name, a]));
  // A buffer only a tensor map views need not be a kernel parameter (the host passes just the map).
  const viewed = new Set((req.args ?? []).flatMap((a) => (a.kind === 'tensormap' ? [a.tensor] : [])));
  for (const a of req.args ?? []) {
    if (!params.some((p) => p.name === a.name) && !(a.kind === 'buffer' && viewed.has(a.name)))
      throw SimError.ofRequest({ kind: 'arg', name: a.name }, `argument '${a.name}' is not a parameter of ${kernelName}(${params.map((p) => p.name).join(', ')})`);
  }
  const maps: { index: number; spec: Extract<ArgSpec, { kind: 'tensormap' }> }[] = [];
  for (const p of params) {
    const a = given.get(p.name);
    if (!a) throw SimError.ofRequest({ kind: 'args' }, `missing argument '${p.name}' of ${kernelName}: pass --arg ${p.name}=${p.type.k === 'ptr' ? `${suggestDtype(p.type)}[N]` : isTensorMapType(p.type) ? 'tensormap(BUFFER,box=[…])' : '<number>'}`);
    if (isTensorMapType(p.type)) {
      if (a.kind !== 'tensormap') throw SimError.ofRequest({ kind: 'arg', name: p.name }, `argument '${p.name}' is a CUtensorMap: give ${p.name}=tensormap(BUFFER,box=[…]), not ${a.text}`);
      maps.push({ index: values.length, spec: a });
      values.push(undefined);
      continue;
    }
    if (a.kind === 'tensormap') throw SimError.ofRequest({ kind: 'arg', name: p.name }, `argument '${p.name}' is a ${typeName(p.type)}, not a CUtensorMap (${a.text})`);
    if (p.type.k === 'ptr') {
      if (a.kind !== 'buffer') throw SimError.ofRequest({ kind: 'arg', name: p.name }, `argument '${p.name}' is a pointer (${typeName(p.type)}): give a buffer like ${p.name}=${suggestDtype(p.type)}[N], not ${a.text}`);
      const pointee = p.type.to;
      if (pointee.k === 'num' && pointee.dt !== a.dtype && !(sizeOf(pointee.dt) === sizeOf(a.dtype) && isFloat(pointee.dt) === isFloat(a.dtype) && pointee.dt !== 'bool'))
        throw SimError.ofRequest({ kind: 'arg', name: p.name }, `argument '${p.name}' points to ${pointee.dt} but was given ${a.dtype}[${a.shape.join(',')}]`);
      const nb = materialize(a, ids());
      buffers.push(nb);
      values.push({ buf: nb.buffer, offset: 0 });
      continue;
    }
    if (p.type.k !== 'num') throw SimError.ofRequest({ kind: 'arg', name: p.name }, `parameter '${p.name}' of type ${typeName(p.type)} cannot be given on the command line`);
    if (a.kind !== 'scalar') throw SimError.ofRequest({ kind: 'arg', name: p.name }, `argument '${p.name}' is a ${typeName(p.type)} scalar, not a buffer (${a.text})`);
    if (!isFloatDt(p.type.dt) && !Number.isInteger(a.value)) throw SimError.ofRequest({ kind: 'arg', name: p.name }, `argument '${p.name}' is an integer (${typeName(p.type)}), got ${a.value}`);
    values.push(coerceScalar(p.type, a.value, p.name));
  }
  for (const a of req.args ?? []) if (a.kind === 'buffer' && !params.some((p) => p.name === a.name)) buffers.push(materialize(a, ids()));
  // Each map's 128 bytes, as the host would pass a `const __grid_constant__ CUtensorMap` by value.
  const mapped: Buffer[] = [];
  for (const { index, spec } of maps) {
    const map = tensorMapOf(spec, buffers.find((b) => b.name === spec.tensor));
    const bytes = new Buffer(ids(), spec.name, 'const', TENSOR_MAP_BYTES);
    writeTensorMap(bytes, 0, map);
    mapped.push(map.global.buf);
    values[index] = { buf: bytes, offset: 0 };
  }

  const declared = declaredClusterDims(compiler, decl, binding, sourceTexts.get(fileOf(decl.node)));
  if (req.cluster && declared && req.cluster.some((v, i) => v !== declared[i]))
    throw SimError.ofRequest({ kind: 'cluster' }, `bad launch configuration: ${kernelName} declares __cluster_dims__(${declared.join(', ')}), so a launch may not give it another cluster shape (${req.cluster.join('x')}): the compile-time cluster dims cannot be overridden at launch`);
  const geometry: MachineOptions = {
    grid: req.grid ?? [1, 1, 1],
    block: req.block ?? [launchBounds(compiler, decl, binding) ?? 128, 1, 1],
    cluster: req.cluster ?? declared,
    dynamicSmem: req.dynamicSmem,
    seed: req.seed,
    schedule: req.schedule,
    maxSteps: req.maxSteps,
    latencies: req.latencies,
    trace: req.trace,
    detectRaces: req.detectRaces,
    lockstep: req.lockstep,
  };
  let executor: Executor;
  try {
    // A body that did not compile is compiled again here for its report (the same error; never cached,
    // so the compiler is this launch's alone and numbers what it makes from the launch's ids).
    if (!inst) compiler.bufferIds = ids;
    const kernel: FnInst = inst ?? compiler.instantiate(decl, binding, decl.node);
    const cuda = new CudaExecutor(compiler, kernel, values, ids);
    // A tensor map names its global buffer by id; the copies resolve it through the executor.
    for (const b of mapped) cuda.registerBuffer(b);
    executor = cuda;
  } catch (e) {
    // A construct we cannot simulate: the launch faults on its first statement with the report.
    if (!(e instanceof SimError)) throw e;
    executor = failingExecutor(e);
  }
  const machine = new Machine(executor, geometry);
  return { machine, buffers };
}

/** The kernel compiled, and its parameters; when its body cannot be compiled, the parameters as far as its declaration reads. */
function kernelParams(c: Compiler, decl: FnDecl, binding: TemplateBinding): { params: { name: string; type: CType }[]; inst?: FnInst } {
  c.prepareFileScope();
  try {
    const inst = c.instantiate(decl, binding, decl.node);
    return { params: inst.params.map((p) => ({ name: p.name, type: p.type })), inst };
  } catch (e) {
    if (!(e instanceof SimError)) throw e;
    // Compilation of the body failed; the parameter list may still be readable.
    const fd = named(decl.node).find((x) => x.type === 'function_declarator') ?? decl.node.childForFieldName('declarator');
    const list = fd?.childForFieldName('parameters');
    if (!list) throw e;
    const params = named(list)
      .filter((p) => p.type === 'parameter_declaration')
      .map((p) => {
        const dn = p.childForFieldName('declarator');
        const text = dn?.text ?? '';
        // `[\s\S]` rather than `.`: the cut then matches at the first bracket instead of retrying every one (quadratic).
        const name = text.replace(/[*&\s]|__restrict__/g, '').replace(/\[[\s\S]*$/, '');
        const tmap = !text.includes('*') && /\bCUtensorMap\b/.test(p.childForFieldName('type')?.text ?? '') ? tensorMapType('CUtensorMap') : undefined;
        const type: CType = text.includes('*') ? { k: 'ptr', to: { k: 'void' } } : tmap ? { k: 'struct', def: tmap } : { k: 'num', dt: 's64' };
        return { name, type };
      });
    return { params };
  }
}

/** `__launch_bounds__(N)`, N a constant or the kernel's template argument. */
function launchBounds(c: Compiler, decl: FnDecl, binding: TemplateBinding): number | undefined {
  const lb = named(decl.node).find((x) => x.type === 'launch_bounds');
  const e = lb ? named(lb)[0] : undefined;
  if (!e) return undefined;
  let v = NaN;
  try {
    const cx = new FnCx(decl.name, null, binding, undefined, { line: 0 });
    if (decl.tparams) for (const [k, s] of templateScope(c, templateParams(decl.tparams, c), binding)) cx.scopes[0].set(k, s);
    v = c.constEval(cx, e);
  } catch (err) {
    if (!(err instanceof SimError)) throw err;
  }
  return Number.isInteger(v) && v > 0 && v <= 1024 ? v : undefined;
}

function suggestDtype(t: CType): string {
  return t.k === 'ptr' && t.to.k === 'num' ? t.to.dt : 'f32';
}

function coerceScalar(t: CType, v: number, name: string): number {
  if (!isNum(t)) return v;
  const dt = t.dt;
  const ranges: Record<string, [number, number]> = { s8: [-128, 127], u8: [0, 255], s16: [-32768, 32767], u16: [0, 65535], s32: [-2147483648, 2147483647], u32: [0, 4294967295], s64: [-(2 ** 53), 2 ** 53], u64: [0, 2 ** 53], bool: [0, 1] };
  const r = ranges[dt];
  if (r && (v < r[0] || v > r[1])) throw SimError.ofRequest({ kind: 'arg', name }, `argument '${name}' = ${v} does not fit in ${dt}`);
  if (dt === 'f32') return Math.fround(v);
  return v;
}

