// The YAML subset of .clangd files: CompileFlags Add/Remove/CompilationDatabase with If conditions.
import { describe, expect, it } from 'vitest';
import { fragmentApplies, parseClangdConfig, parseYamlDocument } from '../../../core/project/clangd-config';

describe('.clangd', () => {
  it('reads block and flow lists, quoted scalars and comments', () => {
    const problems: string[] = [];
    const fragments = parseClangdConfig(
      `# project flags
CompileFlags:
  Add:
    - -Iinclude        # ours
    - "-DMSG=a # b"
    - '-DQ=it''s'
  Remove: [-W*, "-arch=*", -fno-exceptions]
Diagnostics:
  Suppress: '*'
`,
      '/p/.clangd',
      problems,
    );
    expect(problems).toEqual([]);
    expect(fragments).toEqual([{ pathMatch: [], pathExclude: [], add: ['-Iinclude', '-DMSG=a # b', "-DQ=it's"], remove: ['-W*', '-arch=*', '-fno-exceptions'] }]);
  });

  it('reads several documents with If conditions, a single flag where a list is expected, and a list at the key indent', () => {
    const problems: string[] = [];
    const fragments = parseClangdConfig(
      `If:
  PathMatch: [.*\\.cuh?, kernels/.*]
  PathExclude: kernels/old/.*
CompileFlags:
  Add: -DKERNEL
---
If: { PathMatch: "tests/.*" }
CompileFlags:
  Add:
  - -DTESTING
  CompilationDatabase: build-debug
`,
      '/p/.clangd',
      problems,
    );
    expect(problems).toEqual([]);
    expect(fragments).toEqual([
      { pathMatch: ['.*\\.cuh?', 'kernels/.*'], pathExclude: ['kernels/old/.*'], add: ['-DKERNEL'], remove: [] },
      { pathMatch: ['tests/.*'], pathExclude: [], add: ['-DTESTING'], remove: [], compilationDatabase: 'build-debug' },
    ]);
    const [kernels, tests] = fragments;
    expect(fragmentApplies(kernels!, '/p', '/p/kernels/gemm.cu', problems)).toBe(true);
    expect(fragmentApplies(kernels!, '/p', '/p/a.cuh', problems)).toBe(true);
    expect(fragmentApplies(kernels!, '/p', '/p/kernels/old/gemm.cu', problems)).toBe(false);
    expect(fragmentApplies(kernels!, '/p', '/p/a.cpp', problems)).toBe(false);
    expect(fragmentApplies(tests!, '/p', '/p/tests/t.cu', problems)).toBe(true);
  });

  it('reads a flow list spanning lines', () => {
    const fragments = parseClangdConfig('CompileFlags:\n  Add: [\n    -DA,\n    -DB,\n  ]\n', '/p/.clangd', []);
    expect(fragments[0]!.add).toEqual(['-DA', '-DB']);
  });

  it('skips a malformed document with a problem and keeps the others', () => {
    const problems: string[] = [];
    const fragments = parseClangdConfig('CompileFlags:\n  Add: [-DA\n---\nCompileFlags:\n  Add: [-DB]\n---\n- just\n- a list\n', '/p/.clangd', problems);
    expect(fragments.map((f) => f.add)).toEqual([['-DB']]);
    expect(problems).toHaveLength(2);
    expect(problems[0]).toMatch(/\/p\/\.clangd \(document 1\): line 2: unclosed bracket; it is ignored/);
    expect(problems[1]).toMatch(/document 3\): expected a mapping/);
  });

  it('a bad PathMatch regular expression makes the fragment not apply, with a problem', () => {
    const problems: string[] = [];
    const [fragment] = parseClangdConfig('If:\n  PathMatch: "(["\nCompileFlags:\n  Add: [-DA]\n', '/p/.clangd', []);
    expect(fragmentApplies(fragment!, '/p', '/p/a.cu', problems)).toBe(false);
    expect(problems[0]).toMatch(/not a regular expression/);
  });

  it('never throws on odd YAML', () => {
    for (const text of ['', ':', '[[[', 'a: [1, {b: c}]', '\t- x', 'a:\n  - b: c\n    d: e\n', 'a: "unterminated', '- - -']) {
      expect(() => parseClangdConfig(text, '/p/.clangd', [])).not.toThrow();
    }
    expect(parseYamlDocument('a:\n  - b: c\n    d: e\n')).toEqual({ a: [{ b: 'c', d: 'e' }] });
  });
});
