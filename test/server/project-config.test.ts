// The language server and the project around a document: `.phaseflip.json` (rule severities under the editor's
// settings, excluded files, its problems shown as a message without stopping the server, changes on disk picked up)
// and inline suppressions, in the document and in a header of its translation unit.
import { mkdtempSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import * as path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { CodeAction, TextDocumentEdit, TextEdit } from 'vscode-languageserver-protocol';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT, TestClient, requireBuild } from './lsp-client';

const FAST = { lint: { debounceMs: 0 } };
const BUG = readFileSync(path.join(ROOT, 'examples/bugs/continue_skips_release.cu'), 'utf8');
const BUG_LINE = BUG.split('\n').findIndex((l) => l.includes('// expect: PF403'));
const ERROR = 1;
const HINT = 4;
const INFORMATION = 3;

let dir: string;
const uriOf = (rel: string) => pathToFileURL(path.join(dir, rel)).href;
function write(rel: string, text: string): string {
  const file = path.join(dir, rel);
  mkdirSync(path.dirname(file), { recursive: true });
  writeFileSync(file, text);
  return uriOf(rel);
}

beforeAll(() => {
  requireBuild();
  dir = mkdtempSync(path.join(tmpdir(), 'pf-lsp-config-'));
});
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('language server: .phaseflip.json', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start();
    await client.initialize({ initializationOptions: FAST });
  });
  afterAll(async () => {
    await client.stop();
  });

  it('its rule severities apply; a change on disk is picked up after a watched-file event', async () => {
    write('a/.phaseflip.json', JSON.stringify({ rules: { PF403: 'error' } }));
    const uri = write('a/k.cu', BUG);
    await client.open(uri, BUG);
    const first = await client.waitForDiagnostics(uri, (p) => p.diagnostics.some((d) => d.code === 'PF403'));
    expect(first.diagnostics.find((d) => d.code === 'PF403')!.severity).toBe(ERROR);

    write('a/.phaseflip.json', JSON.stringify({ rules: { 'arrival-on-one-path': 'off' } }));
    const mark = client.diagnostics.length;
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: uriOf('a/.phaseflip.json'), type: 2 }] });
    const after = await client.waitForDiagnostics(uri, () => true, 20_000, mark);
    expect(after.diagnostics.filter((d) => d.code === 'PF403')).toEqual([]);
  });

  it('unsaved edits to an open .phaseflip.json are not used (as clangd with .clangd): the saved file is (docs/configuration.md)', async () => {
    write('u/.phaseflip.json', JSON.stringify({ rules: { PF403: 'error' } }));
    const uri = write('u/k.cu', BUG);
    const configUri = uriOf('u/.phaseflip.json');
    await client.open(configUri, JSON.stringify({ rules: { PF403: 'off' } }), 'json');
    await client.open(uri, BUG);
    const first = await client.waitForDiagnostics(uri, (p) => p.diagnostics.some((d) => d.code === 'PF403'));
    expect(first.diagnostics.find((d) => d.code === 'PF403')!.severity).toBe(ERROR);
    // An edit of the document re-lints it: the unsaved config text still does not apply.
    let mark = client.diagnostics.length;
    await client.change(uri, 2, [{ text: `${BUG}\n` }]);
    const edited = await client.waitForDiagnostics(uri, (p) => p.version === 2, 20_000, mark);
    expect(edited.diagnostics.find((d) => d.code === 'PF403')?.severity).toBe(ERROR);
    // Saved (the watcher reports the change on disk): now it applies.
    write('u/.phaseflip.json', JSON.stringify({ rules: { PF403: 'off' } }));
    mark = client.diagnostics.length;
    await client.connection.sendNotification('workspace/didChangeWatchedFiles', { changes: [{ uri: configUri, type: 2 }] });
    const saved = await client.waitForDiagnostics(uri, () => true, 20_000, mark);
    expect(saved.diagnostics.filter((d) => d.code === 'PF403')).toEqual([]);
    await client.close(configUri);
  });

  it('its launch shapes and include paths reach the analysis, as on the command line', async () => {
    write('s/.phaseflip.json', JSON.stringify({ launch: { k: { block: 128 } }, includePaths: ['inc'] }));
    write('s/inc/count.h', '#define ARRIVALS 64\n');
    const text = `#include <cuda/barrier>
#include "count.h"
__global__ void k(float* out) {
  __shared__ cuda::barrier<cuda::thread_scope_block> bar;
  if (threadIdx.x == 0) init(&bar, ARRIVALS);
  __syncthreads();
  bar.arrive_and_wait();
  out[threadIdx.x] = 1.f;
}
`;
    const uri = write('s/k.cu', text);
    await client.open(uri, text);
    const d = await client.waitForDiagnostics(uri, (p) => p.diagnostics.some((x) => x.code === 'PF401'));
    const pf401 = d.diagnostics.find((x) => x.code === 'PF401')!;
    // An error at the configured 128 threads (64 arrivals expected): the header was found and the shape applied.
    expect(pf401.severity).toBe(ERROR);
    expect(pf401.message).toMatch(/^128 threads execute this arrive/);
    expect(d.diagnostics.filter((x) => /include/i.test(x.message))).toEqual([]);
  });

  it('a file it excludes gets no diagnostics, while symbols still answer', async () => {
    write('b/.phaseflip.json', JSON.stringify({ exclude: ['vendor/'] }));
    const uri = write('b/vendor/v.cu', BUG);
    await client.open(uri, BUG);
    const published = await client.waitForDiagnostics(uri);
    expect(published.diagnostics).toEqual([]);
    const symbols = (await client.documentSymbols(uri)) as { name: string }[];
    expect(symbols.length).toBeGreaterThan(0);
  });

  it('its problems are shown once as a warning naming the file and key; the server keeps linting with the rest', async () => {
    write('c/.phaseflip.json', JSON.stringify({ rules: { PF403: 'error' }, exclud: ['x'] }));
    const uri = write('c/k.cu', BUG);
    await client.open(uri, BUG);
    const published = await client.waitForDiagnostics(uri, (p) => p.diagnostics.some((d) => d.code === 'PF403'));
    expect(published.diagnostics.find((d) => d.code === 'PF403')!.severity).toBe(ERROR);
    const config = path.join(dir, 'c', '.phaseflip.json');
    const warnings = client.messages.filter((m) => m.message.includes(config));
    expect(warnings).toEqual([{ type: 2, message: `Phaseflip: ${config}: exclud: unknown key (expected rules, includePaths, defines, launch, cudaArch, compileCommands, exclude)` }]);
    // The same problem is also an information note on the file (the compile flags' problems are).
    expect(published.diagnostics.some((d) => d.severity === INFORMATION && d.message.includes('exclud: unknown key'))).toBe(true);
    // Opening another file under it does not repeat the message.
    const other = write('c/k2.cu', BUG);
    await client.open(other, BUG);
    await client.waitForDiagnostics(other, (p) => p.diagnostics.some((d) => d.code === 'PF403'));
    expect(client.messages.filter((m) => m.message.includes(config))).toHaveLength(1);
  });

  it('a file that is not JSON does not stop the server', async () => {
    write('d/.phaseflip.json', '{ "rules": { "PF403": "off", } ');
    const uri = write('d/k.cu', BUG);
    await client.open(uri, BUG);
    const published = await client.waitForDiagnostics(uri, (p) => p.diagnostics.some((d) => d.code === 'PF403'));
    expect(published.diagnostics.find((d) => d.code === 'PF403')!.severity).not.toBe(ERROR);
    expect(client.messages.some((m) => m.type === 2 && m.message.includes(`${path.join(dir, 'd', '.phaseflip.json')}: not valid JSON`))).toBe(true);
    expect(client.alive).toBe(true);
  });
});

describe('language server: the editor settings win over .phaseflip.json', () => {
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start();
    await client.initialize({ initializationOptions: { ...FAST, rules: { 'arrival-on-one-path': 'hint' } } });
  });
  afterAll(async () => {
    await client.stop();
  });

  it('a severity set in phaseflip.rules (by id) overrides the file (by code)', async () => {
    write('e/.phaseflip.json', JSON.stringify({ rules: { PF403: 'error' } }));
    const uri = write('e/k.cu', BUG);
    await client.open(uri, BUG);
    const published = await client.waitForDiagnostics(uri, (p) => p.diagnostics.some((d) => d.code === 'PF403'));
    expect(published.diagnostics.find((d) => d.code === 'PF403')!.severity).toBe(HINT);
  });
});

describe('language server: inline suppressions', () => {
  const HEADER = `#pragma once
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
    // phaseflip-ignore PF103: the caller flips the phase
    pf_wait(full, phase);
  }
}
// phaseflip-ignore-file PF401
`;
  const KERNEL = `#include "barrier.cuh"
__global__ void consumer(float* out) {
  __shared__ uint64_t full;
  if (threadIdx.x == 0) pf_init(&full, 1);
  __syncthreads();
  pf_consume(&full, 8);
}
`;
  let client: TestClient;
  beforeAll(async () => {
    client = await TestClient.start();
    await client.initialize({ initializationOptions: FAST });
  });
  afterAll(async () => {
    await client.stop();
  });

  it('a directive in the document suppresses its finding and an unused one is an information diagnostic', async () => {
    const lines = BUG.split('\n');
    lines[BUG_LINE] = lines[BUG_LINE]!.replace('// expect: PF403', '// phaseflip-ignore PF403: tiles are never empty');
    const text = `// phaseflip-ignore-file PF201: stale\n${lines.join('\n')}`;
    const uri = write('s/k.cu', text);
    await client.open(uri, text);
    const published = await client.waitForDiagnostics(uri, (p) => p.diagnostics.some((d) => d.code === 'PF000'));
    expect(published.diagnostics.map((d) => [d.code, d.severity, d.range.start.line])).toEqual([['PF000', INFORMATION, 0]]);
  });

  it('offers a quick fix that suppresses a finding on its line; applied, the finding goes and PF001 asks for the reason', async () => {
    const uri = write('s/fix.cu', BUG);
    await client.open(uri, BUG);
    const published = await client.waitForDiagnostics(uri, (p) => p.diagnostics.some((d) => d.code === 'PF403'));
    const diagnostic = published.diagnostics.find((d) => d.code === 'PF403')!;
    const actions = (await client.codeActions(uri, diagnostic.range, [diagnostic])) as CodeAction[];
    const suppress = actions.find((a) => a.title === 'Suppress PF403 on this line (// phaseflip-ignore)');
    expect(suppress, actions.map((a) => a.title).join(' | ')).toBeDefined();
    expect(suppress!.isPreferred).toBeFalsy();
    const edits = (suppress!.edit!.documentChanges![0] as TextDocumentEdit).edits as TextEdit[];
    const mark = client.diagnostics.length;
    await client.change(uri, 2, edits.map((e) => ({ range: e.range, text: e.newText })));
    const after = await client.waitForDiagnostics(uri, (p) => p.version === 2, 20_000, mark);
    expect(after.diagnostics.map((d) => [d.code, d.range.start.line])).toEqual([['PF001', BUG_LINE]]);
  });

  it("a header's directive suppresses its finding in the including file's unit; in the open header, directives are never called unused (another file may need them), a missing reason is reported", async () => {
    write('h/barrier.cuh', HEADER);
    const kernelUri = write('h/consumer.cu', KERNEL);
    await client.open(kernelUri, KERNEL);
    const kernel = await client.waitForDiagnostics(kernelUri);
    expect(kernel.diagnostics.filter((d) => d.code === 'PF103' || d.code === 'PF000')).toEqual([]);

    const headerUri = uriOf('h/barrier.cuh');
    await client.open(headerUri, HEADER, 'cpp');
    const header = await client.waitForDiagnostics(headerUri, (p) => p.diagnostics.some((d) => d.code === 'PF001'));
    const lastLine = HEADER.split('\n').findIndex((l) => l.includes('phaseflip-ignore-file PF401'));
    expect(header.diagnostics.filter((d) => typeof d.code === 'string' && /^PF/.test(d.code)).map((d) => [d.code, d.range.start.line])).toEqual([['PF001', lastLine]]);
  });
});
