import { describe, expect, it } from 'vitest';
import { Parser, loadCudaLanguage } from '../../core/lang/cuda/parser';

describe('tree-sitter-cuda', () => {
  it('loads the pinned wasm pair and parses CUDA qualifiers and inline asm', async () => {
    const lang = await loadCudaLanguage();
    const p = new Parser();
    p.setLanguage(lang);
    const tree = p.parse('__global__ void k() { __shared__ uint64_t b; asm volatile("mbarrier.init.shared.b64 [%0], 1;" :: "r"(0)); }')!;
    expect(tree.rootNode.hasError).toBe(false);
    expect(tree.rootNode.toString()).toContain('gnu_asm_expression');
  });
});
