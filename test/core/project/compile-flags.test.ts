// Where a file's compile flags come from: the user's flags, compile_commands.json (also in build/),
// compile_flags.txt and .clangd walking up from the file, header borrowing, caching and bad input.
import { beforeEach, describe, expect, it } from 'vitest';
import { clearCompileFlagsCache, flagsForFile } from '../../../core/index';
import { FakeFileSystem } from './fake-fs';

const db = (entries: unknown[]) => JSON.stringify(entries, null, 1);

beforeEach(() => clearCompileFlagsCache());

describe('flagsForFile: discovery', () => {
  it('finds build/compile_commands.json of an ancestor; relative -I resolve against the entry directory', () => {
    const fs = new FakeFileSystem({
      '/p/build/compile_commands.json': db([
        { directory: '/p/build', file: '/p/src/k.cu', command: '/usr/local/cuda/bin/nvcc -I../include -I "/opt/my lib" -isystem /opt/cutlass/include -DSTAGES=4 -DNDEBUG --expt-relaxed-constexpr -arch=sm_90a -x cu -c /p/src/k.cu -o k.o' },
      ]),
      '/p/src/k.cu': '',
    });
    const flags = flagsForFile('/p/src/k.cu', { fs });
    expect(flags).toEqual({
      quoteDirs: [],
      includeDirs: ['/p/include', '/opt/my lib'],
      systemDirs: ['/opt/cutlass/include'],
      defines: [
        ['STAGES', '4'],
        ['NDEBUG', '1'],
      ],
      undefines: [],
      forcedIncludes: [],
      cudaArch: 900,
      source: 'compile_commands.json (/p/build/compile_commands.json)',
      configFiles: ['/p/build/compile_commands.json'],
      problems: [],
    });
  });

  it('reads `arguments` and relative `file` and `directory` entries', () => {
    const fs = new FakeFileSystem({
      '/p/compile_commands.json': db([{ directory: 'out', file: '../k.cu', arguments: ['clang++', '-Iinc', '--cuda-gpu-arch=sm_100a', '-include', 'pre.h', '../k.cu'] }]),
    });
    const flags = flagsForFile('/p/k.cu', { fs });
    expect(flags.includeDirs).toEqual(['/p/out/inc']);
    expect(flags.forcedIncludes).toEqual(['/p/out/pre.h']);
    expect(flags.cudaArch).toBe(1000);
  });

  it('the nearest directory wins: compile_commands.json, then build/compile_commands.json, then compile_flags.txt', () => {
    const fs = new FakeFileSystem({
      '/p/compile_commands.json': db([{ directory: '/p', file: '/p/a/b/k.cu', command: 'nvcc -DOUTER k.cu' }]),
      '/p/a/compile_flags.txt': '-DINNER\n-Iinc\n\n  -D SPACED=1  \r\n',
      '/p/a/b/k.cu': '',
    });
    const inner = flagsForFile('/p/a/b/k.cu', { fs });
    expect(inner.defines).toEqual([
      ['INNER', '1'],
      ['SPACED', '1'],
    ]);
    expect(inner.includeDirs).toEqual(['/p/a/inc']);
    expect(inner.source).toBe('compile_flags.txt (/p/a/compile_flags.txt)');
    // In one directory, compile_commands.json is taken before compile_flags.txt.
    fs.write('/p/a/build/compile_commands.json', db([{ directory: '/p/a/build', file: '/p/a/b/k.cu', command: 'nvcc -DBUILD k.cu' }]));
    clearCompileFlagsCache();
    expect(flagsForFile('/p/a/b/k.cu', { fs }).defines).toEqual([['BUILD', '1']]);
    fs.write('/p/a/compile_commands.json', db([{ directory: '/p/a', file: '/p/a/b/k.cu', command: 'nvcc -DSAME_DIR k.cu' }]));
    clearCompileFlagsCache();
    expect(flagsForFile('/p/a/b/k.cu', { fs }).defines).toEqual([['SAME_DIR', '1']]);
  });

  it('no configuration anywhere: empty flags from "none"', () => {
    const flags = flagsForFile('/q/k.cu', { fs: new FakeFileSystem({ '/q/k.cu': '' }) });
    expect(flags).toMatchObject({ includeDirs: [], defines: [], source: 'none', problems: [], configFiles: [] });
    expect(flags.cudaArch).toBeUndefined();
  });
});

describe('flagsForFile: the user’s flags', () => {
  const fs = () =>
    new FakeFileSystem({
      '/w/build/compile_commands.json': db([{ directory: '/w/build', file: '/w/k.cu', command: 'nvcc -I/db/inc -DSTAGES=4 -DKEEP -arch=sm_100a k.cu' }]),
      '/w/other/compile_commands.json': db([{ directory: '/w/other', file: '/w/k.cu', command: 'nvcc -I/other/inc k.cu' }]),
    });

  it('are added to the discovered ones: include directories first, definitions last (they win)', () => {
    const flags = flagsForFile('/w/k.cu', {
      fs: fs(),
      cwd: '/home/u',
      explicit: { includeDirs: ['cli-inc'], defines: ['STAGES=2', 'CLI'] },
      settings: { includeDirs: ['${workspaceFolder}/set-inc', 'rel'], defines: ['STAGES=3', 'SET'] },
      workspaceRoots: ['/w'],
    });
    expect(flags.includeDirs).toEqual(['/home/u/cli-inc', '/w/set-inc', '/w/rel', '/db/inc']);
    expect(flags.defines).toEqual([
      ['KEEP', '1'],
      ['SET', '1'],
      ['STAGES', '2'],
      ['CLI', '1'],
    ]);
    expect(flags.cudaArch).toBe(1000);
    expect(flags.source).toBe('compile_commands.json (/w/build/compile_commands.json) + command line + settings');
  });

  it('the architecture: command line, then settings, then the database', () => {
    expect(flagsForFile('/w/k.cu', { fs: fs(), explicit: { cudaArch: 900 }, settings: { cudaArch: 800 } }).cudaArch).toBe(900);
    expect(flagsForFile('/w/k.cu', { fs: fs(), settings: { cudaArch: 800 } }).cudaArch).toBe(800);
  });

  it('an explicit database replaces the search; the command line’s replaces the settings’', () => {
    const other = flagsForFile('/w/k.cu', { fs: fs(), settings: { compileCommands: 'other' }, workspaceRoots: ['/w'] });
    expect(other.includeDirs).toEqual(['/other/inc']);
    expect(other.source).toBe('compile_commands.json (/w/other/compile_commands.json)');
    const cli = flagsForFile('/w/k.cu', { fs: fs(), explicit: { compileCommands: '/w/build/compile_commands.json' }, settings: { compileCommands: '/w/other' } });
    expect(cli.includeDirs).toEqual(['/db/inc']);
  });

  it('an explicit database that is missing is reported, and the search happens instead', () => {
    const flags = flagsForFile('/w/k.cu', { fs: fs(), explicit: { compileCommands: '/nowhere/compile_commands.json' } });
    expect(flags.includeDirs).toEqual(['/db/inc']);
    expect(flags.problems).toEqual(["--compile-commands: no compile_commands.json or compile_flags.txt at /nowhere/compile_commands.json; searching the file's directories instead"]);
  });

  it('user flags alone', () => {
    const flags = flagsForFile('/x/k.cu', { fs: new FakeFileSystem(), explicit: { includeDirs: ['/i'] } });
    expect(flags).toMatchObject({ includeDirs: ['/i'], source: 'command line' });
  });
});

describe('flagsForFile: headers borrow a translation unit’s flags', () => {
  const fs = () =>
    new FakeFileSystem({
      '/p/build/compile_commands.json': db([
        { directory: '/p/build', file: '/p/src/gemm.cu', command: 'nvcc -DGEMM gemm.cu' },
        { directory: '/p/build', file: '/p/src/attn/attn.cu', command: 'nvcc -DATTN attn.cu' },
        { directory: '/p/build', file: '/p/src/attn/mla.cu', command: 'nvcc -DMLA mla.cu' },
        { directory: '/p/build', file: '/p/tools/t.cu', command: 'nvcc -DTOOLS t.cu' },
      ]),
    });

  it('from a known includer first', () => {
    const flags = flagsForFile('/p/include/barrier.cuh', { fs: fs(), includedBy: ['/p/nothing.cu', '/p/tools/t.cu'] });
    expect(flags.defines).toEqual([['TOOLS', '1']]);
    expect(flags.source).toBe('compile_commands.json (/p/build/compile_commands.json, flags of /p/tools/t.cu)');
  });

  it('else the same stem in the same directory, then the same directory, then the longest common prefix', () => {
    expect(flagsForFile('/p/src/attn/mla.cuh', { fs: fs() }).defines).toEqual([['MLA', '1']]);
    expect(flagsForFile('/p/src/attn/common.h', { fs: fs() }).defines).toEqual([['ATTN', '1']]);
    expect(flagsForFile('/p/src/attn/detail/x.h', { fs: fs() }).defines).toEqual([['ATTN', '1']]);
    expect(flagsForFile('/p/src/util.h', { fs: fs() }).defines).toEqual([['GEMM', '1']]);
  });
});

describe('flagsForFile: .clangd', () => {
  it('adds and removes flags over the database, inner files last; relative -I read next to the .clangd', () => {
    const fs = new FakeFileSystem({
      '/p/compile_commands.json': db([{ directory: '/p/build', file: '/p/src/k.cu', command: 'nvcc -I/a -Ib -DOLD -Wall -arch=sm_80 k.cu' }]),
      '/p/.clangd': 'CompileFlags:\n  Add: [-Ithird_party/include, -DOUTER]\n  Remove: [-W*, -arch=*, -DOLD]\n',
      '/p/third_party/include/cute/tensor.hpp': '',
      '/p/src/.clangd': 'If:\n  PathMatch: .*\\.cu\nCompileFlags:\n  Add: [-DINNER, --cuda-gpu-arch=sm_90a]\n  Remove: -I\n---\nIf:\n  PathMatch: .*\\.h\nCompileFlags:\n  Add: -DHEADER_ONLY\n',
    });
    const flags = flagsForFile('/p/src/k.cu', { fs });
    // src/.clangd's `Remove: -I` also removes the outer Add's -I: fragments apply in order.
    expect(flags.includeDirs).toEqual([]);
    expect(flags.defines).toEqual([
      ['OUTER', '1'],
      ['INNER', '1'],
    ]);
    expect(flags.cudaArch).toBe(900);
    expect(flags.source).toBe('compile_commands.json (/p/compile_commands.json) + .clangd (/p/.clangd) + .clangd (/p/src/.clangd)');
    expect(flags.configFiles).toEqual(['/p/compile_commands.json', '/p/.clangd', '/p/src/.clangd']);

    const outerOnly = flagsForFile('/p/lib/k.cu', { fs });
    expect(outerOnly.includeDirs).toEqual(['/a', '/p/build/b', '/p/third_party/include']);
    expect(outerOnly.defines).toEqual([['OUTER', '1']]);
    expect(outerOnly.cudaArch).toBeUndefined();
  });

  it('works without any compilation database, and a relative -I that does not exist next to it stays relative to the file', () => {
    const fs = new FakeFileSystem({ '/p/.clangd': 'CompileFlags:\n  Add:\n    - -Iinclude\n    - -DX=1\n', '/p/include/a.h': '' });
    expect(flagsForFile('/p/k/k.cu', { fs })).toMatchObject({ includeDirs: ['/p/include'], defines: [['X', '1']], source: '.clangd (/p/.clangd)' });
    const far = new FakeFileSystem({ '/p/.clangd': 'CompileFlags:\n  Add: [-Inope]\n' });
    expect(flagsForFile('/p/k/k.cu', { fs: far }).includeDirs).toEqual(['/p/k/nope']);
  });

  it('CompilationDatabase names the directory to take compile_commands.json from, or None', () => {
    const fs = new FakeFileSystem({
      '/p/.clangd': 'CompileFlags:\n  CompilationDatabase: out/debug\n',
      '/p/out/debug/compile_commands.json': db([{ directory: '/p/out/debug', file: '/p/k.cu', command: 'nvcc -DDEBUG k.cu' }]),
      '/p/compile_commands.json': db([{ directory: '/p', file: '/p/k.cu', command: 'nvcc -DNEAR k.cu' }]),
    });
    expect(flagsForFile('/p/k.cu', { fs }).defines).toEqual([['DEBUG', '1']]);
    fs.write('/p/.clangd', 'CompileFlags:\n  CompilationDatabase: None\n');
    expect(flagsForFile('/p/k.cu', { fs }).defines).toEqual([]);
  });
});

describe('flagsForFile: a CMake + Ninja CUDA build with a clangd setup for nvcc commands', () => {
  it('reads the includes from --options-file, then .clangd swaps nvcc architecture flags for clang ones', () => {
    const fs = new FakeFileSystem({
      '/src/cutlass/build/compile_commands.json': db([
        {
          directory: '/src/cutlass/build',
          command:
            '/usr/local/cuda/bin/nvcc -forward-unknown-to-host-compiler -DCUTLASS_ENABLE_TENSOR_CORE_MMA=1 --options-file CMakeFiles/k.dir/includes_CUDA.rsp -O3 -DNDEBUG -std=c++17 "--generate-code=arch=compute_90a,code=[sm_90a]" -Xcompiler=-fPIE --expt-relaxed-constexpr -x cu -c /src/cutlass/examples/k/k.cu -o CMakeFiles/k.dir/k.cu.o',
          file: '/src/cutlass/examples/k/k.cu',
          output: 'CMakeFiles/k.dir/k.cu.o',
        },
      ]),
      '/src/cutlass/build/CMakeFiles/k.dir/includes_CUDA.rsp': '-I/src/cutlass/include -I/src/cutlass/examples/common -isystem=/usr/local/cuda/include',
      '/src/cutlass/.clangd': `CompileFlags:
  Add:
    - --cuda-path=/usr/local/cuda
    - --cuda-gpu-arch=sm_100a
  Remove:
    - -forward-unknown-to-host-compiler
    - --expt-*
    - --generate-code=*
    - -Xcompiler*
    - --options-file
Diagnostics:
  Suppress:
    - variadic_device_fn
`,
    });
    const flags = flagsForFile('/src/cutlass/examples/k/k.cu', { fs });
    expect(flags.includeDirs).toEqual(['/src/cutlass/include', '/src/cutlass/examples/common']);
    expect(flags.systemDirs).toEqual(['/usr/local/cuda/include']);
    expect(flags.defines).toEqual([
      ['CUTLASS_ENABLE_TENSOR_CORE_MMA', '1'],
      ['NDEBUG', '1'],
    ]);
    expect(flags.cudaArch).toBe(1000);
    expect(flags.problems).toEqual([]);
  });
});

describe('flagsForFile: bad configuration never throws and says why', () => {
  it('malformed JSON: no flags from it, a problem, the user flags still apply', () => {
    const fs = new FakeFileSystem({ '/p/compile_commands.json': '[{"directory": "/p", "file": "k.cu", ' });
    const flags = flagsForFile('/p/k.cu', { fs, explicit: { defines: ['A'] } });
    expect(flags.defines).toEqual([['A', '1']]);
    expect(flags.problems).toHaveLength(1);
    expect(flags.problems[0]).toMatch(/^\/p\/compile_commands\.json is not valid JSON \(.*\); its flags are not used$/);
    expect(flags.configFiles).toEqual(['/p/compile_commands.json']);
  });

  it('wrong shapes: a non-array, entries without command, an empty database', () => {
    expect(flagsForFile('/p/k.cu', { fs: new FakeFileSystem({ '/p/compile_commands.json': '{}' }) }).problems).toEqual(['/p/compile_commands.json should hold a JSON array of compile commands; its flags are not used']);
    const partial = flagsForFile('/p/k.cu', {
      fs: new FakeFileSystem({ '/p/compile_commands.json': db([{ directory: '/p', file: 'k.cu' }, 7, { directory: '/p', file: 'k.cu', arguments: ['nvcc', '-DOK'] }]) }),
    });
    expect(partial.defines).toEqual([['OK', '1']]);
    expect(partial.problems).toEqual(['/p/compile_commands.json: 2 entries without a string "directory", "file" and "command" or "arguments" skipped']);
    expect(flagsForFile('/p/k.cu', { fs: new FakeFileSystem({ '/p/compile_commands.json': '[]' }) }).problems).toEqual(['/p/compile_commands.json has no compile commands']);
  });

  it('a file system that throws gives no flags and the reason', () => {
    const fs = { readFile: () => undefined, exists: () => { throw new Error('EACCES'); } };
    expect(flagsForFile('/p/k.cu', { fs })).toMatchObject({ includeDirs: [], source: 'none', problems: ['cannot read the compile flags of /p/k.cu: EACCES'] });
  });

  it('malformed .clangd: ignored with a problem, the database still used', () => {
    const fs = new FakeFileSystem({
      '/p/compile_commands.json': db([{ directory: '/p', file: '/p/k.cu', command: 'nvcc -DDB k.cu' }]),
      '/p/.clangd': 'CompileFlags:\n  Add: [-DA\n',
    });
    const flags = flagsForFile('/p/k.cu', { fs });
    expect(flags.defines).toEqual([['DB', '1']]);
    expect(flags.problems).toEqual(['/p/.clangd: line 2: unclosed bracket; it is ignored']);
  });
});

describe('flagsForFile: caching', () => {
  it('parses a database once for many files, and again when it changes', () => {
    const entries = Array.from({ length: 2000 }, (_, i) => ({ directory: '/big/build', file: `/big/src/d${i % 50}/k${i}.cu`, command: `nvcc -I../include -DN=${i} -arch=sm_90a -c k${i}.cu` }));
    const fs = new FakeFileSystem({ '/big/build/compile_commands.json': db(entries) });
    const start = performance.now();
    for (let i = 0; i < 1000; i++) expect(flagsForFile(`/big/src/d${i % 50}/k${i}.cu`, { fs }).defines).toEqual([['N', String(i)]]);
    for (let i = 0; i < 1000; i++) flagsForFile(`/big/src/d${i % 50}/h${i}.cuh`, { fs });
    const elapsed = performance.now() - start;
    expect(fs.reads.filter((f) => f.endsWith('compile_commands.json'))).toHaveLength(1);
    // Generous: parsing once and looking up 2,000 files takes a few tens of milliseconds.
    expect(elapsed).toBeLessThan(2000);

    fs.write('/big/build/compile_commands.json', db([{ directory: '/big/build', file: '/big/src/d0/k0.cu', command: 'nvcc -DCHANGED k0.cu' }]));
    expect(flagsForFile('/big/src/d0/k0.cu', { fs }).defines).toEqual([['CHANGED', '1']]);
  });

  it('without stat, caches by content', () => {
    const fs = new FakeFileSystem({ '/p/compile_commands.json': db([{ directory: '/p', file: '/p/k.cu', command: 'nvcc -DA k.cu' }]) }, false);
    expect(flagsForFile('/p/k.cu', { fs }).defines).toEqual([['A', '1']]);
    fs.write('/p/compile_commands.json', db([{ directory: '/p', file: '/p/k.cu', command: 'nvcc -DB k.cu' }]));
    expect(flagsForFile('/p/k.cu', { fs }).defines).toEqual([['B', '1']]);
  });

  it('a created database is found after clearCompileFlagsCache, a deleted one is noticed at once', () => {
    const fs = new FakeFileSystem({ '/p/src/k.cu': '' });
    expect(flagsForFile('/p/src/k.cu', { fs }).source).toBe('none');
    fs.write('/p/compile_flags.txt', '-DNEW');
    expect(flagsForFile('/p/src/k.cu', { fs }).source).toBe('none');
    clearCompileFlagsCache();
    expect(flagsForFile('/p/src/k.cu', { fs }).defines).toEqual([['NEW', '1']]);
    fs.delete('/p/compile_flags.txt');
    expect(flagsForFile('/p/src/k.cu', { fs }).source).toBe('none');
  });
});
