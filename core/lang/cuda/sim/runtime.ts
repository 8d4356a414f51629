// Runtime structures of the CUDA executor: compiled functions (flat instruction arrays), frames
// (slot arrays + local memory), per-thread and per-block contexts, typed memory access with bounds
// checks and race hooks, and the address spaces (32-bit shared window per block, generic 64-bit
// addresses) that inline PTX and integer casts of pointers need.
import type { DType } from '../../../sim/dtypes';
import { fromBf16Bits, fromHalfBits, toBf16Bits, toHalfBits } from '../../../sim/dtypes';
import { type AsyncOp, type Machine, type SimThread, type SourceLoc, SimError, warpLane } from '../../../sim/machine';
import { Buffer, OutOfBounds, type Pointer } from '../../../sim/memory';
import { clusterAddress, CLUSTER_RANK_SHIFT, WINDOW_MASK } from '../../../sim/cluster';
import { objectArray } from '../../../sim/elements-kinds';
import { chk64, type CType, wide } from './types';

/** Evaluates an expression for lanes `fs[0..n)` at once into the node's own buffer (lanes.ts; valid until the node runs again). */
export type VFn = (fs: readonly Frame[], n: number) => Float64Array;

/** Instruction results besides "next pc". */
export const BLOCKED = -1;
/** The frame stack changed (call or return); the loop reloads `ts.frame`. */
export const FRAME = -2;
/** A row's lanes go to different instructions: each lane's next pc (or BLOCKED) is in the row's `pcs`. */
export const SPLIT = -3;
/** A row form declined before any effect (the lanes are not in the case it batches): they run one by one. */
export const NO_ROW = -4;

/**
 * The row form of an expression with effects (a barrier arrival): evaluates it for lanes
 * `fs[0..n)` exactly as n evaluations in lane order would, leaving lane j's value in `out[j]`
 * (undefined: lane j blocked), or returns false before any effect when it cannot.
 */
export type RowFx = (fs: readonly Frame[], n: number, out: unknown[]) => boolean;

export interface Instr {
  /** Executes the instruction; returns the next pc, BLOCKED or FRAME. */
  run: (f: Frame) => number;
  loc: SourceLoc;
  /** Counts as a statement (jumps do not) and is where the debugger may stop. */
  stmt: boolean;
  /** Jump target, patched after the target is known. */
  target: number;
  /** Arrive-site number (assigned by the executor on first use; -1 before). */
  site: number;
  /**
   * The warp-lockstep form (lanes.ts), where the instruction has one: executes it for the lanes
   * `fs[0..n)` at once and returns the next pc they all take, or SPLIT with each lane's in `pcs`.
   * It never blocks, faults, calls or touches memory, unless `rowFx` says it has effects.
   */
  runRow?: (fs: readonly Frame[], n: number, pcs: Int32Array) => number;
  /**
   * The row form has effects (barrier services, blocking; RowFx): the lanes' locations are brought
   * up to date before it runs, and it may return NO_ROW.
   */
  rowFx: boolean;
}

/** A local variable as the debugger sees it. */
export interface LocalVar {
  name: string;
  type: CType;
  /** Slot index (scalars; 'num': a plain-number local, in the frame's typed slots) or memory index (arrays, structs, address-taken scalars). */
  where: 'slot' | 'num' | 'mem' | 'ref';
  index: number;
  /** Visible from this pc (its declaration) to `to` (end of its scope). */
  from: number;
  to: number;
}

export interface MemLocal {
  name: string;
  size: number;
}

export interface CompiledFn {
  name: string;
  code: Instr[];
  nslots: number;
  mem: MemLocal[];
  locals: LocalVar[];
  /** Some local lives in the typed slots (Frame.d). */
  typedSlots?: boolean;
  /** What a frame's typed slots start as (made on first use; never written). */
  slotTemplate?: number[];
  /** Declared at (for frames without a pc). */
  loc: SourceLoc;
  /** A lambda in its body captures its frame (`Closure.env`): its frames may outlive their return. */
  capturesFrame?: boolean;
  /** Returned frames kept for the next calls (`Frame.enter`), the first `pooled` entries. */
  pool?: Frame[];
  pooled?: number;
}

export class Frame {
  pc = 0;
  readonly v: any[];
  /**
   * Typed slots: the locals whose values are always plain numbers (lanes.ts `laneType`), unboxed, so
   * storing one allocates nothing and warp-lockstep rows gather them from unboxed memory. NaN until
   * assigned (reading an unset int gives what an undefined slot gave: 0 after `| 0`).
   */
  readonly d: number[];
  readonly mem: Buffer[];
  /** Enclosing frame of a lambda (captures by reference). */
  env: Frame | null = null;
  /** `this` of a member function. */
  self: Pointer | null = null;
  /** Caller slot that receives the return value (-1: discard). */
  retSlot = -1;
  depth: number;
  constructor(
    readonly fn: CompiledFn,
    public ts: ThreadCtx,
    public caller: Frame | null,
  ) {
    this.v = new Array(fn.nslots);
    this.d = fn.typedSlots ? typedSlotsOf(fn).slice() : NO_TYPED_SLOTS;
    this.depth = callDepth(fn, caller);
    this.mem = fn.mem.length ? fn.mem.map((m) => new Buffer(ts.ex.nextBufferId(), m.name, 'local', m.size)) : EMPTY;
  }

  /** A frame of `fn` for a call: a returned one made fresh again (`release`), or a new one. */
  static enter(fn: CompiledFn, ts: ThreadCtx, caller: Frame | null): Frame {
    const n = fn.pooled;
    if (!n) return new Frame(fn, ts, caller);
    const depth = callDepth(fn, caller);
    const f = fn.pool![n - 1];
    fn.pooled = n - 1;
    f.ts = ts;
    f.caller = caller;
    f.depth = depth;
    f.pc = 0;
    const d = f.d;
    if (d.length) {
      const t = fn.slotTemplate!;
      for (let i = 0; i < d.length; i++) d[i] = t[i];
    }
    f.retSlot = -1;
    return f;
  }

  /**
   * The frame returned: nothing can reach it any more unless a lambda captured it or a pointer names
   * its memory, so a function without either keeps it for its next call (a big grid makes a frame per
   * thread per call; made afresh, they are most of what it allocates). What it referenced is let go
   * (a kept frame must not hold a finished machine), and a use of it after its return would fail on
   * its missing thread rather than read another call's values.
   */
  release(): void {
    const fn = this.fn;
    if (fn.capturesFrame || fn.mem.length) return;
    const n = fn.pooled ?? 0;
    if (n >= MAX_POOLED_FRAMES) return;
    this.ts = RELEASED;
    this.caller = null;
    this.v.fill(undefined);
    this.env = null;
    this.self = null;
    (fn.pool ??= [])[n] = this;
    fn.pooled = n + 1;
  }
}
/** The depth of a frame of `fn` called from `caller`: past 64, a runaway recursion. */
function callDepth(fn: CompiledFn, caller: Frame | null): number {
  const depth = caller ? caller.depth + 1 : 0;
  if (depth > 64) throw new SimError(`call depth exceeds 64 (runaway recursion in ${fn.name}?)`);
  return depth;
}
/** The thread of a frame kept for reuse: none. */
const RELEASED = null as unknown as ThreadCtx;
/** Returned frames kept per function: enough for the live threads of a grid (resident blocks finish in waves). */
const MAX_POOLED_FRAMES = 4096;
const EMPTY: Buffer[] = [];
// Empty, of the double elements kind typed slots have (so `f.d` sees one kind of array).
const NO_TYPED_SLOTS: number[] = [0.5].slice(0, 0);

/**
 * A function's typed slots start as a copy of one array of NaNs: a JS array of doubles (stored unboxed,
 * like a Float64Array's) costs a young-generation copy to make, where a typed array per call costs an
 * off-heap allocation (a big grid makes hundreds of thousands of frames).
 */
function typedSlotsOf(fn: CompiledFn): number[] {
  let t = fn.slotTemplate;
  if (!t) {
    t = [0.5];
    for (let i = 1; i < fn.nslots; i++) t.push(NaN);
    t[0] = NaN;
    fn.slotTemplate = t;
  }
  return t;
}

export interface BlockCtx {
  /** The CTA's rank in its cluster (0 without clusters): its shared addresses carry it from bit 24 (core/sim/cluster.ts). */
  rank: number;
  /** Static `__shared__` variables, by declaration index. */
  shared: Buffer[];
  /** `extern __shared__` (dynamic shared memory). */
  dynamic: Buffer;
  /** Shared-window base address of each buffer, sorted by base. */
  window: { base: number; buf: Buffer }[];
  /** The window entry the last shared address resolved to (fromSharedAddress tries it first). */
  lastWindow?: { base: number; buf: Buffer };
  baseOf: Map<Buffer, number>;
  /** Tensor memory (tcgen05): 128 lanes × 512 columns of 32-bit words. */
  tmem?: Uint32Array;
  tmemNext: number;
  /** Its tensor-memory allocations (tcgen05.alloc): first column, width, the `.cta_group` that made them. */
  tmemAllocs?: { col: number; cols: number; group: 1 | 2; loc?: SourceLoc }[];
  /**
   * The threads of the CTA that executed tcgen05.relinquish_alloc_permit, and where: no allocation
   * may follow (checked in program order of the same thread; lanes run apart, so another lane's
   * relinquish does not order this lane's allocation).
   */
  tmemRelinquished?: Map<number, SourceLoc>;
  /**
   * On the even CTA of a CTA pair: the last `.cta_group::2` MMA each CTA of the pair issued, by
   * accumulator address (one thread of the pair issues the pair's MMA; tcgen05-pair.ts).
   */
  pairMmas?: Map<number, { rank: number; thread: number; loc?: SourceLoc; op: AsyncOp }>;
  /**
   * The CTA of the cluster that owns `buf` when it is another block's shared memory (distributed
   * shared memory): its rank and shared window. Undefined for a block outside the cluster. Throws
   * when that CTA already exited.
   */
  peerOf?: (buf: Buffer) => { rank: number; ctx: BlockCtx } | undefined;
}

/** What a lambda value holds: its body and the frame it captured. */
export interface Closure {
  fn: CompiledFn;
  env: Frame;
}

export interface ExecutorLike {
  /** The thread whose statement is executing (the last arriver, for completion functions). */
  current?: ThreadCtx;
  /** Runs a function to completion on `ts` (completion functions); it may not block. */
  runSync(ts: ThreadCtx, fn: CompiledFn, env: Frame | null): void;
  nextBufferId(): number;
  registerBuffer(buf: Buffer): void;
  bufferById(id: number): Buffer | undefined;
  /** A new arrive-site number (small, unique within the compiled program, which may serve several launches). */
  newSite(): number;
  /** The storage this run owns that compiled code names (its `__device__` variables, per-run memos). */
  readonly storage: RunStorage;
}

/**
 * What one run of a compiled program owns, so the compiled code (instructions and closures, which the
 * compiled-program cache reuses across runs) holds no state a run writes: the run's copies of the
 * program's `__device__` / `__constant__` variables and function-scope statics (made on first use from
 * their compile-time image, whose static initialisers ran at compile time), and per-run values keyed by
 * a compile-time object (a string literal's buffer, whether a static's dynamic initialiser ran). A
 * whole program's host and kernels share one.
 */
export class RunStorage {
  private readonly copies: Buffer[] = objectArray();
  private readonly values = new Map<object, unknown>();
  constructor(private readonly images: readonly Buffer[]) {}

  /** The run's copy of global variable `index` (Compiler.globals). */
  global(index: number): Buffer {
    return this.copies[index] ?? this.copy(index);
  }

  private copy(index: number): Buffer {
    const img = this.images[index];
    const buf = new Buffer(img.id, img.name, img.space, img.size, img.block, img.dtype, img.shape);
    buf.bytes.set(img.bytes);
    this.copies[index] = buf;
    return buf;
  }

  /** The run's value for compile-time key `key`, made by `make` on first use. */
  value<T>(key: object, make: () => T): T {
    if (this.values.has(key)) return this.values.get(key) as T;
    const v = make();
    this.values.set(key, v);
    return v;
  }

  set(key: object, v: unknown): void {
    this.values.set(key, v);
  }
}

export class ThreadCtx {
  frame!: Frame;
  /** Resume point inside a blocked inline-asm block (per asm instruction object). */
  asmResume?: { key: object; pc: number; regs: any[] };
  /**
   * What the inline asm executing now does with its register operands (ptx-wgmma.ts `asmRegisterUse`):
   * 'none' for an empty asm (a compiler fence such as CUTLASS's warpgroup_fence_operand), the MMA's
   * shape for a wgmma.mma_async, undefined otherwise and outside asm.
   */
  asmTag?: string;
  /** Pending time limit of a timed try_wait. */
  timer?: { key: object; op: { done: boolean } };
  /** Shared accesses are checked for races (off while a completion function runs). */
  race: boolean;
  /**
   * Per arrive site: how many times this thread executed it (groups converged warp arrivals). Room
   * for a few sites from the start: the first store into an empty array allocates room for 17.
   */
  readonly siteCount: number[] = [0, 0, 0, 0, 0, 0, 0, 0];
  constructor(
    readonly t: SimThread,
    readonly m: Machine,
    readonly blk: BlockCtx,
    readonly ex: ExecutorLike,
  ) {
    this.race = !!m.races;
  }
}

// ------------------------------------------------------------------ typed memory access

export type Loader = (b: Buffer, o: number) => number;
export type Storer = (b: Buffer, o: number, v: number) => void;

export function oob(b: Buffer, o: number, n: number): never {
  throw new OutOfBounds(b, o, n);
}

export function loader(dt: DType): Loader {
  switch (dt) {
    case 'f32':
      return (b, o) => (o >= 0 && o + 4 <= b.bytes.length ? b.view.getFloat32(o, true) : oob(b, o, 4));
    case 'f64':
      return (b, o) => (o >= 0 && o + 8 <= b.bytes.length ? b.view.getFloat64(o, true) : oob(b, o, 8));
    case 's32':
      return (b, o) => (o >= 0 && o + 4 <= b.bytes.length ? b.view.getInt32(o, true) : oob(b, o, 4));
    case 'u32':
      return (b, o) => (o >= 0 && o + 4 <= b.bytes.length ? b.view.getUint32(o, true) : oob(b, o, 4));
    case 's16':
      return (b, o) => (o >= 0 && o + 2 <= b.bytes.length ? b.view.getInt16(o, true) : oob(b, o, 2));
    case 'u16':
      return (b, o) => (o >= 0 && o + 2 <= b.bytes.length ? b.view.getUint16(o, true) : oob(b, o, 2));
    case 's8':
      return (b, o) => (o >= 0 && o + 1 <= b.bytes.length ? b.view.getInt8(o) : oob(b, o, 1));
    case 'u8':
      return (b, o) => (o >= 0 && o + 1 <= b.bytes.length ? b.view.getUint8(o) : oob(b, o, 1));
    case 'bool':
      return (b, o) => (o >= 0 && o + 1 <= b.bytes.length ? (b.view.getUint8(o) ? 1 : 0) : oob(b, o, 1));
    case 'f16':
      return (b, o) => (o >= 0 && o + 2 <= b.bytes.length ? fromHalfBits(b.view.getUint16(o, true)) : oob(b, o, 2));
    case 'bf16':
      return (b, o) => (o >= 0 && o + 2 <= b.bytes.length ? fromBf16Bits(b.view.getUint16(o, true)) : oob(b, o, 2));
    case 's64':
      return (b, o) => (o >= 0 && o + 8 <= b.bytes.length ? (wide(b.view.getBigInt64(o, true), true) as number) : oob(b, o, 8));
    case 'u64':
      return (b, o) => (o >= 0 && o + 8 <= b.bytes.length ? (wide(b.view.getBigUint64(o, true), false) as number) : oob(b, o, 8));
  }
}

export function storer(dt: DType): Storer {
  switch (dt) {
    case 'f32':
      return (b, o, v) => (o >= 0 && o + 4 <= b.bytes.length ? b.view.setFloat32(o, v, true) : oob(b, o, 4));
    case 'f64':
      return (b, o, v) => (o >= 0 && o + 8 <= b.bytes.length ? b.view.setFloat64(o, v, true) : oob(b, o, 8));
    case 's32':
    case 'u32':
      return (b, o, v) => (o >= 0 && o + 4 <= b.bytes.length ? b.view.setUint32(o, v >>> 0, true) : oob(b, o, 4));
    case 's16':
    case 'u16':
      return (b, o, v) => (o >= 0 && o + 2 <= b.bytes.length ? b.view.setUint16(o, v & 0xffff, true) : oob(b, o, 2));
    case 's8':
    case 'u8':
    case 'bool':
      return (b, o, v) => (o >= 0 && o + 1 <= b.bytes.length ? b.view.setUint8(o, v & 0xff) : oob(b, o, 1));
    case 'f16':
      return (b, o, v) => (o >= 0 && o + 2 <= b.bytes.length ? b.view.setUint16(o, toHalfBits(v), true) : oob(b, o, 2));
    case 'bf16':
      return (b, o, v) => (o >= 0 && o + 2 <= b.bytes.length ? b.view.setUint16(o, toBf16Bits(v), true) : oob(b, o, 2));
    case 's64':
      return (b, o, v) => (o >= 0 && o + 8 <= b.bytes.length ? b.view.setBigInt64(o, BigInt(v), true) : oob(b, o, 8));
    case 'u64':
      return (b, o, v) => (o >= 0 && o + 8 <= b.bytes.length ? b.view.setBigUint64(o, BigInt.asUintN(64, BigInt(v)), true) : oob(b, o, 8));
  }
}

// Pointer values stored in memory (a pointer inside a struct or an array of pointers) cannot be
// bytes: they are kept beside the buffer, keyed by offset.
const pointerCells = new WeakMap<Buffer, Map<number, Pointer | null>>();

export function loadPointer(b: Buffer, o: number): Pointer | null {
  if (!(o >= 0 && o + 8 <= b.bytes.length)) oob(b, o, 8);
  return pointerCells.get(b)?.get(o) ?? null;
}

export function storePointer(b: Buffer, o: number, p: Pointer | null): void {
  if (!(o >= 0 && o + 8 <= b.bytes.length)) oob(b, o, 8);
  let m = pointerCells.get(b);
  if (!m) pointerCells.set(b, (m = new Map()));
  m.set(o, p);
}

// ------------------------------------------------------------------ addresses

/** Generic 64-bit address of a pointer (integer casts): buffer id in the high bits. */
export function genericAddress(ex: ExecutorLike, p: Pointer | null): number {
  if (!p) return 0;
  ex.registerBuffer(p.buf);
  return (p.buf.id + 1) * 4294967296 + p.offset;
}

export function fromGenericAddress(ex: ExecutorLike, a: number): Pointer | null {
  if (a === 0) return null;
  const id = Math.floor(a / 4294967296) - 1;
  const buf = ex.bufferById(id);
  if (!buf) throw new SimError(`integer ${a} cast to a pointer does not point into any buffer`);
  return { buf, offset: a - (id + 1) * 4294967296 };
}

/**
 * 32-bit shared-window address (`__cvta_generic_to_shared`); a pointer into a cluster peer's shared
 * memory (cooperative groups' map_shared_rank) gives that CTA's shared::cluster address.
 */
export function sharedAddress(blk: BlockCtx, p: Pointer | null, what = '__cvta_generic_to_shared'): number {
  if (!p || p.buf.space !== 'shared') throw new SimError(`${what}: the pointer does not point into shared memory${p ? ` ('${p.buf.name}' is ${p.buf.space})` : ''}`);
  const base = blk.baseOf.get(p.buf);
  if (base !== undefined) return clusterAddress(blk.rank, base + p.offset);
  const peer = blk.peerOf?.(p.buf);
  const peerBase = peer?.ctx.baseOf.get(p.buf);
  if (!peer || peerBase === undefined) throw new SimError(`${what}: '${p.buf.name}' belongs to another block, outside this block's cluster`);
  return clusterAddress(peer.rank, peerBase + p.offset);
}

/** The buffer and offset at 32-bit shared::cta address `a` of the block. */
export function fromSharedAddress(blk: BlockCtx, a: number): Pointer {
  if (!(a >= 0 && a < 4294967296)) throw new SimError(`shared address ${a} is not a 32-bit shared-memory address`);
  // The CTA's own rank bits (its shared::cta addresses carry them) name its own window.
  const rankBits = a >>> CLUSTER_RANK_SHIFT;
  if (rankBits !== 0 && rankBits === blk.rank) a = (a & WINDOW_MASK) >>> 0;
  else if (rankBits !== 0)
    throw new SimError(`shared address 0x${(a >>> 0).toString(16)} is a shared::cluster address (another CTA's memory, from mapa or a peer pointer) used where a shared::cta address is expected: only .shared::cluster instructions and generic pointers reach a peer CTA`);
  // Operand reads (WGMMA, ldmatrix, TMA) resolve many addresses of one variable in a row.
  const last = blk.lastWindow;
  if (last !== undefined && a >= last.base && a - last.base < Math.max(1, last.buf.size)) return { buf: last.buf, offset: a - last.base };
  const w = blk.window;
  let lo = 0;
  let hi = w.length - 1;
  let found = -1;
  while (lo <= hi) {
    const mid = (lo + hi) >> 1;
    if (w[mid].base <= a) {
      found = mid;
      lo = mid + 1;
    } else hi = mid - 1;
  }
  if (found >= 0) {
    const entry = w[found];
    const { base, buf } = entry;
    if (a - base < Math.max(1, buf.size)) {
      blk.lastWindow = entry;
      return { buf, offset: a - base };
    }
  }
  throw new SimError(`shared address 0x${(a >>> 0).toString(16)} is not inside any __shared__ variable of this block`);
}

/** Resolves an address operand of a shared-memory PTX instruction: a pointer or a 32-bit window address. */
export function toSharedPointer(blk: BlockCtx, v: unknown): Pointer {
  if (v && typeof v === 'object' && 'buf' in (v as Pointer)) {
    const p = v as Pointer;
    // A pointer into a peer CTA (map_shared_rank) reaches it only through .shared::cluster instructions.
    if (p.buf.space === 'shared' && !blk.baseOf.has(p.buf)) throw new SimError(`'${p.buf.name}' of another CTA used where a shared::cta address is expected: only .shared::cluster instructions and generic accesses reach a peer CTA`);
    return p;
  }
  if (typeof v === 'number') return fromSharedAddress(blk, v);
  throw new SimError('expected a shared-memory address');
}

/** Human label of the barrier at `p`: `full[1]`, `bar`, `bars[5]`. */
export function barrierLabel(p: Pointer, elemSize = 8): string {
  const b = p.buf;
  const shape = b.shape;
  if (!shape || !shape.length || (shape.length === 1 && shape[0] === 1 && p.offset === 0)) return p.offset ? `${b.name}+${p.offset}` : b.name;
  const idx = Math.floor(p.offset / elemSize);
  if (shape.length === 1) return `${b.name}[${idx}]`;
  const parts: number[] = [];
  let rest = idx;
  for (let i = shape.length - 1; i >= 0; i--) {
    parts.unshift(rest % shape[i]);
    rest = Math.floor(rest / shape[i]);
  }
  return `${b.name}${parts.map((x) => `[${x}]`).join('')}`;
}

/** The frame `depth` steps up the lexical environment chain (lambdas see their enclosing frames). */
export function envOf(f: Frame, depth: number): Frame {
  let e = f;
  for (let i = 0; i < depth; i++) e = e.env as Frame;
  return e;
}

/** `this` of a member function's frame. */
export function selfOf(f: Frame): Pointer {
  if (!f.self) throw new SimError('member function called without an object');
  return f.self;
}

/** The lanes of the calling thread's warp that have not exited (`__activemask`, PTX `activemask`, warp votes). */
export function liveMask(ts: ThreadCtx): number {
  const { m, t } = ts;
  let mask = 0;
  for (let k = 0, l = warpLane(m.threads, t, 0); l; l = warpLane(m.threads, t, ++k)) if (l.status !== 'done') mask |= 1 << k;
  return mask >>> 0;
}
