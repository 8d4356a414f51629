// Every registered language implements the plug-in interface consistently: its extensions and editor
// ids map back to it, and a tiny sample opens, analyses, hovers, prints its IR, incrementally edits,
// folds a constant, gives a launch template and finds inline-value names.
import { describe, expect, it } from 'vitest';
import type { LanguageId } from '../../core/api';
import { headerHoldsCode, inlineValueNames, LANGUAGES, languageById, languageForEditorId, languageForHeader, languageForPath, launchTemplates } from '../../core/languages';
import { languageOfRequest } from '../../core/simulate';
import { loadEngine } from '../../core/engine';

/** A tiny kernel per language, a position on a documented barrier call, and a constant expression. */
const SAMPLES: Record<LanguageId, { text: string; hoverAt: string; kernel: string; constant: [string, Map<string, number>, number]; comment?: string; simulated?: false }> = {
  cuda: {
    text: `#include <cuda/ptx>
#define S 2
__global__ void k(float* out, int n) {
  __shared__ uint64_t full[S];
  if (threadIdx.x == 0) cuda::ptx::mbarrier_init(&full[0], 1);
  __syncthreads();
  int tid = threadIdx.x;
  (void)cuda::ptx::mbarrier_arrive(&full[0]);
  out[tid] = n;
}
`,
    hoverAt: 'mbarrier_arrive(',
    kernel: 'k',
    constant: ['STAGES * (1 << 3) + sizeof(float)', new Map([['STAGES', 4]]), 36],
  },
  croqtile: {
    text: `__co__ void k(global f16 [M, K] a) {
  parallel {bm} by [cdiv(M, 64)] : block {
    shared event full[2], empty[2] = ready;
    parallel p by 2 : group-4 {
      inthreads.async (p == 0) {
        foreach {iv} in [cdiv(K, 64)] { wait empty.at(iv); trigger full.at(iv); }
      }
      inthreads.async (p == 1) {
        foreach {iv} in [cdiv(K, 64)] { wait full.at(iv); trigger empty.at(iv); }
      }
    }
  }
}
`,
    hoverAt: 'trigger full',
    kernel: 'k',
    constant: ['cdiv(TILE, 64) * 2', new Map([['TILE', 200]]), 8],
  },
  tilus: {
    text: `import tilus
from tilus import uint32


class K(tilus.Script):
    def __call__(self, n: int):
        self.attrs.blocks = 1
        self.attrs.warps = 2
        ready = self.mbarrier.alloc(counts=[32])
        phase: uint32 = 0
        with self.thread_group(thread_begin=0, num_threads=32):
            for i in self.range(n):
                self.mbarrier.arrive(ready[0])
        with self.thread_group(thread_begin=32, num_threads=32):
            for i in self.range(n):
                self.mbarrier.wait(ready[0], phase=phase)
                phase ^= 1
`,
    hoverAt: 'mbarrier.arrive(',
    kernel: 'K',
    constant: ['STAGES * (1 << 3) + 4 // 3', new Map([['STAGES', 4]]), 33],
    comment: '# appended\n',
    simulated: false,
  },
};

function positionOf(text: string, needle: string): { line: number; character: number } {
  const before = text.slice(0, text.indexOf(needle)).split('\n');
  return { line: before.length - 1, character: before[before.length - 1].length + 2 };
}

describe('the language registry', () => {
  it('has one language per id, each found by its id, extensions and editor ids', () => {
    const ids = LANGUAGES.map((l) => l.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect(ids.sort()).toEqual(Object.keys(SAMPLES).sort());
    for (const l of LANGUAGES) {
      expect(languageById(l.id)).toBe(l);
      // A language recognised by content (tilus: Python files that import tilus) has header extensions only.
      expect(l.extensions.length + l.headerExtensions.length).toBeGreaterThan(0);
      for (const ext of l.extensions) {
        expect(ext).toMatch(/^\.[a-z0-9]+$/);
        expect(languageForPath(`dir/kernel${ext}`)).toBe(l.id);
        expect(languageForPath(`KERNEL${ext.toUpperCase()}`)).toBe(l.id);
        expect(languageOfRequest({ file: `k${ext}` })).toBe(l.id);
      }
      for (const editorId of l.editorLanguageIds) expect(languageForEditorId(editorId)).toBe(l.id);
    }
    expect(languageForPath('notes.txt')).toBeUndefined();
    expect(languageForPath('Makefile')).toBeUndefined();
    expect(languageForEditorId('python')).toBe('tilus');
    expect(languageForEditorId('javascript')).toBeUndefined();
  });

  it('finds a language by header extension, and only headers that hold its code count', () => {
    for (const l of LANGUAGES) for (const e of l.headerExtensions) expect(languageForHeader(`include/x${e.toUpperCase()}`)).toBe(l.id);
    expect(languageForHeader('k.cu')).toBeUndefined();
    expect(languageForHeader('notes.txt')).toBeUndefined();
    expect(headerHoldsCode('cuda', '__device__ void f() {}')).toBe(true);
    expect(headerHoldsCode('cuda', 'CUTLASS_HOST_DEVICE int g();')).toBe(true);
    expect(headerHoldsCode('cuda', 'asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(a));')).toBe(true);
    expect(headerHoldsCode('cuda', '#include <vector>\ninline int twice(int x) { return 2 * x; }')).toBe(false);
    expect(headerHoldsCode('croqtile', '__device__ void f() {}')).toBe(false);
    expect(headerHoldsCode('tilus', 'import tilus\nclass K(tilus.Script): pass')).toBe(true);
    expect(headerHoldsCode('tilus', 'from tilus import float16')).toBe(true);
    expect(headerHoldsCode('tilus', 'import torch\n# a comment about tilus\nimport tilusx')).toBe(false);
  });

  it('an engine asked for some languages loads only their front ends, and says so for the others', async () => {
    const engine = await loadEngine({ languages: ['croqtile'] });
    expect(engine.analyze(SAMPLES.croqtile.text, 'croqtile').syntaxProblems).toEqual([]);
    expect(() => engine.openDocument('cuda', SAMPLES.cuda.text)).toThrow('the engine was loaded without the cuda front end');
    expect(() => engine.openDocument('fortran' as LanguageId, '')).toThrow("unknown language 'fortran'");
  });

  it('simulates files of no known language as CUDA unless the request names one', () => {
    expect(languageOfRequest({ file: 'kernel.txt' })).toBe('cuda');
    expect(languageOfRequest({ file: 'kernel.cu', language: 'croqtile' })).toBe('croqtile');
    expect(languageOfRequest({ file: 'kernel.py' })).toBe('tilus');
  });

  for (const language of LANGUAGES) {
    describe(language.id, () => {
      const sample = SAMPLES[language.id];

      it('opens, analyses, hovers, prints the IR and follows edits', async () => {
        const frontEnd = await language.loadFrontEnd({});
        const doc = frontEnd.openDocument(sample.text);
        expect(doc.text).toBe(sample.text);
        const result = doc.analyze({});
        expect(result.syntaxProblems).toEqual([]);
        expect(result.findings).toBeInstanceOf(Array);
        expect(doc.kernelModule().language).toBe(language.id);
        expect(doc.kernelModule().kernels.map((k) => k.name)).toContain(sample.kernel);
        expect(doc.irText()).toContain(sample.kernel);
        const hover = doc.hover(positionOf(sample.text, sample.hoverAt));
        expect(hover?.markdown.length).toBeGreaterThan(0);
        // An edit that appends a line is seen by the next analysis and keeps the earlier lines.
        const comment = sample.comment ?? '// appended\n';
        doc.edit(sample.text.length, sample.text.length, comment);
        expect(doc.text).toBe(`${sample.text}${comment}`);
        expect(doc.analyze({}).syntaxProblems).toEqual([]);
        doc.replaceText(sample.text);
        expect(doc.irText()).toContain(sample.kernel);
        doc.dispose();
      });

      it('folds constant expressions with its own evaluator', async () => {
        const frontEnd = await language.loadFrontEnd({});
        const [expression, constants, value] = sample.constant;
        expect(frontEnd.evaluateConstant(expression, constants)).toBe(value);
        expect(frontEnd.evaluateConstant('UNKNOWN + 1')).toBeUndefined();
        expect(frontEnd.evaluateConstant('(((')).toBeUndefined();
      });

      it('derives a launch template and inline-value names', async () => {
        const templates = await launchTemplates(sample.text, language.id, `k${language.extensions[0] ?? language.headerExtensions[0]}`);
        // A language the simulator does not run has no launch template.
        expect(templates.map((t) => [t.kernel, t.language])).toEqual(sample.simulated === false ? [] : [[sample.kernel, language.id]]);
        const names = inlineValueNames(sample.text, language.id, sample.text.split('\n').length - 2).map((n) => n.name);
        expect(names.length).toBeGreaterThan(0);
        for (const keyword of language.inlineValues.keywords) expect(names).not.toContain(keyword);
      });
    });
  }
});
