// Simulated memory: byte buffers for global, shared and local spaces, and typed pointers into them.
// Every access is bounds-checked here so an out-of-bounds index becomes a report naming the buffer,
// never a silent read of someone else's data.
import { type DType, load, sizeOf, store } from './dtypes';

export type Space = 'global' | 'shared' | 'local' | 'const';

export class Buffer {
  readonly bytes: Uint8Array;
  readonly view: DataView;
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
  ) {
    super(
      `out-of-bounds ${buf.space} access: byte ${offset}..${offset + size - 1} of '${buf.name}' (${buf.size} bytes` +
        (buf.dtype ? `, ${buf.size / sizeOf(buf.dtype)} × ${buf.dtype}` : '') +
        ')',
    );
  }
}

export function check(buf: Buffer, offset: number, size: number): void {
  if (!(offset >= 0 && offset + size <= buf.bytes.length) || !Number.isInteger(offset)) throw new OutOfBounds(buf, offset, size);
}

export function read(p: Pointer, t: DType): number {
  const n = sizeOf(t);
  check(p.buf, p.offset, n);
  return load(p.buf.view, p.offset, t);
}

export function write(p: Pointer, t: DType, v: number): void {
  const n = sizeOf(t);
  check(p.buf, p.offset, n);
  store(p.buf.view, p.offset, t, v);
}

export function copyBytes(dst: Pointer, src: Pointer, n: number): void {
  check(src.buf, src.offset, n);
  check(dst.buf, dst.offset, n);
  dst.buf.bytes.set(src.buf.bytes.subarray(src.offset, src.offset + n), dst.offset);
}

/** FNV-1a over a buffer's bytes: the per-buffer checksum `phaseflip sim --json` prints. */
export function checksum(buf: Buffer): string {
  let h = 0x811c9dc5;
  const b = buf.bytes;
  for (let i = 0; i < b.length; i++) {
    h ^= b[i];
    h = Math.imul(h, 0x01000193);
  }
  return (h >>> 0).toString(16).padStart(8, '0');
}
