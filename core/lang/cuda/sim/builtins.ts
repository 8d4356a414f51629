// The CUDA runtime as the executor sees it: every builtin function and the member functions of
// library objects, dispatched by name through tables that the groups of builtins fill:
// sync-builtins.ts (block and warp syncs, warp collectives, cooperative groups), math-builtins.ts
// (math, conversions, std::move/forward), memory-builtins.ts (atomics, address spaces, placement
// new), diagnostic-builtins.ts (printf, assert, clocks), barrier-builtins.ts (cuda::barrier,
// cuda::ptx::mbarrier_*, __mbarrier_*), async-copy-builtins.ts (memcpy_async, bulk copies,
// cp.async pipelines), tensor-copy-builtins.ts (tensor TMA), pipeline-builtins.ts (cuda::pipeline) and
// vector-builtins.ts (make_float4 …, half2 / bfloat162 arithmetic). Each entry compiles its call into a closure, or into a blocking instruction
// for anything that waits; inline PTX goes to ptx.ts.
// To add a builtin: add an entry to its group's table (or a member table for `obj.f()`), and mark
// it `mayBlock` in core/lang/cuda/catalogue.ts when it can wait, so calls to it are hoisted into their own
// instruction. SIMULATED_BUILTINS and SIMULATED_METHODS list what the simulator knows, for parity
// with the API catalogue.
import { CUDA_CATALOGUE, isBlockingApi } from '../catalogue';
import type { SyntaxNode } from '../parser';
import { ASYNC_COPY_BUILTINS } from './async-copy-builtins';
import { BARRIER_BUILTINS, BARRIER_METHODS } from './barrier-builtins';
import { barArg, type BuiltinCx, type FreeBuiltin, type MethodBuiltin } from './builtin-operands';
import type { CompilerContext, Ex, Fn, FnCx } from './context';
import { DIAGNOSTIC_BUILTINS } from './diagnostic-builtins';
import { IDENTITY_BUILTINS, MATH_BUILTINS, UNARY_MATH } from './math-builtins';
import { MEMORY_BUILTINS, placementNew } from './memory-builtins';
import { compileAsm } from './ptx';
import { PIPELINE_BUILTINS, PIPELINE_METHODS } from './pipeline-builtins';
import { VECTOR_BUILTINS } from './vector-builtins';
import { CLUSTER_METHODS, GRID_METHODS, isGroupNamespace, SYNC_BUILTINS, THREAD_BLOCK_METHODS, TILE_METHODS } from './sync-builtins';
import { lastName, unsupported } from './syntax';
import { TENSOR_COPY_BUILTINS } from './tensor-copy-builtins';
import type { CType } from './types';

// The operations builtins and inline PTX perform at run time, under the names they had here.
export { barrierAt, bulkCopy, markProducer, threadArrive, type WaitMode, waitParity, waitToken } from './barrier-runtime';

/** Builtins that can block (`mayBlock` in the CUDA catalogue): a call to one gets its own instruction. */
export const BLOCKING_BUILTINS: ReadonlySet<string> = new Set(Object.keys(CUDA_CATALOGUE).filter(isBlockingApi));

/** `cg::sync(group)` is `group.sync()`. */
const GROUP_SYNC: FreeBuiltin = (k, _name, ns, a) => {
  if (!isGroupNamespace(ns)) return undefined;
  const { c, cx, n } = k;
  const g = c.expr(cx, a[0]);
  return compileMethodCall(c, cx, g.t, g.ev, 'sync', [], n) ?? undefined;
};

/** Every free builtin by its unqualified name; a handler may still refuse a namespace or an arity. */
export const FREE_BUILTINS: ReadonlyMap<string, FreeBuiltin> = new Map(
  Object.entries({
    ...MATH_BUILTINS,
    ...VECTOR_BUILTINS,
    ...IDENTITY_BUILTINS,
    ...SYNC_BUILTINS,
    sync: GROUP_SYNC,
    ...MEMORY_BUILTINS,
    ...DIAGNOSTIC_BUILTINS,
    ...BARRIER_BUILTINS,
    ...ASYNC_COPY_BUILTINS,
    ...TENSOR_COPY_BUILTINS,
    ...PIPELINE_BUILTINS,
  }),
);

/** Member functions by the library type they belong to. */
export const METHOD_BUILTINS: ReadonlyMap<string, ReadonlyMap<string, MethodBuiltin>> = new Map([
  ['cuda::barrier', new Map(Object.entries(BARRIER_METHODS))],
  ['cooperative_groups::thread_block', new Map(Object.entries(THREAD_BLOCK_METHODS))],
  ['cooperative_groups::grid_group', new Map(Object.entries(GRID_METHODS))],
  ['cooperative_groups::cluster_group', new Map(Object.entries(CLUSTER_METHODS))],
  ['cooperative_groups::thread_block_tile', new Map(Object.entries(TILE_METHODS))],
  ['cuda::pipeline', new Map(Object.entries(PIPELINE_METHODS))],
]);

/** The free builtins the simulator compiles, by unqualified name (`__syncthreads`, `mbarrier_try_wait` …). */
export const SIMULATED_BUILTINS: readonly string[] = Object.freeze([...FREE_BUILTINS.keys()]);

/** The member functions the simulator compiles, qualified by their type (`cuda::barrier::arrive` …). */
export const SIMULATED_METHODS: readonly string[] = Object.freeze([...METHOD_BUILTINS].flatMap(([type, methods]) => [...methods.keys()].map((m) => `${type}::${m}`)));

/** The member table of a library object type. */
function methodsOf(t: CType): ReadonlyMap<string, MethodBuiltin> | undefined {
  if (t.k === 'barrier') return METHOD_BUILTINS.get('cuda::barrier');
  if (t.k !== 'obj') return undefined;
  if (t.obj === 'thread_block') return METHOD_BUILTINS.get('cooperative_groups::thread_block');
  if (t.obj === 'grid') return METHOD_BUILTINS.get('cooperative_groups::grid_group');
  if (t.obj === 'cluster') return METHOD_BUILTINS.get('cooperative_groups::cluster_group');
  if (t.obj === 'tile') return METHOD_BUILTINS.get('cooperative_groups::thread_block_tile');
  if (t.obj === 'pipeline') return METHOD_BUILTINS.get('cuda::pipeline');
  return undefined;
}

export function isKnownPure(name: string): boolean {
  return !BLOCKING_BUILTINS.has(name) && PURE_BUILTINS.has(name);
}

/** Builtins whose calls never block nor call user code: they may stay inside an expression. */
const PURE_BUILTINS = new Set<string>([
  ...UNARY_MATH,
  ...UNARY_MATH.map((x) => `${x}f`),
  ...UNARY_MATH.map((x) => `__${x}f`),
  'min',
  'max',
  'fminf',
  'fmaxf',
  'fmin',
  'fmax',
  'umin',
  'umax',
  'abs',
  'labs',
  'llabs',
  'fmaf',
  'fma',
  'powf',
  'pow',
  '__powf',
  '__fdividef',
  '__saturatef',
  '__float2int_rn',
  '__float2int_rz',
  '__float2uint_rn',
  '__int2float_rn',
  '__float_as_uint',
  '__uint_as_float',
  '__float_as_int',
  '__int_as_float',
  '__half2float',
  '__float2half',
  '__float2half_rn',
  '__bfloat162float',
  '__float2bfloat16',
  '__float2bfloat16_rn',
  '__hadd',
  '__hsub',
  '__hmul',
  '__hdiv',
  '__hfma',
  '__popc',
  '__clz',
  '__ffs',
  '__brev',
  '__umulhi',
  '__mulhi',
  'clock',
  'clock64',
  '__threadfence',
  '__threadfence_block',
  '__nanosleep',
  '__cvta_generic_to_shared',
  '__ldg',
  'move',
  'forward',
  'aligned_size_t',
  '__activemask',
  'printf',
  'assert',
  'this_thread_block',
  'barrier_native_handle',
  'mbarrier_arrive',
  'mbarrier_arrive_expect_tx',
  'mbarrier_init',
  'mbarrier_expect_tx',
  '__mbarrier_arrive',
  '__mbarrier_init',
  'static_cast',
]);

// ------------------------------------------------------------------ dispatch

/** Compiles a call of builtin `fullName` (possibly qualified), or gives undefined when it is none. */
export function compileBuiltinCall(c: CompilerContext, cx: FnCx, fullName: string, argNodes: SyntaxNode[], n: SyntaxNode, targs?: SyntaxNode[]): Ex | undefined {
  const k: BuiltinCx = { c, cx, n };
  if (fullName === 'operator new') return placementNew(k);
  if (fullName === 'asm') return compileAsm(c, cx, n);
  const name = lastName(fullName);
  const ns = fullName.slice(0, Math.max(0, fullName.length - name.length - 2));
  const r = FREE_BUILTINS.get(name)?.(k, name, ns, argNodes, targs);
  if (r) return r;
  // Families known by prefix, refused with a precise message.
  if ((ns === 'cuda::ptx' || ns === 'ptx' || /^mbarrier_|^cp_async_bulk/.test(name)) && (name.startsWith('mbarrier_') || name.startsWith('cp_'))) unsupported(`cuda::ptx::${name}`, n);
  if (name.startsWith('__mbarrier_')) {
    barArg(k, argNodes[0], name);
    unsupported(name, n);
  }
  return undefined;
}

/** Compiles `self.name(args)` on a library object of type `t`, or gives undefined when it has no such member. */
export function compileMethodCall(c: CompilerContext, cx: FnCx, t: CType, self: Fn, name: string, a: SyntaxNode[], n: SyntaxNode, _targs?: SyntaxNode[], obj?: Ex): Ex | undefined {
  const methods = methodsOf(t);
  const r = methods?.get(name)?.({ c, cx, n }, t, self, name, a, obj);
  if (r) return r;
  if (t.k === 'barrier') unsupported(`cuda::barrier::${name}`, n);
  return undefined;
}
