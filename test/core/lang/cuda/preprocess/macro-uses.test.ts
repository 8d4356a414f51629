// Macro uses rewritten in the parse text: short structural expansions written in place, invocations whose
// expansion is nothing, specifiers or a static_assert blanked; everything else (constants, code, barriers) kept.
import { describe, expect, it } from 'vitest';
import { loadEngine } from '../../../../../core/index';
import { preprocessFile } from '../../../../../core/lang/cuda/preprocess/directives';
import { invocationSpan, MAX_INVOCATION_CHARS, MAX_INVOCATION_DEPTH } from '../../../../../core/lang/cuda/preprocess/macro-uses';
import { predefinedMacros } from '../../../../../core/lang/cuda/preprocess/predefined';

function run(text: string): string {
  const pre = preprocessFile(text, predefinedMacros(), () => {}, 'test.cu');
  expect(pre.parseText.length).toBe(text.length);
  const breaks = (s: string) => [...s].flatMap((c, i) => (c === '\n' || c === '\r' ? [i] : []));
  expect(breaks(pre.parseText)).toEqual(breaks(text));
  return pre.parseText;
}

/** The code lines of the parse text (directive lines are kept in it; only the lines after them matter here). */
const codeOf = (parse: string, text: string) => parse.split('\n').filter((_, k) => !text.split('\n')[k].startsWith('#')).map((l) => l.trimEnd());

/** `line` with each of `pieces` turned into spaces. */
const without = (line: string, ...pieces: string[]) => pieces.reduce((l, p) => l.replace(p, ' '.repeat(p.length)), line).trimEnd();

describe('object-like macros written in place', () => {
  it('writes a namespace opening and closing that fit in the name, padded with spaces', () => {
    const text = [
      '#define CUB_NS_PREFIX',
      '#define CUB_NAMESPACE_BEGIN CUB_NS_PREFIX namespace cub {',
      '#define CUB_NAMESPACE_END } /* end namespace cub */',
      'CUB_NAMESPACE_BEGIN',
      'int x;',
      'CUB_NAMESPACE_END',
    ].join('\n');
    const parse = run(text);
    expect(codeOf(parse, text)).toEqual(['namespace cub{', 'int x;', '}']);
    expect(parse.split('\n')[3]).toBe('namespace cub{'.padEnd('CUB_NAMESPACE_BEGIN'.length, ' '));
  });

  it('collapses nested namespace openings into one and closings into one `}`, so BEGIN/END pairs stay balanced', () => {
    const text = ['#define _BEGIN_NS(n) namespace n { inline namespace v1 {', '#define _BEGIN_CUDA_STD_NAMESPACE _BEGIN_NS(cuda::std)', '#define END_TWO_NAMESPACES }}', '_BEGIN_CUDA_STD_NAMESPACE', 'END_TWO_NAMESPACES'].join('\n');
    // The expansion spelled out (`namespace cuda::std{inline namespace v1{`) does not fit in the name; the
    // collapsed one does, and the `}}` that fits is collapsed too.
    expect(codeOf(run(text), text)).toEqual(['namespace cuda::std{', '}']);
    const narrow = text.replace(/_BEGIN_CUDA_STD_NAMESPACE/g, 'BEGIN_STD_NS');
    expect(codeOf(run(narrow), narrow)).toEqual(['namespace{', '}']);
  });

  it('keeps the braces balanced for BEGIN/END pairs of several depths, one opening per BEGIN', () => {
    for (const depth of [1, 2, 3, 4]) {
      const opens = Array.from({ length: depth }, (_, k) => `${k % 2 ? 'inline ' : ''}namespace n${k} {`).join(' ');
      const text = [`#define LIBRARY_NS_BEGIN ${opens}`, `#define LIB_END ${'} '.repeat(depth)}`, 'LIBRARY_NS_BEGIN', 'int x;', 'LIB_END', 'LIBRARY_NS_BEGIN', 'LIB_END'].join('\n');
      const code = codeOf(run(text), text).join('\n');
      expect(code.split('{').length, `depth ${depth}`).toBe(3);
      expect(code.split('}').length, `depth ${depth}`).toBe(3);
      expect(code.startsWith(depth === 1 ? 'namespace n0{' : 'namespace')).toBe(true);
    }
  });

  it('writes a switch from one namespace to another, and drops static_assert checks beside an opening', () => {
    const text = [
      '#define SWITCH_NAMESPACE } } namespace b { inline namespace v2 {',
      '#define VERSIONED_NAMESPACE_BEGIN static_assert(1 == 1, "v"); inline namespace v2 {',
      '#define VERSIONED_BEGIN static_assert(1 == 1, "v"); inline namespace v2 {',
      'SWITCH_NAMESPACE',
      'VERSIONED_NAMESPACE_BEGIN',
      'VERSIONED_BEGIN',
    ].join('\n');
    // The last one's `inline namespace v2{` does not fit: an anonymous opening keeps the braces balanced.
    expect(codeOf(run(text), text)).toEqual(['}namespace b{', 'inline namespace v2{', 'namespace{']);
  });

  it('keeps an expansion longer than the name, and never writes constants, types or code', () => {
    const text = [
      '#define NS_BEGIN namespace a_long_namespace_name {',
      '#define STAGES 4',
      '#define KSTAGES STAGES',
      '#define ELEMENT float',
      '#define OPEN_BLOCK {',
      '#define BODY { f(); }',
      '#define STRUCTURE struct S {',
      'NS_BEGIN',
      'int s = STAGES + KSTAGES; ELEMENT e;',
      'void g() OPEN_BLOCK }',
      'void h() BODY',
      'STRUCTURE };',
    ].join('\n');
    expect(codeOf(run(text), text)).toEqual(['NS_BEGIN', 'int s = STAGES + KSTAGES; ELEMENT e;', 'void g() {          }', 'void h() BODY', 'STRUCTURE };']);
  });

  it('blanks an object-like macro that is only a static_assert', () => {
    const text = ['#define KITTENS_CHECK_WARP static_assert(GROUP_WARPS==1, "Warp function called from a warp group.");', 'void f() { KITTENS_CHECK_WARP int a; }'].join('\n');
    expect(codeOf(run(text), text)).toEqual(['void f() {                    int a; }']);
  });
});

describe('function-like macro invocations blanked', () => {
  const defs = [
    '#define _CCCL_TO_STRING2(x) #x',
    '#define _CCCL_TO_STRING(x) _CCCL_TO_STRING2(x)',
    '#define _CCCL_PRAGMA(_ARG) _Pragma(_CCCL_TO_STRING(_ARG))',
    '#define _CCCL_PRAGMA_UNROLL_FULL() _CCCL_PRAGMA(unroll)',
    '#define DG_STATIC_ASSERT(cond, ...) static_assert(cond, __VA_ARGS__)',
    '#define CCCL_DEPRECATED_BECAUSE(MSG) [[deprecated(MSG)]]',
    '#define NOTHING(...)',
  ];

  it('blanks pragma, static_assert, attribute and empty invocations (arguments over lines too), keeping the `;`', () => {
    const text = [
      ...defs,
      'template <int N> struct S {',
      '  DG_STATIC_ASSERT(N <= 8,',
      '                   "too (many) stages");',
      '  CCCL_DEPRECATED_BECAUSE("use g") void f();',
      '};',
      'void k() { _CCCL_PRAGMA_UNROLL_FULL() for (int i = 0; i < 4; ++i) NOTHING(i, (j)) ; }',
    ].join('\n');
    expect(codeOf(run(text), text)).toEqual([
      'template <int N> struct S {',
      '',
      '                                       ;',
      without('  CCCL_DEPRECATED_BECAUSE("use g") void f();', 'CCCL_DEPRECATED_BECAUSE("use g")'),
      '};',
      'void k() {                            for (int i = 0; i < 4; ++i)                 ; }',
    ]);
  });

  it('keeps invocations whose expansion is code, a barrier, or unknown', () => {
    const text = [
      ...defs,
      '#define CALL(x) f(x)',
      '#define SPECIFIER_OR_ARG(x) x',
      '#define WAIT_ATTR(x) __attribute__((mbarrier_wait))',
      'void k() { CALL(1); SPECIFIER_OR_ARG(g()); SPECIFIER_OR_ARG(static) int a; WAIT_ATTR(1) int b; UNDEFINED(2); }',
      'int x = NOTHING;',
    ].join('\n');
    expect(codeOf(run(text), text)).toEqual([
      without(text.split('\n').at(-2)!, 'SPECIFIER_OR_ARG(static)'),
      'int x = NOTHING;',
    ]);
  });

  it('leaves invocations in comments, strings, inactive code, across directives, and unclosed ones', () => {
    const text = [
      ...defs,
      '// NOTHING(a)',
      'const char* s = "NOTHING(b)";',
      '#if 0',
      'NOTHING(c)',
      '#endif',
      'NOTHING(d',
      '#define X 1',
      ')',
      'NOTHING(e',
    ].join('\n');
    const parse = run(text);
    const lines = parse.split('\n').slice(defs.length);
    expect(lines[0]).toBe('// NOTHING(a)');
    expect(lines[1]).toBe('const char* s = "NOTHING(b)";');
    expect(lines[3].trim()).toBe('');
    expect(lines[5]).toBe('NOTHING(d');
    expect(lines[8]).toBe('NOTHING(e');
  });

  it('reports the invocations it blanked', () => {
    const text = [...defs, 'NOTHING(a, NOTHING(b)) int c; DG_STATIC_ASSERT(1, "m"); CALL(x);'].join('\n');
    const pre = preprocessFile(text, predefinedMacros(), () => {}, 'test.cu');
    expect(pre.blankedInvocations.map((r) => text.slice(r.start, r.end))).toEqual(['NOTHING(a, NOTHING(b))', 'DG_STATIC_ASSERT(1, "m")']);
  });

  it('blanks an outer invocation holding others once, and an invocation whose arguments hold comments and quotes', () => {
    const text = [...defs, 'NOTHING(NOTHING(a) /* ) */ ")" \')\' NOTHING(b)) int c;'].join('\n');
    expect(codeOf(run(text), text)).toEqual([`${' '.repeat(text.split('\n').at(-1)!.indexOf('int c;'))}int c;`]);
  });
});

describe('pragma macros', () => {
  it('blanks object-like macros that expand to a pragma through a stringizing invocation', () => {
    const text = [
      '#define STR_(x) #x',
      '#define STR(x) STR_(x)',
      '#define DO_PRAGMA(x) _Pragma(STR(x))',
      '#define NO_HOST_CHECK DO_PRAGMA(nv_exec_check_disable)',
      '#define WARN_PUSH DO_PRAGMA(GCC diagnostic push)',
      '#define QUIET(w) DO_PRAGMA(nv_diag_suppress w)',
      '#define CALL_IT f(1)',
      'WARN_PUSH',
      'QUIET(177)',
      'NO_HOST_CHECK',
      'void g() { CALL_IT; }',
    ].join('\n');
    expect(codeOf(run(text), text)).toEqual(['', '', '', 'void g() { CALL_IT; }']);
  });
});

describe('template-head macros', () => {
  // The two forms a library picks between by language level: a head opened by one macro and closed by the next
  // (before C++20), or a whole head and a requires-clause (C++20).
  const before20 = [
    '#define TEMPLATE_HEAD(...) template <__VA_ARGS__',
    '#define CONSTRAINT(...) , bool ok_ = true, enable_if_t<(__VA_ARGS__) && ok_, int> = 0 >',
    '#define ALSO && ok_, int> = 0, enable_if_t<',
  ];
  const since20 = ['#define TEMPLATE_HEAD(...) template <__VA_ARGS__>', '#define CONSTRAINT(...) requires __VA_ARGS__', '#define ALSO &&'];
  const use = ['TEMPLATE_HEAD(class T, int N)', 'CONSTRAINT(is_small<T> ALSO (N > 0))', '__device__ void f(T x);'];

  it('writes the head as the template it declares and blanks the constraint, in both forms', () => {
    for (const defs of [before20, since20]) {
      const text = [...defs, ...use].join('\n');
      expect(codeOf(run(text), text)).toEqual(['template     <class T, int N>', '', '__device__ void f(T x);']);
    }
  });

  it('blanks a head whose name is too short for `template`, leaving a plain function', () => {
    const text = [...before20.map((d) => d.replace('TEMPLATE_HEAD', 'TPL')), ...use.map((l) => l.replace('TEMPLATE_HEAD', 'TPL'))].join('\n');
    expect(codeOf(run(text), text)).toEqual(['', '', '__device__ void f(T x);']);
  });

  it('keeps an invocation that expands to a whole template declaration', () => {
    const text = ['#define DECLARE(name) template <class T> __device__ void name(T x);', 'DECLARE(f)'].join('\n');
    expect(codeOf(run(text), text)).toEqual(['DECLARE(f)']);
  });
});

describe('function-defining macros', () => {
  const defs = [
    '#define DEF_DEFAULT(fn) \\',
    'template<typename T> \\',
    '__device__ static inline void fn(T &dst, const T &src) { \\',
    '    fn<1>(dst, src); \\',
    '}',
    '#define DEF_TWO(fn) __device__ void fn(int x) { fn<2>(x); } __device__ void fn(long x) const { fn<3>(x); }',
    '#define STMT(x) do { f(x); } while (0)',
    '#define GUARD(c) if (x) { c }',
  ];
  it('blanks an invocation that defines whole functions, at namespace scope without a `;`', () => {
    const text = [...defs, 'namespace k {', 'DEF_DEFAULT(store_async)', 'DEF_TWO(load_async)', '__device__ void g() { STMT(1); GUARD(g();) }', '}'].join('\n');
    expect(run(text).split('\n').slice(-5).map((l) => l.trimEnd())).toEqual(['namespace k {', '', '', `__device__ void g() { STMT(1); ${'if(x)'.padEnd('GUARD'.length)}{g();} }`, '}']);
  });

  it('the definitions blanked leave no syntax error around them', async () => {
    const engine = await loadEngine({});
    const text = [...defs.slice(0, 6), 'namespace k {', 'DEF_DEFAULT(store_async)', 'DEF_TWO(load_async)', '__device__ void g() {}', '}'].join('\n');
    expect(engine.analyze(text, 'cuda', {}).syntaxProblems).toEqual([]);
  });
});

describe('branch-selecting macros', () => {
  // A self-written target selector in the style of the toolkit's: the condition names a macro that is 1 or 0 for
  // the device pass being modelled, and the taken branch's parenthesised statements become a block.
  const selector = [
    '#define CAT_(a, b) a##b',
    '#define CAT(a, b) CAT_(a, b)',
    '#define UNWRAP(...) __VA_ARGS__',
    '#define PICK_1(t, ...) { UNWRAP t }',
    '#define PICK_0(t, ...) { __VA_OPT__(UNWRAP __VA_ARGS__) }',
    '#if __CUDA_ARCH__ >= 900',
    '#define ON_SM90 1',
    '#else',
    '#define ON_SM90 0',
    '#endif',
    '#define ON_SM100 0',
    '#define IF_ARCH(cond, ...) CAT(PICK_, cond)(__VA_ARGS__)',
    '#define CHECK(x) static_assert(x, "")',
  ];

  it('keeps the taken branch in place as a block and blanks the rest', () => {
    const text = [...selector, 'void f() {', '  IF_ARCH(ON_SM90, (a(); b();), (c();));', '  IF_ARCH(ON_SM100, (a();), (c();));', '}'].join('\n');
    expect(codeOf(run(text), text)).toEqual([
      'void f() {',
      `  ${' '.repeat('IF_ARCH(ON_SM90, '.length)}{a(); b();}${' '.repeat(', (c();))'.length)};`,
      `  ${' '.repeat('IF_ARCH(ON_SM100, (a();), '.length)}{c();} ;`,
      '}',
    ]);
  });

  it('keeps a branch written without parentheses, its separators turned into braces', () => {
    const bare = ['#define BARE_1(...) { __VA_ARGS__ }', '#define IF_ARCH_BARE(cond, ...) CAT(BARE_, cond)(__VA_ARGS__)'];
    const text = [...selector, ...bare, 'void f() { IF_ARCH_BARE(ON_SM90, a(); b();); }'].join('\n');
    expect(codeOf(run(text), text).at(-1)).toBe(`void f() { ${' '.repeat('IF_ARCH_BARE(ON_SM90'.length)}{ a(); b();}; }`);
  });

  it('writes a branch not taken without an alternative as an empty block, and follows the architecture modelled', () => {
    const text = [...selector, 'void f() { IF_ARCH(ON_SM90, (a();)); }'].join('\n');
    const on = (cudaArch: number) => preprocessFile(text, predefinedMacros({ cudaArch }), () => {}, 'test.cu').parseText.split('\n').at(-1);
    expect(on(900)).toBe(`void f() { ${' '.repeat('IF_ARCH(ON_SM90, '.length)}{a();} ; }`);
    expect(on(800)).toBe(`void f() { {}${' '.repeat('IF_ARCH(ON_SM90, (a();))'.length - 2)}; }`);
  });

  it('blanks a selection it cannot resolve, and rewrites nested selections and macros inside the branch kept', () => {
    const text = [...selector, 'void f() {', '  IF_ARCH(ON_UNKNOWN, (a();));', '  IF_ARCH(ON_SM90, (CHECK(1); IF_ARCH(ON_SM100, (x();), (y();))));', '}'].join('\n');
    const lines = codeOf(run(text), text);
    expect(lines[1].trim()).toBe(';');
    expect(lines[2].replace(/\s+/g, ' ')).toBe(' { ; {y();} } ;');
  });

  it('keeps invocations that expand to other code, and records the rewritten ones', () => {
    const text = [...selector, '#define RUN(stmts) do { UNWRAP stmts } while (0)', 'void f() { RUN((a();)); IF_ARCH(ON_SM90, (b();)); }'].join('\n');
    const pre = preprocessFile(text, predefinedMacros(), () => {}, 'test.cu');
    expect(pre.parseText.split('\n').at(-1)).toContain('RUN((a();));');
    expect(pre.blankedInvocations.map((r) => text.slice(r.start, r.end))).toEqual(['IF_ARCH(ON_SM90, (b();))']);
  });
});

describe('the branch kept is analysed', () => {
  const kernel = (cond: string) =>
    [
      '#include <cuda/ptx>',
      '#include <cstdint>',
      '#define CAT_(a, b) a##b',
      '#define CAT(a, b) CAT_(a, b)',
      '#define UNWRAP(...) __VA_ARGS__',
      '#define PICK_1(t, ...) { UNWRAP t }',
      '#define PICK_0(t, ...) { __VA_OPT__(UNWRAP __VA_ARGS__) }',
      '#define ON_SM90 1',
      '#define ON_SM100 0',
      '#define IF_ARCH(cond, ...) CAT(PICK_, cond)(__VA_ARGS__)',
      '__global__ void k(float* out) {',
      '  __shared__ uint64_t bars[2];',
      '  if (threadIdx.x == 0) {',
      '    cuda::ptx::mbarrier_init(&bars[0], blockDim.x);',
      '    cuda::ptx::mbarrier_init(&bars[1], blockDim.x);',
      '  }',
      '  __syncthreads();',
      '  uint64_t state = 0;',
      `  IF_ARCH(${cond}, (state = cuda::ptx::mbarrier_arrive(&bars[0]);));`,
      '  while (!cuda::ptx::mbarrier_try_wait(&bars[1], state)) {}',
      '  out[threadIdx.x] = 1.f;',
      '}',
    ].join('\n');

  it('sees an mbarrier arrive inside the branch taken (PF101: its token is waited on the other barrier), not one in a branch dropped', async () => {
    const engine = await loadEngine({});
    const codes = (text: string) => engine.analyze(text, 'cuda', {}).findings.map((f) => `${f.range.start.line + 1}: ${f.code}`);
    const taken = engine.analyze(kernel('ON_SM90'), 'cuda', {});
    expect(taken.syntaxProblems).toEqual([]);
    expect(codes(kernel('ON_SM90'))).toContain('20: PF101');
    expect(codes(kernel('ON_SM100'))).not.toContain('20: PF101');
  });
});

describe('invocationSpan bounds its work', () => {
  it('finds the closing parenthesis past nested ones, and gives up past MAX_INVOCATION_CHARS or MAX_INVOCATION_DEPTH', () => {
    expect(invocationSpan('F (a, (b), c) x', 0, 1)).toEqual({ close: 13, scanned: 13 });
    expect(invocationSpan('F x', 0, 1).close).toBeUndefined();
    const long = `F(${'x'.repeat(2 * MAX_INVOCATION_CHARS)})`;
    expect(invocationSpan(long, 0, 1)).toEqual({ scanned: MAX_INVOCATION_CHARS });
    const deep = `F${'('.repeat(MAX_INVOCATION_DEPTH + 1)}${')'.repeat(MAX_INVOCATION_DEPTH + 1)}`;
    expect(invocationSpan(deep, 0, 1)).toEqual({ scanned: 1 + MAX_INVOCATION_DEPTH });
    const shallow = `F${'('.repeat(MAX_INVOCATION_DEPTH)}${')'.repeat(MAX_INVOCATION_DEPTH)}`;
    expect(invocationSpan(shallow, 0, 1).close).toBe(1 + 2 * MAX_INVOCATION_DEPTH);
  });
});

/** A kernel whose arrive's token is waited on the other barrier (PF101, reported at the wait), after `body`; and the wait's line. */
function pf101Kernel(defs: string[], body: string[]): { text: string; line: number } {
  const lines = [
    '#include <cuda/ptx>',
    '#include <cstdint>',
    ...defs,
    '__global__ void k(float* out, int n) {',
    '  __shared__ uint64_t bars[2];',
    '  if (threadIdx.x == 0) {',
    '    cuda::ptx::mbarrier_init(&bars[0], blockDim.x);',
    '    cuda::ptx::mbarrier_init(&bars[1], blockDim.x);',
    '  }',
    '  __syncthreads();',
    ...body,
    '  uint64_t state = cuda::ptx::mbarrier_arrive(&bars[0]);',
    '  while (!cuda::ptx::mbarrier_try_wait(&bars[1], state)) {}',
    '  out[threadIdx.x] = 1.f;',
    '}',
  ];
  return { text: lines.join('\n'), line: lines.findIndex((l) => l.includes('mbarrier_try_wait(')) + 1 };
}

async function expectCleanWithPf101(defs: string[], body: string[]): Promise<void> {
  const engine = await loadEngine({});
  const { text, line } = pf101Kernel(defs, body);
  const result = engine.analyze(text, 'cuda', {});
  expect(result.syntaxProblems).toEqual([]);
  expect(result.findings.map((f) => `${f.range.start.line + 1}: ${f.code}`)).toContain(`${line}: PF101`);
}

describe('declaration generators (type and function definitions, at namespace scope without a `;`)', () => {
  it('blanks invocations defining type specialisations, and the file parses clean', async () => {
    const text = [
      'template <class T> struct Width { static constexpr int value = 0; };',
      '#define WIDTH_OF(t, n) template <> struct Width<t> { static constexpr int value = n; typedef t Type; };',
      'WIDTH_OF(int, 4)',
      'WIDTH_OF(unsigned long long, 8)',
      '__global__ void k(int* out) { out[threadIdx.x] = 1; }',
    ].join('\n');
    expect(codeOf(run(text), text).slice(1, 3)).toEqual(['', '']);
    const engine = await loadEngine({});
    expect(engine.analyze(text, 'cuda', {}).syntaxProblems).toEqual([]);
  });

  it('expands an invocation with the definitions of its point of the file (generators #undef-ed after use)', () => {
    const text = [
      '#define STORE_ONE(mod) template <> __device__ void Store<mod, int>(int* p, int v) { *p = v; }',
      '#define STORE_ALL(mod) STORE_ONE(mod) template <> __device__ void Store<mod, char>(char* p, char v) { *p = v; }',
      'STORE_ALL(A)',
      'STORE_ALL(B)',
      '#undef STORE_ALL',
      '#undef STORE_ONE',
      'int after;',
    ].join('\n');
    expect(codeOf(run(text), text)).toEqual(['', '', 'int after;']);
  });

  it('blanks a sequence of a variable template, a struct and a function; keeps declarations alone and statements', () => {
    const text = [
      '#define DEFINE_TRAIT(name) template <class T> inline constexpr bool name = sizeof(T) > 1; template <class T> struct name##_box { T v; }; template <class T> __device__ T get(name##_box<T> b) { return b.v; }',
      '#define DECLARE_ONLY(name) template <class T> void name(T);',
      '#define RUN_IF(c) if (c) { go(); }',
      '#define LAMBDA(n) auto n = [&](int i) { go(i); };',
      'DEFINE_TRAIT(wide)',
      'DECLARE_ONLY(g)',
      'void f() { RUN_IF(x) LAMBDA(l) }',
    ].join('\n');
    expect(codeOf(run(text), text)).toEqual(['', 'DECLARE_ONLY(g)', 'void f() { RUN_IF(x) LAMBDA(l) }']);
  });
});

describe('statement macros written compactly', () => {
  const defs = [
    '#define MY_TRY if constexpr (true) {',
    '#define MY_CATCH_ALL } else',
    '#define WHEN_NOT_CONSTANT_EVALUATED if (!__builtin_is_constant_evaluated())',
    '#define WHEN_BOTH_FLAGS_ARE_SET if (flag_a && flag_b)',
    '#define TOO_LONG if (some_rather_long_condition_name)',
  ];

  it('writes if/else/brace expansions in place, constant conditions as their value', () => {
    const text = [...defs, 'void f() {', '  MY_TRY { a(); }', '  MY_CATCH_ALL { b(); }', '  WHEN_NOT_CONSTANT_EVALUATED { c(); }', '  WHEN_BOTH_FLAGS_ARE_SET { d(); }', '  TOO_LONG { e(); }', '}'].join('\n');
    expect(codeOf(run(text), text)).toEqual([
      'void f() {',
      '  if(1){ { a(); }',
      '  }else        { b(); }',
      `  ${'if(1)'.padEnd('WHEN_NOT_CONSTANT_EVALUATED'.length, ' ')} { c(); }`,
      `  ${'if(flag_a&&flag_b)'.padEnd('WHEN_BOTH_FLAGS_ARE_SET'.length, ' ')} { d(); }`,
      '  TOO_LONG { e(); }',
      '}',
    ]);
  });

  it('a barrier bug after try-style and constant-evaluation macros is still found', async () => {
    await expectCleanWithPf101(defs, ['  MY_TRY { out[0] = 1.f; }', '  MY_CATCH_ALL { out[0] = 0.f; }', '  WHEN_NOT_CONSTANT_EVALUATED { out[1] = 2.f; }']);
  });
});

describe('macros forwarding to a CUDA keyword and guarded-block macros', () => {
  it('writes a launch-bounds macro as the keyword with the arguments it forwards', () => {
    const text = [
      '#define KERNEL_LAUNCH_BOUNDS(...) __launch_bounds__(__VA_ARGS__)',
      '#define MY_BOUNDS_CLUSTER(t, m, c) KERNEL_LAUNCH_BOUNDS(t, m)',
      'template <class C> __global__ static void KERNEL_LAUNCH_BOUNDS(C::threads()) k(int x) {}',
      '__global__ void MY_BOUNDS_CLUSTER(128, 2, 4) k2(int x) {}',
    ].join('\n');
    expect(codeOf(run(text), text)).toEqual([
      `template <class C> __global__ static void ${'__launch_bounds__'.padEnd('KERNEL_LAUNCH_BOUNDS'.length)}(C::threads()) k(int x) {}`,
      `__global__ void ${'__launch_bounds__'.padEnd('MY_BOUNDS_CLUSTER'.length)}(128, 2${' '.repeat(3)}) k2(int x) {}`,
    ]);
  });

  it('writes an `if constexpr` macro taking a braced block as an if over that block', async () => {
    const text = [
      '#define IF_KIND(code) if constexpr (is_kind_v<T, Kind>) { code }',
      '#define IF_ONE(code) if (1) { code }',
      'template <class T> __device__ bool f(int x) {',
      '  IF_KIND({',
      '    return true;',
      '  })',
      '  IF_ONE(x++;)',
      '  return false;',
      '}',
    ].join('\n');
    const code = codeOf(run(text), text);
    expect(code.slice(1, 5)).toEqual(['  if(IF_K){', '    return true;', '  }', '  if(1) {x++;}']);
    const engine = await loadEngine({});
    expect(engine.analyze(text, 'cuda', {}).syntaxProblems).toEqual([]);
    await expectCleanWithPf101(['#define IF_READY(code) if constexpr (ready_v<float>) { code }'], ['  IF_READY({', '    out[0] = 0.f;', '  })']);
  });
});

describe('names no macro defines, used as macros of a header not found', () => {
  it('blanks a macro-style invocation standing alone on its lines without `;`, and nothing else', async () => {
    const text = [
      '__global__ void k(float* out, int n) {',
      '  // checks from a header not on the include path',
      '  CHECK_ARG(n > 0, "n must be positive")',
      '  CHECK_ARG(n < 4096,',
      '            "n too large")',
      '  KEEP_CALL(n);',
      '  if (n) LOWER_CASE_IS_KEPT(n)',
      '  out[0] = 1.f;',
      '  if (threadIdx.x < 16) __syncthreads();',
      '}',
    ].join('\n');
    const code = codeOf(run(text), text);
    expect(code.slice(2, 5).map((l) => l.trim())).toEqual(['', '', '']);
    expect(code.slice(5, 7)).toEqual(['  KEEP_CALL(n);', '  if (n) LOWER_CASE_IS_KEPT(n)']);
    await expectCleanWithPf101([], ['  CHECK_ARG(n > 0, "n must be positive")', '  CHECK_ARG(n < 4096,', '            "n too large")']);
  });
});

describe('invocations whose expansion takes the groups after them (chained invocations)', () => {
  // A requires-expression and a constrained return type written as a chain of groups, in both the C++20 and the
  // pre-C++20 spellings: the first group's expansion ends in the name of a function-like macro, which takes the
  // next group.
  const modern = [
    '#define CHECKS(ids, ...) requires(__VA_ARGS__) CHECKS_BODY_',
    '#define CHECKS_BODY_(...) { __VA_ARGS__; }',
    '#define RETURNS_IF(...) -> __VA_ARGS__ RETURNS_IF_TAIL_',
    '#define RETURNS_IF_TAIL_(...) requires __VA_ARGS__',
  ];
  const older = [
    '#define CHECKS(ids, ...) ::check_impl<struct check_detail_>::ok(0); struct check_detail_ { template <class U> static auto probe(__VA_ARGS__) CHECKS_BODY_',
    '#define CHECKS_BODY_(...) -> decltype(__VA_ARGS__) { return 0; } }',
    '#define RETURNS_IF(...) -> enable_t < __VA_ARGS__ RETURNS_IF_TAIL_',
    '#define RETURNS_IF_TAIL_(...) , __VA_ARGS__ >',
  ];
  const uses = [
    'template <class T> constexpr bool is_addable = CHECKS((T), T a, T b)(a + b);',
    'template <class T> constexpr bool is_small = CHECKS((T, variadic R))(',
    '  sizeof(T) < 8);',
    'template <class T> __device__ auto twice(T x) RETURNS_IF(T)(is_small<T>) { return x + x; }',
  ];

  for (const [spelling, defs] of [['C++20', modern], ['pre-C++20', older]] as const) {
    it(`writes a requires-expression as its opaque name and a constrained return as \`-> T\` (${spelling})`, async () => {
      const text = [...defs, ...uses].join('\n');
      expect(codeOf(run(text), text)).toEqual([
        `template <class T> constexpr bool is_addable = CHECKS${' '.repeat('((T), T a, T b)(a + b)'.length)};`,
        `template <class T> constexpr bool is_small = CHECKS`,
        `${' '.repeat('  sizeof(T) < 8)'.length)};`,
        `template <class T> __device__ auto twice(T x) ->${' '.repeat('RETURNS_IF('.length - 2)}T${' '.repeat(')(is_small<T>)'.length)} { return x + x; }`,
      ]);
      const engine = await loadEngine({});
      expect(engine.analyze(text, 'cuda', {}).syntaxProblems).toEqual([]);
    });
  }

  it('a barrier bug after chained invocations is still found', async () => {
    await expectCleanWithPf101([...older, ...uses], ['  out[2] = twice(1.f);']);
  });

  it('leaves a chain whose expansion is neither alone (a call of a call)', () => {
    const text = ['#define PICK(x) choose_ PICK_NEXT_', '#define PICK_NEXT_(y) (y)', 'int v = PICK(1)(2);'].join('\n');
    expect(codeOf(run(text), text)).toEqual(['int v = PICK(1)(2);']);
  });
});
