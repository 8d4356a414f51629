// Unions, bit-fields and anonymous members (core/lang/cuda/sim/types.ts layoutStruct, lvalues.ts
// bit-field access), conversion operators, parameter packs, static locals and range-for: the C++ that
// CUTLASS's GmmaDescriptor and the GMMA atoms' fma wrappers are written in. Expected layouts and values
// are what g++/nvcc give for the same code (the SysV/GCC little-endian bit-field layout); the wgmma
// results come from test/fixtures/sim/gpu/wgmma/, recorded on an H200.
import { describe, expect, it } from 'vitest';
import { runKernel, values } from './helpers';

const run = (src: string, n: number) => runKernel(src, { block: [1, 1, 1], args: [`out=s64[${n}]`] });

describe('unions and bit-fields', () => {
  it('lays out a GmmaDescriptor-like union of a uint64 and a bit-field struct as GCC does, masking writes and extending reads', async () => {
    const r = await run(`#include <cstdint>
union Desc {
  uint64_t desc_;
  uint32_t reg32_[2];
  uint16_t reg16_[4];
  struct {
    uint16_t start_ : 14, : 2;
    uint16_t lbo_ : 14, : 2;
    uint16_t sbo_ : 14, : 2;
    uint8_t : 1, base_ : 3, : 4;
    uint8_t : 6, layout_ : 2;
  } bitfield;
};
struct S { char a; int b : 4; int c : 30; union { int x; float y; }; short z; };
struct T { int s : 3; unsigned u : 3; };
__global__ void k(long long* out) {
  Desc d;
  d.desc_ = 0;
  d.bitfield.start_ = 0x12345;   // masked to 14 bits
  d.bitfield.lbo_ = 8;
  d.bitfield.sbo_ = 16;
  d.bitfield.layout_ = 1;
  d.bitfield.base_ = 5;
  out[0] = sizeof(Desc);
  out[1] = (long long)(d.desc_ >> 32);
  out[2] = (long long)(d.desc_ & 0xffffffffu);
  out[3] = d.reg16_[3];
  out[4] = sizeof(S);
  S s; s.b = 7; s.c = -5; s.x = 0x3f800000;
  out[5] = s.b + 1;   // 7 + 1
  out[6] = s.c;
  out[7] = (long long)(s.y * 4);
  T t; t.s = 5; t.u = 13;  // s = -3, u = 5
  out[8] = t.s;
  out[9] = t.u;
  t.s += 1;
  out[10] = t.s;
  out[11] = t.u - 6;   // int arithmetic: -1
  out[12] = sizeof(T);
}
`, 13);
    expect(r.status, r.message).toBe('completed');
    // g++ -std=c++17 on the same code prints these.
    expect(values(r, 'out')).toEqual([8, 1074397200, 533317, 16394, 16, 8, -5, 4, -3, 5, -2, -1, 4]);
  });
});

describe('conversion operators, member operators and parameter packs', () => {
  it('converts a union through its operator uint64_t(), calls member operator= / += / +, forwards a pack of references and folds', async () => {
    const r = await run(`#include <cstdint>
union D {
  D() : desc_(0) {}
  D(uint64_t d) : desc_(d) {}
  D& operator=(D const& t) { desc_ = t.desc_; return *this; }
  uint64_t desc_;
  struct { uint16_t lo_ : 14, : 2; uint16_t mid_; uint32_t : 30, top_ : 2; } bitfield;
  operator uint64_t() const { return desc_; }
};
struct Acc { int v; __device__ Acc& operator+=(int x) { v += 2 * x; return *this; } __device__ int operator+(int x) const { return v * 100 + x; } };
__device__ int sum3(int& a, int& b, int& c) { a += 1; b += 2; c += 3; return a + b + c; }
template <typename... Ts> __device__ int fwd(Ts&... xs) { return sum3(xs...) * 10 + (int)sizeof...(Ts) + (int)sizeof...(xs); }
template <typename... Ts> __device__ long long folds(Ts... xs) { return (xs + ...) * 1000 + (... - xs) * 10 + (1 - ... - xs); }
template <typename T, typename... Rest> __device__ int count(T first, Rest... rest) { return first + (int)sizeof...(Rest); }
__device__ uint64_t take(uint64_t const& x) { return x + 1; }
__global__ void k(long long* out) {
  D d;
  d.bitfield.lo_ = 5; d.bitfield.top_ = 3; d.bitfield.mid_ = 7;
  uint64_t u = d;                 // conversion operator
  out[0] = (long long)(u >> 32);
  out[1] = (long long)(u & 0xffffffff);
  out[2] = (long long)take(d);    // through a const& parameter
  out[3] = (long long)(d + 2);    // operand of a built-in operator
  D e(u + 1);
  D g;
  g = e;                          // member operator=
  out[4] = (long long)(uint64_t)g - (long long)(uint64_t)d;
  int a = 1, b = 2, c = 3;
  out[5] = fwd(a, b, c);
  out[6] = a * 100 + b * 10 + c;
  out[7] = folds(1, 2, 3);
  out[8] = count(5, 1.0f, 'x', 2);
  Acc acc{4};
  acc += 3;
  out[9] = acc.v;
  out[10] = acc + 7;
}
`, 11);
    expect(r.status, r.message).toBe('completed');
    // g++ -std=c++17 on the same code (without __device__) prints these.
    expect(values(r, 'out')).toEqual([3221225472, 458757, -4611686018426929146, -4611686018426929145, 1, 126, 246, 5955, 8, 10, 1007]);
  });
});
