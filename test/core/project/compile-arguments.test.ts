// Reading preprocessor flags out of gcc, clang and nvcc argument vectors, and clangd's Remove patterns.
import { describe, expect, it } from 'vitest';
import {
  addOptions,
  cudaArchOf,
  emptyFlagSet,
  expandResponseFiles,
  groupOptions,
  parseCudaArch,
  removeOptions,
} from '../../../core/project/compile-arguments';

function flagsOf(args: string[], dir = '/proj/build', nvcc = false) {
  const set = emptyFlagSet();
  addOptions(set, groupOptions(args), dir, nvcc);
  return set;
}

describe('compile arguments', () => {
  it('reads every spelling of include directories, in order, relative to the command directory', () => {
    const set = flagsOf(['g++', '-I', 'a', '-Ib', '--include-path', 'c', '--include-path=d', '-I=e', '--include-directory=/abs', '-isystem', 'sys', '-isystemsys2', '--system-include=/sys3', '-iquote', 'q', '-idirafter', 'late', 'k.cu']);
    expect(set.includeDirs).toEqual(['/proj/build/a', '/proj/build/b', '/proj/build/c', '/proj/build/d', '/proj/build/e', '/abs']);
    expect(set.systemDirs).toEqual(['/proj/build/sys', '/proj/build/sys2', '/sys3']);
    expect(set.quoteDirs).toEqual(['/proj/build/q']);
    expect(set.afterDirs).toEqual(['/proj/build/late']);
  });

  it('splits nvcc list values on commas only for nvcc', () => {
    expect(flagsOf(['nvcc', '-I', 'a,b'], '/p', true).includeDirs).toEqual(['/p/a', '/p/b']);
    expect(flagsOf(['g++', '-I', 'a,b'], '/p', false).includeDirs).toEqual(['/p/a,b']);
  });

  it('reads macros: value 1 when omitted, the last definition wins, -U removes and is remembered', () => {
    const set = flagsOf(['nvcc', '-DA', '-D', 'B=2', '--define-macro', 'C=x y', '--define-macro=E', '-DMAX(a,b)=((a)>(b)?(a):(b))', '-DA=3', '-UB', '-U__CUDA_NO_HALF_OPERATORS__', '-DF=', '--undefine-macro', 'E']);
    expect(set.defines).toEqual([
      ['C', 'x y'],
      ['MAX(a,b)', '((a)>(b)?(a):(b))'],
      ['A', '3'],
      ['F', ''],
    ]);
    expect(set.undefines).toEqual(['B', '__CUDA_NO_HALF_OPERATORS__', 'E']);
  });

  it('a -D after a -U of the same name defines it again', () => {
    const set = flagsOf(['cc', '-UX', '-DX=2']);
    expect(set.defines).toEqual([['X', '2']]);
    expect(set.undefines).toEqual([]);
  });

  it('reads forced includes and ignores the values of pass-through options', () => {
    const set = flagsOf(['nvcc', '-include', 'pre.h', '--pre-include=/abs/p.h', '-Xcompiler', '-I/host/only', '-Xcompiler=-fPIC', '-x', 'cu', '-o', '-Dnot_a_define', '--expt-relaxed-constexpr', '-ccbin', '/usr/bin/g++', 'k.cu']);
    expect(set.forcedIncludes).toEqual(['/proj/build/pre.h', '/abs/p.h']);
    expect(set.includeDirs).toEqual([]);
    expect(set.defines).toEqual([]);
  });

  it('a value-taking flag at the very end does nothing', () => {
    expect(flagsOf(['cc', '-I']).includeDirs).toEqual([]);
  });

  it('finds the highest real architecture among nvcc and clang spellings', () => {
    expect(cudaArchOf(flagsOf(['nvcc', '-arch=sm_90a']))).toBe(900);
    expect(cudaArchOf(flagsOf(['nvcc', '-arch', 'sm_80']))).toBe(800);
    expect(cudaArchOf(flagsOf(['nvcc', '--gpu-architecture=sm_89']))).toBe(890);
    expect(cudaArchOf(flagsOf(['nvcc', '-gencode', 'arch=compute_90a,code=sm_90a', '-gencode=arch=compute_100a,code=[sm_100a,compute_100a]']))).toBe(1000);
    expect(cudaArchOf(flagsOf(['nvcc', '--generate-code=arch=compute_80,code=[compute_80,sm_80]']))).toBe(800);
    expect(cudaArchOf(flagsOf(['clang++', '--cuda-gpu-arch=sm_90a', '--offload-arch=sm_120a']))).toBe(1200);
    // Only PTX for a virtual architecture: that one.
    expect(cudaArchOf(flagsOf(['nvcc', '-arch=compute_90']))).toBe(900);
    expect(cudaArchOf(flagsOf(['nvcc', '-arch=native']))).toBeUndefined();
    expect(cudaArchOf(flagsOf(['g++', '-march=native']))).toBeUndefined();
  });

  it('parses a user architecture in every accepted form', () => {
    expect([parseCudaArch('sm_90a'), parseCudaArch('sm_100a'), parseCudaArch('compute_89'), parseCudaArch(900), parseCudaArch('1000'), parseCudaArch('90'), parseCudaArch(120)]).toEqual([900, 1000, 890, 900, 1000, 900, 1200]);
    for (const bad of ['sm90', 'ampere', '', '905', '-90', 0]) expect(parseCudaArch(bad), String(bad)).toBeUndefined();
  });

  it('removes options the way clangd Remove does', () => {
    const options = groupOptions(['nvcc', '-I', 'a', '-Ib', '--include-path=c', '-DFOO', '-D', 'BAR', '-DFOO=2', '-Wall', '-Wextra', '-fPIC', '-arch=sm_90a']);
    const keep = (patterns: string[]) => removeOptions(options, patterns).flatMap((o) => o.args);
    // An option's spelling removes it in every form and synonym.
    expect(keep(['-I'])).toEqual(['nvcc', '-DFOO', '-D', 'BAR', '-DFOO=2', '-Wall', '-Wextra', '-fPIC', '-arch=sm_90a']);
    // A prefix pattern removes every argument with that prefix, with a separate value.
    expect(keep(['-W*', '-D*'])).toEqual(['nvcc', '-I', 'a', '-Ib', '--include-path=c', '-fPIC', '-arch=sm_90a']);
    // An option with a value removes that value however it is written.
    expect(keep(['-DBAR', '-I=a'])).toEqual(['nvcc', '-Ib', '--include-path=c', '-DFOO', '-DFOO=2', '-Wall', '-Wextra', '-fPIC', '-arch=sm_90a']);
    // Anything else removes equal arguments only.
    expect(keep(['-fPIC', '-Wal'])).toEqual(['nvcc', '-I', 'a', '-Ib', '--include-path=c', '-DFOO', '-D', 'BAR', '-DFOO=2', '-Wall', '-Wextra', '-arch=sm_90a']);
  });

  it('expands response files relative to the command directory and reports unreadable ones', () => {
    const problems: string[] = [];
    const files: Record<string, string> = { '/b/flags.rsp': '-Iinc "-DX=a b" @/b/more.rsp', '/b/more.rsp': '-DY' };
    const args = expandResponseFiles(['nvcc', '@flags.rsp', '@missing.rsp', 'k.cu'], '/b', (f) => files[f], problems);
    expect(args).toEqual(['nvcc', '-Iinc', '-DX=a b', '-DY', '@missing.rsp', 'k.cu']);
    expect(problems).toEqual(['cannot read the response file /b/missing.rsp']);
  });

  it("expands nvcc's --options-file, as CMake with Ninja writes it", () => {
    const files: Record<string, string> = { '/b/CMakeFiles/k.dir/includes_CUDA.rsp': '-I/src/include -isystem=/usr/local/cuda/include\n' };
    const args = expandResponseFiles(['nvcc', '--options-file', 'CMakeFiles/k.dir/includes_CUDA.rsp', '-DX', '--options-file=CMakeFiles/k.dir/includes_CUDA.rsp'], '/b', (f) => files[f], []);
    expect(args).toEqual(['nvcc', '-I/src/include', '-isystem=/usr/local/cuda/include', '-DX', '-I/src/include', '-isystem=/usr/local/cuda/include']);
    expect(flagsOf(args).systemDirs).toEqual(['/usr/local/cuda/include', '/usr/local/cuda/include']);
  });
});
