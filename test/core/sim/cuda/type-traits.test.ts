// Type traits, alias templates, concepts and static_assert in the CUDA simulator's compiler (issue 15): std::
// traits evaluated at compile time, exact to C++20 (cv-qualifiers, references, `long` vs `long long`, enums,
// `__half` being a class), SFINAE through enable_if, and stops where the compiler cannot answer exactly.
// The expected values are compile-time facts: each kernel here was compiled with nvcc 13.0 (-std=c++20,
// sm_90a) as a host function and run on the CPU, which printed exactly these arrays (no GPU is involved).
import * as path from 'node:path';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runKernel, values } from './helpers';

const VALUE_TRAITS = `#include <type_traits>
#include <cstdint>
#include <cuda_fp16.h>
enum class Mode : int { A, B };
template <class T> struct Box { T v; };
__global__ void k(int* out) {
  out[0] = std::is_same_v<int, int32_t>;
  out[1] = std::is_same<int64_t, long long>::value;
  out[2] = std::is_same_v<uint64_t, unsigned long>;
  out[3] = std::is_same_v<const int, int>;
  out[4] = std::is_same_v<std::remove_cv_t<const volatile int>, int>;
  out[5] = std::is_same_v<std::remove_reference_t<float&&>, float>;
  out[6] = std::is_same_v<std::decay_t<int[4]>, int*> + 2 * std::is_same_v<std::decay_t<const int&>, int>;
  out[7] = std::is_integral_v<bool> + 2 * std::is_integral_v<float> + 4 * std::is_floating_point_v<double> + 8 * std::is_floating_point_v<__half>;
  out[8] = std::is_signed_v<char> + 2 * std::is_unsigned_v<unsigned char> + 4 * std::is_signed_v<float> + 8 * std::is_unsigned_v<bool>;
  out[9] = std::is_pointer_v<int*> + 2 * std::is_pointer_v<int* const> + 4 * std::is_pointer_v<int*&> + 8 * std::is_pointer_v<int[3]>;
  out[10] = std::is_enum_v<Mode> + 2 * std::is_integral_v<Mode> + 4 * std::is_class_v<Box<int>> + 8 * std::is_class_v<__half>;
  out[11] = std::integral_constant<int, 7>::value + std::true_type::value * 10 + std::bool_constant<false>::value * 100;
  out[12] = std::is_same_v<std::true_type, std::bool_constant<true>> + 2 * std::is_same_v<std::integral_constant<bool, true>::type, std::true_type> + 4 * std::is_same_v<std::is_same<int, int>, std::true_type>;
  out[13] = sizeof(std::conditional_t<(sizeof(int) > 2), int64_t, int16_t>) + 10 * sizeof(typename std::conditional<false, double, char>::type);
  out[14] = std::is_same_v<std::make_unsigned_t<long>, unsigned long> + 2 * std::is_same_v<std::make_signed_t<unsigned char>, signed char> + 4 * std::is_same_v<std::make_signed_t<char>, signed char>;
  out[15] = std::is_const_v<const int*> + 2 * std::is_const_v<int* const> + 4 * std::is_same_v<std::add_pointer_t<int&>, int*> + 8 * std::is_lvalue_reference_v<std::add_lvalue_reference_t<int>>;
  out[16] = std::is_same_v<const float*, float*> + 2 * std::is_same_v<std::remove_const_t<const float*>, const float*> + 4 * std::is_same_v<std::remove_pointer_t<const float*>, const float>;
  out[17] = std::is_same_v<std::is_same<int, int>::type, std::true_type> + 2 * std::is_same_v<std::is_same<int, int>::value_type, bool> + 4 * std::is_void_v<std::enable_if_t<true>>;
}
`;

const TEMPLATES = `#include <type_traits>
#include <cstdint>
template <class T> using Ptr = T*;
template <class T, int N = 4> using Arr = T[N];
template <class T> using Elem = std::remove_cv_t<std::remove_reference_t<T>>;
template <int... Is> using Seq = std::integer_sequence<int, Is...>;
template <typename T>
__device__ int classify(T x) {
  if constexpr (std::is_same_v<T, float>) return 1;
  else if constexpr (std::is_integral_v<T> && std::is_signed_v<T>) return 2;
  else if constexpr (std::is_integral_v<T>) return 3;
  else return 4;
}
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0>
__device__ T twice(T x) { return x * 2; }
template <class T>
__device__ int fwd(T&& x) { return std::is_lvalue_reference_v<T> * 10 + std::is_same_v<std::remove_cvref_t<T>, int>; }
template <int N> struct Tile {
  static constexpr int kSize = N;
  using type = std::conditional_t<(N > 2), float, int>;
};
template <int... Is> __device__ int sum(Seq<Is...>) { return (Is + ... + 0); }
__global__ void k2(float* out) {
  Ptr<float> p = out;
  Arr<int> a = {1, 2, 3, 4};
  p[0] = classify(1.0f);
  p[1] = classify(-3);
  p[2] = classify(3u);
  p[3] = classify(2.0);
  p[4] = twice(21);
  int v = 5;
  p[5] = fwd(v);
  p[6] = fwd(5);
  p[7] = sizeof(a) + sizeof(Elem<const int&>) + a[3];
  typename Tile<4>::type t = 2.5f;
  p[8] = t;
  Tile<2>::type u = 2.5f;
  p[9] = u;
  static_assert(std::is_same_v<Ptr<const int>, const int*>, "an alias keeps const");
  p[10] = sum(std::make_integer_sequence<int, 5>{});
  p[11] = (std::is_same_v<int, int> and not std::is_same_v<int, long>) or false;
}
`;

describe('std type traits in device code', () => {
  it('answers the value traits as C++ does (is_same, categories, integral_constant, conditional, make_signed …)', async () => {
    const r = await runKernel(VALUE_TRAITS, { block: [1, 1, 1], args: ['out=s32[18]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([1, 0, 1, 0, 1, 1, 3, 5, 15, 3, 13, 17, 3, 18, 7, 14, 6, 7]);
  });

  it('treats references as compound and enums as scalars, not arithmetic', async () => {
    const r = await runKernel(`#include <type_traits>
enum E : unsigned char { A, B };
__global__ void k(long long* out) {
  out[0] = std::is_compound_v<int&> + 2 * std::is_compound_v<E> + 4 * std::is_compound_v<int*> + 8 * std::is_compound_v<float>;
  out[1] = std::integral_constant<long, 5>::value + std::is_same_v<std::integral_constant<long, 5>::value_type, long>;
  out[2] = std::is_scalar_v<E> + 2 * std::is_arithmetic_v<E>;
}
`, { block: [1, 1, 1], args: ['out=s64[3]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([7, 6, 1]);
  });

  it('runs alias templates, if constexpr on traits, enable_if, forwarding references and index sequences through aliases', async () => {
    const r = await runKernel(TEMPLATES, { kernel: 'k2', block: [1, 1, 1], args: ['out=f32[12]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([1, 2, 3, 4, 42, 11, 1, 24, 2.5, 2, 10, 1]);
  });

  it('picks among enable_if-constrained overloads (SFINAE)', async () => {
    const r = await runKernel(
      `#include <type_traits>
template <class T, std::enable_if_t<std::is_integral_v<T>, int> = 0> __device__ int pick(T x) { return 1; }
template <class T, std::enable_if_t<std::is_floating_point_v<T>, int> = 0> __device__ int pick(T x) { return 2; }
template <class T, typename = std::enable_if_t<std::is_integral_v<T>>> __device__ int only_int(T x) { return 3; }
template <class T> __device__ typename std::enable_if<std::is_integral<T>::value, int>::type legacy(T x) { return 4; }
__global__ void k(int* out) { out[0] = pick(1); out[1] = pick(1.0f); out[2] = only_int(2); out[3] = legacy(7u); }`,
      { block: [1, 1, 1], args: ['out=s32[4]'] },
    );
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([1, 2, 3, 4]);
    // A template whose deduction fails is no candidate either: the non-template overload is called.
    const fallback = await runKernel(
      `template <class T> __device__ int g(T* p) { return 1; }
__device__ int g(long x) { return 2; }
__global__ void k(int* out) { out[0] = g(3); out[1] = g(out); }`,
      { block: [1, 1, 1], args: ['out=s32[2]'] },
    );
    expect(fallback.status, fallback.message).toBe('completed');
    expect(values(fallback, 'out')).toEqual([2, 1]);
  });

  it('checks static_assert for the instantiation compiled, and reads DeepGEMM\'s alternative tokens', async () => {
    const ok = await runKernel(
      `#include <type_traits>
template <int N> __device__ int tiles() { static_assert(N > 0 and N % 2 == 0, "even"); if constexpr (N >= 4 or not (N == 2)) return N / 4; else return -1; }
__global__ void k(int* out) { out[0] = tiles<8>(); out[1] = tiles<2>(); out[2] = (5 bitand 3) + (1 bitor 4); }`,
      { block: [1, 1, 1], args: ['out=s32[3]'] },
    );
    expect(ok.status, ok.message).toBe('completed');
    expect(values(ok, 'out')).toEqual([2, -1, 6]);
    const bad = await runKernel(
      `#include <type_traits>
template <class T> __device__ T twice(T x) { static_assert(std::is_integral_v<T>, "integers only"); return x * 2; }
__global__ void k(int* out) { out[0] = twice(1.5f); }`,
      { block: [1, 1, 1], args: ['out=s32[1]'] },
    );
    expect(bad.message).toMatch(/static assertion failed: "integers only" \('std::is_integral_v<T>'\).*line 2/);
    // A condition the simulator cannot evaluate (a trait it does not model) does not change a run: skipped.
    const skipped = await runKernel(
      `#include <type_traits>
template <class T> __device__ T twice(T x) { static_assert(std::is_trivially_copyable_v<T>, "copyable"); return x * 2; }
__global__ void k(int* out) { out[0] = twice(21); }`,
      { block: [1, 1, 1], args: ['out=s32[1]'] },
    );
    expect(skipped.status, skipped.message).toBe('completed');
    expect(values(skipped, 'out')).toEqual([42]);
  });
});

describe('std::numeric_limits and integral-constant objects', () => {
  it('gives the limits of the arithmetic types, 64-bit extremes exact', async () => {
    const r = await runKernel(`#include <limits>
#include <cstdint>
__global__ void k(long long* out) {
  out[0] = std::numeric_limits<int64_t>::max() == 9223372036854775807LL && std::numeric_limits<int64_t>::lowest() == -9223372036854775807LL - 1;
  out[1] = std::numeric_limits<uint64_t>::max() == 18446744073709551615ull;
  out[2] = std::numeric_limits<float>::digits * 100 + std::numeric_limits<int>::digits;
  out[3] = std::numeric_limits<int8_t>::min() + std::numeric_limits<uint16_t>::max() + std::numeric_limits<bool>::max();
  out[4] = std::numeric_limits<unsigned>::is_signed + 2 * std::numeric_limits<double>::has_infinity + 4 * std::numeric_limits<float>::is_integer;
  out[5] = std::numeric_limits<float>::epsilon() * (1 << 23) + std::numeric_limits<float>::min() * 0;
  out[6] = std::numeric_limits<int64_t>::min() / 4294967296LL;
}
`, { block: [1, 1, 1], args: ['out=s64[7]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([1, 1, 2431, 65408, 2, 1, -2147483648]);
  });

  it('converts integral_constant objects and the traits derived from it to their value (if constexpr, arithmetic, bool)', async () => {
    const src = `#include <type_traits>
template <bool B> struct Sel { static constexpr int v = B ? 10 : 20; };
template <class T> __device__ int f() {
  if constexpr (std::is_same<T, int>{}) return 1;
  return 2;
}
__global__ void k(int* out) {
  out[0] = Sel<std::is_same_v<int, int>>::v;
  out[1] = Sel<std::is_integral<float>::value>::v;
  out[2] = f<int>();
}
template <class T> struct is_a : std::false_type {};
template <> struct is_a<int> : std::true_type {};
__global__ void k2(int* out) {
  out[0] = std::is_same<int, int>{} + 2 * std::is_integral<float>{} + 4 * is_a<int>{};
  out[1] = std::integral_constant<int, 7>{} * 3;
  bool b = std::true_type{};
  out[2] = b;
}
`;
    const r = await runKernel(src, { kernel: 'k', block: [1, 1, 1], args: ['out=s32[3]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([10, 20, 1]);
    const r2 = await runKernel(src, { kernel: 'k2', block: [1, 1, 1], args: ['out=s32[3]'] });
    expect(r2.status, r2.message).toBe('completed');
    expect(values(r2, 'out')).toEqual([5, 21, 1]);
  });

  it('passes std::true_type{} objects to templates and reads decltype(x)::value', async () => {
    const r = await runKernel(`#include <cstdint>
#include <limits>
#include <type_traits>
template <class T> __host__ __device__ int tag(T) { return std::is_same_v<T, std::true_type> ? 1 : 2; }
__global__ void k(float* out) {
  out[0] = std::numeric_limits<int>::max();
  out[1] = tag(std::true_type{}) + 10 * tag(std::false_type{});
  auto t = std::integral_constant<int, 5>{};
  out[2] = decltype(t)::value;
  out[3] = -std::numeric_limits<float>::infinity();
  out[4] = std::numeric_limits<uint32_t>::max();
}
`, { block: [1, 1, 1], args: ['out=f32[5]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([2147483648, 21, 5, -Infinity, 4294967296]);
  });
});

describe('base classes', () => {
  it('lends an empty base\'s static members, typedefs and member functions, at no size', async () => {
    const r = await runKernel(`#include <type_traits>
struct Empty { static constexpr int kTag = 7; using tag_t = short; __device__ int twice(int x) const { return 2 * x; } };
struct A : Empty { int y; };
template <class T> struct is_a : std::false_type {};
template <> struct is_a<A> : std::true_type {};
__global__ void k(int* out) {
  A a;
  a.y = 5;
  out[0] = is_a<A>::value + 2 * is_a<Empty>::value;
  out[1] = A::kTag + sizeof(A::tag_t) * 10;
  out[2] = a.twice(a.y) + sizeof(A);
  out[3] = std::is_same_v<is_a<A>::type, std::true_type> + 2 * std::is_same_v<is_a<A>, std::true_type>;
}
`, { block: [1, 1, 1], args: ['out=s32[4]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([1, 27, 14, 1]);
  });

  it("lays a base with data members out first, as CUTLASS's ClusterTransactionBarrier : ClusterBarrier", async () => {
    const r = await runKernel(`#include <cstdint>
struct Barrier {
  using ValueType = uint64_t;
 protected:
  ValueType barrier_;
 public:
  Barrier() = delete;
  __device__ void init(uint32_t n) const { Barrier::init(&this->barrier_, n); }
  __device__ static void init(ValueType const* p, uint32_t n) { *const_cast<ValueType*>(p) = n; }
  __device__ uint64_t raw() const { return barrier_; }
};
struct TxBarrier : public Barrier {
  TxBarrier() = delete;
  __device__ void expect(uint32_t bytes) const { TxBarrier::expect(&this->barrier_, bytes); }
  __device__ static void expect(ValueType const* p, uint32_t b) { *const_cast<ValueType*>(p) += uint64_t(b) << 32; }
};
struct Wide : TxBarrier { uint32_t extra; };
__global__ void k(unsigned long long* out) {
  __shared__ alignas(8) unsigned char smem[64];
  TxBarrier* bar = reinterpret_cast<TxBarrier*>(smem);
  bar->init(3);
  bar->expect(128);
  out[0] = bar->raw();
  out[1] = sizeof(TxBarrier) + 100 * sizeof(Wide) + 10000 * alignof(Wide);
}
`, { block: [1, 1, 1], args: ['out=u64[2]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([549755813891, 81608]);
  });

  it('stops on a base whose tail padding the derived class would reuse, and on a second base with data members', async () => {
    const padded = await runKernel(
      `struct B { int x; char c; };
struct D : B { char d; };
__global__ void k(int* out) { out[0] = sizeof(D); }`,
      { block: [1, 1, 1], args: ['out=s32[1]'] },
    );
    expect(padded.status).not.toBe('completed');
    expect(padded.message).toMatch(/not supported by the simulator: base class 'B' of D, a union or with tail padding .* at line 2/);
    const two = await runKernel(
      `struct A { int a; };
struct B { int b; };
struct D : A, B { int d; };
__global__ void k(int* out) { out[0] = sizeof(D); }`,
      { block: [1, 1, 1], args: ['out=s32[1]'] },
    );
    expect(two.message).toMatch(/not supported by the simulator: base class 'B' of D: only the first base may have data members at line 3/);
  });
});

describe('C++20 concepts (ThunderKittens\' ducks) and same-named structs in different namespaces', () => {
  it('picks the overload whose concept the argument satisfies, and evaluates concept-ids in if constexpr', async () => {
    const r = await runKernel(`#include <type_traits>
namespace kittens {
namespace ducks { namespace st {
struct identifier {};
template<typename T> concept all = requires {
    typename T::identifier;
} && std::is_same_v<typename T::identifier, identifier>;
} namespace rt {
struct identifier {};
template<typename T> concept all = requires { typename T::identifier; } && std::is_same_v<typename T::identifier, identifier>;
} }
template <int R> struct st { using identifier = ducks::st::identifier; static constexpr int rows = R; };
template <int R> struct rt { using identifier = ducks::rt::identifier; static constexpr int rows = R; };
template<ducks::st::all ST> __device__ int load(ST& x) { return 100 + ST::rows; }
template<ducks::rt::all RT> __device__ int load(RT& x) { return 200 + RT::rows; }
template<typename T> __device__ int kind() { if constexpr (ducks::st::all<T>) return 1; else if constexpr (ducks::rt::all<T>) return 2; else return 3; }
}
using namespace kittens;
__global__ void k(int* out) {
  st<16> a; rt<32> b;
  out[0] = load(a);
  out[1] = load(b);
  out[2] = kind<st<8>>() * 100 + kind<rt<8>>() * 10 + kind<int>();
}
`, { block: [1, 1, 1], args: ['out=s32[3]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([116, 232, 123]);
  });

  it('judges type requirements, and stops where a class may declare the type in a way not recorded (a nested class)', async () => {
    const src = `template <typename T> concept HasTag = requires { typename T::tag; };
struct A { using tag = int; };
struct B { struct tag {}; };
struct C { int x; };
template <typename T> __device__ int has() { if constexpr (HasTag<T>) return 1; else return 0; }
__global__ void k(int* out) { out[0] = has<A>() * 100 + has<C>() * 10 + has<int>(); }
__global__ void k2(int* out) { out[0] = has<B>(); }`;
    const r = await runKernel(src, { kernel: 'k', block: [1, 1, 1], args: ['out=s32[1]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([100]);
    const nested = await runKernel(src, { kernel: 'k2', block: [1, 1, 1], args: ['out=s32[1]'] });
    expect(nested.message).toMatch(/not supported by the simulator: requirement 'typename T::tag' \(B may declare tag/);
  });

  it('stops when two constrained overloads are viable (subsumption is not worked out)', async () => {
    const r = await runKernel(`#include <type_traits>
template <typename T> concept Small = sizeof(T) <= 4;
template <typename T> concept Integer = std::is_integral_v<T>;
template <Small T> __device__ int f(T) { return 1; }
template <Integer T> __device__ int f(T) { return 2; }
__global__ void k(int* out) { out[0] = f(3); }
`, { block: [1, 1, 1], args: ['out=s32[1]'] });
    expect(r.status).not.toBe('completed');
    expect(r.message).toMatch(/not supported by the simulator: choosing between overloads of 'f' constrained by concepts .* at line 6/);
  });

  it('tells a::S from b::S by the namespace a name is written in, and stops where it cannot', async () => {
    const r = await runKernel(`namespace a { struct S { int x; }; }
namespace b { struct S { long long y; int z; }; }
namespace a { __device__ int size_here() { return sizeof(S); } }
__global__ void k(int* out) { out[0] = sizeof(a::S) + 100 * sizeof(b::S) + 10000 * a::size_here(); }
`, { block: [1, 1, 1], args: ['out=s32[1]'] });
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([4 + 100 * 16 + 10000 * 4]);
    const bare = await runKernel(`namespace a { struct S { int x; }; }
namespace b { struct S { long long y; int z; }; }
__global__ void k(int* out) { out[0] = sizeof(S); }
`, { block: [1, 1, 1], args: ['out=s32[1]'] });
    expect(bare.message).toMatch(/not supported by the simulator: struct 'S': a::S, b::S are all defined/);
  });
});

describe('traits the simulator cannot answer stop, never guess', () => {
  it('stops on a cv-qualifier lost to deduction (T& deduced from a variable)', async () => {
    const r = await runKernel(
      `#include <type_traits>
template <class T> __device__ int f(T& x) { return std::is_const_v<T>; }
__global__ void k(int* out) { int v = 1; out[0] = f(v); }`,
      { block: [1, 1, 1], args: ['out=s32[1]'] },
    );
    expect(r.status).not.toBe('completed');
    expect(r.message).toMatch(/not supported by the simulator: std::is_const<int \(cv unknown\)>: .* at line 3/);
  });

  it('stops on long vs long long of an expression\'s type, but answers what the dtype alone decides', async () => {
    const r = await runKernel(
      `#include <cstdint>
#include <type_traits>
template <class T> __device__ int f(T x) { return std::is_same_v<T, long>; }
__global__ void k(int64_t* out) { out[0] = f(out[1] + 1LL); }`,
      { block: [1, 1, 1], args: ['out=s64[2]'] },
    );
    expect(r.status).not.toBe('completed');
    expect(r.message).toMatch(/std::is_same<\(long or long long\), long>: .* at line 4/);
    const decided = await runKernel(
      `#include <type_traits>
template <class T> __device__ int f(T x) { return std::is_same_v<T, int> * 2 + std::is_same_v<T, long>; }
__global__ void k(int* out) { int a = 3; out[0] = f(a + 1); out[1] = f(out[1]); }`,
      { block: [1, 1, 1], args: ['out=s32[2]'] },
    );
    expect(decided.status, decided.message).toBe('completed');
    expect(values(decided, 'out')).toEqual([2, 2]);
  });

  it('stops on a trait of <type_traits> it does not model, naming it and the line', async () => {
    const r = await runKernel(
      `#include <type_traits>
template <class T> __device__ int f(T x) { return std::is_trivially_copyable_v<T>; }
__global__ void k(int* out) { out[0] = f(1); }`,
      { block: [1, 1, 1], args: ['out=s32[1]'] },
    );
    expect(r.status).not.toBe('completed');
    expect(r.message).toMatch(/not supported by the simulator: std::is_trivially_copyable_v at line 3/);
  });
});

/**
 * Real headers through the traits: CuTe's own integral constants (C<v>, Int<N>, its true_type) next to the
 * standard traits it re-exports, and DeepGEMM's `Vectorized<N>::vec_t` and `get_num_aligned_tmem_cols<N>()`
 * (if constexpr on `and`, decltype of a static member function, static_assert). The headers are not in this
 * repository: PHASEFLIP_CUTLASS_INCLUDE names a CUTLASS checkout's include/, PHASEFLIP_CORPUS a folder holding
 * DeepGEMM/ and cutlass/. Expected values printed by the same kernels compiled with nvcc as host code.
 */
const cutlassInclude = process.env.PHASEFLIP_CUTLASS_INCLUDE ?? (process.env.PHASEFLIP_CORPUS ? path.join(process.env.PHASEFLIP_CORPUS, 'cutlass/include') : undefined);
const deepgemm = process.env.PHASEFLIP_CORPUS ? path.join(process.env.PHASEFLIP_CORPUS, 'DeepGEMM/deep_gemm/include') : undefined;
const haveCutlass = !!cutlassInclude && existsSync(path.join(cutlassInclude, 'cute/numeric/integral_constant.hpp'));
const haveDeepGemm = haveCutlass && !!deepgemm && existsSync(path.join(deepgemm, 'deep_gemm/common/utils.cuh'));
if (!haveCutlass) console.log('type-traits real-header tests skipped: set PHASEFLIP_CUTLASS_INCLUDE to a CUTLASS checkout\'s include/ (or PHASEFLIP_CORPUS to a folder holding cutlass/ and DeepGEMM/)');
else if (!haveDeepGemm) console.log('type-traits DeepGEMM test skipped: set PHASEFLIP_CORPUS to a folder holding DeepGEMM/ and cutlass/');

describe.skipIf(!haveCutlass)('real CuTe headers (PHASEFLIP_CUTLASS_INCLUDE)', () => {
  it("CuTe's true_type is its C<true>; Int<N>, cute::conditional_t and remove_cvref_t read through cute/util/type_traits.hpp", async () => {
    const r = await runKernel(
      `#include <cute/numeric/integral_constant.hpp>
#include <cute/util/type_traits.hpp>
__global__ void k(int* out) {
  out[0] = cute::is_same_v<cute::true_type, cute::C<true>>;
  out[1] = cute::true_type::value + cute::Int<4>::value * 10;
  out[2] = sizeof(cute::conditional_t<(cute::Int<4>::value > 2), int64_t, int8_t>);
  out[3] = cute::is_same_v<cute::remove_cvref_t<const int&>, int> + 2 * cute::is_std_integral<uint32_t>::value;
}`,
      { file: path.join(__dirname, 'cute-traits.cu'), block: [1, 1, 1], args: ['out=s32[4]'], compile: { includeDirs: [cutlassInclude!] } },
    );
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([1, 41, 8, 3]);
  });
});

describe.skipIf(!haveDeepGemm)('real DeepGEMM helpers (PHASEFLIP_CORPUS)', () => {
  it("deep_gemm/common/utils.cuh: Vectorized<N>::vec_t and get_num_aligned_tmem_cols<N>()", async () => {
    const r = await runKernel(
      `#include <deep_gemm/common/utils.cuh>
__global__ void k(int* out) {
  using namespace deep_gemm::utils;
  out[0] = sizeof(Vectorized<16>::vec_t);
  out[1] = sizeof(Vectorized<8>::vec_t);
  out[2] = sizeof(Vectorized<4>::vec_t);
  out[3] = get_num_aligned_tmem_cols<100>();
}`,
      { file: path.join(__dirname, 'deepgemm-utils.cu'), block: [1, 1, 1], args: ['out=s32[4]'], compile: { includeDirs: [deepgemm!, cutlassInclude!] } },
    );
    expect(r.status, r.message).toBe('completed');
    expect(values(r, 'out')).toEqual([16, 8, 4, 128]);
  });
});
