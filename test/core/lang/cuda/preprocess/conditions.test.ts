// `#if` expressions: defined, macro expansion, C integer arithmetic in 64 bits, literals and operators.
import { describe, expect, it } from 'vitest';
import { evaluateCondition, evaluateConditionValue } from '../../../../../core/lang/cuda/preprocess/conditions';
import { MacroTable, parseDefine } from '../../../../../core/lang/cuda/preprocess/macros';
import { predefinedMacros } from '../../../../../core/lang/cuda/preprocess/predefined';

function table(...defines: string[]): MacroTable {
  const t = new MacroTable();
  for (const d of defines) t.define(parseDefine(d)!);
  return t;
}

describe('evaluateCondition', () => {
  const t = table('ARCH 900', 'EMPTY', 'TWICE(x) ((x) * 2)', 'IS_DEF defined(ARCH)');

  it('evaluates defined in both spellings, before expansion', () => {
    expect(evaluateCondition('defined(ARCH) && defined ARCH', t)).toBe(true);
    expect(evaluateCondition('defined(NOPE) || !defined NOPE', t)).toBe(true);
    expect(evaluateCondition('defined EMPTY', t)).toBe(true);
    expect(evaluateCondition('IS_DEF', t)).toBe(true);
  });

  it('does integer arithmetic with C precedence', () => {
    expect(evaluateConditionValue('1 + 2 * 3 - 4 / 2 % 3', t)).toBe(5n);
    expect(evaluateConditionValue('(1 << 40) >> 38', t)).toBe(4n);
    expect(evaluateConditionValue('~0 & 0xff | 0x100 ^ 1', t)).toBe(0x1ffn);
    expect(evaluateConditionValue('TWICE(ARCH + 1)', t)).toBe(1802n);
    expect(evaluateConditionValue('ARCH >= 900 ? 10 : 20', t)).toBe(10n);
    expect(evaluateConditionValue('0 ? 1 : 0 ? 2 : 3', t)).toBe(3n);
    expect(evaluateConditionValue('-9223372036854775807 - 1 < 0', t)).toBe(1n);
  });

  it('compares as unsigned when an operand is unsigned', () => {
    expect(evaluateCondition('-1 < 0', t)).toBe(true);
    expect(evaluateCondition('-1 < 0u', t)).toBe(false);
    expect(evaluateCondition('0xFFFFFFFFFFFFFFFF == -1', t)).toBe(true);
    expect(evaluateConditionValue('18446744073709551615ULL / 2', t)).toBe(9223372036854775807n);
  });

  it('reads literals: suffixes, bases, separators, characters', () => {
    expect(evaluateConditionValue("100UL + 0x10LL + 010 + 0b11 + 1'000", t)).toBe(100n + 16n + 8n + 3n + 1000n);
    expect(evaluateConditionValue("'a' + '\\n' + '\\x41' + '\\0'", t)).toBe(97n + 10n + 65n);
    expect(evaluateConditionValue("'\\377' < 0", t)).toBe(1n);
  });

  it('counts unknown identifiers as 0, true as 1, and reads and/or/not', () => {
    expect(evaluateCondition('UNKNOWN_MACRO', t)).toBe(false);
    expect(evaluateCondition('UNKNOWN_MACRO == 0 && true', t)).toBe(true);
    expect(evaluateCondition('defined(ARCH) and (ARCH >= 900) and not defined(X)', t)).toBe(true);
  });

  it('short-circuits: division by zero only fails where it is evaluated', () => {
    expect(evaluateCondition('1 / 0', t)).toBeUndefined();
    expect(evaluateCondition('0 && 1 / 0', t)).toBe(false);
    expect(evaluateCondition('1 || 1 % 0', t)).toBe(true);
    expect(evaluateCondition('1 ? 2 : 1 / 0', t)).toBe(true);
  });

  it('is undefined on expressions that do not parse', () => {
    for (const bad of ['', '1 +', '(1', '1 2', '1.5 > 1', 'defined', 'defined(', '"s"']) expect(evaluateCondition(bad, t)).toBeUndefined();
  });

  it('asks the hook for __has_include and answers the other feature tests conservatively', () => {
    expect(evaluateCondition('__has_include(<cuda/barrier>)', t)).toBeUndefined();
    const hooks = { hasInclude: (s: string, angled: boolean) => angled && s === 'cuda/barrier' };
    expect(evaluateCondition('__has_include(<cuda/barrier>)', t, hooks)).toBe(true);
    expect(evaluateCondition('__has_include("cuda/barrier")', t, hooks)).toBe(false);
    expect(evaluateCondition('__has_builtin(__builtin_assume) || __has_feature(x)', t)).toBe(false);
    expect(evaluateCondition('__has_cpp_attribute(nodiscard) >= 201603', t)).toBe(true);
  });

  it('sees the predefined nvcc macros', () => {
    const p = predefinedMacros();
    expect(evaluateCondition('defined(__CUDACC__) && __CUDA_ARCH__ == 900 && __cplusplus >= 201703L', p)).toBe(true);
    expect(evaluateCondition('__CUDACC_VER_MAJOR__ * 10 + __CUDACC_VER_MINOR__ >= 124', p)).toBe(true);
    expect(evaluateCondition('defined(__CUDA_ARCH_FEAT_SM90_ALL)', p)).toBe(true);
    const q = predefinedMacros({ cudaArch: 800, defines: { NDEBUG: '', 'SQ(x)': 'x*x', MODE: '3' }, undefines: ['__GNUC__'] });
    expect(evaluateCondition('__CUDA_ARCH__ == 800 && !defined(__CUDA_ARCH_FEAT_SM90_ALL)', q)).toBe(true);
    expect(evaluateCondition('defined NDEBUG && SQ(MODE) == 9 && !defined __GNUC__', q)).toBe(true);
    expect(predefinedMacros({ defines: new Map([['FLAG', undefined as unknown as string]]) }).get('FLAG')?.body).toBe('1');
  });
});
