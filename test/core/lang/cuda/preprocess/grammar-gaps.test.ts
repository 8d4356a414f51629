// The rewrites of constructs tree-sitter-cuda cannot parse: each gap is real (the grammar gives an error
// on the text as written), each rewrite is the exact same-length text that parses, what must not change
// stays as written, and kernels written with the constructs lint with the same findings and launch shape.
import { beforeAll, describe, expect, it } from 'vitest';
import { loadEngine, type Engine } from '../../../../../core/index';
import { Parser, loadCudaLanguage, parseWhole } from '../../../../../core/lang/cuda/parser';
import { rewriteGrammarGaps } from '../../../../../core/lang/cuda/preprocess/grammar-gaps';

let parser: Parser;
let engine: Engine;
beforeAll(async () => {
  const language = await loadCudaLanguage();
  parser = new Parser();
  parser.setLanguage(language);
  engine = await loadEngine({});
});

/** Whether the grammar alone (no preprocessing) parses `text` without ERROR or MISSING nodes. */
function parsesCleanly(text: string): boolean {
  const tree = parseWhole(parser, text);
  const clean = !!tree && !tree.rootNode.hasError;
  tree?.delete();
  return clean;
}

/** Each gap: what is written, and the exact text tree-sitter is given instead. */
const GAPS: Array<[string, string, string]> = [
  ['typename before a value of a dependent type', 'int f() { return size<0>(typename T::A{}); }', 'int f() { return size<0>(         T::A{}); }'],
  ['typename before a functional cast', 'void f() { auto y = typename T::P(3); }', 'void f() { auto y =          T::P(3); }'],
  ['typename as a call argument', 'void g() { f(typename X::template Y<int>{}, 2); }', 'void g() { f(         X::template Y<int>{}, 2); }'],
  ['typename in a default argument, kept in the declaration', 'struct P { P(typename O::Params op = typename O::Params()); };', 'struct P { P(typename O::Params op =          O::Params()); };'],
  ['an empty brace default', 'void f(const EnvT& env = {}) {}', 'void f(const EnvT& env = 0 ) {}'],
  ['a brace default with a value', 'void f(Token t = {Status::WaitAgain}, int c = {  }) {}', 'void f(Token t = (Status::WaitAgain), int c = 0   ) {}'],
  ['an unnamed parameter with a brace default', 'struct S { S(Params p, InitBarriers = {}, InitMasks = {}) {} };', 'struct S { S(Params p, InitBarriers = 0 , InitMasks = 0 ) {} };'],
  ['a pointer default of a template parameter', 'template <typename team_t, typename ptr_t = void*> struct A {};', 'template <typename team_t, typename ptr_t = void > struct A {};'],
  ['a spaced pointer default', 'template <class T = int *> struct B {};', 'template <class T = int  > struct B {};'],
  ['a function pointer default of a template parameter', 'template <class S, typename F = Info(*)(Info)> void f();', 'template <class S, typename F = Info         > void f();'],
  ['typename in a using-declaration', 'struct D : B { using typename Base::Mma; };', 'struct D : B { using          Base::Mma; };'],
  ['an attribute before friend', 'struct S { [[nodiscard]] friend constexpr bool operator==(S a, S b) { return true; } };', 'struct S {               friend constexpr bool operator==(S a, S b) { return true; } };'],
  ['CUDA specifiers before friend', 'struct S { [[nodiscard]] __host__ __device__ friend bool operator==(S a, S b) { return true; } };', 'struct S {               friend __host__ __device__ bool operator==(S a, S b) { return true; } };'],
  ['inline before friend', 'struct B {\n  inline friend void\n  reset(B* b, int n) {}\n};', 'struct B {\n  friend inline void\n  reset(B* b, int n) {}\n};'],
  ['an explicit call of operator() through this', 'struct A { int operator()(int a) { return a; } int g(int b) { return this->operator()(b); } };', 'struct A { int operator()(int a) { return a; } int g(int b) { return (*this)         (b); } };'],
  ['an explicit call of operator() on an object', 'void g(F f) { f.operator()(1); }', 'void g(F f) { f           (1); }'],
  ['an extended lambda', '__device__ void f() { apply(d, [val, diag]__device__(int row) { return row; }); }', '__device__ void f() { apply(d, [val, diag]          (int row) { return row; }); }'],
  ['a host-device extended lambda', 'void f() { g([=] __host__ __device__ (int i) { return i; }); }', 'void f() { g([=]                     (int i) { return i; }); }'],
  ['__cluster_dims__ before __global__', '__cluster_dims__(2, 1, 1) __global__ void k() {}', '                          __global__ void k() {}'],
  ['__cluster_dims__ after void', '__global__ void __cluster_dims__(2, 1, 1) k() {}', '__global__ void                           k() {}'],
  ['__cluster_dims__ after __launch_bounds__', '__global__ void __launch_bounds__(128, 1) __cluster_dims__(2,1,1) k() {}', '__global__ void __launch_bounds__(128, 1)                         k() {}'],
  ['__cluster_dims__ on the line above', '__cluster_dims__(2, 1, 1)\n__global__ void k() {}', '                         \n__global__ void k() {}'],
  ['an unnamed pointer parameter with a default', 'struct Q { template <class T = int> void a(P s, T* /* unused */ = nullptr) {} };', 'struct Q { template <class T = int> void a(P s, T  /* unused */ = nullptr) {} };'],
  ['a >= comparison in a template argument', 'using L = pick_t<Cfg::kArch >= 90, Fast, Slow>;', 'using L = pick_t<90 <= Cfg::kArch, Fast, Slow>;'],
  ['a >= comparison in a later template argument, the value built with braces', 'void f() { g(pick_t<X, isa() >= 860, P, Q>{}, 1); }', 'void f() { g(pick_t<X, 860 <= isa(), P, Q>{}, 1); }'],
  ['a >= comparison in a multi-line template argument', 'using L = pick_t<\n  Cfg::kArch >= 80,\n  A<2>,\n  B\n>;', 'using L = pick_t<\n  80 <= Cfg::kArch,\n  A<2>,\n  B\n>;'],
  ['a pointer to member in a cast', 'template <class M, class C> M C::* as(void* p) { return static_cast<M C::*>(p); }', 'template <class M, class C> M    * as(void* p) { return static_cast<M    *>(p); }'],
  ['a pointer to member in a specialisation', 'template <class M, class C> struct of<M ns::C::*> { using type = C; };', 'template <class M, class C> struct of<M        *> { using type = C; };'],
  ['a pointer to const member function', 'template <class R, class C, class A> struct arg<R (C::*)(A) const> { using type = A; };', 'template <class R, class C, class A> struct arg<R (   *)(A) const> { using type = A; };'],
  ['a new array of pointers', 'void f(int n) { float **rows = new float*[n]; }', 'void f(int n) { float **rows = new float [n]; }'],
  ['a deleted comma operator', 'struct S { template <class A, class B> friend void operator,(A, B) = delete; };', 'struct S { template <class A, class B> friend void operator,(A, B)         ; };'],
  ['an unnamed enumeration with an underlying type', 'struct S { enum : unsigned short { A = 1, B = 2 }; };', 'struct S { enum                  { A = 1, B = 2 }; };'],
  ['an unnamed pointer template parameter with a default', 'template <class F, int N = 3, enable_if_t<is_real<F>>* = nullptr> struct R {};', 'template <class F, int N = 3, enable_if_t<is_real<F>>  = nullptr> struct R {};'],
  ['a pack of restricted pointers', 'void g() { each([&](const auto* __restrict__... p) { return 0; }); }', 'void g() { each([&](const auto              ... p) { return 0; }); }'],
  ['a pack of pointers', 'template <class... T> void k(T*... p) {}', 'template <class... T> void k(T ... p) {}'],
  ['asm operands without a comma between them', 'void f(int a, int b) {\n  asm volatile("st [%0], %1;" :: "r"(a + 1)\n    "r"(b));\n}', 'void f(int a, int b) {\n  asm volatile("st [%0], %1;" :: "r"(a + 1)\n,   "r"(b));\n}'],
  ['a pointer to member applied through a pointer', 'int get(Rec* r, int Rec::* field) { return r->*field + 1; }', 'int get(Rec* r, int      * field) { return r .*field + 1; }'],
  ['a pointer to member through a pointer, qualified operands', 'template <class A, class B> using R = decltype(wrap<cast(A::v->*B::v)>{});', 'template <class A, class B> using R = decltype(wrap<cast(A::v .*B::v)>{});'],
  ['decltype(E){} as an argument', 'using L = decltype(make(shape(a, b), stride(decltype(pick<1>(T{})){}, one{})));', 'using L = decltype(make(shape(a, b), stride(        (pick<1>(T{}))  , one{})));'],
  ['decltype(E)() in an initializer', 'void f() { auto z = decltype(y)(); }', 'void f() { auto z =         (y)  ; }'],
  ['three template lists closed before a call, in a declaration', 'void f() { Tile &t = mem.take<Vec<Grid<R, C>>>(); }', 'void f() { Tile &t = mem.take<Vec<Grid<R,C> >>(); }'],
  ['__launch_bounds__ with a cluster operand', 'template <class P> __global__ void __launch_bounds__((thr<P, 1>), occ<P>, per_cluster<P>) k(int x) {}', 'template <class P> __global__ void __launch_bounds__((thr<P, 1>), occ<P>                ) k(int x) {}'],
  ['__launch_bounds__ with three numbers', '__global__ void __launch_bounds__(256, 2, 4) k() {}', '__global__ void __launch_bounds__(256, 2   ) k() {}'],
  [
    'a block comment before a line splice in a #define',
    '#define SW(x) switch (x) { \\\n  case 1: f(); /* one */ \\\n  default: g(); \\\n  }\nint y;',
    '#define SW(x) switch (x) { \\\n  case 1: f();           \\\n  default: g(); \\\n  }\nint y;',
  ],
];

describe('rewriteGrammarGaps: each gap', () => {
  for (const [what, written, parsed] of GAPS) {
    it(what, () => {
      expect(parsesCleanly(written)).toBe(false);
      expect(rewriteGrammarGaps(written)).toBe(parsed);
      expect(parsed.length).toBe(written.length);
      expect(parsesCleanly(parsed)).toBe(true);
      // Through the whole front end (the preprocessor applies the rewrite): no syntax problem.
      expect(engine.analyze(written, 'cuda', {}).syntaxProblems).toEqual([]);
    });
  }

  it('keeps line breaks where a blanked construct spans lines', () => {
    const written = '__cluster_dims__(2,\n  1, 1) __global__ void k() {}';
    expect(rewriteGrammarGaps(written)).toBe(' '.repeat(19) + '\n' + ' '.repeat(8) + '__global__ void k() {}');
  });
});

describe('rewriteGrammarGaps: what stays as written', () => {
  const untouched = [
    'void f() { x = {}; S s = {1, 2}; y = {3}; }',
    'S s{ .a = {1}, .b = 2 };',
    'void g() { int a[2] = {1, 2}; for (auto v : {1, 2}) h(v); }',
    'template <class T> void g() { typename T::A x; typename T::template B<int>::C y{}; }',
    'constexpr int M = A::rows / kittens::TILE_ROW_DIM<typename A::T>;',
    'template <class T> struct W { operator typename T::type() const; };',
    'template <typename T = float, int N = 2 * 3> struct C {};',
    'void f() { const char* s = "typename T::A{} = {} [=] __device__ ("; char c = \'{\'; }',
    '// typename T::A{}  f(int a = {})  __cluster_dims__(1)\n/* [[nodiscard]] friend */ int x;',
    '#define M(x) f(typename T::A{}, x = {})\nint y;',
    'auto s = R"(typename T::A{} __cluster_dims__(1))";',
    '[[nodiscard]] __device__ int f();',
    '__device__ int a[4]; __device__ void g() { a[0] = 1; }',
    'void f(int x) { g(x *= 2); h((p) * (q)); int* r = nullptr; }',
    'void f() { if (a >= b && c<d>::e >= 3) x = y >= z; v >>= 2; w = (u < k >= 1); }',
    'using T = pick_t<(Cfg::kArch >= 90), A, B>;',
    'void f() { S* s = new S[4]; auto p = &C::member; x = a.*pm; }',
    'enum class E : unsigned { A }; enum F : int { B };',
    'template <class T, int* P = nullptr> struct Q {}; void h(int* p = nullptr);',
    'template <class... T> void k(T... p, int* q) { asm("x" :: "r"(1), "r"(2)); }',
    'struct P { R operator->*(int m) const; }; void f(P p) { int x = a - *b; }',
    'template <class T> auto f(T t) -> decltype(t.g()) { return t.g(); } struct A : decltype(base()) {};',
    'using X = decltype(f(y)); void g() { decltype(h()) z{}; }',
    'void launch() { kern<<<grid, Cfg<A, B>::block>>>(p); vec<vec<vec<int>>> v; }',
    '__global__ void __launch_bounds__(blocks<P, 2>, 1) k() {}',
  ];
  for (const text of untouched) {
    it(JSON.stringify(text).slice(0, 60), () => expect(rewriteGrammarGaps(text)).toBe(text));
  }
});

/** A block of 128 threads arriving on a barrier initialised for 64, through an extended lambda. */
const KERNEL = `#include <cuda/barrier>
CLUSTER __global__ void __launch_bounds__(128) k(float* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, 64);
  __syncthreads();
  auto step = [&] LAMBDA (int i) { bar.arrive_and_wait(); out[i] = 1.f; };
  step(threadIdx.x);
}
`;

describe('kernels written with the constructs', () => {
  const variant = (cluster: string, lambda: string) => KERNEL.replace('CLUSTER', cluster).replace('LAMBDA', lambda);
  const findings = (text: string) => engine.analyze(text, 'cuda', {}).findings.map((f) => `${f.range.start.line}:${f.code}:${f.message}`);

  it('lint with the findings of the same kernel written without them, and keep the cluster shape', () => {
    const plain = findings(variant(' '.repeat(25), '          '));
    expect(plain.some((f) => f.includes('PF401'))).toBe(true);
    const written = variant('__cluster_dims__(2, 1, 1)', '__device__');
    expect(engine.analyze(written, 'cuda', {}).syntaxProblems).toEqual([]);
    expect(findings(written)).toEqual(plain);
    const doc = engine.openDocument('cuda', written);
    doc.analyze({});
    const line = written.split('\n').findIndex((l) => l.includes(' k(float'));
    const hover = doc.hover({ line, character: written.split('\n')[line].indexOf('k(float') })?.markdown ?? '';
    expect(hover).toMatch(/- cluster: \(2, 1, 1\), from `__cluster_dims__`/);
    doc.dispose();
  });
});

/** Declarations written with the C++ constructs the grammar lacks, before a kernel. */
const CPP_PRELUDE = `template <bool B, class T, class F> struct pick { using type = T; };
template <int Arch> using copy_op = typename pick<Arch >= 90, int, long>::type;
template <class M, class C> struct member_of;
template <class M, class C> struct member_of<M C::*> { using type = C; };
template <class R, class C, class A> struct first_arg<R (C::*)(A) const> { using type = A; };
struct Tags { enum : unsigned { kA = 1, kB = 2 }; };
template <class F, enable_if_t<is_real<F>>* = nullptr> __device__ F twice(F x) { return x + x; }
template <class R, class M> __device__ M through(R* r, M R::* m) { return r->*m; }
template <class T> __device__ auto unit_of(T t) { return wrap(decltype(t.one()){}, 1); }
template <class A> __device__ void take_all(A& mem) { Tile &t = mem.take<Vec<Grid<8, 8>>>(); }
`;

describe('kernels after the C++ constructs', () => {
  it('lint with the findings of the kernel alone, shifted by the lines before it', () => {
    const plain = engine.analyze(variant0(), 'cuda', {});
    const withPrelude = engine.analyze(CPP_PRELUDE + variant0(), 'cuda', {});
    expect(withPrelude.syntaxProblems).toEqual([]);
    const shift = CPP_PRELUDE.split('\n').length - 1;
    const lines = (r: typeof plain, by: number) => r.findings.map((f) => `${f.range.start.line - by}:${f.code}`);
    expect(lines(plain, 0).some((f) => f.endsWith('PF401'))).toBe(true);
    expect(lines(withPrelude, shift)).toEqual(lines(plain, 0));
  });

  it('read a third __launch_bounds__ operand (blocks per cluster) and keep the block size and the finding', () => {
    const plain = engine.analyze(variant0(), 'cuda', {});
    const text = variant0().replace('__launch_bounds__(128)', '__launch_bounds__(128, 1, 2)');
    const r = engine.analyze(text, 'cuda', {});
    expect(r.syntaxProblems).toEqual([]);
    expect(r.findings.map((f) => `${f.range.start.line}:${f.code}:${f.message}`)).toEqual(plain.findings.map((f) => `${f.range.start.line}:${f.code}:${f.message}`));
    expect(r.findings.some((f) => f.code === 'PF401')).toBe(true);
  });

  it('read asm operands written without a comma, before a barrier bug in the same kernel', () => {
    const asm = '  asm volatile("st.shared.b32 [%0], %1;" :: "r"(static_cast<unsigned>(__cvta_generic_to_shared(out)) + 4)\n      "r"(1));\n';
    const text = variant0().replace('  step(threadIdx.x);\n', `${asm}  step(threadIdx.x);\n`);
    const r = engine.analyze(text, 'cuda', {});
    expect(r.syntaxProblems).toEqual([]);
    expect(r.findings.some((f) => f.code === 'PF401')).toBe(true);
  });
});

function variant0(): string {
  return KERNEL.replace('CLUSTER', '').replace('LAMBDA', '');
}
