// One file's directive walk: the same-length parse text (inactive regions, conditional lines and specifier
// macros blanked), includes in order, macros as the file goes, and its tolerance of broken conditionals.
import { describe, expect, it } from 'vitest';
import { preprocessFile, type IncludeDirective } from '../../../../../core/lang/cuda/preprocess/directives';
import { MacroTable, parseDefine } from '../../../../../core/lang/cuda/preprocess/macros';
import { predefinedMacros } from '../../../../../core/lang/cuda/preprocess/predefined';

function run(text: string, macros = predefinedMacros(), onInclude: (inc: IncludeDirective) => void = () => {}) {
  const pre = preprocessFile(text, macros, onInclude, 'test.cu');
  expect(pre.parseText.length).toBe(text.length);
  // Line breaks stay where they were, so lines and columns of everything kept are unchanged.
  const breaks = (s: string) => [...s].flatMap((c, i) => (c === '\n' || c === '\r' ? [i] : []));
  expect(breaks(pre.parseText)).toEqual(breaks(text));
  return pre;
}

/** The parse text with runs of blanks squeezed, for readable expectations. */
const squeeze = (s: string) => s.replace(/[ \t]+/g, ' ').replace(/ *\n */g, '\n').replace(/\n+/g, '\n').trim();

describe('preprocessFile: conditionals', () => {
  it('blanks inactive branches and the conditional lines, keeps what the compiler sees', () => {
    const text = [
      '#if __CUDA_ARCH__ >= 900',
      'void hopper();',
      '#elif defined(__CUDA_ARCH__)',
      'void older();',
      '#else',
      'void host();',
      '#endif',
      '#ifdef NOT_DEFINED',
      'junk {',
      '#endif',
      '#ifndef NOT_DEFINED',
      'void kept();',
      '#endif',
    ].join('\n');
    const pre = run(text);
    expect(squeeze(pre.parseText)).toBe('void hopper();\nvoid kept();');
    const inactive = pre.inactiveRanges.map((r) => text.slice(r.start, r.end));
    expect(inactive).toEqual(['void older();\n#else\nvoid host();\n', 'junk {\n']);
    // Columns of kept code are unchanged.
    expect(pre.parseText.indexOf('void kept')).toBe(text.indexOf('void kept'));
  });

  it('handles inactive regions inside a function body and nested conditionals', () => {
    const text = `__global__ void k() {
  int a = 0;
#if 0
  a = 1; }}}
#  if 1
  a = 2;
#  endif
#else
  a = 3;
#endif
}
`;
    const pre = run(text);
    expect(squeeze(pre.parseText)).toBe('__global__ void k() {\nint a = 0;\na = 3;\n}');
  });

  it('blanks continued conditional lines and leaves #define, #include and #pragma lines alone', () => {
    const text = '#if defined(A) || \\\n    defined(B)\nint x;\n#endif\n#define M(a) \\\n  a\n#include "x.h"\n#pragma unroll\n';
    const pre = run(text);
    expect(pre.parseText).toBe(
      ' '.repeat(19) + '\n' + ' '.repeat(14) + '\n' + ' '.repeat(6) + '\n' + ' '.repeat(6) + '\n#define M(a) \\\n  a\n#include "x.h"\n#pragma unroll\n',
    );
  });

  it('ends an unterminated #if at the end of the file and ignores stray #else/#endif', () => {
    expect(squeeze(run('#endif\n#else\nint a;\n#if 0\nint b;\n').parseText)).toBe('int a;');
    const pre = run('#if 1\nint a;\n#else\nint b;\n');
    expect(squeeze(pre.parseText)).toBe('int a;');
    expect(pre.inactiveRanges).toEqual([{ start: 19, end: 26 }]);
  });

  it('takes an unknown condition as false and says so', () => {
    const pre = run('#if __has_include(<cuda/barrier>)\nint a;\n#else\nint b;\n#endif\n');
    expect(squeeze(pre.parseText)).toBe('int b;');
    expect(pre.unknownConditions).toEqual([{ line: 0, text: '__has_include(<cuda/barrier>)' }]);
  });

  it('does not see directives inside comments or strings', () => {
    const text = '/*\n#if 0\n*/\nconst char* s = "\\\n#if 0";\n// \\\n#if 0\nint kept;\n';
    const pre = run(text);
    expect(pre.parseText).toBe(text);
  });
});

describe('preprocessFile: macros and includes', () => {
  it('applies #define/#undef in order and only in active regions', () => {
    const m = new MacroTable();
    run('#define A 1\n#if A\n#define B 2\n#else\n#define C 3\n#endif\n#undef A\n#if defined(A)\n#define D\n#endif\n', m);
    expect([...m.names()].sort()).toEqual(['B']);
  });

  it('calls onInclude where the include occurs, so its macros count for the rest of the file', () => {
    const m = new MacroTable();
    const seen: string[] = [];
    const pre = run('#include "config.h"\n#if FROM_HEADER\nint yes;\n#endif\n#if 0\n#include <never.h>\n#endif\n#define H <other.h>\n#include H\n', m, (inc) => {
      seen.push(`${inc.angled ? '<' : '"'}${inc.spelling}:${inc.line}`);
      if (inc.spelling === 'config.h') m.define(parseDefine('FROM_HEADER 1')!);
    });
    expect(seen).toEqual(['"config.h:0', '<other.h:8']);
    expect(pre.includes.map((i) => i.spelling)).toEqual(['config.h', 'other.h']);
    expect(squeeze(pre.parseText)).toContain('int yes;');
  });

  it('reports #pragma once only when active', () => {
    expect(run('#pragma once\n').pragmaOnce).toBe(true);
    expect(run('#if 0\n#pragma once\n#endif\n').pragmaOnce).toBe(false);
  });
});

describe('preprocessFile: specifier macros', () => {
  const header = [
    '#define CUTE_HOST_DEVICE __forceinline__ __host__ __device__',
    '#define CUTLASS_DEVICE __forceinline__ __device__',
    '#define ALIAS CUTE_HOST_DEVICE',
    '#define ATTR __attribute__((always_inline)) inline',
    '#define UNROLL _Pragma("unroll")',
    '#define NOTHING',
    '#define CUTLASS_GLOBAL __global__',
    '#define KERN __global__',
    '#define SIZE 128',
    '#define BOUNDED __global__ __launch_bounds__(128)',
    '',
  ].join('\n');

  it('blanks specifier-only macros and keeps __global__ where it fits', () => {
    const body = [
      'CUTE_HOST_DEVICE int f() { return SIZE; }',
      'ALIAS ATTR void g() { UNROLL for (;;) {} }',
      'NOTHING CUTLASS_DEVICE void h();',
      'CUTLASS_GLOBAL void k1() {}',
      'KERN void k2() {}',
      'BOUNDED void k3() {}',
      '// CUTE_HOST_DEVICE in a comment, "CUTE_HOST_DEVICE" in a string',
    ].join('\n');
    const pre = run(header + body);
    const out = pre.parseText.slice(header.length);
    expect(squeeze(out)).toBe(
      [
        'int f() { return SIZE; }',
        'void g() { for (;;) {} }',
        'void h();',
        '__global__ void k1() {}',
        'void k2() {}',
        'BOUNDED void k3() {}',
        '// CUTE_HOST_DEVICE in a comment, "CUTE_HOST_DEVICE" in a string',
      ].join('\n'),
    );
    expect(out.search(/__global__ +void k1/)).toBe(body.indexOf('CUTLASS_GLOBAL void k1'));
    expect(pre.kernelMacros.sort()).toEqual(['BOUNDED', 'CUTLASS_GLOBAL', 'KERN']);
  });

  it('uses the definition in force at each occurrence', () => {
    const text = 'LATER void a();\n#define LATER __device__\nLATER void b();\n#undef LATER\nLATER void c();\n#define LATER 1\nLATER;\n';
    const pre = run(text, new MacroTable());
    expect(squeeze(pre.parseText)).toBe('LATER void a();\n#define LATER __device__\nvoid b();\n#undef LATER\nLATER void c();\n#define LATER 1\nLATER;');
  });

  it('sees macros defined by an included file from the include on', () => {
    const m = new MacroTable();
    const pre = run('HD void a();\n#include "defs.h"\nHD void b();\n', m, () => m.define(parseDefine('HD __host__ __device__')!));
    expect(squeeze(pre.parseText)).toBe('HD void a();\n#include "defs.h"\nvoid b();');
  });

  it('blanks macros that expand to `#pragma` (CUTE_UNROLL under nvcc) and to `__grid_constant__`', () => {
    const text = '#define CUTE_UNROLL #pragma unroll\n#define CUTE_NO_UNROLL #pragma unroll 1\n#define GRID_CONSTANT __grid_constant__\n#define HASH #x\n__global__ void k(GRID_CONSTANT int p) {\nCUTE_NO_UNROLL\nfor (;;) { CUTE_UNROLL for (;;) {} }\nHASH;\n}\n';
    const pre = run(text, new MacroTable());
    expect(squeeze(pre.parseText.slice(pre.parseText.indexOf('__global__')))).toBe('__global__ void k( int p) {\nfor (;;) { for (;;) {} }\nHASH;\n}');
  });

  it('writes CUDA\'s `__align__(N)` as the `alignas  (N)` it means, same length', () => {
    const text = 'extern __shared__ __align__(1024) char smem[];\nint __align__;\n#if 0\n__align__(8) int x;\n#endif\n';
    expect(run(text, new MacroTable()).parseText.split('\n').slice(0, 2)).toEqual(['extern __shared__ alignas  (1024) char smem[];', 'int __align__;']);
  });

  it('never blanks CUDA keywords, even when a toolkit header defines them', () => {
    const m = new MacroTable();
    const pre = run('#define __device__ __location__(device)\n#define DEV __device__\n__device__ void a();\nDEV void b();\n', m);
    expect(squeeze(pre.parseText)).toContain('__device__ void a();\nvoid b();');
  });
});

describe('preprocessFile: purity and caching', () => {
  it('gives the same result for the same text and macros, reusing the scan', async () => {
    const { scanFile } = await import('../../../../../core/lang/cuda/preprocess/file-scan');
    const text = '#define HD __host__ __device__\n#if X\nint a;\n#endif\nHD void f();\n';
    const a = run(text, predefinedMacros({ defines: { X: '1' } }));
    const b = run(text, predefinedMacros({ defines: { X: '1' } }));
    const c = run(text, predefinedMacros());
    expect(b).toEqual(a);
    expect(scanFile(text)).toBe(scanFile(text));
    expect(c.parseText).not.toBe(a.parseText);
    expect(squeeze(c.parseText)).toBe('#define HD __host__ __device__\nvoid f();');
  });
});
