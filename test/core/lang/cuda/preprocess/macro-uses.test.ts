// Macro uses rewritten in the parse text: short structural expansions written in place, invocations whose
// expansion is nothing, specifiers or a static_assert blanked; everything else (constants, code, barriers) kept.
import { describe, expect, it } from 'vitest';
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

  it('writes nested namespaces and `::` names', () => {
    const text = ['#define _BEGIN_NS(n) namespace n { inline namespace v1 {', '#define _BEGIN_CUDA_STD_NAMESPACE _BEGIN_NS(cuda::std)', '#define END_TWO_NAMESPACES }}', '_BEGIN_CUDA_STD_NAMESPACE', 'END_TWO_NAMESPACES'].join('\n');
    expect(codeOf(run(text), text)).toEqual(['_BEGIN_CUDA_STD_NAMESPACE', '}}']);
    const wide = text.replace(/_BEGIN_CUDA_STD_NAMESPACE/g, '_BEGIN_CUDA_STD_NAMESPACE_WITH_LONG_NAME_');
    expect(codeOf(run(wide), wide)).toEqual(['namespace cuda::std{inline namespace v1{', '}}']);
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
