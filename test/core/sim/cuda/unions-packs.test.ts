// Unions, bit-fields and anonymous members (core/lang/cuda/sim/types.ts layoutStruct, lvalues.ts
// bit-field access), conversion operators, parameter packs, static locals and range-for: the C++ that
// CUTLASS's GmmaDescriptor and the GMMA atoms' fma wrappers are written in. Expected layouts and values
// are what g++/nvcc give for the same code (the SysV/GCC little-endian bit-field layout); the wgmma
// results come from test/fixtures/sim/gpu/wgmma/, recorded on an H200.
import { readFileSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { parseArg } from '../../../../core/sim/args';
import { simulate } from '../../../../core/simulate';
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

describe('static locals and range-for', () => {
  it('runs range-for over arrays (by value, by reference, break/continue) and keeps one static local across calls', async () => {
    const r = await run(`#include <cstdint>
struct P { int a; short b; };
__device__ int counter() { static int n = 10; static const int table[3] = {4, 5, 6}; n += table[n % 3]; return n; }
__global__ void k(long long* out) {
  int xs[5] = {3, 1, 4, 1, 5};
  long long s = 0;
  for (int x : xs) s = s * 10 + x;
  out[0] = s;
  for (auto& x : xs) x *= 2;
  for (const auto& x : xs) { if (x == 8) continue; if (x == 10) break; s += x; }
  out[1] = s;
  P ps[2] = {{1, 2}, {3, 4}};
  int t = 0;
  for (P p : ps) { p.a = 100; t += p.b; }
  for (auto& p : ps) t += p.a;
  out[2] = t;
  out[3] = counter();
  out[4] = counter();
  out[5] = counter();
  static unsigned long long z;
  out[6] = (long long)z;
}
`, 7);
    expect(r.status, r.message).toBe('completed');
    // g++ -std=c++17 on the same code (without __device__) prints these.
    expect(values(r, 'out')).toEqual([31415, 31425, 10, 15, 19, 24, 0]);
  });

  it('shares a static local between the threads of a launch', async () => {
    const r = await runKernel(
      `__device__ int next() { static int n; return n++; }
      __global__ void k(int* out) { if (threadIdx.x == 0) out[0] = next(); __syncthreads(); if (threadIdx.x == 1) out[1] = next(); }`,
      { block: [2, 1, 1], args: ['out=s32[2]'] },
    );
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([0, 1]);
  });

  it('rejects a dynamically initialised static local in device code, as nvcc does', async () => {
    const r = await runKernel(`__device__ int f(int x) { static int n = x; return n; }\n__global__ void k(int* out) { out[0] = f(3); }`, { block: [1, 1, 1], args: ['out=s32[1]'] });
    expect(r.status).not.toBe('completed');
    expect(r.message).toMatch(/dynamic initialization of the function-scope static 'n' in device code/);
  });

  it('initialises a host static local once, the first time through, and runs range-for over a std::vector', async () => {
    const r = await simulate({
      file: '/tmp/prog.cu',
      text: `#include <cstdio>
#include <vector>
int next_id() { static int id = printf("init\\n") + 4; return id++; }
int main() {
  std::vector<int> v(4);
  int i = 0;
  for (auto& x : v) x = ++i * 3;
  int s = 0;
  for (int x : v) s += x;
  int a = next_id();
  int b = next_id();
  printf("%d %d %d\\n", s, a, b);
  return 0;
}`,
    });
    expect(r.status, r.message).toBe('completed');
    expect(r.stdout).toBe('init\n30 9 10\n');
  });
});

/**
 * A GPU-recorded wgmma fixture rewritten the way CUTLASS/DeepGEMM write it: the descriptor built in a
 * GmmaDescriptor-like union through its bit-fields and decayed by `operator uint64_t()`, and every
 * wgmma issued through a pack-forwarding wrapper (`template <typename... Ts> mma(…, Ts&... d)`) that
 * calls an atom's `fma` with one `float&` parameter per accumulator. The H200's outputs for the
 * plain-shift original are the expected values, bit for bit.
 */
function cuteStyle(src: string, regs: number): string {
  const p = (i: number) => `d${String(i).padStart(3, '0')}`;
  const atomAsm = /asm volatile\("(\{\\n\.reg \.pred p;[^"]*)"/.exec(src)![1];
  const atom = `struct Atom {
  __device__ static void fma(uint64_t const& desc_a, uint64_t const& desc_b, ${Array.from({ length: regs }, (_, i) => `float& ${p(i)}`).join(', ')}, int scale_d) {
    asm volatile("${atomAsm}"
      : ${Array.from({ length: regs }, (_, i) => `"+f"(${p(i)})`).join(', ')}
      : "l"(desc_a), "l"(desc_b), "r"(scale_d));
  }
};
template <typename... Ts> __device__ void mma(uint64_t const& a, uint64_t const& b, int scale_d, Ts&... d) {
  static_assert(sizeof...(Ts) == ${regs}, "one accumulator per register");
  Atom::fma(a, b, d..., scale_d);
}
union Desc {
  __device__ Desc() : desc_(0) {}
  uint64_t desc_;
  uint32_t reg32_[2];
  struct {
    uint16_t start_address_ : 14, : 2;
    uint16_t leading_byte_offset_ : 14, : 2;
    uint16_t stride_byte_offset_ : 14, : 2;
    uint8_t : 1, base_offset_ : 3, : 4;
    uint8_t : 6, layout_type_ : 2;
  } bitfield;
  __device__ operator uint64_t() const { return desc_; }
};
__device__ Desc make_desc(const void* smem, uint32_t lbo, uint32_t sbo, uint32_t mode) {
  Desc desc;
  desc.bitfield.start_address_ = (uint32_t)__cvta_generic_to_shared(smem) >> 4;
  desc.bitfield.leading_byte_offset_ = lbo >> 4;
  desc.bitfield.stride_byte_offset_ = sbo >> 4;
  desc.bitfield.base_offset_ = 0;
  desc.bitfield.layout_type_ = mode;
  return desc;
}
`;
  return src
    .replace(/asm volatile\("\{\\n\.reg \.pred p;[\s\S]*?: "l"\(([^)]*)\), "l"\(([^)]*)\), "r"\(([^)]*)\)\);/g, (_m, a, b, s) => `mma(${a}, ${b}, ${s}, ${Array.from({ length: regs }, (_, i) => `d[${i}]`).join(', ')});`)
    .replace(/__device__ uint64_t make_desc\([\s\S]*?\n\}\n/, () => atom);
}

/**
 * The same, the way DeepGEMM's FP8MMA::wgmma reaches the atom: a selector whose `type` is
 * `decltype(select_type())` of a `static constexpr auto` function returning `Wrapper<N, Atom>()`, a
 * static `wgmma(desc_a, desc_b, float* d, scale)` that calls a static member template with
 * `std::make_index_sequence<N>{}`, whose `size_t... Idx` pack is deduced from it and expanded as
 * `d[Idx]...` into the atom's fma.
 */
function deepgemmStyle(src: string, regs: number): string {
  const cute = cuteStyle(src, regs);
  const wrapper = `#include <utility>
template <int kRegs, typename Atom_>
struct Wrapper {
  template <size_t... Idx>
  __device__ static void call_impl(uint64_t const& a, uint64_t const& b, float* d, int scale_d, std::index_sequence<Idx...>) {
    Atom_::fma(a, b, d[Idx]..., scale_d);
  }
  __device__ static void wgmma(uint64_t const& a, uint64_t const& b, float* d, int scale_d) {
    call_impl(a, b, d, scale_d, std::make_index_sequence<kRegs>{});
  }
};
template <int kRegs>
struct Selector {
  static constexpr auto select_type() { return Wrapper<kRegs, Atom>(); }
  using type = decltype(select_type());
};
union Desc {`;
  return cute.replace('union Desc {', () => wrapper).replace(/mma\(([^,]*), ([^,]*), ([^,]*), d\[0\][^;]*;/g, (_m, a, b, s) => `Selector<${regs}>::type::wgmma(${a}, ${b}, d, ${s});`);
}

describe('CUTLASS-style descriptors and fma wrappers give the GPU-recorded wgmma results', () => {
  for (const [name, regs] of [
    ['wgmma_f16_n256_sw128', 128],
    ['wgmma_f16_trans_n32_sw128', 16],
    ['wgmma_f16_n8_none', 4],
  ] as const) {
    it(`${name}: union + bit-field descriptor, ${regs} accumulators through a Ts&... pack and through DeepGEMM's index_sequence expansion`, async () => {
      const dir = path.join(__dirname, '../../../fixtures/sim/gpu/wgmma');
      const src = readFileSync(path.join(dir, `${name}.cu`), 'utf8');
      const sim = /^\/\/ sim: (.*)$/m.exec(src)![1];
      const args = [...sim.matchAll(/--arg (\S+)/g)].map((m) => parseArg(m[1]));
      const gpu = JSON.parse(readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')).kernels[name];
      expect(gpu.status).toBe('completed');
      const want = gpu.outputs.out as number[];
      const cute = cuteStyle(src, regs);
      const deepgemm = deepgemmStyle(src, regs);
      expect(cute).toContain('Atom::fma(a, b, d..., scale_d)');
      expect(cute).not.toMatch(/wgmma\.mma_async[^\n]*\n[^\n]*"\+f"\(d\[0\]\)/);
      expect(deepgemm).toContain(`Selector<${regs}>::type::wgmma(`);
      for (const text of [cute, deepgemm]) {
        const r = await simulate({ file: `${name}.cu`, text, kernel: name, grid: [1, 1, 1], block: [128, 1, 1], args, maxSteps: 20_000_000 });
        expect(r.status, r.message).toBe('completed');
        const b = r.buffers.find((x) => x.name === 'out')!;
        const got = Array.from({ length: want.length }, (_, i) => b.buffer.view.getFloat32(i * 4, true));
        expect(got).toEqual(want);
      }
    });
  }
});

/**
 * The same fixtures through the real CUTLASS headers (cute/arch/mma_sm90_desc.hpp and
 * mma_sm90_gmma.hpp: `GmmaDescriptor` filled through its bit-fields, `MMA_64xNx16_F32F16F16_SS::fma`
 * with its 4..128 `float&` parameters), when PHASEFLIP_CUTLASS_INCLUDE names a CUTLASS checkout's
 * include/ directory (the headers are not in this repository).
 */
function realCutlass(src: string, regs: number, n: number): string {
  const gmma = 'cute::SM90::GMMA';
  return src
    .replace('#include <cstdint>', '#include <cstdint>\n#include <cute/arch/mma_sm90_desc.hpp>\n#include <cute/arch/mma_sm90_gmma.hpp>')
    .replace(
      /__device__ uint64_t make_desc\([\s\S]*?\n\}\n/,
      () => `__device__ cute::GmmaDescriptor make_desc(const void* smem, uint32_t lbo, uint32_t sbo, uint32_t mode) {
  cute::GmmaDescriptor desc;
  desc.bitfield.start_address_ = (uint32_t)__cvta_generic_to_shared(smem) >> 4;
  desc.bitfield.leading_byte_offset_ = lbo >> 4;
  desc.bitfield.stride_byte_offset_ = sbo >> 4;
  desc.bitfield.base_offset_ = 0;
  desc.bitfield.layout_type_ = mode;
  return desc;
}
`,
    )
    .replace(
      /asm volatile\("\{\\n\.reg \.pred p;[\s\S]*?: "l"\(([^)]*)\), "l"\(([^)]*)\), "r"\(([^)]*)\)\);/g,
      (_m, a, b, s) =>
        `${gmma}::MMA_64x${n}x16_F32F16F16_SS<${gmma}::Major::K, ${gmma}::Major::K>::fma(${a}, ${b}, ${Array.from({ length: regs }, (_, i) => `d[${i}]`).join(', ')}, (${s}) ? ${gmma}::ScaleOut::One : ${gmma}::ScaleOut::Zero);`,
    );
}

const cutlassInclude = process.env.PHASEFLIP_CUTLASS_INCLUDE;
describe.skipIf(!cutlassInclude)('the real CUTLASS GmmaDescriptor and GMMA atoms (PHASEFLIP_CUTLASS_INCLUDE)', () => {
  for (const [name, regs, n] of [
    ['wgmma_f16_n256_sw128', 128, 256],
    ['wgmma_f16_n8_none', 4, 8],
  ] as const) {
    it(`${name}: MMA_64x${n}x16_F32F16F16_SS::fma gives the GPU's outputs`, async () => {
      const dir = path.join(__dirname, '../../../fixtures/sim/gpu/wgmma');
      const src = readFileSync(path.join(dir, `${name}.cu`), 'utf8');
      const text = realCutlass(src, regs, n);
      expect(text).toContain(`MMA_64x${n}x16_F32F16F16_SS`);
      const sim = /^\/\/ sim: (.*)$/m.exec(src)![1];
      const args = [...sim.matchAll(/--arg (\S+)/g)].map((m) => parseArg(m[1]));
      const r = await simulate({ file: path.join(dir, `${name}.cutlass.cu`), text, kernel: name, grid: [1, 1, 1], block: [128, 1, 1], args, maxSteps: 20_000_000, compile: { includeDirs: [cutlassInclude!] } });
      expect(r.status, r.message).toBe('completed');
      const want = JSON.parse(readFileSync(path.join(dir, 'ground-truth.json'), 'utf8')).kernels[name].outputs.out as number[];
      const b = r.buffers.find((x) => x.name === 'out')!;
      expect(Array.from({ length: want.length }, (_, i) => b.buffer.view.getFloat32(i * 4, true))).toEqual(want);
    });
  }
});

describe('what real headers lean on', () => {
  it('expands a function-like macro left in device code, binds an unnamed const& parameter, and skips a header alias nothing uses', async () => {
    const r = await runKernel(
      `template <typename T> __device__ void unused_(T const&) {}
#define UNUSED(x) unused_(x)
#define TWICE(x) ((x) * 2)
using Unused = NoSuchTemplate<4>::type;
template <int N> struct Sel { static constexpr auto pick() { return N * 3; } using type = decltype(pick()); };
__global__ void k(long long* out) {
  int line = 7;
  UNUSED(line);
  out[0] = TWICE(line + 1);
  Sel<2>::type v = Sel<2>::pick();
  out[1] = v;
}`,
      { block: [1, 1, 1], args: ['out=s64[2]'] },
    );
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([16, 6]);
    const used = await runKernel(`using Unused = NoSuchTemplate<4>::type;\n__global__ void k(long long* out) {\n  Unused u;\n  out[0] = 1;\n}`, { block: [1, 1, 1], args: ['out=s64[1]'] });
    expect(used.message).toMatch(/not supported by the simulator: type 'Unused' at line 3/);
  });
});
