// Simulated memory: byte buffers for global, shared and local spaces, and typed pointers into them.
// Every access is bounds-checked here so an out-of-bounds index becomes a report naming the buffer,
// never a silent read of someone else's data.
import { type DType, load, sizeOf, store } from './dtypes';

export type Space = 'global' | 'shared' | 'local' | 'const' | 'host';

export class Buffer {
  readonly bytes: Uint8Array;
  readonly view: DataView;
  /**
   * Objects the simulator keeps per 8-byte slot of this buffer (the mbarriers living there), so
   * finding the one at an address is an index rather than a map lookup.
   */
  slots?: unknown[];
  /**
   * Called on every load and store of this buffer's bytes while set (`accessor` is the executor's
   * thread context): the CUDA executor watches the registers an asynchronous wgmma still owns.
   */
  watch?: (accessor: object, offset: number, size: number, write: boolean) => void;
  constructor(
    readonly id: number,
    /** What the user calls it: a kernel argument, a `__shared__` variable, a Croqtile tensor. */
    readonly name: string,
    readonly space: Space,
    size: number,
    /** Owning block (linear index) for shared memory. */
    readonly block?: number,
    /** Element type the buffer was declared with, when it has one (for dumps and checksums). */
    readonly dtype?: DType,
    /** Declared shape, when it has one. */
    readonly shape?: number[],
  ) {
    this.bytes = new Uint8Array(size);
    this.view = new DataView(this.bytes.buffer);
  }
  get size(): number {
    return this.bytes.length;
  }
}

/** A typed address: buffer + byte offset. Pointer arithmetic only changes `offset`. */
export interface Pointer {
  buf: Buffer;
  offset: number;
}

export class OutOfBounds extends Error {
  constructor(
    readonly buf: Buffer,
    readonly offset: number,
    readonly size: number,
    /** Why, when it is not "past the end": a misaligned or non-numeric address. */
    readonly reason?: string,
  ) {
    super(`${reason ? `${reason} ` : 'out-of-bounds '}${buf.space} access: ${where(buf, offset, size)} of '${buf.name}' (${extent(buf)})`);
  }
}

/** "element 4 (bytes 16..19)" when the access is one whole element, else "bytes 16..19". */
function where(buf: Buffer, offset: number, size: number): string {
  if (!Number.isFinite(offset)) return `address ${offset}`;
  const bytes = size === 1 ? `byte ${offset}` : `bytes ${offset}..${offset + size - 1}`;
  const es = buf.dtype ? sizeOf(buf.dtype) : 0;
  return es && size === es && offset % es === 0 ? `element ${offset / es} (${bytes})` : bytes;
}

function extent(buf: Buffer): string {
  const es = buf.dtype ? sizeOf(buf.dtype) : 0;
  return es ? `${Math.floor(buf.size / es)} × ${buf.dtype}, ${buf.size} bytes` : `${buf.size} bytes`;
}

/** Throws `OutOfBounds` unless bytes offset..offset+size-1 lie inside `buf`. */
export function check(buf: Buffer, offset: number, size: number): void {
  if (!Number.isInteger(offset)) throw new OutOfBounds(buf, offset, size, 'invalid address in');
  if (!(Number.isInteger(size) && size >= 0 && offset >= 0 && offset + size <= buf.bytes.length)) throw new OutOfBounds(buf, offset, size);
}

/** Loads and stores must be naturally aligned, as on the GPU ("misaligned address"). */
function checkAligned(buf: Buffer, offset: number, size: number): void {
  if (offset % size !== 0) throw new OutOfBounds(buf, offset, size, `misaligned (${size}-byte)`);
}

export function read(p: Pointer, t: DType): number {
  const n = sizeOf(t);
  check(p.buf, p.offset, n);
  checkAligned(p.buf, p.offset, n);
  return load(p.buf.view, p.offset, t);
}

export function write(p: Pointer, t: DType, v: number): void {
  const n = sizeOf(t);
  check(p.buf, p.offset, n);
  checkAligned(p.buf, p.offset, n);
  store(p.buf.view, p.offset, t, v);
}

/** memcpy-like copy (bulk copies, TMA boxes): bounds-checked on both sides, no alignment rule. */
export function copyBytes(dst: Pointer, src: Pointer, n: number): void {
  check(src.buf, src.offset, n);
  check(dst.buf, dst.offset, n);
  dst.buf.bytes.set(src.buf.bytes.subarray(src.offset, src.offset + n), dst.offset);
}

/** FNV-1a over a buffer's bytes: the per-buffer checksum `phaseflip sim --json` prints. */
export function checksum(buf: Buffer): string {
  return (fnv1a(buf.bytes) >>> 0).toString(16).padStart(8, '0');
}

// The loop alone in its function: V8 optimises it on the stack (OSR) during the first big buffer, and
// code after the loop in the same function, not run yet then, deoptimised it again on every launch.
function fnv1a(b: Uint8Array): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < b.length; i++) {
    h ^= b[i];
    h = Math.imul(h, 0x01000193);
  }
  return h;
}
