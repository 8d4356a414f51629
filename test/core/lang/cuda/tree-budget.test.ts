// The budget of parsed text a CUDA front end keeps (tree-budget.ts): the least recently used documents'
// trees are freed past it, the document in use never is, and a document whose trees were freed (and
// edited meanwhile) analyses exactly as the same text opened afresh.
import { beforeAll, describe, expect, it } from 'vitest';
import { ChunkedTree } from '../../../../core/lang/cuda/chunks';
import { CudaDocument } from '../../../../core/lang/cuda/document';
import { Parser, loadCudaLanguage } from '../../../../core/lang/cuda/parser';
import { TreeBudget } from '../../../../core/lang/cuda/tree-budget';

let parser: Parser;
beforeAll(async () => {
  const language = await loadCudaLanguage();
  parser = new Parser();
  parser.setLanguage(language);
});

/** A kernel whose single-thread arrive meets a barrier initialised for 2: one finding while `count` is 2. */
function kernel(name: string, count: number): string {
  return `__global__ void ${name}() {
  __shared__ unsigned long long bar;
  if (threadIdx.x == 0) asm volatile("mbarrier.init.shared::cta.b64 [%0], ${count};" :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
  __syncthreads();
  if (threadIdx.x == 0) asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
  asm volatile("{\\n .reg .pred p;\\n W:\\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], 0;\\n @!p bra W;\\n }" :: "r"((unsigned)__cvta_generic_to_shared(&bar)));
}
int main() { ${name}<<<1, 32>>>(); }
`;
}

describe('the tree budget', () => {
  it('frees the least recently used trees past the budget, never the one in use', () => {
    const budget = new TreeBudget(250);
    const trees = ['a', 'b', 'c'].map((n) => new ChunkedTree(parser, `int ${n}_value = 1;\n`.repeat(8)));
    for (const t of trees) budget.use(t);
    // Each is 152 characters: besides the one in use, one more fits.
    expect(trees.map((t) => t.isAwake)).toEqual([false, true, true]);
    // Using a sleeping tree makes room for it; reading it parses it again.
    budget.use(trees[0]);
    expect(trees.map((t) => t.isAwake)).toEqual([false, false, true]);
    expect(trees[0].topLevel()).toHaveLength(8);
    expect(trees.map((t) => t.isAwake)).toEqual([true, false, true]);
    // A tree larger than the budget alone stays awake while it is the one in use; of the others, the most
    // recently used one still fits.
    const big = new ChunkedTree(parser, 'int big_value = 1;\n'.repeat(100));
    budget.use(big);
    expect(big.isAwake).toBe(true);
    expect(trees.map((t) => t.isAwake)).toEqual([true, false, false]);
    for (const t of [...trees, big]) t.dispose();
  });

  it('parses a freed tree again, with the edits made while it slept', () => {
    const text = 'int a = 1;\nint b = 2;\n';
    const tree = new ChunkedTree(parser, text);
    tree.sleep();
    tree.edit(4, 5, 'alpha');
    expect(tree.isAwake).toBe(false);
    expect(tree.topLevel().map((n) => n.text)).toEqual(['int alpha = 1;', 'int b = 2;']);
    expect(tree.isAwake).toBe(true);
    tree.dispose();
  });

  it('analyses documents whose trees were freed as fresh documents, edit after edit', () => {
    // A budget of nothing: every document but the one in use sleeps.
    const shared = { trees: new TreeBudget(0) };
    const docs = ['k1', 'k2', 'k3'].map((n) => new CudaDocument(parser, kernel(n, 2), {}, shared));
    for (let round = 0; round < 3; round++) {
      for (const [i, doc] of docs.entries()) {
        // Alternately fixes and breaks the count: the finding must follow.
        const count = (round + i) % 2 === 0 ? 1 : 2;
        const at = doc.text.indexOf('], ') + 3;
        doc.edit(at, at + 1, String(count));
        const fresh = new CudaDocument(parser, doc.text, {});
        const got = doc.analyze({});
        const want = fresh.analyze({});
        expect(got.findings.map((f) => [f.code, f.range.start.line])).toEqual(want.findings.map((f) => [f.code, f.range.start.line]));
        expect(got.findings.length, `round ${round}, doc ${i}, count ${count}`).toBe(count === 2 ? 1 : 0);
        fresh.dispose();
      }
    }
    for (const d of docs) d.dispose();
  });
});
