// The scan's per-definition cache (scan.ts `ScanCache`) reuses what a function definition's text says
// (name, parameters, kernel or not) across edits: a scan with it must describe every function exactly as a
// scan without it, including where the same text means something else (another class, other template
// parameters, a kernel macro), and the syntax nodes it hands out must be those of the current tree.
import { beforeAll, describe, expect, it } from 'vitest';
import { named } from '../../../../core/lang/cuda/syntax-nodes';
import { Parser, loadCudaLanguage, parseWhole } from '../../../../core/lang/cuda/parser';
import { ScanCache, scanCuda, type CudaScan } from '../../../../core/lang/cuda/scan';

let parser: Parser;
beforeAll(async () => {
  const language = await loadCudaLanguage();
  parser = new Parser();
  parser.setLanguage(language);
});

const SOURCE = `struct Ring {
  __device__ void arrive(unsigned long long* bar) { asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "l"(bar)); }
};
struct Other {
  __device__ void arrive(unsigned long long* bar) { asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "l"(bar)); }
};
template <int kStages>
__device__ void wait_all(unsigned long long* bar, int parity = 0) { for (int s = 0; s < kStages; ++s) {} }
__device__ void setup(unsigned long long* bar) { asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "l"(bar)); }
KERNEL void k(float* out) { __shared__ unsigned long long bar; setup(&bar); }
__global__ void launch_site() {}
void host() { launch_site<<<1, 64>>>(); }
`;

/** Everything a scan says about the functions, as plain values, with the nodes' current positions. */
function describeScan(scan: CudaScan): unknown[] {
  return [...scan.fns.values()].flat().map((f) => ({
    name: f.name,
    params: f.params,
    templateParams: f.templateParams,
    isKernel: f.isKernel,
    memberOf: f.memberOf,
    node: [f.node.startIndex, f.node.endIndex],
    body: [f.body.startIndex, f.body.endIndex, f.body.type],
    nameNode: [f.nameNode.startIndex, f.nameNode.text],
    root: scan.roots.includes(f),
  }));
}

function scanOf(text: string, kernelMacros: string[], cache?: ScanCache): { scan: CudaScan; done: () => void } {
  const tree = parseWhole(parser, text)!;
  return { scan: scanCuda(named(tree.rootNode), text, { kernelMacros, cache }), done: () => tree.delete() };
}

describe('the scan cache', () => {
  it('describes every function as an uncached scan does, edit after edit', () => {
    // Each step changes what an unchanged definition text means, or moves it.
    const steps: Array<[string, (s: string) => string, string[]]> = [
      ['first scan', (s) => s, ['KERNEL']],
      ['same text again (all hits)', (s) => s, ['KERNEL']],
      ['a class renamed: its member keeps its text', (s) => s.replace('struct Other', 'struct Renamed'), ['KERNEL']],
      ['a template parameter renamed outside the definition', (s) => s.replace('template <int kStages>', 'template <int kDepth>'), ['KERNEL']],
      ['no kernel macro any more', (s) => s, []],
      ['lines inserted above everything: positions move', (s) => `// a comment\n\n${s}`, []],
      ['a definition edited in place', (s) => s.replace('setup(unsigned long long* bar)', 'setup(unsigned long long* bar, int n)'), ['KERNEL']],
      ['the initialising helper called: no longer a root', (s) => s.replace('void host() {', 'void host() { setup(nullptr);'), ['KERNEL']],
    ];
    const cache = new ScanCache();
    let text = SOURCE;
    for (const [what, edit, macros] of steps) {
      text = edit(text);
      const cached = scanOf(text, macros, cache);
      const fresh = scanOf(text, macros);
      expect(describeScan(cached.scan), what).toEqual(describeScan(fresh.scan));
      expect(cached.scan.launchBlockSizes.get('launch_site'), what).toEqual([64]);
      cached.done();
      fresh.done();
    }
  });

  it('tells the same text apart by its class, template parameters and kernel macros', () => {
    const cache = new ScanCache();
    const first = scanOf(SOURCE, ['KERNEL'], cache);
    const arrives = first.scan.fns.get('arrive')!;
    expect(arrives.map((f) => f.memberOf)).toEqual(['Ring', 'Other']);
    expect(first.scan.fns.get('wait_all')![0].templateParams).toEqual(['kStages']);
    expect(first.scan.fns.get('k')![0].isKernel).toBe(true);
    first.done();
    const second = scanOf(SOURCE.replace('template <int kStages>', 'template <int kDepth>'), [], cache);
    expect(second.scan.fns.get('wait_all')![0].templateParams).toEqual(['kDepth']);
    expect(second.scan.fns.get('k')![0].isKernel).toBe(false);
    second.done();
  });
});
