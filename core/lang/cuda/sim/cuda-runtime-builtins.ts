// The CUDA runtime and driver calls a test harness makes, for whole programs: device allocations and
// copies (cudaMalloc/Free/Memcpy/Memset, their Async forms), errors as the runtime reports them
// (cudaGetLastError resets the last error; a launch failure is sticky for every other call and
// surfaces at the next synchronising call), streams, events over simulated time, kernel attributes
// (cudaFuncSetAttribute's MaxDynamicSharedMemorySize) and cuTensorMapEncodeTiled, which validates
// its arguments like the driver and writes the simulator's 128-byte map. Launches are host-launch.ts.
import type { SyntaxNode } from '../parser';
import { SimError } from '../../../sim/machine';
import type { Pointer } from '../../../sim/memory';
import { interleavedMapUnmodelled, type TensorMapSpec, TENSOR_MAP_DTYPES, TENSOR_MAP_INTERLEAVES, TENSOR_MAP_L2, TENSOR_MAP_SWIZZLES, validateTensorMap, writeTensorMap } from '../../../sim/tensor-map';
import { args, asNum, asPtr, type BuiltinCx, cases, type FreeBuiltin, V } from './builtin-operands';
import type { Ex, Fn } from './context';
import { copyMemory } from './host-builtins';
import { cudaErrorName, cudaErrorString, type HostState, hostOf, MAX_DYNAMIC_SMEM_OPTIN } from './host-runtime';
import type { Frame } from './runtime';
import { loader, storePointer, storer } from './runtime';
import { unsupported } from './syntax';
import { S32 } from './types';
import type { DType } from '../../../sim/dtypes';

const STRING = { k: 'obj' as const, obj: 'string' as const };
const INVALID_VALUE = 1;
/** H200 SM clock (GHz) that turns simulated cycles into cudaEventElapsedTime's milliseconds. */
const CLOCK_GHZ = 1.98;

const ok = (h: HostState): number => h.result(0);

/** A runtime call that synchronises with the device: a kernel's failure surfaces here. */
function sync(h: HostState): number {
  h.surface();
  return ok(h);
}

/** Stores a 64-bit handle where the call's out-parameter points. */
const putU64 = storer('u64');
const getU64 = loader('u64');
const getU32 = loader('u32');

function outHandle(f: Frame, p: Fn, v: number): void {
  const q = p(f) as Pointer;
  if (!q) throw new SimError('null out-parameter');
  putU64(q.buf, q.offset, v);
}

function isHostSpace(p: Pointer): boolean {
  return p.buf.space !== 'global';
}

/** cudaMemcpy's direction (cudaMemcpyKind) checked against where the pointers point; 4 = cudaMemcpyDefault infers it. */
function memcpy(h: HostState, dst: Pointer, src: Pointer, n: number, kind: number): number {
  if (h.sticky) return h.sticky;
  if (!dst || !src) return h.result(INVALID_VALUE);
  const want: Record<number, [boolean, boolean]> = { 0: [true, true], 1: [true, false], 2: [false, true], 3: [false, false] };
  const dir = want[kind];
  if (kind !== 4 && (!dir || dir[0] !== isHostSpace(src) || dir[1] !== isHostSpace(dst))) return h.result(INVALID_VALUE);
  copyMemory(dst, src, n, 'cudaMemcpy');
  return ok(h);
}

/** `&x` of a handle or pointer variable, with or without a `(void**)` cast. */
function outArg(k: BuiltinCx, node: SyntaxNode): Fn {
  return asPtr(k, args(k, [node])[0]);
}

export const CUDA_RUNTIME_BUILTINS: Record<string, FreeBuiltin> = {
  ...cases(['cudaMalloc', 'cudaMallocManaged', 'cudaMallocHost', 'cudaHostAlloc', 'cudaMallocAsync'], (k, name, _ns, a) => {
    const out = outArg(k, a[0]);
    const size = asNum(k, args(k, [a[1]])[0], 'u64');
    const target = a[0].text.replace(/^\(\s*void\s*\*\*\s*\)\s*/, '').replace(/^&\s*/, '');
    const host = name === 'cudaMallocHost' || name === 'cudaHostAlloc';
    const dtype = pointeeOfOut(k, a[0]);
    return V((f) => {
      const h = hostOf(f);
      if (h.sticky) return h.sticky;
      const n = size(f);
      const p = host ? h.malloc(n, `${target} (${name})`) : h.cudaMalloc(n, target, dtype);
      // Pinned host memory is mapped for the device (unified addressing): kernels may use it.
      if (host) h.pinned.add(p.buf);
      const q = out(f) as Pointer;
      storePointer(q.buf, q.offset, p);
      return ok(h);
    }, S32);
  }),
  ...cases(['cudaFree', 'cudaFreeHost', 'cudaFreeAsync'], (k, name, _ns, a) => {
    const p = asPtr(k, args(k, [a[0]])[0]);
    return V((f) => {
      const h = hostOf(f);
      const q = p(f) as Pointer | null;
      if (name !== 'cudaFreeAsync') h.surface();
      if (h.sticky) return h.sticky;
      if (!q) return ok(h);
      const set = name === 'cudaFreeHost' ? h.heap : h.device;
      if (!set.has(q.buf) || q.offset !== 0) return h.result(INVALID_VALUE);
      set.delete(q.buf);
      h.pinned.delete(q.buf);
      return ok(h);
    }, S32);
  }),
  ...cases(['cudaMemcpy', 'cudaMemcpyAsync'], (k, name, _ns, a) => {
    const [d, s, n, kind] = args(k, a);
    const dst = asPtr(k, d);
    const src = asPtr(k, s);
    const bytes = asNum(k, n, 'u64');
    const kd = asNum(k, kind, 's32');
    return V((f) => {
      const h = hostOf(f);
      if (name === 'cudaMemcpy') h.surface();
      return memcpy(h, dst(f), src(f), bytes(f), kd(f));
    }, S32);
  }),
  ...cases(['cudaMemset', 'cudaMemsetAsync'], (k, _name, _ns, a) => {
    const [d, v, n] = args(k, a);
    const dst = asPtr(k, d);
    const val = asNum(k, v, 's32');
    const bytes = asNum(k, n, 'u64');
    return V((f) => {
      const h = hostOf(f);
      if (h.sticky) return h.sticky;
      const p = dst(f) as Pointer;
      if (!p || p.buf.space !== 'global') return h.result(INVALID_VALUE);
      const m = bytes(f);
      if (p.offset < 0 || p.offset + m > p.buf.size) return h.result(INVALID_VALUE);
      p.buf.bytes.fill(val(f) & 0xff, p.offset, p.offset + m);
      return ok(h);
    }, S32);
  }),
  ...cases(['cudaDeviceSynchronize', 'cudaStreamSynchronize', 'cudaEventSynchronize', 'cudaThreadSynchronize'], () => V((f) => sync(hostOf(f)), S32)),
  cudaGetLastError: () => V((f) => hostOf(f).takeLastError(), S32),
  cudaPeekAtLastError: () => V((f) => hostOf(f).lastError || hostOf(f).sticky, S32),
  ...cases(['cudaGetErrorString', 'cudaGetErrorName'], (k, name, _ns, a) => {
    const e = asNum(k, args(k, a)[0], 's32');
    return V((f) => (name === 'cudaGetErrorString' ? cudaErrorString(e(f)) : cudaErrorName(e(f))), STRING);
  }),
  cudaFuncSetAttribute: (k, _name, _ns, a) => {
    const kernel = kernelName(a[0]);
    const [attr, value] = args(k, a.slice(1));
    const at = asNum(k, attr, 's32');
    const v = asNum(k, value, 's64');
    return V((f) => {
      const h = hostOf(f);
      if (h.sticky) return h.sticky;
      const which = at(f);
      const x = v(f);
      if (which === 8) {
        if (x < 0 || x > MAX_DYNAMIC_SMEM_OPTIN) return h.result(INVALID_VALUE);
        h.maxDynamicSmem.set(kernel, x);
      }
      return ok(h);
    }, S32);
  },
  ...cases(['cudaStreamCreate', 'cudaStreamCreateWithFlags', 'cudaStreamCreateWithPriority', 'cudaEventCreate', 'cudaEventCreateWithFlags'], (k, name, _ns, a) => {
    const out = outArg(k, a[0]);
    return V((f) => {
      const h = hostOf(f);
      if (h.sticky) return h.sticky;
      const id = h.handle();
      if (name.startsWith('cudaStream')) h.streams.add(id);
      else h.events.set(id, undefined);
      outHandle(f, out, id);
      return ok(h);
    }, S32);
  }),
  ...cases(['cudaStreamDestroy', 'cudaEventDestroy'], (k, name, _ns, a) => {
    const id = asNum(k, args(k, a)[0], 'u64');
    return V((f) => {
      const h = hostOf(f);
      const x = id(f);
      const known = name === 'cudaStreamDestroy' ? h.streams.delete(x) : h.events.delete(x);
      return h.result(known ? 0 : 400);
    }, S32);
  }),
  cudaEventRecord: (k, _name, _ns, a) => {
    const id = asNum(k, args(k, [a[0]])[0], 'u64');
    return V((f) => {
      const h = hostOf(f);
      const x = id(f);
      if (!h.events.has(x)) return h.result(400);
      h.events.set(x, h.deviceCycles);
      return ok(h);
    }, S32);
  },
  cudaEventElapsedTime: (k, _name, _ns, a) => {
    const [o, s, e] = args(k, a);
    const out = asPtr(k, o);
    const start = asNum(k, s, 'u64');
    const end = asNum(k, e, 'u64');
    const put = storer('f32');
    return V((f) => {
      const h = hostOf(f);
      h.surface();
      if (h.sticky) return h.sticky;
      const t0 = h.events.get(start(f));
      const t1 = h.events.get(end(f));
      if (t0 === undefined || t1 === undefined) return h.result(400);
      const q = out(f) as Pointer;
      put(q.buf, q.offset, Math.fround((t1 - t0) / (CLOCK_GHZ * 1e6)));
      return ok(h);
    }, S32);
  },
  ...cases(['cudaSetDevice', 'cudaDeviceReset', 'cudaFuncSetCacheConfig', 'cudaDeviceSetCacheConfig', 'cudaProfilerStart', 'cudaProfilerStop'], () => V((f) => ok(hostOf(f)), S32)),
  ...cases(['cudaGetDevice', 'cudaGetDeviceCount'], (k, name, _ns, a) => {
    const out = outArg(k, a[0]);
    const put = storer('s32');
    return V((f) => {
      const q = out(f) as Pointer;
      put(q.buf, q.offset, name === 'cudaGetDevice' ? 0 : 1);
      return ok(hostOf(f));
    }, S32);
  }),
  cuTensorMapEncodeTiled: (k, _name, _ns, a) => tensorMapEncode(k, a),
  ...cases(['cudaMemcpyToSymbol', 'cudaMemcpyFromSymbol', 'cudaMemcpyToSymbolAsync', 'cudaMemcpyFromSymbolAsync'], (k, name, _ns, a) => {
    const to = name.startsWith('cudaMemcpyTo');
    const symbol = symbolAddress(k, a[to ? 0 : 1]);
    const other = asPtr(k, args(k, [a[to ? 1 : 0]])[0]);
    const count = asNum(k, args(k, [a[2]])[0], 'u64');
    const offset = a[3] ? asNum(k, args(k, [a[3]])[0], 'u64') : () => 0;
    return V((f) => {
      const h = hostOf(f);
      if (!name.endsWith('Async')) h.surface();
      if (h.sticky) return h.sticky;
      const s = symbol(f) as Pointer;
      const at = { buf: s.buf, offset: s.offset + offset(f) };
      const o = other(f) as Pointer;
      if (!o) return h.result(INVALID_VALUE);
      copyMemory(to ? at : o, to ? o : at, count(f), name);
      return ok(h);
    }, S32);
  }),
  cudaGetDeviceProperties: (k, _name, _ns, a) => {
    const { c, cx, n } = k;
    const out = asPtr(k, args(k, [a[0]])[0]);
    const def = c.structDef(cx, 'cudaDeviceProp', n);
    if (!def) unsupported('cudaGetDeviceProperties without cudaDeviceProp', n);
    const field = (name: string) => def.fields.find((fl) => fl.name === name)!.offset;
    return V((f) => {
      const p = out(f) as Pointer;
      const b = p.buf;
      const put32 = storer('s32');
      const put64 = storer('u64');
      b.bytes.fill(0, p.offset, p.offset + def.size);
      b.bytes.set(new TextEncoder().encode(H200.name), p.offset + field('name'));
      for (const [key, v] of Object.entries(H200.ints)) put32(b, p.offset + field(key), v);
      for (const [key, v] of Object.entries(H200.sizes)) put64(b, p.offset + field(key), v);
      H200.maxThreadsDim.forEach((v, i) => put32(b, p.offset + field('maxThreadsDim') + 4 * i, v));
      H200.maxGridSize.forEach((v, i) => put32(b, p.offset + field('maxGridSize') + 4 * i, v));
      return ok(hostOf(f));
    }, S32);
  },
};

/**
 * The device cudaGetDeviceProperties describes: an H200 (sm_90) as NVIDIA documents it. These values
 * were not recorded on the GPU machine; memory sizes in particular are nominal.
 */
const H200 = {
  name: 'NVIDIA H200',
  ints: { regsPerBlock: 65536, warpSize: 32, maxThreadsPerBlock: 1024, clockRate: 1980000, major: 9, minor: 0, multiProcessorCount: 132, l2CacheSize: 52428800, maxThreadsPerMultiProcessor: 2048, regsPerMultiprocessor: 65536, memoryBusWidth: 6144, concurrentKernels: 1, unifiedAddressing: 1, managedMemory: 1, cooperativeLaunch: 1, clusterLaunch: 1 },
  sizes: { totalGlobalMem: 141 * 2 ** 30, sharedMemPerBlock: 49152, totalConstMem: 65536, sharedMemPerMultiprocessor: 233472, sharedMemPerBlockOptin: 232448 },
  maxThreadsDim: [1024, 1024, 64],
  maxGridSize: [2147483647, 65535, 65535],
};

/** A `__device__`/`__constant__` variable named as a symbol: the address of its storage. */
function symbolAddress(k: BuiltinCx, node: SyntaxNode): Fn {
  const e = k.c.expr(k.cx, node);
  if (e.t.k === 'arr') return k.c.decayFn(e);
  if (!e.lv || e.lv.k !== 'mem') unsupported(`'${node.text}' as a symbol (a __device__ or __constant__ variable is expected)`, node);
  return k.c.addressOf(e, node);
}

/** The element type of the pointer an allocation's out-parameter names (`&d` or `(void**)&d`, d a `float*`): f32. */
function pointeeOfOut(k: BuiltinCx, node: SyntaxNode): DType | undefined {
  let n: SyntaxNode | null = node;
  while (n && (n.type === 'cast_expression' || n.type === 'parenthesized_expression')) n = n.type === 'cast_expression' ? n.childForFieldName('value') : n.namedChildren[0];
  if (n?.type !== 'pointer_expression' || n.childForFieldName('operator')?.text !== '&') return undefined;
  const inner = n.childForFieldName('argument');
  if (!inner) return undefined;
  try {
    const t = k.c.typeOf(k.cx, inner);
    return t.k === 'ptr' && t.to.k === 'num' ? t.to.dt : undefined;
  } catch {
    return undefined;
  }
}

/** The kernel a runtime call names (`k`, `k<128>`, `(void*)k`), by its declared name. */
export function kernelName(n: SyntaxNode | undefined): string {
  return (n?.text ?? '').replace(/^\(\s*(const\s+)?void\s*\*\s*\)\s*/, '').replace(/^&\s*/, '').replace(/<[\s\S]*$/, '').replace(/^.*::/, '').trim();
}

/**
 * cuTensorMapEncodeTiled(map, dtype, rank, globalAddress, globalDim, globalStrides, boxDim,
 * elementStrides, interleave, swizzle, l2Promotion, oobFill): CUDA_SUCCESS (0) and the map written,
 * or CUDA_ERROR_INVALID_VALUE (1) when the driver would refuse it, nothing printed.
 */
function tensorMapEncode(k: BuiltinCx, a: SyntaxNode[]): Ex {
  if (a.length !== 12) unsupported(`cuTensorMapEncodeTiled with ${a.length} arguments`, k.n);
  const xs = args(k, a);
  const map = asPtr(k, xs[0]);
  const [dtype, rank] = [asNum(k, xs[1], 's32'), asNum(k, xs[2], 's32')];
  const global = asPtr(k, xs[3]);
  const [dims, strides, box, estr] = [asPtr(k, xs[4]), asPtr(k, xs[5]), asPtr(k, xs[6]), asPtr(k, xs[7])];
  const [inter, swz, l2, oob] = [xs[8], xs[9], xs[10], xs[11]].map((e) => asNum(k, e, 's32'));
  const INVALID = 1;
  return V((f) => {
    const r = rank(f);
    const dt = TENSOR_MAP_DTYPES[dtype(f)];
    const g = global(f) as Pointer | null;
    const il = TENSOR_MAP_INTERLEAVES[inter(f)];
    const sw = TENSOR_MAP_SWIZZLES[swz(f)];
    const l2v = TENSOR_MAP_L2[l2(f)];
    const fill = oob(f);
    if (dt === undefined || il === undefined || sw === undefined || l2v === undefined || (fill !== 0 && fill !== 1) || !g || r < 1 || r > 5) return INVALID;
    const read = (p: Fn, count: number, wide: boolean): number[] => {
      const q = p(f) as Pointer | null;
      if (!q) throw new SimError('cuTensorMapEncodeTiled: a null array argument');
      const out: number[] = [];
      for (let i = 0; i < count; i++) out.push(wide ? getU64(q.buf, q.offset + 8 * i) : getU32(q.buf, q.offset + 4 * i));
      return out;
    };
    const spec: TensorMapSpec = {
      dtype: dt,
      global: { buf: g.buf, offset: g.offset },
      dims: read(dims, r, true),
      strides: r > 1 ? read(strides, r - 1, true) : [],
      box: read(box, r, false),
      elementStrides: read(estr, r, false),
      interleave: il,
      swizzle: sw,
      l2Promotion: l2v,
      oobFill: fill === 1 ? 'nan' : 'zero',
    };
    if (validateTensorMap(spec) !== undefined) return INVALID;
    const unmodelled = interleavedMapUnmodelled(spec);
    if (unmodelled) unsupported(`cuTensorMapEncodeTiled: ${unmodelled}`, k.n);
    const m = map(f) as Pointer;
    writeTensorMap(m.buf, m.offset, spec);
    return 0;
  }, S32);
}
