// Inline-value locations for a stopped debug session: identifiers of the stopped function up to the
// stopped line, skipping comments, strings, calls, members and keywords.
import { describe, expect, it } from 'vitest';
import { inlineValueNames } from '../../../core/index';

const CUDA = `#include <cuda/barrier>
__device__ int helper(int v) { return v + 1; }
__global__ void k(float* out, int n) {
  __shared__ float buf[64]; // buf is shared
  int tid = threadIdx.x;
  /* tid in a comment */ int acc = helper(tid);
  for (int i = 0; i < n; ++i) {
    acc += static_cast<int>(buf[i]) + out[i].x;
    printf("tid %d\\n", tid);
  }
  out[tid] = acc;
}`;

const names = (text: string, lang: 'cuda' | 'croqtile', stop: number, from?: number, to?: number) =>
  inlineValueNames(text, lang, stop, from, to).map((n) => `${n.line}:${n.name}`);

describe('inline values', () => {
  it('lists the stopped function\'s identifiers down to the stopped line', () => {
    const got = names(CUDA, 'cuda', 7);
    expect(got).toEqual(['2:out', '2:n', '3:buf', '4:tid', '5:acc', '5:tid', '6:i', '6:i', '6:n', '6:i', '7:acc', '7:buf', '7:i', '7:out', '7:i']);
  });

  it('skips comments, strings, calls, members, keywords and lines after the stop', () => {
    const got = names(CUDA, 'cuda', 10);
    expect(got).not.toContain('3:shared'); // in the comment
    expect(got.filter((n) => n.startsWith('8:'))).toEqual(['8:tid']); // printf( and the string are skipped
    expect(got).not.toContain('5:helper');
    expect(got).not.toContain('7:static_cast');
    expect(got).not.toContain('7:x');
    expect(got.some((n) => n.startsWith('11:'))).toBe(false);
    // The columns are the identifier's own.
    const tid = inlineValueNames(CUDA, 'cuda', 4).find((n) => n.name === 'tid')!;
    expect(CUDA.split('\n')[4].slice(tid.start, tid.end)).toBe('tid');
  });

  it('starts at the enclosing function and clips to the visible range', () => {
    expect(names(CUDA, 'cuda', 1)).toEqual(['1:v', '1:v']);
    expect(names(CUDA, 'cuda', 7, 6, 6)).toEqual(['6:i', '6:i', '6:n', '6:i']);
  });

  it('covers Croqtile __co__ functions', () => {
    const co = `__co__ void f(f32 [M] a) {\n  parallel p by 2 : block {\n    foreach k in [4] {\n      println(k, p);\n    }\n  }\n}`;
    expect(names(co, 'croqtile', 3)).toEqual(['0:M', '0:a', '1:p', '2:k', '3:k', '3:p']);
  });

  it('never throws on odd input', () => {
    for (const text of ['', '"unterminated', '/* open', 'x'.repeat(5000), '\u0000\u0001']) {
      expect(() => inlineValueNames(text, 'cuda', 3)).not.toThrow();
    }
    expect(inlineValueNames('int a;', 'cuda', -1)).toEqual([]);
  });
});
