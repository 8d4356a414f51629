// The region-wise parse of a document (chunks.ts): an edit re-parses the chunks it touches, and braces
// that an edit opens in one chunk and another edit closes in a later one make that span parse as one, so
// that the document reports what a fresh parse of the same text does. A brace that stays open remains the
// error of the chunk it was typed in.
import { beforeAll, describe, expect, it } from 'vitest';
import { braceBalance, ChunkedTree } from '../../../../core/lang/cuda/chunks';
import { syntaxProblemsOf } from '../../../../core/lang/cuda/frontend';
import { Parser, loadCudaLanguage } from '../../../../core/lang/cuda/parser';

let parser: Parser;
beforeAll(async () => {
  const language = await loadCudaLanguage();
  parser = new Parser();
  parser.setLanguage(language);
});

/** Enough functions for many chunks (a chunk is split past 2,500 characters). */
const FUNCTIONS = Array.from({ length: 120 }, (_, i) => `__device__ int helper_${i}(int x) {\n  int y = x * ${i};\n  for (int k = 0; k < 10; ++k) y += k * x;\n  return y;\n}\n`).join('');

function problems(tree: ChunkedTree): number {
  return syntaxProblemsOf(tree.topLevel()).length;
}

function fresh(text: string): number {
  const tree = new ChunkedTree(parser, text);
  const n = problems(tree);
  tree.dispose();
  return n;
}

describe('chunked parsing', () => {
  it('parses a span again as one when an edit closes braces another edit opened in an earlier chunk', () => {
    const tree = new ChunkedTree(parser, FUNCTIONS);
    let text = FUNCTIONS;
    const insert = (at: number, s: string): void => {
      tree.edit(at, at, s);
      text = text.slice(0, at) + s + text.slice(at);
    };
    insert(0, 'namespace ring {\n');
    // Still open: the error stays local, as in a fresh parse (one problem either way).
    expect(problems(tree)).toBe(fresh(text));
    expect(problems(tree)).toBeGreaterThan(0);
    insert(text.length, '}  // namespace ring\n');
    expect(fresh(text)).toBe(0);
    expect(problems(tree)).toBe(0);
    // And typing inside the namespace afterwards keeps it clean.
    const inside = text.indexOf('int y = x * 60;');
    insert(inside, 'int z = 0; ');
    expect(problems(tree)).toBe(0);
    tree.dispose();
  });

  it('counts braces outside comments, literals and directives', () => {
    const text = [
      'void f() {',
      '  // } in a comment',
      '  /* { */ const char* s = "{{"; char c = \'}\';',
      '  int n = 1\'000;',
      '#define OPEN {',
      '  auto r = R"x(})x";',
    ].join('\n');
    expect(braceBalance(text, 0, text.length)).toBe(1);
  });

  it('re-parses a chunk incrementally into the tree a fresh parse gives, over seeded random edits', () => {
    let seed = 7;
    const random = (): number => ((seed = (seed * 1664525 + 1013904223) >>> 0) / 2 ** 32);
    const snippets = ['x', ' ', '1', ';', '\n', '(', ')', '{', '}', 'y * 2', 'int z = 0; ', '/* c */', '(float)', 'asm volatile("nop");'];
    let text = FUNCTIONS.slice(0, FUNCTIONS.indexOf('helper_40('));
    text = text.slice(0, text.lastIndexOf('__device__'));
    const tree = new ChunkedTree(parser, text);
    const shape = (t: ChunkedTree): string[] => t.topLevel().map((n) => `${n.startIndex}:${n.endIndex}:${n.toString()}`);
    const clean = (t: string): boolean => fresh(t) === 0;
    let kept = 0;
    for (let step = 0; step < 150; step++) {
      const at = Math.floor(random() * text.length);
      const remove = random() < 0.3 ? Math.min(text.length - at, 1 + Math.floor(random() * 4)) : 0;
      const insert = remove > 0 && random() < 0.5 ? '' : snippets[Math.floor(random() * snippets.length)];
      const next = text.slice(0, at) + insert + text.slice(at + remove);
      tree.edit(at, at + remove, insert);
      if (!clean(next)) {
        // Through an error and back: undone, the chunks must be the clean parse again.
        tree.edit(at, at + insert.length, text.slice(at, at + remove));
      } else {
        text = next;
        kept++;
      }
      const want = new ChunkedTree(parser, text);
      expect(shape(tree), `step ${step}`).toEqual(shape(want));
      want.dispose();
    }
    expect(kept).toBeGreaterThan(30);
    tree.dispose();
  });
});
