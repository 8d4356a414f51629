// The include walk over an in-memory file system: search order, include guards and #pragma once doing no
// work on a second inclusion, cycles, files included twice, missing includes and the file bound.
import { describe, expect, it } from 'vitest';
import { buildTranslationUnit, searchPathResolver, type SourceReader } from '../../../../../core/lang/cuda/preprocess/translation-unit';
import { evaluateCondition } from '../../../../../core/lang/cuda/preprocess/conditions';

/** A file system of `files` whose reader counts reads per path. */
function fileSystem(files: Record<string, string>) {
  const reads = new Map<string, number>();
  const reader: SourceReader = {
    read: (p) => {
      reads.set(p, (reads.get(p) ?? 0) + 1);
      return files[p];
    },
  };
  const exists = (p: string) => p in files;
  return { reader, exists, reads };
}

function build(files: Record<string, string>, main: string, include: string[] = ['/inc'], options = {}) {
  const fs = fileSystem(files);
  const tu = buildTranslationUnit(main, files[main], searchPathResolver({ include }, fs.exists), fs.reader, options);
  return { tu, reads: fs.reads };
}

describe('searchPathResolver', () => {
  const exists = (p: string) => ['/src/a.h', '/q/a.h', '/inc/a.h', '/inc/b.h', '/sys/b.h', '/sys/c.h'].includes(p);
  const r = searchPathResolver({ quote: ['/q'], include: ['/inc'], system: ['/sys'] }, exists);

  it('looks for "x" next to the including file, then quote, include and system folders', () => {
    expect(r.resolve('a.h', false, '/src/main.cu')).toBe('/src/a.h');
    expect(r.resolve('a.h', false, '/other/main.cu')).toBe('/q/a.h');
    expect(r.resolve('c.h', false, '/src/main.cu')).toBe('/sys/c.h');
  });

  it('looks for <x> in the include folders, then the system folders, never next to the file', () => {
    expect(r.resolve('a.h', true, '/src/main.cu')).toBe('/inc/a.h');
    expect(r.resolve('b.h', true, '/src/main.cu')).toBe('/inc/b.h');
    expect(r.resolve('c.h', true, '/src/main.cu')).toBe('/sys/c.h');
    expect(r.resolve('missing.h', true, '/src/main.cu')).toBeUndefined();
  });

  it('normalises relative spellings', () => {
    expect(r.resolve('../inc/./b.h', false, '/src/main.cu')).toBe('/inc/b.h');
  });
});

describe('buildTranslationUnit', () => {
  it('walks includes depth first, lists each file once in first-inclusion order, with depth and origin', () => {
    const { tu } = build(
      {
        '/src/main.cu': '#include "local.h"\n#include <lib/a.h>\n#if FROM_B == 2\nint ok;\n#endif\n',
        '/src/local.h': '#pragma once\n#include <lib/b.h>\n',
        '/inc/lib/a.h': '#pragma once\n#include "b.h"\n',
        '/inc/lib/b.h': '#pragma once\n#define FROM_B 2\n',
      },
      '/src/main.cu',
    );
    expect(tu.files.map((f) => [f.path, f.depth, f.includedFrom?.path ?? null])).toEqual([
      ['/src/main.cu', 0, null],
      ['/src/local.h', 1, '/src/main.cu'],
      ['/inc/lib/b.h', 2, '/src/local.h'],
      ['/inc/lib/a.h', 1, '/src/main.cu'],
    ]);
    expect(tu.main.pre.parseText).toContain('int ok;');
    expect(tu.missing).toEqual([]);
    expect(tu.truncated).toBe(false);
  });

  it('skips a guarded file on its second inclusion without reading it again', () => {
    const guarded = '// comment before the guard\n#ifndef G_H\n#define G_H\n#define COUNT_G\n#endif // G_H\n';
    const { tu, reads } = build(
      { '/src/main.cu': '#include "g.h"\n#include "g.h"\n#include "h.h"\n', '/src/g.h': guarded, '/src/h.h': '#if !defined(H_H)\n#define H_H\n#include "g.h"\n#endif\n' },
      '/src/main.cu',
    );
    expect(reads.get('/src/g.h')).toBe(1);
    expect(tu.files.map((f) => f.path)).toEqual(['/src/main.cu', '/src/g.h', '/src/h.h']);
    expect(tu.macros.has('COUNT_G')).toBe(true);
  });

  it('processes an unguarded file every time it is included, but lists it once', () => {
    const { tu } = build(
      {
        '/src/main.cu': '#include "twice.h"\n#include "twice.h"\n#if defined(SECOND)\nint second;\n#endif\n',
        '/src/twice.h': '#ifdef FIRST\n#define SECOND\n#endif\n#define FIRST\n',
      },
      '/src/main.cu',
    );
    expect(tu.files.map((f) => f.path)).toEqual(['/src/main.cu', '/src/twice.h']);
    expect(tu.macros.has('SECOND')).toBe(true);
    expect(tu.main.pre.parseText).toContain('int second;');
  });

  it('honours #pragma once', () => {
    const { tu } = build(
      { '/src/main.cu': '#include "o.h"\n#include "o.h"\n', '/src/o.h': '#pragma once\n#ifdef ONCE\n#define TWICE\n#endif\n#define ONCE\n' },
      '/src/main.cu',
    );
    expect(tu.macros.has('ONCE')).toBe(true);
    expect(tu.macros.has('TWICE')).toBe(false);
  });

  it('breaks include cycles', () => {
    const { tu } = build(
      { '/src/main.cu': '#include "a.h"\n', '/src/a.h': '#include "b.h"\n#define A\n', '/src/b.h': '#include "a.h"\n#include "main.cu"\n#define B\n' },
      '/src/main.cu',
    );
    expect(tu.files.map((f) => f.path)).toEqual(['/src/main.cu', '/src/a.h', '/src/b.h']);
    expect(tu.macros.has('A') && tu.macros.has('B')).toBe(true);
  });

  it('notes a missing include once per spelling and including file, and goes on', () => {
    const { tu } = build(
      {
        '/src/main.cu': '#include <cuda_runtime.h>\n#include <cuda_runtime.h>\n#include "x.h"\n#include "gone.h"\n#define AFTER\n',
        '/src/x.h': '#include <cuda_runtime.h>\n',
      },
      '/src/main.cu',
    );
    expect(tu.missing).toEqual([
      { spelling: 'cuda_runtime.h', angled: true, from: '/src/main.cu', line: 0 },
      { spelling: 'cuda_runtime.h', angled: true, from: '/src/x.h', line: 0 },
      { spelling: 'gone.h', angled: false, from: '/src/main.cu', line: 3 },
    ]);
    expect(tu.macros.has('AFTER')).toBe(true);
  });

  it('answers __has_include through the resolver', () => {
    const { tu } = build(
      { '/src/main.cu': '#if __has_include(<there.h>) && !__has_include("nowhere.h")\nint yes;\n#endif\n', '/inc/there.h': '' },
      '/src/main.cu',
    );
    expect(tu.main.pre.parseText).toContain('int yes;');
  });

  it('stops at maxFiles and says so', () => {
    const files: Record<string, string> = { '/src/main.cu': Array.from({ length: 50 }, (_, k) => `#include "f${k}.h"`).join('\n') };
    for (let k = 0; k < 50; k++) files[`/src/f${k}.h`] = `#define F${k}\n`;
    const { tu } = build(files, '/src/main.cu', [], { maxFiles: 10 });
    expect(tu.files.length).toBe(10);
    expect(tu.truncated).toBe(true);
  });

  it('bounds unguarded re-inclusion that would multiply', () => {
    // Each level includes the next twice: 2^30 inclusions without a bound.
    const files: Record<string, string> = { '/src/main.cu': '#include "l0.h"\n' };
    for (let k = 0; k < 30; k++) files[`/src/l${k}.h`] = `#include "l${k + 1}.h"\n#include "l${k + 1}.h"\n`;
    files['/src/l30.h'] = 'int leaf;\n';
    const { tu } = build(files, '/src/main.cu', [], { maxFiles: 100 });
    expect(tu.truncated).toBe(true);
    expect(tu.files.length).toBe(32);
  });

  it('applies the options: -D, -U and the architecture', () => {
    const { tu } = build({ '/src/main.cu': '' }, '/src/main.cu', [], { cudaArch: 800, defines: { MODE: '2' }, undefines: ['__GNUC__'] });
    expect(evaluateCondition('__CUDA_ARCH__ == 800 && MODE == 2 && !defined(__GNUC__)', tu.macros)).toBe(true);
  });
});
