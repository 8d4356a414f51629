// Simulated memory: bounds and alignment checks with messages that name the buffer and the element,
// byte copies, and the per-buffer checksum.
import { describe, expect, it } from 'vitest';
import { Buffer, check, checksum, copyBytes, OutOfBounds, read, write } from '../../../core/sim/memory';

const f32buf = () => new Buffer(1, 'acc', 'shared', 16, 0, 'f32', [4]);

describe('memory', () => {
  it('reads back what it wrote, rounded to the element type', () => {
    const b = f32buf();
    write({ buf: b, offset: 4 }, 'f32', 0.1);
    expect(read({ buf: b, offset: 4 }, 'f32')).toBe(Math.fround(0.1));
    write({ buf: b, offset: 12 }, 'u16', 70000);
    expect(read({ buf: b, offset: 12 }, 'u16')).toBe(70000 - 65536);
  });

  it('names the buffer, the element and the extent of an out-of-bounds access', () => {
    const b = f32buf();
    expect(() => read({ buf: b, offset: 16 }, 'f32')).toThrow(new OutOfBounds(b, 16, 4));
    expect(() => read({ buf: b, offset: 16 }, 'f32')).toThrow("out-of-bounds shared access: element 4 (bytes 16..19) of 'acc' (4 × f32, 16 bytes)");
    expect(() => write({ buf: b, offset: -4 }, 'f32', 1)).toThrow("out-of-bounds shared access: element -1 (bytes -4..-1) of 'acc' (4 × f32, 16 bytes)");
    expect(() => read({ buf: b, offset: 14 }, 'u8')).not.toThrow();
    expect(() => read({ buf: b, offset: 16 }, 'u8')).toThrow("out-of-bounds shared access: byte 16 of 'acc' (4 × f32, 16 bytes)");
    const raw = new Buffer(2, 'scratch', 'global', 10);
    expect(() => read({ buf: raw, offset: 8 }, 'f32')).toThrow("out-of-bounds global access: bytes 8..11 of 'scratch' (10 bytes)");
  });

  it('rejects misaligned loads and stores, and addresses that are not numbers', () => {
    const b = f32buf();
    expect(() => read({ buf: b, offset: 2 }, 'f32')).toThrow("misaligned (4-byte) shared access: bytes 2..5 of 'acc' (4 × f32, 16 bytes)");
    expect(() => write({ buf: b, offset: 1 }, 'u16', 1)).toThrow('misaligned (2-byte) shared access');
    expect(() => read({ buf: b, offset: NaN }, 'f32')).toThrow("invalid address in shared access: address NaN of 'acc'");
    expect(() => read({ buf: b, offset: 1.5 }, 'u8')).toThrow('invalid address in shared access');
    const e = (() => {
      try {
        read({ buf: b, offset: 2 }, 'f32');
      } catch (x) {
        return x;
      }
    })();
    expect(e).toBeInstanceOf(OutOfBounds);
  });

  it('copies bytes with both sides checked', () => {
    const src = new Buffer(1, 'src', 'global', 8);
    src.bytes.set([1, 2, 3, 4, 5, 6, 7, 8]);
    const dst = new Buffer(2, 'dst', 'shared', 8, 0);
    copyBytes({ buf: dst, offset: 2 }, { buf: src, offset: 1 }, 3);
    expect([...dst.bytes]).toEqual([0, 0, 2, 3, 4, 0, 0, 0]);
    expect(() => copyBytes({ buf: dst, offset: 6 }, { buf: src, offset: 0 }, 4)).toThrow("out-of-bounds shared access: bytes 6..9 of 'dst' (8 bytes)");
    expect(() => copyBytes({ buf: dst, offset: 0 }, { buf: src, offset: 6 }, 4)).toThrow("out-of-bounds global access: bytes 6..9 of 'src' (8 bytes)");
    expect(() => check(dst, 0, -1)).toThrow(OutOfBounds);
    expect(() => check(dst, 8, 0)).not.toThrow();
  });

  it('checksums with FNV-1a (known values)', () => {
    expect(checksum(new Buffer(1, 'e', 'global', 0))).toBe('811c9dc5');
    const a = new Buffer(1, 'a', 'global', 1);
    a.bytes[0] = 0x61; // "a"
    expect(checksum(a)).toBe('e40c292c');
    const b = new Buffer(1, 'b', 'global', 1);
    expect(checksum(b)).not.toBe(checksum(a));
  });
});
