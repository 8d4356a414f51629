// Real translation units from local checkouts (PHASEFLIP_CORPUS: a folder holding cutlass/, DeepGEMM/,
// ThunderKittens/): the walk finds their headers, and tree-sitter parses the preprocessed text of CUTLASS's
// pipeline headers with no more syntax errors than the raw text.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import * as path from 'node:path';
import { describe, expect, it } from 'vitest';
import { loadCudaLanguage, Parser, type Tree } from '../../../../../core/lang/cuda/parser';
import { buildTranslationUnit, searchPathResolver } from '../../../../../core/lang/cuda/preprocess/translation-unit';

const corpus = process.env.PHASEFLIP_CORPUS;
const cutlass = corpus && path.join(corpus, 'cutlass');
const haveCutlass = !!cutlass && existsSync(path.join(cutlass, 'include/cute'));

const isFile = (p: string): boolean => {
  try {
    return statSync(p).isFile();
  } catch {
    return false;
  }
};
const reader = {
  read: (p: string): string | undefined => {
    try {
      return readFileSync(p, 'utf8');
    } catch {
      return undefined;
    }
  },
};

function walk(main: string, include: string[]) {
  return buildTranslationUnit(main, reader.read(main)!, searchPathResolver({ include }, isFile), reader);
}

function syntaxErrors(tree: Tree): number {
  let n = 0;
  const cursor = tree.walk();
  let descend = true;
  for (;;) {
    if (descend) {
      const node = cursor.currentNode;
      if (node.isError || node.isMissing) n++;
      if (node.hasError && cursor.gotoFirstChild()) continue;
    }
    if (cursor.gotoNextSibling()) {
      descend = true;
      continue;
    }
    if (!cursor.gotoParent()) break;
    descend = false;
  }
  return n;
}

describe.skipIf(!haveCutlass)('real headers (PHASEFLIP_CORPUS)', () => {
  it('walks a CUTLASS Hopper example with its include folders', () => {
    const main = path.join(cutlass!, 'examples/48_hopper_warp_specialized_gemm/48_hopper_warp_specialized_gemm.cu');
    const tu = walk(main, ['include', 'tools/util/include', 'examples/common'].map((d) => path.join(cutlass!, d)));
    expect(tu.files.length).toBeGreaterThan(100);
    expect(tu.macros.get('CUTE_HOST_DEVICE')?.body).toBe('__forceinline__ __host__ __device__');
    expect(tu.files.some((f) => f.path.endsWith('cutlass/pipeline/sm90_pipeline.hpp'))).toBe(true);
    for (const f of tu.files) expect(f.pre.parseText.length).toBe(f.text.length);
    // Only toolkit and standard headers, and tools/util where the checkout lacks it, are missing.
    expect(tu.missing.filter((m) => /^(cute|cutlass)\//.test(m.spelling) && !m.spelling.startsWith('cutlass/util/'))).toEqual([]);
  });

  it('parses the preprocessed pipeline headers with no more syntax errors than the raw text', async () => {
    const language = await loadCudaLanguage();
    const parser = new Parser();
    parser.setLanguage(language);
    const dir = path.join(cutlass!, 'include/cutlass/pipeline');
    let raw = 0;
    let pre = 0;
    for (const name of readdirSync(dir).filter((f) => f.endsWith('.hpp'))) {
      const file = path.join(dir, name);
      const tu = walk(file, [path.join(cutlass!, 'include')]);
      const a = syntaxErrors(parser.parse(tu.main.text)!);
      const b = syntaxErrors(parser.parse(tu.main.pre.parseText)!);
      expect(b, name).toBeLessThanOrEqual(a);
      raw += a;
      pre += b;
    }
    console.log(`cutlass/pipeline: ${raw} syntax errors in the raw text, ${pre} after preprocessing`);
    expect(pre).toBeLessThan(raw);
  });
});

if (!haveCutlass) console.log('real-headers test skipped: set PHASEFLIP_CORPUS to a folder holding a cutlass/ checkout');
