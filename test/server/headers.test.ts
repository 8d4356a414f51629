// The language server and translation units: a kernel whose barrier helpers live in a header on the
// include path (compile_flags.txt) is analysed with them; a finding located in the header is shown on
// the `#include` line while the header is closed and in the header once it is open; editing the open
// header re-lints the kernel that includes it (the dependency graph). A header finding names the kernels
// and launches it was reached from, once however many documents reach it; `phaseflip.launch` gives the
// block of a kernel launched elsewhere.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TestClient, requireBuild } from './lsp-client';

const FAST = { lint: { debounceMs: 0 } };

/** A consumer loop in a helper: its wait's parity never flips (PF103), located in the header. */
const HEADER_BUGGY = `#pragma once
#include <cstdint>
__device__ __forceinline__ void pf_wait(uint64_t* bar, unsigned parity) {
  asm volatile("{\\n .reg .pred p;\\n W:\\n mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\\n @!p bra W;\\n }" :: "r"((unsigned)__cvta_generic_to_shared(bar)), "r"(parity));
}
__device__ __forceinline__ void pf_arrive(uint64_t* bar) {
  asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"((unsigned)__cvta_generic_to_shared(bar)));
}
__device__ __forceinline__ void pf_init(uint64_t* bar, unsigned count) {
  asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"((unsigned)__cvta_generic_to_shared(bar)), "r"(count));
}
__device__ void pf_consume(uint64_t* full, int iters) {
  unsigned phase = 0;
  for (int i = 0; i < iters; ++i) {
    if (threadIdx.x == 0) pf_arrive(full);
    pf_wait(full, phase);
  }
}
`;
const HEADER_FIXED = HEADER_BUGGY.replace('pf_wait(full, phase);\n', 'pf_wait(full, phase);\n    phase ^= 1;\n');
const WAIT_LINE = HEADER_BUGGY.split('\n').findIndex((l) => l.includes('pf_wait(full, phase)'));

const KERNEL = `#include "pf/barrier.cuh"
__global__ void consumer(float* out) {
  __shared__ uint64_t full;
  if (threadIdx.x == 0) pf_init(&full, 1);
  __syncthreads();
  pf_consume(&full, 8);
}
`;

describe('language server: headers of the translation unit', () => {
  let dir: string;
  let client: TestClient;
  let kernelUri: string;
  let headerUri: string;

  beforeAll(async () => {
    requireBuild();
    dir = mkdtempSync(path.join(tmpdir(), 'pf-lsp-headers-'));
    mkdirSync(path.join(dir, 'include', 'pf'), { recursive: true });
    writeFileSync(path.join(dir, 'include', 'pf', 'barrier.cuh'), HEADER_BUGGY);
    writeFileSync(path.join(dir, 'compile_flags.txt'), '-Iinclude\n');
    writeFileSync(path.join(dir, 'consumer.cu'), KERNEL);
    kernelUri = pathToFileURL(path.join(dir, 'consumer.cu')).href;
    headerUri = pathToFileURL(path.join(dir, 'include', 'pf', 'barrier.cuh')).href;
    client = await TestClient.start();
    await client.initialize({ initializationOptions: FAST });
  });

  afterAll(async () => {
    await client.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('shows a finding of a closed header on the #include line, then in the header once it is open, and follows edits of the header', async () => {
    await client.open(kernelUri, KERNEL);
    const first = await client.waitForDiagnostics(kernelUri, (p) => p.diagnostics.some((d) => d.code === 'PF103'));
    const onInclude = first.diagnostics.find((d) => d.code === 'PF103')!;
    expect(onInclude.range.start.line).toBe(0);
    expect(onInclude.message).toMatch(/^in included file barrier\.cuh:\d+: /);
    expect(onInclude.relatedInformation?.[0]?.location.uri).toBe(headerUri);
    expect(onInclude.relatedInformation?.[0]?.location.range.start.line).toBe(WAIT_LINE);

    // Opening the header: the finding moves there (with the kernel it was reached from as related information).
    let mark = client.diagnostics.length;
    await client.open(headerUri, HEADER_BUGGY, 'cpp');
    const inHeader = await client.waitForDiagnostics(headerUri, (p) => p.diagnostics.some((d) => d.code === 'PF103'), 20_000, mark);
    const d = inHeader.diagnostics.find((x) => x.code === 'PF103')!;
    expect(d.range.start.line).toBe(WAIT_LINE);
    expect(d.relatedInformation?.some((r) => r.location.uri === kernelUri && /reached from kernel 'consumer'/.test(r.message))).toBe(true);

    // Fixing the header in the editor (unsaved) re-lints the kernel that includes it: the finding goes away.
    mark = client.diagnostics.length;
    await client.change(headerUri, 2, [{ text: HEADER_FIXED }]);
    await client.waitForDiagnostics(headerUri, (p) => !p.diagnostics.some((x) => x.code === 'PF103'), 20_000, mark);
    const kernelAfter = await client.waitForDiagnostics(kernelUri, () => true, 20_000, mark);
    expect(kernelAfter.diagnostics.some((x) => x.code === 'PF103')).toBe(false);
  });
});

describe('language server: a header line reached from two documents at two block sizes', () => {
  const PROJECT = path.join(ROOT, 'test', 'fixtures', 'projects', 'launch-shapes');
  const header = path.join(PROJECT, 'include', 'all_arrive', 'body.cuh');
  const unit64 = path.join(PROJECT, 'src', 'shapes-64.cu');
  const unit96 = path.join(PROJECT, 'src', 'shapes-96.cu');
  const uri = (p: string) => pathToFileURL(p).href;
  let client: TestClient;

  beforeAll(async () => {
    requireBuild();
    client = await TestClient.start();
    await client.initialize({ initializationOptions: FAST });
  });

  afterAll(async () => {
    await client.stop();
  });

  it('one diagnostic in the open header, naming both kernels and both launches (their locations), and the other wording', async () => {
    const arriveLine = readFileSync(header, 'utf8').split('\n').findIndex((l) => l.includes('pf::mbar_arrive(&bar)'));
    await client.open(uri(header), readFileSync(header, 'utf8'), 'cpp');
    await client.open(uri(unit64), readFileSync(unit64, 'utf8'));
    await client.open(uri(unit96), readFileSync(unit96, 'utf8'));
    const both = (p: { diagnostics: { code?: string | number; relatedInformation?: { message: string }[] }[] }) =>
      p.diagnostics.some((d) => d.code === 'PF401' && (d.relatedInformation ?? []).some((r) => /also reached from kernel/.test(r.message)));
    const published = await client.waitForDiagnostics(uri(header), both);
    const found = published.diagnostics.filter((d) => d.code === 'PF401');
    expect(found).toHaveLength(1);
    expect(found[0].range.start.line).toBe(arriveLine);
    const related = (found[0].relatedInformation ?? []).map((r) => `${path.basename(new URL(r.location.uri).pathname)}:${r.location.range.start.line} ${r.message.replace(/ as: (\d+) threads.*/, ' as: $1 threads…')}`);
    const first = related[0].startsWith('shapes-64') ? 64 : 96;
    const other = first === 64 ? 96 : 64;
    expect(related).toEqual([
      `shapes-${first}.cu:4 reached from kernel 'all_arrive_${first}'`,
      `shapes-${first}.cu:5 'all_arrive_${first}' launched here with a block of ${first} threads`,
      `shapes-${other}.cu:4 also reached from kernel 'all_arrive_${other}' as: ${other} threads…`,
      `shapes-${other}.cu:5 'all_arrive_${other}' launched here with a block of ${other} threads`,
    ]);
  });
});

describe('language server: phaseflip.launch', () => {
  // Every thread arrives on a barrier initialised for 64, and nothing in the file launches the kernel.
  const KERNEL64 = `#include <cuda/barrier>
__global__ void k(float* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, 64);
  __syncthreads();
  bar.arrive_and_wait();
}
`;
  let dir: string;
  let client: TestClient;

  beforeAll(async () => {
    requireBuild();
    dir = mkdtempSync(path.join(tmpdir(), 'pf-lsp-launch-'));
    writeFileSync(path.join(dir, 'k.cu'), KERNEL64);
    client = await TestClient.start();
    await client.initialize({ initializationOptions: { ...FAST, launch: { k: { block: 128 } } } });
  });

  afterAll(async () => {
    await client.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  it('the setting gives the block: the real error, and the hover says where the block came from', async () => {
    const kernelUri = pathToFileURL(path.join(dir, 'k.cu')).href;
    await client.open(kernelUri, KERNEL64);
    const published = await client.waitForDiagnostics(kernelUri, (p) => p.diagnostics.some((d) => d.code === 'PF401'));
    expect(published.diagnostics.find((d) => d.code === 'PF401')?.severity).toBe(1);
    const hover = await client.hover(kernelUri, { line: 1, character: 16 });
    const text = typeof hover?.contents === 'object' && 'value' in hover.contents ? hover.contents.value : JSON.stringify(hover?.contents);
    expect(text).toMatch(/analysed at a block of 128 threads, from the setting `phaseflip\.launch` \(`"k"`\)/);
  });
});
