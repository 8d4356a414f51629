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
    expect(run(text).split('\n').slice(-5).map((l) => l.trimEnd())).toEqual(['namespace k {', '', '', '__device__ void g() { STMT(1); GUARD(g();) }', '}']);
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
