// Macro definitions and expansion: object-like and function-like macros, `#`, `##`, variadic arguments,
// rescanning with hide sets, and the work bound on expansion.
import { describe, expect, it } from 'vitest';
import { expandMacros, expandTokens, MacroTable, parseDefine } from '../../../../../core/lang/cuda/preprocess/macros';
import { tokenize } from '../../../../../core/lang/cuda/preprocess/tokens';

function table(...defines: string[]): MacroTable {
  const t = new MacroTable();
  for (const d of defines) {
    const def = parseDefine(d);
    if (!def) throw new Error(`bad define: ${d}`);
    t.define(def);
  }
  return t;
}

describe('parseDefine', () => {
  it('tells object-like from function-like by a parenthesis right after the name', () => {
    expect(parseDefine('N 128')).toEqual({ name: 'N', body: '128' });
    expect(parseDefine('F(a, b) a + b')).toEqual({ name: 'F', params: ['a', 'b'], body: 'a + b' });
    expect(parseDefine('G (a) a')).toEqual({ name: 'G', body: '(a) a' });
    expect(parseDefine('V(fmt, ...) f(fmt, __VA_ARGS__)')).toMatchObject({ params: ['fmt', '__VA_ARGS__'], variadic: true });
    expect(parseDefine('W(args...) g(args)')).toMatchObject({ params: ['args'], variadic: true });
    expect(parseDefine('E')).toEqual({ name: 'E', body: '' });
    expect(parseDefine('  X  a   /* c */  b // d')).toEqual({ name: 'X', body: 'a b' });
    expect(parseDefine('123')).toBeUndefined();
    expect(parseDefine('F(a')).toBeUndefined();
  });
});

describe('expandMacros', () => {
  it('expands object-like macros and rescans the result', () => {
    expect(expandMacros('N * 2', table('N M + 1', 'M 4'))).toBe('4 + 1 * 2');
  });

  it('stringifies with # and pastes with ##', () => {
    const t = table('STR(x) #x', 'XSTR(x) STR(x)', 'CAT(a, b) a ## b', 'ONE 1');
    expect(expandMacros('STR(a + "b\\n")', t)).toBe('"a + \\"b\\\\n\\""');
    expect(expandMacros('STR(ONE) XSTR(ONE)', t)).toBe('"ONE" "1"');
    expect(expandMacros('CAT(x, y) CAT(, y) CAT(x, ) CAT(O, NE)', t)).toBe('xy y x 1');
    expect(expandMacros('CAT(<, <=)', t)).toBe('<<=');
  });

  it('passes variable arguments, drops the GNU comma, and honours __VA_OPT__', () => {
    const t = table('F(...) f(__VA_ARGS__)', 'G(fmt, ...) g(fmt, ## __VA_ARGS__)', 'H(a, ...) h(a __VA_OPT__(,) __VA_ARGS__)');
    expect(expandMacros('F(1, (2, 3)) F()', t)).toBe('f(1, (2, 3)) f()');
    expect(expandMacros('G(s) G(s, 1, 2)', t)).toBe('g(s) g(s, 1, 2)');
    expect(expandMacros('H(x) H(x, y)', t)).toBe('h(x) h(x , y)');
  });

  it('never re-expands a macro inside its own expansion (blue paint)', () => {
    const t = table('A B', 'B A', 'H(x) x + H(x)', 'f(a) a*g', 'g(a) f(a)');
    expect(expandMacros('A B', t)).toBe('A B');
    expect(expandMacros('H(H(2))', t)).toBe('2 + H(2) + H(2 + H(2))');
    // The C standard's example (6.10.3.4): the g produced by f is followed by (9) from the source.
    expect(expandMacros('f(2)(9)', t)).toBe('2*9*g');
  });

  it('leaves a function-like name alone when no argument list follows', () => {
    expect(expandMacros('F + F(1)', table('F(x) [x]'))).toBe('F + [1]');
    expect(expandMacros('F(1', table('F(x) [x]'))).toBe('F(1');
  });

  it('bounds the work on exponential definitions and says it stopped', () => {
    const defs = ['A0 x'];
    for (let k = 1; k <= 40; k++) defs.push(`A${k} A${k - 1} A${k - 1}`);
    const result = expandTokens(tokenize('A40'), table(...defs), { limit: 10_000 });
    expect(result.complete).toBe(false);
    // Output stays within a small multiple of the bound instead of 2^40 tokens.
    expect(result.tokens.length).toBeLessThan(50_000);
    expect(expandTokens(tokenize('A10'), table(...defs), { limit: 10_000 }).tokens.length).toBe(1024);
  });

  it('keeps names listed in noExpand', () => {
    const t = table('__device__ __location__(device)', 'HD __host__ __device__');
    expect(expandTokens(tokenize('HD'), t, { noExpand: new Set(['__device__']) }).tokens.map((x) => x.text)).toEqual(['__host__', '__device__']);
  });
});

describe('MacroTable', () => {
  it('tracks kernel macros, versions and clones', () => {
    const t = table('KERNEL __global__', 'LAUNCH KERNEL', 'N 4');
    expect(t.kernelMacroNames().sort()).toEqual(['KERNEL', 'LAUNCH']);
    const v = t.version;
    const c = t.clone();
    t.undefine('KERNEL');
    expect(t.has('KERNEL')).toBe(false);
    expect(c.has('KERNEL')).toBe(true);
    expect(t.version).toBe(v + 1);
    expect(t.changesSince(v)).toEqual([{ name: 'KERNEL', previous: expect.objectContaining({ body: '__global__' }) }]);
    expect([...c.names()].sort()).toEqual(['KERNEL', 'LAUNCH', 'N']);
  });
});
